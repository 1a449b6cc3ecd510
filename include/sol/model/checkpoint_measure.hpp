#pragma once
// The planner's predictions beside a GPU measurement (`sol checkpoint ... --measure`): for each
// schedule, the predicted peak activation memory and step-time floor (checkpoint.hpp's Plan) and
// what a real forward + backward on the GPU held and took (kernels/transformer/stack.hpp), plus
// whether its gradients were bit-identical to the un-checkpointed run's. Host-only: the JSON is
// written on the GPU machine and rendered anywhere (`sol docs` fills docs/checkpoint.md from it).
#include <string>
#include <vector>

#include "sol/model/checkpoint.hpp"

namespace sol::model {

struct MeasuredSchedule {
  Plan plan;                        // the prediction
  double saved_peak_bytes = 0;      // high-water of the tensors the planner counts (its "peak activations")
  double total_peak_bytes = 0;      // high-water of everything the step allocated (saved + transient)
  double pool_used_high_bytes = 0;  // the memory pool's own high-water mark
  double device_delta_bytes = 0;    // cudaMemGetInfo: free before − least free during one step
  std::vector<double> step_s;       // each timed step (forward + backward), GPU time between events
  double median_s = 0;
  double enqueue_median_s = 0;      // host time to issue one step (≈ median_s: launch-bound)
  bool gradients_identical = false;  // memcmp against the first schedule ("none")
};

struct CheckpointMeasurement {
  std::string created;  // ISO-8601 UTC
  std::string device;   // "NVIDIA H200"
  std::string gpu_row;  // database row the predictions used
  StackShape shape;
  double budget_bytes = 0;  // the budget handed to optimal()
  int warmup = 0, reps = 0;
  LayerModel layer;
  std::vector<MeasuredSchedule> schedules;
};

double median(std::vector<double> v);  // 0 for an empty vector

// The JSON text (schema in docs/checkpoint.md, "measurement JSON").
std::string measurement_json(const CheckpointMeasurement& m);
// The Markdown block (one table row per schedule, ratios measured/predicted) from that JSON text.
// Throws sol::Error (BadInput) naming origin when the text is not such a file.
std::string measurement_markdown(const std::string& json_text, const std::string& origin);
// That block for <results_dir>/checkpoint/measured.json (a subfolder: it is not a kernel results
// file), or "" when the folder holds none. Throws as measurement_markdown for a malformed file.
std::string measurement_markdown_in(const std::string& results_dir);

}  // namespace sol::model

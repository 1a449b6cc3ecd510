// The checkpoint planner's GPU proof (bench/checkpoint.hpp).
#include "bench/checkpoint.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "bench/harness.hpp"
#include "kernels/transformer/stack.hpp"
#include "sol/core/error.hpp"

namespace sol::bench {
namespace {

// bf16 bits that are NaN or ±∞ (exponent all ones): a gradient left unwritten is the NaN poison.
int64_t non_finite_bf16(const std::vector<uint16_t>& bits) {
  int64_t n = 0;
  for (uint16_t b : bits) n += (b & 0x7F80u) == 0x7F80u;
  return n;
}

}  // namespace

void measure_checkpoint_plans(model::CheckpointMeasurement& m, const std::vector<model::Plan>& plans, int ordinal) {
  std::string why;
  if (!transformer::device_available(&why)) failure(why + ": --measure needs a CUDA GPU", "run it on a GPU machine");
  select_device(ordinal);
  transformer::Stack stack(m.shape, 2026);
  m.device = transformer::device_name();
  std::vector<uint16_t> reference;
  for (const model::Plan& p : plans) {
    std::fprintf(stderr, "sol: measuring %s\n", p.strategy.c_str());
    model::MeasuredSchedule r;
    r.plan = p;
    const transformer::StepMemory mem = stack.step(p.segments, /*sample_device=*/true);
    const std::vector<uint16_t> grads = stack.gradients();
    if (const int64_t bad = non_finite_bf16(grads); bad > 0)
      failure(p.strategy + ": " + std::to_string(bad) + " gradient elements are NaN or infinite");
    if (reference.empty()) reference = grads;
    r.gradients_identical =
        grads.size() == reference.size() && std::memcmp(grads.data(), reference.data(), grads.size() * 2) == 0;
    r.saved_peak_bytes = mem.saved_peak;
    r.total_peak_bytes = mem.total_peak;
    r.pool_used_high_bytes = mem.pool_used_high;
    r.device_delta_bytes = mem.device_delta;
    std::vector<double> enqueue_ms;
    for (double ms : stack.time_steps(p.segments, m.warmup, m.reps, &enqueue_ms)) r.step_s.push_back(ms * 1e-3);
    r.median_s = model::median(r.step_s);
    r.enqueue_median_s = model::median(enqueue_ms) * 1e-3;
    m.schedules.push_back(std::move(r));
  }
}

}  // namespace sol::bench

// Predictions beside measurements for the checkpointing planner: the JSON a GPU run writes and
// the Markdown table rendered from it (terminal and docs/checkpoint.md show the same table).
#include "sol/model/checkpoint_measure.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/input.hpp"
#include "sol/core/format.hpp"

namespace sol::model {
namespace {

using ojson = nlohmann::ordered_json;

// "KK|R|RR": one letter per layer, K kept, R recomputed, | between segments.
std::string picture(const std::vector<Segment>& segs) {
  std::string s;
  for (const auto& g : segs) {
    if (!s.empty()) s += '|';
    s += std::string(size_t(g.length), g.recompute ? 'R' : 'K');
  }
  return s;
}

// A table cell's text: GitHub's tables split cells at '|' even inside code spans unless escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string ratio(double measured, double predicted) {
  if (!(predicted > 0)) return "–";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", measured / predicted);
  return buf;
}

template <class T>
T field(const ojson& j, const char* key, const std::string& origin) {
  if (!j.contains(key)) bad_input(origin + ": missing field '" + key + "'", "write it with sol checkpoint --measure --json FILE");
  try {
    return j.at(key).get<T>();
  } catch (const ojson::exception& e) {
    bad_input(origin + ": field '" + key + "' has the wrong type (" + e.what() + ")");
  }
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string measurement_json(const CheckpointMeasurement& m) {
  ojson j;
  j["kind"] = "checkpoint-measurement";
  j["created"] = m.created;
  j["device"] = m.device;
  j["gpu_row"] = m.gpu_row;
  j["shape"] = {{"layers", m.shape.layers}, {"batch", m.shape.batch},     {"seq", m.shape.seq},
                {"d_model", m.shape.d_model}, {"heads", m.shape.heads},   {"mlp_ratio", m.shape.mlp_ratio},
                {"attention", m.shape.flash ? "flash" : "standard"}, {"dtype", "bf16"}};
  j["layer"] = {{"input_bytes", m.layer.input_bytes}, {"internal_bytes", m.layer.internal_bytes},
                {"flops", m.layer.flops}, {"floor_s", m.layer.floor_s}};
  j["budget_bytes"] = m.budget_bytes;
  j["warmup"] = m.warmup;
  j["reps"] = m.reps;
  j["measured_includes"] =
      "saved_peak_bytes: the tensors the planner counts (layer inputs / checkpoints, LN stats and outputs, Q, K, V, "
      "logsumexp, O, residual-1 output, MLP up and GeLU outputs), kept or re-materialized; total_peak_bytes adds every "
      "transient of the step (out-proj and MLP-down outputs, the stack output, activation gradients, transposed "
      "copies, attention and LayerNorm workspaces); weights and weight gradients are outside both";
  bool all_identical = !m.schedules.empty();
  ojson list = ojson::array();
  for (const auto& s : m.schedules) {
    all_identical = all_identical && s.gradients_identical;
    ojson segs = ojson::array();
    for (const auto& g : s.plan.segments) segs.push_back({{"first", g.first}, {"length", g.length}, {"recompute", g.recompute}});
    list.push_back({{"strategy", s.plan.strategy},
                    {"picture", picture(s.plan.segments)},
                    {"segments", segs},
                    {"predicted", {{"peak_bytes", s.plan.peak_bytes}, {"step_s", s.plan.step_s}, {"extra_s", s.plan.extra_s},
                                   {"recomputed_layers", s.plan.recomputed_layers}}},
                    {"measured", {{"saved_peak_bytes", s.saved_peak_bytes}, {"total_peak_bytes", s.total_peak_bytes},
                                  {"pool_used_high_bytes", s.pool_used_high_bytes},
                                  {"device_delta_bytes", s.device_delta_bytes}, {"median_s", s.median_s},
                                  {"enqueue_median_s", s.enqueue_median_s},
                                  {"step_s", s.step_s}}},
                    {"gradients_identical", s.gradients_identical}});
  }
  j["schedules"] = list;
  j["gradients_identical"] = all_identical;
  return j.dump(2) + "\n";
}

std::string measurement_markdown(const std::string& json_text, const std::string& origin) {
  ojson j;
  try {
    j = ojson::parse(json_text);
  } catch (const ojson::parse_error& e) {
    bad_input(origin + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || field<std::string>(j, "kind", origin) != "checkpoint-measurement")
    bad_input(origin + ": not a checkpoint measurement (kind must be checkpoint-measurement)");
  const ojson shape = field<ojson>(j, "shape", origin);
  const auto sh = [&](const char* k) { return std::to_string(field<int64_t>(shape, k, origin + " shape")); };
  std::string out;
  out += sh("layers") + " layers, batch " + sh("batch") + ", seq " + sh("seq") + ", d_model " + sh("d_model") + ", " +
         sh("heads") + " heads, MLP " + sh("mlp_ratio") + "·d, " + field<std::string>(shape, "attention", origin) +
         " attention, bf16, on " + field<std::string>(j, "device", origin) + " (predictions for " +
         field<std::string>(j, "gpu_row", origin) + "); step = forward + backward, median of " +
         std::to_string(field<int>(j, "reps", origin)) + " after " + std::to_string(field<int>(j, "warmup", origin)) +
         " warm-up; optimal's budget " + bytes_iec(field<double>(j, "budget_bytes", origin)) + ".\n\n";
  out += "| schedule | layers (K kept, R recomputed) | peak predicted | peak measured | ratio | step total peak | "
         "step floor predicted | step measured | ratio | host enqueue | recompute predicted | recompute measured | "
         "gradients identical |\n";
  out += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  const ojson list = field<ojson>(j, "schedules", origin);
  if (!list.is_array() || list.empty()) bad_input(origin + ": no schedules");
  double base_s = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const ojson& s = list[i];
    const std::string w = origin + " schedule " + std::to_string(i);
    const ojson p = field<ojson>(s, "predicted", w), m = field<ojson>(s, "measured", w);
    const double pp = field<double>(p, "peak_bytes", w), mp = field<double>(m, "saved_peak_bytes", w);
    const double ps = field<double>(p, "step_s", w), ms = field<double>(m, "median_s", w);
    if (i == 0) base_s = ms;  // the first schedule is "none": recompute measured is the difference to it
    out += "| " + cell(field<std::string>(s, "strategy", w)) + " | `" + cell(field<std::string>(s, "picture", w)) + "` | " +
           bytes_iec(pp) + " | " + bytes_iec(mp) + " | " + ratio(mp, pp) + " | " +
           bytes_iec(field<double>(m, "total_peak_bytes", w)) + " | " + si(ps, "s") + " | " + si(ms, "s") + " | " +
           ratio(ms, ps) + " | " + si(field<double>(m, "enqueue_median_s", w), "s") + " | " +
           si(field<double>(p, "extra_s", w), "s") + " | " +
           (i == 0 ? std::string("–") : si(ms - base_s, "s")) + " | " +
           (field<bool>(s, "gradients_identical", w) ? "yes" : "**no**") + " |\n";
  }
  out += "\ngradients identical to the un-checkpointed run (memcmp of dX and every layer's dW, dγ, dβ): ";
  out += field<bool>(j, "gradients_identical", origin) ? "yes\n" : "**no**\n";
  return out;
}

std::string measurement_markdown_in(const std::string& results_dir) {
  const std::filesystem::path path = std::filesystem::path(results_dir) / "checkpoint" / "measured.json";
  if (!std::filesystem::exists(path)) return "";
  return measurement_markdown(read_input_file(path.string(), "checkpoint measurement"), path.string());
}

}  // namespace sol::model

// `sol checkpoint --layers L --batch B --seq N --d-model D --heads H --gpu NAME [--budget 40GiB]
// [--attention flash|standard] [--mlp-ratio 4] [--svg FILE] [--json] [--out FILE]`: what one transformer layer
// keeps for backward, op by op, then each checkpointing strategy's peak activation memory, recompute
// and step time (predicted for the kernels the stack launches; --results DIR: on the ceilings measured
// there, with the per-kernel breakdown and DIR/checkpoint/measured.json's steps beside), and the
// fastest schedule under the budget, with whole layers recomputed and
// with the in-block choice of which ops' tensors to keep (lecture §8.2); --svg draws the schedules.
// --measure runs the stack forward + backward on the GPU (kernels/transformer/) under none, every
// block, √L and optimal (under --budget, or halfway between √L's and none's peak): measured peak
// activation memory and step time beside the predictions, and whether the gradients are
// bit-identical to the un-checkpointed run's; --out FILE writes that measurement's JSON beside the table.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/model/checkpoint_measure.hpp"
#include "sol/predict.hpp"
#include "sol/step_model.hpp"
#include "sol/report/checkpoint.hpp"
#include "sol/results.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/checkpoint.hpp"
#endif

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;

struct Args {
  int64_t layers = 0, batch = 0, seq = 0, d_model = 0, heads = 0, mlp_ratio = 4;
  std::string gpu = "h200", budget, attention = "flash", svg, results;
  JsonOut json;
  bool measure = false;
  int warmup = 3, reps = 10, device = 0;
};

#ifdef SOL_WITH_CUDA
std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void write_text(const std::string& path, const std::string& text) {
  std::error_code ec;  // bench/results/<gpu>/checkpoint/ may not exist yet
  if (const auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  std::ofstream out(path);
  if (!out || !(out << text) || !out.flush()) bad_input("cannot write " + path, "give a path in a writable directory");
}
#endif

// The GPU proof: the planner's schedules run for real, predictions beside measurements.
int measure(const Args& a, const model::StackShape& shape, const model::LayerModel& layer, const hw::HwSpec& spec) {
#ifndef SOL_WITH_CUDA
  (void)a, (void)shape, (void)layer, (void)spec;
  failure("--measure runs the stack on a GPU, and this sol was built without CUDA", "build with nvcc and run on a CUDA GPU");
#else
  if (!shape.flash) bad_input("--measure runs FlashAttention only", "drop --attention standard");
  if (a.warmup < 0 || a.reps < 1) bad_input("--warmup must be ≥ 0 and --reps ≥ 1");
  const model::Plan none = model::no_checkpoints(layer, a.layers), root = model::sqrt_l(layer, a.layers);
  const double budget =
      a.budget.empty() ? 0.5 * (none.total_peak_bytes + root.total_peak_bytes) : parse_bytes("--budget", a.budget);
  const std::vector<model::Plan> plans = {none, model::every_kth(layer, a.layers, 1), root,
                                          model::optimal(layer, a.layers, budget)};
  model::CheckpointMeasurement m;
  m.created = utc_now();
  m.gpu_row = spec.name;
  m.shape = shape;
  m.budget_bytes = budget;
  m.warmup = a.warmup;
  m.reps = a.reps;
  m.layer = layer;
  bench::measure_checkpoint_plans(m, plans, a.device);
  bool identical = true;
  for (const auto& r : m.schedules) identical = identical && r.gradients_identical;
  const std::string json = model::measurement_json(m);
  if (a.json.flag && a.json.file.empty()) {
    std::printf("%s", json.c_str());
    return identical ? 0 : 1;
  }
  if (!a.json.file.empty()) write_text(a.json.file, json);
  std::printf("%s", markdown_text(model::measurement_markdown(json, "this run")).c_str());
  std::printf("peak measured = high-water of the tensors the planner counts; step total peak adds activation "
              "gradients, transposes and workspaces; weights and their gradients are outside both\n");
  for (const auto& r : m.schedules)
    std::printf("  %-24s pool high-water %s, cudaMemGetInfo delta %s\n", r.plan.strategy.c_str(),
                bytes_iec(r.pool_used_high_bytes).c_str(), bytes_iec(r.device_delta_bytes).c_str());
  for (const auto& r : m.schedules)
    if (r.enqueue_median_s > 0.8 * r.median_s)
      std::printf("note: %s took the host %s to issue against %s on the GPU: launch-bound, the GPU time is the "
                  "host's (raise --batch)\n",
                  r.plan.strategy.c_str(), si(r.enqueue_median_s, "s").c_str(), si(r.median_s, "s").c_str());
  if (!a.json.file.empty()) std::printf("JSON: %s\n", a.json.file.c_str());
  return identical ? 0 : 1;  // a schedule whose gradients differ fails the proof
#endif
}

// "K K R R R K": one letter per layer, K kept, R recomputed, with | between segments.
std::string picture(const model::Plan& p) {
  std::string s;
  for (const auto& seg : p.segments) {
    if (!s.empty()) s += '|';
    s += std::string(size_t(seg.length), seg.recompute ? 'R' : 'K');
  }
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

// One layer's kernels with their predictions (one row per op; launches × one launch's time).
void print_breakdown(const predict::StackOps& ops) {
  Table t({"phase", "op", "launches", "predicted", "binding term"});
  t.align(1, Table::Align::Left);
  t.align(4, Table::Align::Left);
  const auto rows = [&t](const char* phase, const std::vector<predict::StepOp>& list, double sum) {
    for (const auto& op : list)
      t.add_row({phase, op.name, std::to_string(op.count), si(op.seconds(), "s"), op.prediction.limit});
    t.add_row({phase, "total", "", si(sum, "s"), ""});
  };
  rows("forward", ops.forward, ops.forward_s);
  rows("backward", ops.backward, ops.backward_s);
  rows("per step", ops.once, ops.once_s);
  std::printf("%s\n", t.str().c_str());
}

// The predicted step of each schedule in <results>/checkpoint/measured.json beside its measured
// median, when the file measured this shape; "" when there is none to compare.
std::string measured_comparison(const Args& a, const model::StackShape& shape, const model::LayerModel& layer,
                                ojson* out) {
  if (a.results.empty()) return {};
  const std::filesystem::path path = std::filesystem::path(a.results) / "checkpoint" / "measured.json";
  if (std::error_code ec; !std::filesystem::exists(path, ec)) return {};
  ojson j;
  try {
    j = ojson::parse(read_input_file(path.string(), "checkpoint measurement"));
    const ojson& sh = j.at("shape");
    if (sh.at("layers").get<int64_t>() != shape.layers || sh.at("batch").get<int64_t>() != shape.batch ||
        sh.at("seq").get<int64_t>() != shape.seq || sh.at("d_model").get<int64_t>() != shape.d_model ||
        sh.at("heads").get<int64_t>() != shape.heads || sh.at("mlp_ratio").get<int64_t>() != shape.mlp_ratio ||
        !shape.flash)
      return "(" + path.string() + " measured another shape: no comparison)\n";
    Table t({"schedule", "predicted step", "measured", "error"});
    t.align(0, Table::Align::Left);
    for (const ojson& s : j.at("schedules")) {
      std::vector<model::Segment> segs;
      for (const ojson& g : s.at("segments"))
        segs.push_back({g.at("first").get<int64_t>(), g.at("length").get<int64_t>(), g.at("recompute").get<bool>()});
      const model::Plan p = model::evaluate(layer, shape.layers, segs, s.at("strategy").get<std::string>());
      const double measured = s.at("measured").at("median_s").get<double>();
      const double err = (p.step_s - measured) / measured;
      t.add_row({s.at("picture").get<std::string>(), si(p.step_s, "s"), si(measured, "s"),
                 (err >= 0 ? "+" : "") + fixed(100 * err, 1) + " %"});
      if (out)
        out->push_back({{"strategy", p.strategy}, {"picture", s.at("picture")}, {"predicted_step_s", p.step_s},
                        {"measured_step_s", measured}, {"error", err}});
    }
    return "Predicted against " + path.string() + " (median of its timed steps; it holds no per-op times):\n" +
           t.str() + "\n";
  } catch (const nlohmann::json::exception& e) {
    bad_input(path.string() + " is not a checkpoint measurement: " + e.what());
  }
}

int run(const Args& a) {
  if (a.attention != "flash" && a.attention != "standard")
    bad_input("--attention must be flash or standard, got '" + a.attention + "'");
  if (a.layers < 1) bad_input("give --layers (≥ 1)");
  const hw::HwSpec& spec = hw::find(a.gpu);
  const model::StackShape shape{a.layers, a.batch, a.seq, a.d_model, a.heads, a.mlp_ratio, a.attention == "flash"};
  model::LayerModel layer = model::layer_model(shape, spec);
  const StepModel steps = step_model(shape, spec, a.results);
  if (steps.ops) predict::apply(*steps.ops, layer, steps.source);
  const double budget = a.budget.empty() ? spec.hbm_bytes : parse_bytes("--budget", a.budget);
  if (!(budget > 0)) bad_input("no --budget given and " + spec.name + " has no HBM size", "give --budget");
  if (a.measure) return measure(a, shape, layer, spec);

  const std::vector<model::Plan> plans = model::candidate_plans(layer, a.layers, budget);  // throws (exit 2) if nothing fits
  const model::Plan& best = plans.back();
  if (!a.svg.empty()) {
    std::ofstream out(a.svg);
    if (!out) bad_input("cannot write --svg " + a.svg, "give a path in a writable directory");
    out << report::plans_svg(layer, a.layers, plans, budget,
                            std::to_string(a.layers) + " layers, B=" + std::to_string(a.batch) + " N=" +
                                std::to_string(a.seq) + " d=" + std::to_string(a.d_model) + ", " + a.attention +
                                " attention on " + spec.name + ": what each schedule keeps");
    if (!out.flush()) bad_input("cannot write --svg " + a.svg);
  }

  if (a.json.on()) {
    ojson j = ojson::parse(model::checkpoint_json(spec.name, a.layers, a.attention, budget, layer, plans));
    if (steps.ops) j["kernels"] = ojson::parse(step_kernels_json(*steps.ops));
    ojson cmp = ojson::array();
    measured_comparison(a, shape, layer, &cmp);
    if (!cmp.empty()) j["measured"] = cmp;
    emit_json(a.json, j);
    return 0;
  }

  std::printf("One layer: B=%lld N=%lld d=%lld H=%lld MLP %lld·d, %s attention, bf16 on %s\n", (long long)a.batch,
              (long long)a.seq, (long long)a.d_model, (long long)a.heads, (long long)a.mlp_ratio, a.attention.c_str(),
              spec.full_name.c_str());
  Table ops({"op", "saved for backward", "what", "forward", "floor", "time"});
  ops.align(2, Table::Align::Left);
  ops.add_row({"layer input", bytes_iec(layer.input_bytes), "the residual stream [T×d] (a checkpoint)", "", "", ""});
  for (const auto& op : layer.ops)
    ops.add_row({op.name, bytes_iec(op.saved_bytes), op.saved_what, si(op.flops, "FLOP"), si(op.floor_s, "s"),
                 op.time_s > 0 ? si(op.time_s, "s") : "-"});
  ops.add_row({"layer", bytes_iec(layer.input_bytes + layer.internal_bytes), "", si(layer.flops, "FLOP"),
               si(layer.floor_s, "s"), layer.forward_s > 0 ? si(layer.forward_s, "s") : "-"});
  std::printf("%s\n", ops.str().c_str());
  if (steps.ops) {
    std::printf("%s", reflow("Step times: predicted for the kernels the stack launches, on " + steps.source +
                             "; one layer's backward " + si(layer.backward_s, "s") + ", per step " +
                             si(layer.step_once_s, "s") + " of copies\n").c_str());
    if (!a.results.empty()) print_breakdown(*steps.ops);
    std::printf("%s", measured_comparison(a, shape, layer, nullptr).c_str());
  } else {
    std::printf("Step times: roofline floors (%s; no kernels to predict)\n", steps.why_not.c_str());
  }

  std::printf("%s", reflow("In-block choices (each the least re-run time for what a kept layer keeps; drop a tensor, "
                           "re-run its producers in backward; times as the layer's):\n")
                        .c_str());
  Table choices({"kept / layer", "dropped", "re-run in backward", "re-run"});
  choices.align(1, Table::Align::Left);
  choices.align(2, Table::Align::Left);
  for (const model::InBlockChoice& c : model::in_block_frontier(layer)) {
    model::Plan view;
    view.in_block = c;
    choices.add_row({bytes_iec(c.kept_bytes), joined(model::dropped_ops(layer, view)), joined(model::rerun_ops(layer, view)),
                     si(c.rerun_s, "s")});
  }
  std::printf("%s\n", choices.str().c_str());

  std::printf("%s", reflow(std::to_string(a.layers) + " layers, budget " + bytes_iec(budget) +
                            ": saved = kept + largest recomputed segment re-materialized; total = saved + " +
                            bytes_iec(layer.transient_bytes) + " of backward transients (" + layer.transient_what +
                            "); step = forward + backward + recompute" + (steps.ops ? " + the step's copies, predicted" : ", floors (backward 2× forward)") + "\n")
                         .c_str());
  // The recompute's FLOPs are in --json (extra_flops); its time is the column here.
  Table t({"strategy", "checkpoints", "largest seg", "saved", "total", "fits", "extra time", "step"});
  for (const auto& p : plans)
    t.add_row({p.strategy, std::to_string(p.checkpoints), std::to_string(p.largest_segment), bytes_iec(p.peak_bytes),
               bytes_iec(p.total_peak_bytes), p.total_peak_bytes <= budget ? "yes" : "no", si(p.extra_s, "s"),
               si(p.step_s, "s")});
  std::printf("%s\n", t.str().c_str());
  std::printf("activations only: weights, gradients and optimizer state come on top%s\n",
              a.budget.empty() ? "; the default budget is the whole HBM" : "");
  std::printf("chosen (K kept, R recomputed, | a checkpoint boundary):\n  %s\n", picture(best).c_str());
  std::printf("kept layers drop: %s; their backward re-runs: %s (%s per layer)\n", joined(model::dropped_ops(layer, best)).c_str(),
              joined(model::rerun_ops(layer, best)).c_str(), si(best.in_block.rerun_s, "s").c_str());
  if (!a.svg.empty()) std::printf("picture: %s\n", a.svg.c_str());
  return 0;
}

}  // namespace

Command add_checkpoint(CLI::App& root, Global&) {
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("checkpoint", "activation checkpointing: memory, recompute, the best schedule (§8.2)");
  add_size(app, "--layers", args->layers, "transformer layers")->required();
  add_size(app, "--batch", args->batch, "sequences per step")->required();
  add_size(app, "--seq", args->seq, "tokens per sequence")->required();
  add_size(app, "--d-model", args->d_model, "model width")->required();
  add_size(app, "--heads", args->heads, "attention heads (divide --d-model)")->required();
  add_size(app, "--mlp-ratio", args->mlp_ratio, "MLP width ÷ model width (default 4)");
  app->add_option("--attention", args->attention, "flash (default) or standard");
  app->add_option("--gpu", args->gpu, "database name or a row from --hw-file (default h200)");
  app->add_option("--budget", args->budget, std::string("activation memory budget (default: the GPU's HBM); ") + kBytesForms)
      ->type_name("BYTES");
  app->add_option("--results", args->results,
                  "predict step times on the ceilings measured in this results folder (its probe/ profile, the "
                  "runs' copy and launch) and compare with its checkpoint/measured.json")
      ->type_name("DIR");
  app->add_option("--svg", args->svg, "also write a picture of the schedules to this SVG file");
  add_json(app, args->json, "the plan (with --measure: the measurement; --out FILE writes it beside the table)");
  app->add_flag("--measure", args->measure, "run the stack forward + backward on the GPU under the schedules");
  add_size(app, "--warmup", args->warmup, "with --measure: untimed steps per schedule (default 3)");
  add_size(app, "--reps", args->reps, "with --measure: timed steps per schedule, the median is reported (default 10)");
  add_device(app, args->device);
  return {app, [args, app]() {
            if (app->count("--device") && !args->measure) bad_input("--device applies only to --measure");
            return run(*args);
          }};
}

}  // namespace sol::cli

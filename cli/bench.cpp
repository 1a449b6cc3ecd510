// `sol bench [FAMILY[/VARIANT]]`: verify and time registry variants with their peers; per variant
// the time, achieved FLOP/s and B/s, the model's floor and the fraction of it reached (against the
// datasheet and against the ceilings measured in this run), the bound, and the speed-ups over
// the previous version and over the peer. JSON: one results file per family; --csv and --md print
// the records as CSV or Markdown instead of the table. --run-once: one verified run per variant and
// shape inside an NVTX range "family/variant/shape", for a profiler (nsys, ncu --nvtx).
// `sol bench gemm --sweep` (or one GEMM family): sol's best rung and the peers over the size sweep
// of include/sol/sweep.hpp, into one results file, family gemm_sweep; `--plan` prints the sweep's
// shapes and the shape model's predictions without measuring (no GPU needed).
// `sol bench FAMILY --model-shapes`: the family's shapes from the model shape set
// (sol/model/model_shapes.hpp) instead of the registry's bench shapes; `--plan` lists them.
// `sol bench comm`: NCCL collectives over the local GPUs (cli/comm.cpp, bench/comm/).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/model_shapes.hpp"
#include "sol/report.hpp"
#include "sol/sweep.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace sol::cli {

namespace {
struct Opts {
  std::string pattern;
  std::vector<std::string> shapes;
  std::string json, out_dir, gpu;
  bool cold_l2 = false, graph = false, events = false, no_peers = false, headline = false, full_probe = false, memory = false;
  bool sweep = false, plan = false, model_shapes = false;
  bool csv = false, md = false, run_once = false, full_budget = false;
  double budget_s = 0.5;
  int min_samples = 0;  // 0: the harness's default
  double max_noise = 0, timeout_s = 0, rest_s = 0;
  int device = 0;
};

// The sweep samples each point briefly: one run at 16384³ bf16 is ~12 ms, so 0.1 s still gives the
// harness's 3+ samples there and hundreds at 256³, and the whole sweep stays within minutes.
constexpr double kSweepBudget = 0.1;

// The model shapes a bench runs: the dispatch set, and for the GEMM families every decode token
// count of the full set too (m = 1, 8, 16, 32, 64), where the decode rungs meet the peers.
std::vector<model::ModelShape> bench_model_shapes(const std::string& family) {
  std::vector<model::ModelShape> list = model::model_shapes(family);
  if (!family.starts_with("gemm_")) return list;
  for (model::ModelShape& s : model::model_shapes(family, model::TokenSet::Full))
    if (s.tokens < 512 && std::none_of(list.begin(), list.end(), [&](const auto& t) { return t.shape == s.shape; }))
      list.push_back(std::move(s));
  return list;
}

// --model-shapes: the one family of the pattern and its model shapes, checked before any GPU is
// needed (empty: no --model-shapes).
std::vector<Shape> model_shape_list(const Opts& o) {
  if (!o.model_shapes) return {};
  if (!o.shapes.empty()) bad_input("--model-shapes and --shape cannot be combined", "drop one of them");
  if (o.sweep || o.headline) bad_input("--model-shapes runs the model shapes: drop --sweep and --headline");
  const std::string family = o.pattern.substr(0, o.pattern.find('/'));
  if (family.empty()) {
    std::string list;
    for (const auto& f : model::model_shape_families()) list += (list.empty() ? "" : ", ") + f;
    bad_input("--model-shapes needs one FAMILY", "e.g. sol bench gemm_bf16 --model-shapes; families: " + list);
  }
  std::vector<Shape> out;
  for (const auto& s : bench_model_shapes(family)) out.push_back(s.shape);
  return out;
}

// --model-shapes --plan: the shapes and where each comes from, one line each.
std::string model_plan_text(const std::string& family) {
  std::string out;
  const auto list = bench_model_shapes(family);
  out += family + ": " + std::to_string(list.size()) + " model shapes\n";
  for (const auto& s : list) {
    std::string line = "  " + s.shape.str() + "  " + s.model + "/" + s.layer + " × " + std::to_string(s.tokens);
    if (!s.also.empty()) line += " (+" + std::to_string(s.also.size()) + " more)";
    out += line + "\n";
  }
  return out;
}

// The sweep's flags, checked before any GPU is needed; returns its families (empty: no --sweep).
std::vector<std::string> sweep_families(const Opts& o) {
  if (!o.sweep) {
    if (o.plan && !o.model_shapes) bad_input("--plan goes with --sweep or --model-shapes", "sol bench gemm --sweep --plan");
    return {};
  }
  if (!o.shapes.empty()) bad_input("--sweep runs its own shapes: drop --shape", "see them with: sol bench gemm --sweep --plan");
  if (o.headline) bad_input("--sweep and --headline cannot be combined", "the sweep has no headline shape");
  if (o.plan && (!o.json.empty() || !o.out_dir.empty()))
    bad_input("--plan measures nothing, so it writes no results file", "drop --json/--out-dir, or drop --plan to measure");
  return sweep::resolve(o.pattern.empty() ? "gemm" : o.pattern);
}

// The flags that shape sampling and output, checked before any GPU is needed.
void check_flags(const Opts& o) {
  if (!(o.budget_s > 0)) bad_input("--budget must be positive, in seconds");
  if (o.min_samples < 0 || (o.min_samples > 0 && o.min_samples < 3))
    bad_input("--min-samples " + std::to_string(o.min_samples) + " is too few", "give 3 or more");
  if (!(o.max_noise >= 0) || o.max_noise >= 1)
    bad_input("--max-noise " + num(o.max_noise) + " is out of range",
              "give the median's 95 % confidence half-width as a fraction, e.g. 0.01 for ±1 %");
  if (!(o.timeout_s >= 0)) bad_input("--timeout must be ≥ 0 seconds per record");
  if (!(o.rest_s >= 0) || o.rest_s > 60) bad_input("--rest " + num(o.rest_s) + " is out of range", "give 0 to 60 seconds");
  if (o.cold_l2 && o.graph)
    bad_input("--cold-l2 and --graph cannot be combined",
              "cold L2 flushes before every sample; a graph replays runs back to back without a flush");
  if (o.events && o.graph) bad_input("--events and --graph cannot be combined", "--events times from the stream alone");
  if (o.csv && o.md) bad_input("--csv and --md cannot be combined", "each prints the records to stdout: pick one");
  if (o.run_once && (o.graph || o.events || o.cold_l2 || o.memory || o.sweep))
    bad_input("--run-once runs each variant once, untimed by the sampling loop",
              "drop --graph, --events, --cold-l2, --memory and --sweep with it");
  if (o.run_once && (o.min_samples > 0 || o.max_noise > 0 || o.timeout_s > 0 || o.rest_s > 0 || o.full_budget))
    bad_input("--run-once takes no samples",
              "drop --min-samples, --max-noise, --timeout, --rest and --full-budget with it");
  if (o.full_budget && o.max_noise > 0)
    bad_input("--full-budget and --max-noise cannot be combined", "one samples for the whole budget, the other stops early");
}

#ifdef SOL_WITH_CUDA

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) failure("cannot write " + path, "check that the folder exists and is writable");
  out << text;
  if (!out) failure("error while writing " + path);
}

bench::ProbeResult probe_once(const Opts& o) {
  bench::select_device(o.device);
  bench::ProbeOptions po;
  po.quick = !o.full_probe;
  po.save = false;
  po.gpu = o.gpu;
  std::fprintf(stderr, "sol: probing ceilings (%s)...\n", po.quick ? "copy bandwidth, launch overhead" : "full");
  return bench::probe(po);
}

// A record's progress line: its median, or why it has none.
std::string outcome(const results::Record& r) {
  if (!r.skipped.empty()) return "skipped";
  return r.verified ? si(r.median_s, "s", 3) : "FAILED verification";
}

bench::RunOptions run_options(const Opts& o, const bench::ProbeResult& probed) {
  bench::RunOptions ro;
  ro.timing.cold_l2 = o.cold_l2;
  ro.timing.memory = o.memory;
  ro.timing.graph = o.graph;
  ro.timing.events = o.events;
  ro.timing.budget_s = o.budget_s;
  if (o.min_samples > 0) ro.timing.min_samples = o.min_samples;
  ro.timing.max_noise = o.max_noise;
  ro.timing.timeout_s = o.timeout_s;
  ro.timing.rest_s = o.rest_s;
  ro.timing.full_budget = o.full_budget;
  ro.timing.run_once = o.run_once;
  ro.peers = !o.no_peers && !o.run_once;
  ro.environment = bench::run_environment(probed.device, ro.peers);
  return ro;
}

int run_bench(const Opts& o) {
  std::vector<Shape> shapes = model_shape_list(o);
  for (const auto& s : o.shapes) shapes.push_back(Shape::parse(s));
  const auto variants = bench::select_variants(o.pattern);
  const bench::ProbeResult probed = probe_once(o);
  const hw::HwSpec& row = bench::datasheet_for(probed.device, o.gpu);

  bench::RunOptions ro = run_options(o, probed);
  ro.shapes = shapes;
  ro.headline_only = o.headline;
  ro.on_record = [](const results::Record& r) {
    std::fprintf(stderr, "sol:   %s %s: %s\n", r.variant.c_str(), r.shape.c_str(), outcome(r).c_str());
  };
  std::vector<results::File> files;
  for (const auto& [family, members] : bench::by_family(variants)) {
    std::fprintf(stderr, "sol: %s (%zu variants)\n", family.c_str(), members.size());
    files.push_back(bench::run_family(family, members, ro, probed, row));
    if (!o.csv && !o.md) std::cout << bench::records_table(files.back()) << "\n";
    if (!o.out_dir.empty())
      results::write(files.back(), (std::filesystem::path(o.out_dir) / (family + ".json")).string());
  }
  if (!o.json.empty()) {
    std::string text;
    if (files.size() == 1) {
      text = results::to_json(files.front());
    } else {
      text = "[\n";
      for (size_t i = 0; i < files.size(); ++i) text += (i ? ",\n" : "") + results::to_json(files[i]);
      text += "]\n";
    }
    write_text(o.json, text);
  }
  if (o.csv) std::cout << bench::records_csv(files);
  if (o.md) std::cout << bench::records_markdown(files);
  return 0;
}

// Every chosen family over its sweep points, into one gemm_sweep results file.
int run_sweep(const Opts& o, const std::vector<std::string>& names) {
  std::vector<std::pair<const sweep::GemmFamily*, std::vector<const Variant*>>> plan;
  for (const auto& name : names) {
    std::vector<const Variant*> members;
    for (const Variant& v : registry())
      if (v.family == name) members.push_back(&v);
    if (members.empty()) {
      if (names.size() == 1) bad_input(name + " is not in this build's registry", "see `sol list`");
      std::fprintf(stderr, "sol: %s is not in this build's registry; the sweep leaves it out\n", name.c_str());
      continue;
    }
    plan.push_back({&sweep::gemm_family(name), sweep::choose_variants(members)});
  }
  if (plan.empty()) bad_input("none of the GEMM families is in this build's registry", "see `sol list`");
  const bench::ProbeResult probed = probe_once(o);
  const hw::HwSpec& row = bench::datasheet_for(probed.device, o.gpu);
  const int sms = probed.device.sms > 0 ? probed.device.sms : row.compute_units;

  results::File out;
  const bench::RunOptions common = run_options(o, probed);
  for (const auto& [family, variants] : plan) {
    bench::RunOptions ro = common;
    for (const auto& p : sweep::points(*family, sms)) ro.shapes.push_back(p.shape());
    ro.on_record = [](const results::Record& r) {
      std::fprintf(stderr, "sol:   %s %s %s: %s\n", r.family.c_str(), r.variant.c_str(), r.shape.c_str(), outcome(r).c_str());
    };
    std::fprintf(stderr, "sol: %s: %zu variants × %zu shapes\n", family->name.c_str(), variants.size(), ro.shapes.size());
    results::File f = bench::run_family(family->name, variants, ro, probed, row);
    if (out.records.empty()) out = f;  // device, ceilings, time and version of the first family's run
    else out.records.insert(out.records.end(), f.records.begin(), f.records.end());
  }
  out.family = sweep::kFamily;
  if (o.csv) std::cout << bench::records_csv({out});
  else if (o.md) std::cout << bench::records_markdown({out});
  else std::cout << report::sweep_text(out, row);
  if (!o.out_dir.empty()) results::write(out, (std::filesystem::path(o.out_dir) / (out.family + ".json")).string());
  if (!o.json.empty()) write_text(o.json, results::to_json(out));
  return 0;
}
#endif
}  // namespace

Command add_bench(CLI::App& root, Global&) {
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand("bench", "verify and time kernel variants, with their peers, against the roofline");
  app->add_option("pattern", o->pattern, "FAMILY or FAMILY/VARIANT (default: the whole registry)");
  app->add_option("--shape", o->shapes, "shape(s) instead of each variant's bench shapes, e.g. n=2^28 (repeatable)");
  app->add_option("--json", o->json, "write the results file (an array of files for several families)");
  app->add_option("--out-dir", o->out_dir, "write DIR/<family>.json for every family (as bench/results/h200/)");
  app->add_option("--gpu", o->gpu, "database row for the datasheet floor (default: the row this GPU matches)");
  add_device(app, o->device);
  app->add_flag("--cold-l2", o->cold_l2, "flush L2 before every sample");
  app->add_flag("--memory", o->memory,
                "also measure each variant's peak device memory for one call (inputs, outputs, workspace; one input set)");
  const std::string short_run = "runs under " + num(results::kGraphBelowS * 1e6, 3) + " µs";
  app->add_flag("--graph", o->graph, "replay every run from a CUDA graph (no launch gaps; by default only " + short_run + ")");
  app->add_flag("--events", o->events, "time from the stream only, " + short_run + " too (launch gaps included)");
  app->add_flag("--no-peers", o->no_peers, "skip the PyTorch peers");
  app->add_flag("--headline", o->headline, "only the first (headline) bench shape of each variant");
  app->add_flag("--full-probe", o->full_probe, "measure matrix, FMA and L2 ceilings too (else copy and launch only)");
  auto* budget =
      app->add_option("--budget", o->budget_s, "seconds of sampling per variant and shape, at most (--sweep: 0.1)")
          ->capture_default_str();
  app->add_flag("--sweep", o->sweep,
                "GEMM size sweep: pattern gemm (every GEMM family) or one family; peers and the best rung over "
                "cubes 256…16384 and whole-wave shapes, into one gemm_sweep results file");
  app->add_flag("--plan", o->plan,
                "with --sweep: print the shapes and the shape model's predictions; with --model-shapes: the "
                "shapes; measure nothing");
  app->add_flag("--model-shapes", o->model_shapes,
                "the family's shapes from the model shape set (decoder layers of published models) instead of "
                "its bench shapes");
  app->add_flag("--csv", o->csv, "print the records as CSV (one row per record, SI units) instead of the tables");
  app->add_flag("--md", o->md, "print the records as Markdown tables instead of the terminal tables");
  app->add_option("--min-samples", o->min_samples,
                  "at least N timed samples per record (default 10; fewer only when N runs outlast --budget)");
  app->add_option("--max-noise", o->max_noise,
                  "stop sampling once the median's 95 % confidence interval is within ± this fraction "
                  "(e.g. 0.01), instead of when the median stops moving");
  app->add_option("--timeout", o->timeout_s, "seconds of warm-up and sampling per record, at most (default: none)");
  app->add_option("--rest", o->rest_s,
                  "seconds the GPU idles before each record's warm-up (default 0), so that every variant "
                  "starts out of the power cap the one before it may have driven the card into");
  app->add_flag("--full-budget", o->full_budget,
                "sample every record for its whole --budget instead of stopping once the median settles (with "
                "--rest: records compared under a power cap spend equal time in it)");
  app->add_flag("--run-once", o->run_once,
                "for profilers: one verified run per variant and shape, each inside an NVTX range "
                "family/variant/shape; no timing loop, no peers");
  const Command comm = add_bench_comm(app);
  return {app, [o, budget, comm]() -> int {
            if (comm.app->parsed()) return comm.run();
            check_flags(*o);
            const auto families = sweep_families(*o);
            (void)model_shape_list(*o);  // its errors before any GPU is needed
            if (o->plan && o->model_shapes) {
              if (!o->json.empty() || !o->out_dir.empty())
                bad_input("--plan measures nothing, so it writes no results file", "drop --json/--out-dir");
              std::cout << model_plan_text(o->pattern.substr(0, o->pattern.find('/')));
              return 0;
            }
            if (o->plan) {
              const hw::HwSpec& spec = hw::find(o->gpu.empty() ? "h200" : o->gpu);
              std::cout << sweep::plan_text(families, spec);
              return 0;
            }
            if (o->sweep && budget->count() == 0) o->budget_s = kSweepBudget;
#ifdef SOL_WITH_CUDA
            return o->sweep ? run_sweep(*o, families) : run_bench(*o);
#else
            (void)o;
            failure("this sol was built without CUDA, so it has no kernels to bench", "install the CUDA toolkit and rebuild");
#endif
          }};
}

}  // namespace sol::cli

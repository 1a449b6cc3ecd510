// `sol bench [FAMILY[/VARIANT]]`: verify and time registry variants with their peers; per variant
// the time, achieved FLOP/s and B/s, the model's floor and the fraction of it reached (against the
// datasheet and against the ceilings measured in this run), the bound, and the speed-ups over
// the previous version and over the peer. JSON: one results file per family.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace sol::cli {

namespace {
struct Opts {
  std::string pattern;
  std::vector<std::string> shapes;
  std::string json, out_dir, gpu;
  bool cold_l2 = false, graph = false, no_peers = false, headline = false, full_probe = false;
  double budget_s = 0.5;
};

#ifdef SOL_WITH_CUDA
int run_bench(const Opts& o) {
  std::vector<Shape> shapes;
  for (const auto& s : o.shapes) shapes.push_back(Shape::parse(s));
  if (o.budget_s <= 0) bad_input("--budget must be positive");
  if (o.cold_l2 && o.graph)
    bad_input("--cold-l2 and --graph cannot be combined",
              "cold L2 flushes before every sample; a graph replays runs back to back without a flush");
  const auto variants = bench::select_variants(o.pattern);
  bench::require_gpu();
  bench::ProbeOptions po;
  po.quick = !o.full_probe;
  po.save = false;
  po.gpu = o.gpu;
  std::fprintf(stderr, "sol: probing ceilings (%s)...\n", po.quick ? "copy bandwidth, launch overhead" : "full");
  const bench::ProbeResult probed = bench::probe(po);
  const hw::HwSpec& row = bench::datasheet_for(probed.device, o.gpu);

  bench::RunOptions ro;
  ro.timing.cold_l2 = o.cold_l2;
  ro.timing.graph = o.graph;
  ro.timing.budget_s = o.budget_s;
  ro.shapes = shapes;
  ro.headline_only = o.headline;
  ro.peers = !o.no_peers;
  ro.on_record = [](const results::Record& r) {
    std::string what = r.skipped.empty() ? (r.verified ? si(r.median_s, "s", 3) : "FAILED verification")
                                         : "skipped";
    std::fprintf(stderr, "sol:   %s %s: %s\n", r.variant.c_str(), r.shape.c_str(), what.c_str());
  };
  std::vector<results::File> files;
  for (const auto& [family, members] : bench::by_family(variants)) {
    std::fprintf(stderr, "sol: %s (%zu variants)\n", family.c_str(), members.size());
    files.push_back(bench::run_family(family, members, ro, probed, row));
    std::cout << bench::records_table(files.back()) << "\n";
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
    std::ofstream out(o.json);
    if (!out) failure("cannot write " + o.json, "check that the folder exists and is writable");
    out << text;
    if (!out) failure("error while writing " + o.json);
  }
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
  app->add_flag("--cold-l2", o->cold_l2, "flush L2 before every sample");
  app->add_flag("--graph", o->graph, "replay runs from a CUDA graph (no launch gaps)");
  app->add_flag("--no-peers", o->no_peers, "skip the PyTorch peers");
  app->add_flag("--headline", o->headline, "only the first (headline) bench shape of each variant");
  app->add_flag("--full-probe", o->full_probe, "measure matrix, FMA and L2 ceilings too (else copy and launch only)");
  app->add_option("--budget", o->budget_s, "seconds of sampling per variant and shape, at most")->capture_default_str();
  return {app, [o]() -> int {
#ifdef SOL_WITH_CUDA
            return run_bench(*o);
#else
            (void)o;
            failure("this sol was built without CUDA, so it has no kernels to bench", "install the CUDA toolkit and rebuild");
#endif
          }};
}

}  // namespace sol::cli

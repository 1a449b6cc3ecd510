// `sol doctor FAMILY/VARIANT [--shape S] [--results DIR]`: the lecture's §12 workflow as a diagnosis — the verdict
// (near the compute roof, near the memory roof, or neither), and for "neither" what holds the
// kernel back (launch overhead, occupancy and its limiter, spills, waves, memory efficiency),
// each with a prescription.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/doctor.hpp"
#include "sol/predict.hpp"
#include "sol/registry.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace sol::cli {

namespace {
struct Opts {
  std::string pattern, shape, gpu, results;
  JsonOut json;
  bool cold_l2 = false, graph = false, events = false;
  int device = 0;
};

// `sol doctor --results DIR FAMILY/VARIANT [--shape S]`: no GPU, the committed record and the models.
int run_doctor_on_results(const Opts& o) {
  const predict::Diagnosis d = doctor({.variant = o.pattern, .shape = o.shape, .results = o.results, .gpu = o.gpu});
  if (o.json.on()) emit_json(o.json, nlohmann::ordered_json::parse(diagnosis_json(d)));
  else std::cout << predict::diagnosis_text(d);
  return 0;
}

#ifdef SOL_WITH_CUDA
int run_doctor(const Opts& o) {
  const auto variants = bench::select_variants(o.pattern);
  if (variants.size() != 1) {
    std::string names;
    for (const Variant* v : variants) names += (names.empty() ? "" : ", ") + v->family + "/" + v->name;
    bad_input("'" + o.pattern + "' matches " + std::to_string(variants.size()) + " variants", "name one: " + names);
  }
  const Variant& v = *variants.front();
  if (o.shape.empty() && v.bench_shapes.empty()) bad_input(v.family + "/" + v.name + " has no bench shape", "give --shape");
  const Shape shape = o.shape.empty() ? v.bench_shapes.front() : Shape::parse(o.shape);
  if (std::string why = v.unsupported ? v.unsupported(shape) : ""; !why.empty())
    bad_input(v.family + "/" + v.name + " does not support " + shape.str() + ": " + why);
  if (o.cold_l2 && o.graph) bad_input("--cold-l2 and --graph cannot be combined");
  if (o.events && o.graph) bad_input("--events and --graph cannot be combined", "--events times from the stream alone");
  bench::select_device(o.device);
  bench::ProbeOptions po;
  po.quick = true;
  po.save = false;
  po.gpu = o.gpu;
  std::fprintf(stderr, "sol: probing ceilings (copy bandwidth, launch overhead)...\n");
  const bench::ProbeResult probed = bench::probe(po);
  const hw::HwSpec& row = bench::datasheet_for(probed.device, o.gpu);
  bench::Options opts;
  opts.cold_l2 = o.cold_l2;
  opts.graph = o.graph;
  opts.events = o.events;
  std::fprintf(stderr, "sol: measuring %s/%s at %s...\n", v.family.c_str(), v.name.c_str(), shape.str().c_str());
  const bench::Diagnosis d = bench::doctor(v, shape, opts, probed, row);
  if (o.json.on()) emit_json(o.json, nlohmann::ordered_json::parse(bench::diagnosis_json(d)));
  else std::cout << bench::diagnosis_text(d);
  return 0;
}
#endif
}  // namespace

Command add_doctor(CLI::App& root, Global&) {
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand("doctor", "diagnose what holds a kernel back, with a prescription per finding");
  app->add_option("variant", o->pattern, "FAMILY/VARIANT (see sol list)")->required();
  app->add_option("--shape", o->shape, "shape (default: the variant's headline bench shape)");
  app->add_option("--results", o->results, "diagnose from committed results in DIR and the models (no GPU)");
  app->add_option("--gpu", o->gpu, "database row for the datasheet floor and SM limits (default: this GPU's row)");
  add_json(app, o->json, "the diagnosis");
  add_device(app, o->device);
  app->add_flag("--cold-l2", o->cold_l2, "time with L2 flushed before every sample");
  app->add_flag("--graph", o->graph, "time from a CUDA graph (by default only short runs)");
  app->add_flag("--events", o->events, "time from the stream only, short runs too (launch gaps included)");
  return {app, [o]() -> int {
            if (!o->results.empty()) return run_doctor_on_results(*o);
#ifdef SOL_WITH_CUDA
            return run_doctor(*o);
#else
            (void)o;
            failure("this sol was built without CUDA, so it cannot measure a kernel", "install the CUDA toolkit and rebuild");
#endif
          }};
}

}  // namespace sol::cli

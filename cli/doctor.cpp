// `sol doctor FAMILY/VARIANT [--shape S] [--results DIR]`: the lecture's §12 workflow as a diagnosis — the verdict
// (near the compute roof, near the memory roof, or neither), and for "neither" what holds the
// kernel back (launch overhead, occupancy and its limiter, spills, waves, memory efficiency),
// each with a prescription.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/model/cost.hpp"
#include "sol/predict.hpp"
#include "sol/registry.hpp"
#include "sol/report.hpp"
#include "sol/sweep.hpp"
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

// The work at a shape no record holds: a GEMM's minimal traffic, else the registry's cost.
predict::Work unmeasured_work(const std::string& family, const std::string& variant, const Shape& s) {
  predict::Work w{family, variant, "", s, 0, 0, {}};
  if (predict::is_gemm_family(family)) {
    const DType t = sweep::gemm_family(family).dtype;
    const model::Cost c = model::matmul({.m = s.at("m"), .n = s.at("n"), .k = s.at("k"), .dtype = t});
    w.dtype = dtype_name(t);
    w.flops = c.flops;
    w.bytes = c.bytes;
    return w;
  }
  if (family == "attention" || family == "attention_bwd") {  // host C++ in every build
    const model::Cost c = model::attention_at(s, variant != "v01_standard", family == "attention_bwd", 128);
    w.dtype = dtype_name(c.dtype);
    w.flops = c.flops;
    w.bytes = c.bytes;
    return w;
  }
  for (const Variant& v : registry())
    if (v.family == family && v.name == variant && v.cost) {
      const model::Cost c = v.cost(s);
      w.dtype = dtype_name(c.dtype);
      w.flops = c.flops;
      w.bytes = c.bytes;
      return w;
    }
  bad_input(family + "/" + variant + " has no record at " + s.str() + " and this build has no cost model for it",
            "give a --shape that the results hold");
}

// `sol doctor --results DIR FAMILY/VARIANT [--shape S]`: no GPU, the committed record and the models.
int run_doctor_on_results(const Opts& o) {
  const auto slash = o.pattern.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == o.pattern.size())
    bad_input("'" + o.pattern + "' is not FAMILY/VARIANT", "e.g. gemm_bf16/v08_tile_choice");
  const std::string family = o.pattern.substr(0, slash), variant = o.pattern.substr(slash + 1);
  const auto files = results::read_dir(o.results);
  if (files.empty()) bad_input("no results files (*.json) in " + o.results);
  const results::File* file = nullptr;
  const results::Record* first = nullptr;
  for (const auto& f : files)
    for (const auto& r : f.records)
      if (r.family == family && r.variant == variant && (!first || (!results::valid(*first) && results::valid(r)))) {
        if (!first) file = &f;
        first = &r;
      }
  if (!first) bad_input("no record of " + o.pattern + " in " + o.results, "see the variants with sol report --results");
  const Shape shape = o.shape.empty() ? Shape::parse(first->shape) : Shape::parse(o.shape);
  const results::Record* at = nullptr;
  for (const auto& f : files)
    for (const auto& r : f.records)
      if (r.family == family && r.variant == variant && r.shape == shape.str() && (!at || results::valid(r))) {
        at = &r;
        file = &f;
      }
  const std::optional<hw::HwSpec> profile = report::measured_profile_beside(o.results);
  const hw::HwSpec& sheet = hw::find(o.gpu.empty() ? file->device.database_row : o.gpu);
  const predict::Ceilings c = predict::ceilings_for(*file, profile ? &*profile : nullptr, sheet);
  predict::Work w = at ? predict::work_of(*file, *at) : unmeasured_work(family, variant, shape);
  if (auto e = declared_execution(w.family, w.variant, w.shape)) w.exec = *e;
  const predict::Diagnosis d = predict::diagnose(w, c, at);
  if (o.json.on()) {
    nlohmann::ordered_json j;
    j["family"] = family;
    j["variant"] = variant;
    j["shape"] = shape.str();
    j["measured_s"] = d.measured ? d.measured_s : 0.0;
    j["predicted_s"] = d.prediction.seconds;
    j["bound"] = d.prediction.bound;
    j["cause"] = d.cause;
    j["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : d.findings)
      j["findings"].push_back({{"topic", f.topic}, {"observation", f.observation}, {"prescription", f.prescription},
                               {"problem", f.problem}});
    emit_json(o.json, j);
  } else {
    std::cout << predict::diagnosis_text(d);
  }
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

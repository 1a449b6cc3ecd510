// The doctor without a GPU (include/sol/doctor.hpp). It lives beside the registry because it reads
// the registry's declarations (each variant's cost and model::Execution) and joins them to the host
// library's results and models.
#include "sol/doctor.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/registry.hpp"
#include "sol/report.hpp"
#include "sol/results.hpp"
#include "sol/sweep.hpp"

namespace sol {

namespace {

// The work at a shape no record holds: a GEMM's minimal traffic, attention's model, else the
// registry's cost.
predict::Work unmeasured_work(const std::string& family, const std::string& variant, const Shape& s) {
  predict::Work w{family, variant, "", s, 0, 0, {}};
  const Variant* described = nullptr;  // where this build describes the variant: its refusal first
  for (const Variant& v : registry())
    if (v.family == family && v.name == variant) {
      described = &v;
      break;
    }
  if (described && described->unsupported)
    if (const std::string why = described->unsupported(s); !why.empty())
      bad_input(family + "/" + variant + " does not take " + s.str() + ": " + why);
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
  if (described && described->cost) {
    const model::Cost c = described->cost(s);
    w.dtype = dtype_name(c.dtype);
    w.flops = c.flops;
    w.bytes = c.bytes;
    return w;
  }
  bad_input(family + "/" + variant + " has no record at " + s.str() + " and this build has no cost model for it",
            "give a shape that the results hold, or a variant of sol list");
}

// The headline bench shape of a variant the registry describes.
std::optional<Shape> headline_shape(const std::string& family, const std::string& variant) {
  for (const Variant& v : registry())
    if (v.family == family && v.name == variant && !v.bench_shapes.empty()) return v.bench_shapes.front();
  return std::nullopt;
}

}  // namespace

predict::Diagnosis doctor(const DoctorQuery& q) {
  const auto slash = q.variant.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == q.variant.size())
    bad_input("'" + q.variant + "' is not FAMILY/VARIANT", "e.g. gemm_bf16/v08_tile_choice");
  if (!std::isfinite(q.measured_s) || q.measured_s < 0)
    bad_input("measured_s = " + std::to_string(q.measured_s) + " is not a time", "give seconds > 0, or none");
  const std::string family = q.variant.substr(0, slash), variant = q.variant.substr(slash + 1);
  std::vector<results::File> files;
  if (!q.results.empty()) {
    files = results::read_dir(q.results);
    if (files.empty()) bad_input("no results files (*.json) in " + q.results);
  }
  // The first record of the variant (a valid one where there is one), then the record at the shape.
  const results::File* file = nullptr;
  const results::Record* first = nullptr;
  for (const auto& f : files)
    for (const auto& r : f.records)
      if (r.family == family && r.variant == variant && (!first || (!results::valid(*first) && results::valid(r)))) {
        if (!first) file = &f;
        first = &r;
      }
  if (!q.results.empty() && !first && q.measured_s == 0)
    bad_input("no record of " + q.variant + " in " + q.results, "see the variants with sol report --results");
  std::optional<Shape> shape;
  if (!q.shape.empty()) shape = Shape::parse(q.shape);
  else if (first) shape = Shape::parse(first->shape);
  else shape = headline_shape(family, variant);
  if (!shape) bad_input(q.variant + " has no headline shape here", "give the shape (e.g. \"rows=4096,cols=4096\")");
  const results::Record* at = nullptr;
  for (const auto& f : files)
    for (const auto& r : f.records)
      if (r.family == family && r.variant == variant && r.shape == shape->str() && (!at || results::valid(r))) {
        at = &r;
        file = &f;
      }
  const results::File none;
  const results::File& from = file ? *file : none;
  const std::optional<hw::HwSpec> profile =
      q.results.empty() ? std::nullopt : report::measured_profile_beside(q.results);
  const std::string row = !q.gpu.empty() ? q.gpu : file && !file->device.database_row.empty() ? file->device.database_row : "h200";
  predict::Ceilings c = predict::ceilings_for(from, profile ? &*profile : nullptr, hw::find(row));
  if (!(c.launch_s > 0)) c.source += "; launch overhead not measured (counted as 0)";
  predict::Work w = at ? predict::work_of(from, *at) : unmeasured_work(family, variant, *shape);
  if (auto e = declared_execution(w.family, w.variant, w.shape)) w.exec = *e;
  results::Record mine;  // the caller's time at the shape
  if (q.measured_s > 0) {
    mine = at ? *at : results::Record{};
    mine.median_s = q.measured_s;
    mine.verified = true;
    mine.skipped.clear();
  }
  predict::Diagnosis d = predict::diagnose(w, c, q.measured_s > 0 ? &mine : at);
  d.origin = q.measured_s > 0 ? "the caller's measurement" : at ? "from committed results" : "the model alone: no record";
  return d;
}

std::string diagnosis_json(const predict::Diagnosis& d) {
  nlohmann::ordered_json j;
  j["family"] = d.work.family;
  j["variant"] = d.work.variant;
  j["shape"] = d.work.shape.str();
  j["measured_s"] = d.measured ? d.measured_s : 0.0;
  j["predicted_s"] = d.prediction.seconds;
  j["bound"] = d.prediction.bound;
  j["cause"] = d.cause;
  j["origin"] = d.origin;
  j["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : d.findings)
    j["findings"].push_back({{"topic", f.topic}, {"observation", f.observation}, {"prescription", f.prescription},
                             {"problem", f.problem}});
  return j.dump(-1);
}

}  // namespace sol

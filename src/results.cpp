// Results files: bench/results/<gpu>/<family>.json. Written by the harness, read by the report and
// the docs generator on any machine.
#include "sol/results.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"

namespace sol::results {

using nlohmann::json;

namespace {

json to_j(const MeasuredCeilings& c) {
  return {{"copy_bytes_per_s", c.copy_bytes_per_s},
          {"l2_bytes_per_s", c.l2_bytes_per_s},
          {"fp32_fma_flops_per_s", c.fp32_fma_flops_per_s},
          {"matrix_flops_per_s", c.matrix_flops_per_s},
          {"launch_overhead_s", c.launch_overhead_s}};
}

json to_j(const Device& d) {
  return {{"name", d.name},       {"compute_capability", d.compute_capability},
          {"sms", d.sms},         {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes}, {"sm_clock_hz", d.sm_clock_hz},
          {"driver", d.driver},   {"database_row", d.database_row}};
}

json to_j(const Record& r) {
  json j = {{"family", r.family},
            {"variant", r.variant},
            {"technique", r.technique},
            {"version", r.version},
            {"dtype", r.dtype},
            {"shape", r.shape},
            {"median_s", r.median_s},
            {"min_s", r.min_s},
            {"max_s", r.max_s},
            {"spread", r.spread},
            {"samples", r.samples},
            {"flops", r.flops},
            {"bytes", r.bytes},
            {"verified", r.verified},
            {"rel_l2", r.rel_l2},
            {"tolerance", r.tolerance},
            {"tolerance_why", r.tolerance_why},
            {"achieved_flops_per_s", r.achieved_flops_per_s},
            {"achieved_bytes_per_s", r.achieved_bytes_per_s},
            {"floor_s", r.floor_s},
            {"floor_measured_s", r.floor_measured_s},
            {"predicted_s", r.predicted_s},
            {"floor_measured_base", r.floor_measured_base},
            {"bound", r.bound},
            {"cold_l2", r.cold_l2},
            {"graph", r.graph},
            {"timing", r.timing},
            {"eager_median_s", r.eager_median_s},
            {"sm_clock_hz", r.sm_clock_hz},
            {"throttled", r.throttled},
            {"throttle_reasons", r.throttle_reasons},
            {"peak_device_bytes", r.peak_device_bytes},
            {"skipped", r.skipped},
            {"note", r.note},
            {"findings", r.findings}};
  return j;
}

// Reads an optional field; a present field of the wrong type is an error naming it.
template <class T>
void get(const json& j, const char* key, T& out, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts 1e20 or 2^40 to an int unchecked; a count must fit its field.
    const bool fits = it->is_number() && it->template get<double>() == std::floor(it->template get<double>()) &&
                      it->template get<double>() >= double(std::numeric_limits<T>::min()) &&
                      it->template get<double>() < -double(std::numeric_limits<T>::min());
    if (!fits) bad_input(where + ": field '" + key + "' must be an integer that fits in " +
                         std::to_string(sizeof(T) * 8) + " bits, got " + printable(it->dump(), 40));
  }
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    bad_input(where + ": field '" + key + "' has the wrong type (" + it->type_name() + ")");
  }
}

// A family names files (docs/<family>.md): a plain identifier, never a path.
void check_family(const std::string& family, const std::string& where) {
  bool ok = !family.empty() && family.size() <= 64 && std::isalnum(static_cast<unsigned char>(family[0]));
  for (unsigned char c : family) ok = ok && (std::isalnum(c) || c == '_' || c == '-');
  if (!ok)
    bad_input(where + ": field 'family' is '" + printable(family, 64) + "'",
              "a family is letters, digits, '_' and '-' (gemm_bf16), at most 64 characters");
}

// A shape is "" or dimensions "name=count" joined by commas (b=4,h=16,n=4096,d=128).
void check_shape(const std::string& shape, const std::string& where) {
  size_t at = 0;
  while (at < shape.size()) {
    const size_t end = std::min(shape.find(',', at), shape.size());
    const std::string dim = shape.substr(at, end - at);
    const size_t eq = dim.find('=');
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < dim.size() && eq + 19 > dim.size() &&
              std::islower(static_cast<unsigned char>(dim[0]));
    for (size_t i = 0; ok && i < dim.size(); ++i) {
      const auto c = static_cast<unsigned char>(dim[i]);
      ok = i < eq ? (std::islower(c) || std::isdigit(c) || c == '_') : i == eq || std::isdigit(c);
    }
    if (!ok)
      bad_input(where + ": field 'shape' is '" + printable(shape, 80) + "': '" + printable(dim, 40) +
                    "' is not name=count",
                "a shape is dimensions like b=4,h=16,n=4096 (lower-case names, decimal counts)");
    at = end + 1;
    if (end + 1 == shape.size()) bad_input(where + ": field 'shape' '" + printable(shape, 80) + "' ends with ','");
  }
}

template <class T>
void need(const json& j, const char* key, T& out, const std::string& where) {
  if (!j.contains(key)) bad_input(where + ": missing field '" + key + "'");
  get(j, key, out, where);
}

Record record_from(const json& j, const std::string& where) {
  if (!j.is_object()) bad_input(where + ": a record must be an object");
  Record r;
  need(j, "family", r.family, where);
  need(j, "variant", r.variant, where);
  need(j, "shape", r.shape, where);
  need(j, "median_s", r.median_s, where);
  need(j, "flops", r.flops, where);
  need(j, "bytes", r.bytes, where);
  need(j, "verified", r.verified, where);
  check_family(r.family, where);
  check_shape(r.shape, where);
  get(j, "technique", r.technique, where);
  get(j, "version", r.version, where);
  get(j, "dtype", r.dtype, where);
  get(j, "min_s", r.min_s, where);
  get(j, "max_s", r.max_s, where);
  get(j, "spread", r.spread, where);
  get(j, "samples", r.samples, where);
  get(j, "rel_l2", r.rel_l2, where);
  get(j, "tolerance", r.tolerance, where);
  get(j, "tolerance_why", r.tolerance_why, where);
  get(j, "achieved_flops_per_s", r.achieved_flops_per_s, where);
  get(j, "achieved_bytes_per_s", r.achieved_bytes_per_s, where);
  get(j, "floor_s", r.floor_s, where);
  get(j, "floor_measured_s", r.floor_measured_s, where);
  get(j, "predicted_s", r.predicted_s, where);
  get(j, "floor_measured_base", r.floor_measured_base, where);
  get(j, "bound", r.bound, where);
  get(j, "cold_l2", r.cold_l2, where);
  get(j, "graph", r.graph, where);
  get(j, "timing", r.timing, where);
  get(j, "eager_median_s", r.eager_median_s, where);
  get(j, "sm_clock_hz", r.sm_clock_hz, where);
  get(j, "throttled", r.throttled, where);
  get(j, "throttle_reasons", r.throttle_reasons, where);
  get(j, "peak_device_bytes", r.peak_device_bytes, where);
  get(j, "skipped", r.skipped, where);
  get(j, "note", r.note, where);
  get(j, "findings", r.findings, where);
  if (r.median_s < 0 || r.flops < 0 || r.bytes < 0 || r.predicted_s < 0)
    bad_input(where + ": negative time, flops, bytes or prediction");
  if (r.median_s > 0 && r.achieved_bytes_per_s == 0) r.achieved_bytes_per_s = r.bytes / r.median_s;
  if (r.median_s > 0 && r.achieved_flops_per_s == 0) r.achieved_flops_per_s = r.flops / r.median_s;
  return r;
}

}  // namespace

bool is_peer(const std::string& variant) { return variant.rfind("peer:", 0) == 0; }
bool is_peer(const Record& r) { return is_peer(r.variant); }
bool is_in_process_peer(const std::string& variant) { return is_peer(variant) && variant.rfind("peer:torch", 0) != 0; }
bool is_dispatch(const std::string& variant) { return variant == "dispatch"; }
bool is_dispatch(const Record& r) { return is_dispatch(r.variant); }

bool valid(const Record& r) { return r.skipped.empty() && r.verified && r.median_s > 0; }

namespace {
constexpr const char* kEagerEvents = "events around one eager call";
}
std::string timing_of(const Record& r) {
  if (!r.timing.empty()) return r.timing;
  return r.graph ? "graph" : r.variant.rfind("peer:torch", 0) == 0 ? kEagerEvents : "events";
}
bool host_in_time(const Record& r) { return timing_of(r) == kEagerEvents; }

namespace {
// The element type a variant's name mentions, or "" ("v02_relu_bf16" → "bf16").
std::string dtype_token(const std::string& name) {
  for (const char* t : {"fp8_e4m3", "fp8_e5m2", "fp32", "fp16", "bf16", "tf32", "fp64", "int8"})
    if (name.find(t) != std::string::npos) return t;
  return "";
}
}  // namespace

std::string comparison_dtype(const File& f, const Record& r) {
  if (f.schema_version >= 2) return r.dtype;
  // Schema 1 has no dtype field: the name's type token, else the family's ("gemm_fp16").
  const std::string t = dtype_token(r.variant);
  return t.empty() ? dtype_token(r.family) : t;
}

const Record* best_peer(const File& f, const Record& r) {
  if (is_peer(r)) return nullptr;
  const std::string want = comparison_dtype(f, r);
  const Record* best = nullptr;
  for (const auto& p : f.records) {
    if (!is_peer(p) || !valid(p) || p.shape != r.shape || p.family != r.family) continue;
    if (comparison_dtype(f, p) != want) continue;  // typed against the same type, untyped against untyped
    if (!best || p.median_s < best->median_s) best = &p;
  }
  return best;
}

std::string floor_base(const File& f, const Record& r) {
  if (!r.floor_measured_base.empty()) return r.floor_measured_base;
  if (r.floor_measured_s <= 0) return r.floor_s > 0 ? "the datasheet's ceilings" : "";
  // Written before the field existed: the ceiling of this run that gives the floor, by its rate.
  const auto near = [](double a, double b) { return b > 0 && std::fabs(a - b) <= 1e-3 * b; };
  const double bw = r.bytes / r.floor_measured_s, rate = r.flops / r.floor_measured_s;
  if (near(bw, f.ceilings.copy_bytes_per_s)) return si(bw, "B/s") + " copy (measured)";
  for (const auto& [key, v] : f.ceilings.matrix_flops_per_s)
    if (near(rate, v)) return si(rate, "FLOP/s") + " " + key + " matmul (cuBLASLt, measured)";
  if (near(rate, f.ceilings.fp32_fma_flops_per_s)) return si(rate, "FLOP/s") + " fp32 FMA (measured)";
  if (f.ceilings.copy_bytes_per_s <= 0 && r.bound == "memory") return si(bw, "B/s") + " HBM (datasheet)";
  return si(rate, "FLOP/s") + " (datasheet)";
}

std::string to_json(const File& f) {
  json recs = json::array();
  for (const auto& r : f.records) recs.push_back(to_j(r));
  json j = {{"schema_version", f.schema_version}, {"family", f.family},       {"created", f.created},
            {"sol_version", f.sol_version},       {"device", to_j(f.device)}, {"environment", f.environment},
            {"ceilings", to_j(f.ceilings)},       {"records", recs}};
  return j.dump(2) + "\n";
}

File from_json_text(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    bad_input(origin + ": not valid JSON: " + printable(e.what(), 200));
  }
  if (!j.is_object()) bad_input(origin + ": a results file is a JSON object");
  File f;
  f.schema_version = 1;  // files written before the field existed
  get(j, "schema_version", f.schema_version, origin);
  if (f.schema_version < 1 || f.schema_version > kSchemaVersion)
    bad_input(origin + ": results schema version " + std::to_string(f.schema_version) + " is not one this build reads (1.." +
              std::to_string(kSchemaVersion) + ")");
  need(j, "family", f.family, origin);
  check_family(f.family, origin);
  get(j, "environment", f.environment, origin);
  get(j, "created", f.created, origin);
  get(j, "sol_version", f.sol_version, origin);
  if (j.contains("device")) {
    const auto& d = j["device"];
    std::string w = origin + " device";
    get(d, "name", f.device.name, w);
    get(d, "compute_capability", f.device.compute_capability, w);
    get(d, "sms", f.device.sms, w);
    get(d, "memory_bytes", f.device.memory_bytes, w);
    get(d, "l2_bytes", f.device.l2_bytes, w);
    get(d, "sm_clock_hz", f.device.sm_clock_hz, w);
    get(d, "driver", f.device.driver, w);
    get(d, "database_row", f.device.database_row, w);
  }
  if (!j.contains("ceilings")) bad_input(origin + ": missing field 'ceilings'");
  {
    const auto& c = j["ceilings"];
    std::string w = origin + " ceilings";
    need(c, "copy_bytes_per_s", f.ceilings.copy_bytes_per_s, w);
    get(c, "l2_bytes_per_s", f.ceilings.l2_bytes_per_s, w);
    get(c, "fp32_fma_flops_per_s", f.ceilings.fp32_fma_flops_per_s, w);
    get(c, "matrix_flops_per_s", f.ceilings.matrix_flops_per_s, w);
    get(c, "launch_overhead_s", f.ceilings.launch_overhead_s, w);
  }
  if (!j.contains("records") || !j["records"].is_array()) bad_input(origin + ": 'records' must be an array");
  int i = 0;
  for (const auto& r : j["records"]) f.records.push_back(record_from(r, origin + " record " + std::to_string(i++)));
  return f;
}

File read(const std::string& path) {
  return from_json_text(read_input_file(path, "results file"), path);
}

void write(const File& f, const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    if (ec) failure("cannot create folder " + p.parent_path().string() + ": " + ec.message());
  }
  std::ofstream out(path);
  if (!out) failure("cannot write results file " + path);
  out << to_json(f);
  if (!out) failure("error while writing " + path);
}

std::vector<File> read_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<File> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json" && e.path().filename() != kValidationFile) paths.push_back(e.path());
  if (ec) bad_input("cannot list results folder " + dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) files.push_back(read(p.string()));
  return files;
}

}  // namespace sol::results

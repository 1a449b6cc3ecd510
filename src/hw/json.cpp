// The --hw-file format: a spec as JSON, field for field the HwSpec struct. Reading is strict
// (types checked, unknown fields rejected, required fields named) so a typo in a user's file is
// one clear line, never a silently wrong roofline. validate() then checks that the numbers can
// be true: positive bandwidths, and peaks that agree with units × rate × clock.
#include <algorithm>
#include <cmath>
#include <cctype>
#include <utility>
#include <vector>
#include <set>

#include <nlohmann/json.hpp>

#include "rows.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"
#include "sol/hw/spec.hpp"

namespace sol::hw {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// A stated peak may differ from units × rate × clock by this much (vendors round their figures).
constexpr double kPeakTolerance = 0.02;

// Ranges a real chip's figures fall in, with orders of magnitude to spare: a value outside is a
// typo or a unit mistake (GB/s given as B/s), and would print as nonsense in every roofline.
struct Range {
  double lo, hi;
  const char* unit;
};
constexpr Range kFlopRate{1e6, 1e19, "FLOP/s"};
constexpr Range kByteRate{1e6, 1e16, "B/s"};
constexpr Range kClock{1e6, 1e11, "Hz"};
constexpr Range kCapacity{1, 1e16, "B"};
// Occupancy limits (counts and bytes): products of two of them must not overflow.
constexpr int kMaxLimit = 1 << 30;
constexpr int kMaxWarpSize = 1024;

// The occupancy limits, named once for reading, checking and writing.
constexpr std::pair<const char*, int SmLimits::*> kLimitFields[] = {
    {"warp_size", &SmLimits::warp_size},
    {"max_warps_per_sm", &SmLimits::max_warps_per_sm},
    {"max_blocks_per_sm", &SmLimits::max_blocks_per_sm},
    {"max_threads_per_block", &SmLimits::max_threads_per_block},
    {"registers_per_sm", &SmLimits::registers_per_sm},
    {"max_registers_per_thread", &SmLimits::max_registers_per_thread},
    {"register_alloc_unit", &SmLimits::register_alloc_unit},
    {"shared_bytes_per_sm", &SmLimits::shared_bytes_per_sm},
    {"max_shared_bytes_per_block", &SmLimits::max_shared_bytes_per_block},
    {"shared_alloc_unit", &SmLimits::shared_alloc_unit},
    {"reserved_shared_bytes_per_block", &SmLimits::reserved_shared_bytes_per_block},
};

const std::set<std::string>& peak_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k;
    for (DType t : all_dtypes()) k.insert(dtype_peak_key(t));
    return k;
  }();
  return keys;
}

std::string type_of(const json& v) {
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

// Reads one JSON object, naming the file, row and field path in every error.
class Reader {
 public:
  Reader(const json& obj, std::string origin, std::string row, std::string path)
      : obj_(obj), origin_(std::move(origin)), row_(std::move(row)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    bad_input(origin_ + ": " + row_ + ": field '" + path_ + field + "' " + problem,
              "see `sol hw show h100 --json` for the format");
  }
  bool has(const std::string& k) const { return obj_.contains(k); }
  const json& raw(const std::string& k) const {
    if (!obj_.contains(k)) fail(k, "is missing");
    return obj_.at(k);
  }
  // Rejects fields the format does not know, so a misspelt field is never silently ignored.
  void only(std::initializer_list<const char*> known) const { only(std::vector<std::string>(known.begin(), known.end())); }
  void only(const std::vector<std::string>& known) const {
    for (const auto& [k, v] : obj_.items())
      if (std::find(known.begin(), known.end(), k) == known.end() && !(path_.empty() && k == "schema_version"))
        fail(k, "is not a known field");  // schema_version: `sol hw show --json` output reads back
  }
  double number(const std::string& k, bool required, double dflt = 0) const {
    if (!has(k)) return required ? (fail(k, "is missing"), 0.0) : dflt;
    const json& v = obj_.at(k);
    if (!v.is_number()) fail(k, "must be a number, got " + type_of(v));
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(k, "must be finite");
    return d;
  }
  int integer(const std::string& k, bool required, int dflt = 0) const {
    const double d = number(k, required, dflt);
    if (d != std::floor(d) || std::fabs(d) > 2e9) fail(k, "must be an integer, got " + num(d));
    return static_cast<int>(d);
  }
  std::string text(const std::string& k, bool required) const {
    if (!has(k)) return required ? (fail(k, "is missing"), std::string()) : std::string();
    const json& v = obj_.at(k);
    if (!v.is_string()) fail(k, "must be a string, got " + type_of(v));
    return v.get<std::string>();
  }
  bool boolean(const std::string& k) const {
    if (!has(k)) return false;
    const json& v = obj_.at(k);
    if (!v.is_boolean()) fail(k, "must be true or false, got " + type_of(v));
    return v.get<bool>();
  }
  Reader object(const std::string& k) const {
    const json& v = raw(k);
    if (!v.is_object()) fail(k, "must be an object, got " + type_of(v));
    return Reader(v, origin_, row_, path_ + k + ".");
  }
  Reader element(const std::string& k, size_t i) const {
    const json& v = obj_.at(k).at(i);
    const std::string at = k + "[" + std::to_string(i) + "]";
    if (!v.is_object()) fail(at, "must be an object, got " + type_of(v));
    return Reader(v, origin_, row_, path_ + at + ".");
  }
  const json& array(const std::string& k) const {
    const json& v = raw(k);
    if (!v.is_array()) fail(k, "must be an array, got " + type_of(v));
    return v;
  }
  const json& obj() const { return obj_; }

 private:
  const json& obj_;
  std::string origin_, row_, path_;
};

Peak read_peak(const Reader& r) {
  r.only({"units", "unit_label", "flops_per_clock_per_unit", "clock_hz", "flops_per_s", "source", "note"});
  Peak p;
  p.units = r.number("units", true);
  p.unit_label = r.text("unit_label", false);
  p.flops_per_clock_per_unit = r.number("flops_per_clock_per_unit", true);
  p.clock_hz = r.number("clock_hz", true);
  // Optional: when absent it is the product; when present validate() checks it against the product.
  p.flops_per_s = r.number("flops_per_s", false, p.units * p.flops_per_clock_per_unit * p.clock_hz);
  p.source = r.text("source", true);
  p.note = r.text("note", false);
  return p;
}

std::map<std::string, Peak> read_peaks(const Reader& row, const std::string& key) {
  std::map<std::string, Peak> out;
  if (!row.has(key)) return out;
  const Reader peaks = row.object(key);
  for (const auto& [dtype, v] : peaks.obj().items()) {
    if (!peak_keys().count(dtype)) peaks.fail(dtype, "is not a dtype with a peak (use fp64, fp32, tf32, bf16, fp16, fp8, int8)");
    out[dtype] = read_peak(peaks.object(dtype));
  }
  return out;
}

Link read_link(const Reader& row, const std::string& key) {
  Link l;
  if (!row.has(key)) return l;
  const Reader r = row.object(key);
  r.only({"name", "bytes_per_s", "note", "source"});
  l.name = r.text("name", true);
  l.bytes_per_s = r.number("bytes_per_s", true);
  l.note = r.text("note", false);
  l.source = r.text("source", false);
  return l;
}

std::vector<Interconnect> read_interconnects(const Reader& row) {
  std::vector<Interconnect> out;
  if (!row.has("interconnects")) return out;
  const json& arr = row.array("interconnects");
  for (size_t i = 0; i < arr.size(); ++i) {
    const Reader r = row.element("interconnects", i);
    r.only({"key", "name", "links", "link_bytes_per_s", "bytes_per_s", "max_ranks", "torus_dims", "wrap_multiple", "note",
            "source"});
    Interconnect ic;
    ic.key = r.text("key", true);
    ic.name = r.text("name", true);
    ic.links = r.integer("links", true);
    ic.link_bytes_per_s = r.number("link_bytes_per_s", true);
    // Optional: when absent it is the product; when present validate() checks it against the product.
    ic.bytes_per_s = r.number("bytes_per_s", false, ic.links * ic.link_bytes_per_s);
    ic.max_ranks = r.integer("max_ranks", false);
    if (r.has("torus_dims")) {
      const json& dims = r.array("torus_dims");
      for (size_t d = 0; d < dims.size(); ++d) {
        if (!dims[d].is_number_integer()) r.fail("torus_dims[" + std::to_string(d) + "]", "must be an integer");
        ic.torus_dims.push_back(int(std::clamp<int64_t>(dims[d].get<int64_t>(), -1, kMaxLimit)));
      }
    }
    ic.wrap_multiple = r.integer("wrap_multiple", false);
    ic.note = r.text("note", false);
    ic.source = r.text("source", true);
    out.push_back(ic);
  }
  return out;
}

SmLimits read_limits(const Reader& row) {
  SmLimits l;
  if (!row.has("limits")) return l;
  const Reader r = row.object("limits");
  std::vector<std::string> names;
  for (const auto& [name, field] : kLimitFields) names.push_back(name);
  names.push_back("carveout_steps");
  r.only(names);
  for (const auto& [name, field] : kLimitFields) l.*field = r.integer(name, false, l.*field);
  if (r.has("carveout_steps")) {
    const json& steps = r.array("carveout_steps");
    for (size_t i = 0; i < steps.size(); ++i) {
      const json& v = steps[i];
      if (!v.is_number_integer() || v.get<double>() < 0 || v.get<double>() > kMaxLimit)
        r.fail("carveout_steps[" + std::to_string(i) + "]", "must be an integer 0.." + std::to_string(kMaxLimit) + " (bytes)");
      l.carveout_steps.push_back(v.get<int>());
    }
  }
  return l;
}

HwSpec read_spec(const json& j, const std::string& origin, const std::string& row_label) {
  if (!j.is_object()) bad_input(origin + ": " + row_label + " must be a JSON object, got " + type_of(j));
  // Name the row by its name as soon as it has a readable one.
  std::string row = row_label;
  if (j.contains("name") && j.at("name").is_string()) row = "row '" + j.at("name").get<std::string>() + "'";
  const Reader r(j, origin, row, "");
  r.only({"name", "full_name", "vendor", "arch", "compute_capability", "compute_units", "compute_unit_label",
          "matrix_units", "matrix_unit_label", "boost_clock_hz", "base_clock_hz", "matrix_peaks", "vector_peaks",
          "register_bytes_per_unit", "shared_bytes_per_unit", "l2_bytes", "hbm_bytes", "hbm_bytes_per_s",
          "hbm_source", "levels", "host_link", "chip_link", "interconnects", "limits", "sources", "measured"});
  HwSpec s;
  s.name = r.text("name", true);
  s.full_name = r.text("full_name", true);
  s.vendor = r.text("vendor", true);
  s.arch = r.text("arch", false);
  s.compute_capability = r.integer("compute_capability", false);
  s.compute_units = r.integer("compute_units", true);
  s.compute_unit_label = r.text("compute_unit_label", false);
  s.matrix_units = r.integer("matrix_units", false);
  s.matrix_unit_label = r.text("matrix_unit_label", false);
  s.boost_clock_hz = r.number("boost_clock_hz", false);
  s.base_clock_hz = r.number("base_clock_hz", false);
  s.matrix_peaks = read_peaks(r, "matrix_peaks");
  s.vector_peaks = read_peaks(r, "vector_peaks");
  s.register_bytes_per_unit = r.number("register_bytes_per_unit", false);
  s.shared_bytes_per_unit = r.number("shared_bytes_per_unit", false);
  s.l2_bytes = r.number("l2_bytes", false);
  s.hbm_bytes = r.number("hbm_bytes", true);
  s.hbm_bytes_per_s = r.number("hbm_bytes_per_s", true);
  s.hbm_source = r.text("hbm_source", false);
  if (r.has("levels")) {
    const json& levels = r.array("levels");
    for (size_t i = 0; i < levels.size(); ++i) {
      const Reader lr = r.element("levels", i);
      lr.only({"name", "capacity_bytes", "bytes_per_s", "derivation", "source"});
      MemLevel m;
      m.name = lr.text("name", true);
      m.capacity_bytes = lr.number("capacity_bytes", true);
      m.bytes_per_s = lr.number("bytes_per_s", true);
      m.derivation = lr.text("derivation", false);
      m.source = lr.text("source", false);
      s.levels.push_back(m);
    }
  } else {
    // A minimal file states HBM only; the hierarchy then has that one level.
    s.levels.push_back({"HBM", s.hbm_bytes, s.hbm_bytes_per_s, "stated as hbm_bytes_per_s", s.hbm_source});
  }
  s.host_link = read_link(r, "host_link");
  s.chip_link = read_link(r, "chip_link");
  s.interconnects = read_interconnects(r);
  s.limits = read_limits(r);
  const json& sources = r.array("sources");
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i].is_string())
      r.fail("sources[" + std::to_string(i) + "]", "must be a string, got " + type_of(sources[i]));
    s.sources.push_back(sources[i].get<std::string>());
  }
  s.measured = r.boolean("measured");
  return s;
}

ojson peak_json(const Peak& p) {
  ojson j;
  j["units"] = p.units;
  j["unit_label"] = p.unit_label;
  j["flops_per_clock_per_unit"] = p.flops_per_clock_per_unit;
  j["clock_hz"] = p.clock_hz;
  j["flops_per_s"] = p.flops_per_s;
  j["source"] = p.source;
  j["note"] = p.note;
  return j;
}

ojson link_json(const Link& l) {
  return ojson{{"name", l.name}, {"bytes_per_s", l.bytes_per_s}, {"note", l.note}, {"source", l.source}};
}

}  // namespace

void validate(const HwSpec& s, const std::string& origin) {
  const std::string row = s.name.empty() ? std::string("row ''") : "row '" + s.name + "'";
  auto fail = [&](const std::string& field, const std::string& problem) {
    bad_input(origin + ": " + row + ": field '" + field + "' " + problem);
  };
  // NaN and inf fail too: every comparison with them is false.
  auto plausible = [&](const std::string& field, double v, const Range& r) {
    if (!(v >= r.lo && v <= r.hi))
      fail(field, "is " + num(v) + ", outside the plausible " + si(r.lo, r.unit) + " .. " + si(r.hi, r.unit));
  };
  if (s.name.empty()) fail("name", "is empty");
  for (unsigned char c : s.name)
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.'))
      fail("name", "may hold only letters, digits, '-', '_' and '.'");
  if (s.full_name.empty()) fail("full_name", "is empty");
  if (s.vendor.empty()) fail("vendor", "is empty");
  if (s.compute_units <= 0) fail("compute_units", "must be > 0, got " + std::to_string(s.compute_units));
  if (s.matrix_units < 0) fail("matrix_units", "must be >= 0");
  if (s.compute_capability < 0) fail("compute_capability", "must be >= 0");
  if (s.boost_clock_hz < 0) fail("boost_clock_hz", "must be >= 0");
  if (s.base_clock_hz < 0) fail("base_clock_hz", "must be >= 0");
  if (s.base_clock_hz > 0 && s.boost_clock_hz > 0 && s.base_clock_hz > s.boost_clock_hz)
    fail("base_clock_hz", "is above boost_clock_hz");
  if (s.matrix_peaks.empty() && s.vector_peaks.empty()) fail("matrix_peaks", "is missing: a row needs at least one peak");
  for (const auto* peaks : {&s.matrix_peaks, &s.vector_peaks}) {
    const std::string where = peaks == &s.matrix_peaks ? "matrix_peaks." : "vector_peaks.";
    for (const auto& [key, p] : *peaks) {
      const std::string f = where + key;
      if (!peak_keys().count(key)) fail(f, "is not a dtype with a peak");
      if (p.units <= 0) fail(f + ".units", "must be > 0, got " + num(p.units));
      if (p.flops_per_clock_per_unit <= 0) fail(f + ".flops_per_clock_per_unit", "must be > 0, got " + num(p.flops_per_clock_per_unit));
      if (p.clock_hz <= 0) fail(f + ".clock_hz", "must be > 0, got " + num(p.clock_hz));
      if (p.flops_per_s <= 0) fail(f + ".flops_per_s", "must be > 0, got " + num(p.flops_per_s));
      plausible(f + ".clock_hz", p.clock_hz, kClock);
      const double product = p.units * p.flops_per_clock_per_unit * p.clock_hz;
      plausible(f + " (units × flops_per_clock_per_unit × clock_hz)", product, kFlopRate);
      plausible(f + ".flops_per_s", p.flops_per_s, kFlopRate);
      if (std::fabs(p.flops_per_s - product) > kPeakTolerance * product)
        fail(f + ".flops_per_s", "is " + si(p.flops_per_s, "FLOP/s") + " but units × flops_per_clock_per_unit × clock_hz = " +
                                     si(product, "FLOP/s") + " (more than 2 % apart)");
      if (p.source.empty()) fail(f + ".source", "is empty: every peak needs a source");
    }
  }
  if (s.register_bytes_per_unit < 0) fail("register_bytes_per_unit", "must be >= 0");
  if (s.shared_bytes_per_unit < 0) fail("shared_bytes_per_unit", "must be >= 0");
  if (s.l2_bytes < 0) fail("l2_bytes", "must be >= 0");
  if (s.hbm_bytes <= 0) fail("hbm_bytes", "must be > 0, got " + num(s.hbm_bytes));
  if (s.hbm_bytes_per_s <= 0) fail("hbm_bytes_per_s", "must be > 0, got " + num(s.hbm_bytes_per_s));
  plausible("hbm_bytes", s.hbm_bytes, kCapacity);
  plausible("hbm_bytes_per_s", s.hbm_bytes_per_s, kByteRate);
  for (const auto& [field, v] : {std::pair<const char*, double>{"boost_clock_hz", s.boost_clock_hz},
                                 {"base_clock_hz", s.base_clock_hz}})
    if (v != 0) plausible(field, v, kClock);
  for (const auto& [field, v] : {std::pair<const char*, double>{"register_bytes_per_unit", s.register_bytes_per_unit},
                                 {"shared_bytes_per_unit", s.shared_bytes_per_unit},
                                 {"l2_bytes", s.l2_bytes}})
    if (v != 0) plausible(field, v, kCapacity);
  if (s.levels.empty()) fail("levels", "is empty: the last level must be HBM");
  for (size_t i = 0; i < s.levels.size(); ++i) {
    const MemLevel& m = s.levels[i];
    const std::string f = "levels[" + std::to_string(i) + "]";
    if (m.name.empty()) fail(f + ".name", "is empty");
    if (m.capacity_bytes <= 0) fail(f + ".capacity_bytes", "must be > 0, got " + num(m.capacity_bytes));
    if (m.bytes_per_s <= 0) fail(f + ".bytes_per_s", "must be > 0, got " + num(m.bytes_per_s));
    plausible(f + ".capacity_bytes", m.capacity_bytes, kCapacity);
    plausible(f + ".bytes_per_s", m.bytes_per_s, kByteRate);
    if (i > 0 && m.bytes_per_s > s.levels[i - 1].bytes_per_s)
      fail(f + ".bytes_per_s", "is faster than the level before it: levels go fastest first");
  }
  const MemLevel& last = s.levels.back();
  if (last.name != "HBM") fail("levels", "must end with the level named \"HBM\", not \"" + last.name + "\"");
  if (std::fabs(last.bytes_per_s - s.hbm_bytes_per_s) > 1e-9 * s.hbm_bytes_per_s)
    fail("levels[" + std::to_string(s.levels.size() - 1) + "].bytes_per_s", "differs from hbm_bytes_per_s");
  for (const auto* l : {&s.host_link, &s.chip_link}) {
    const std::string f = l == &s.host_link ? "host_link" : "chip_link";
    if (l->bytes_per_s < 0 || (!l->name.empty() && l->bytes_per_s == 0))
      fail(f + ".bytes_per_s", "must be > 0, got " + num(l->bytes_per_s));
    if (l->bytes_per_s != 0) plausible(f + ".bytes_per_s", l->bytes_per_s, kByteRate);
  }
  for (size_t i = 0; i < s.interconnects.size(); ++i) {
    const Interconnect& ic = s.interconnects[i];
    const std::string f = "interconnects[" + std::to_string(i) + "]";
    if (ic.key.empty()) fail(f + ".key", "is empty");
    for (size_t j = 0; j < i; ++j)
      if (s.interconnects[j].key == ic.key) fail(f + ".key", "'" + ic.key + "' appears twice");
    if (ic.name.empty()) fail(f + ".name", "is empty");
    if (ic.links <= 0 || ic.links > 1024) fail(f + ".links", "must be 1..1024, got " + std::to_string(ic.links));
    plausible(f + ".link_bytes_per_s", ic.link_bytes_per_s, kByteRate);
    plausible(f + ".bytes_per_s", ic.bytes_per_s, kByteRate);
    const double product = ic.links * ic.link_bytes_per_s;
    if (std::fabs(ic.bytes_per_s - product) > kPeakTolerance * product)
      fail(f + ".bytes_per_s", "is " + si(ic.bytes_per_s, "B/s") + " but links × link_bytes_per_s = " + si(product, "B/s"));
    if (ic.max_ranks < 0 || ic.max_ranks == 1) fail(f + ".max_ranks", "must be 0 (no limit) or ≥ 2");
    if (ic.torus_dims.size() > 3) fail(f + ".torus_dims", "has more than 3 axes");
    for (int d : ic.torus_dims)
      if (d < 1 || d > 4096) fail(f + ".torus_dims", "must hold chips per axis, 1..4096, got " + std::to_string(d));
    if (ic.wrap_multiple < 0 || ic.wrap_multiple > 4096) fail(f + ".wrap_multiple", "must be 0..4096");
    if ((ic.key == "ici") != !ic.torus_dims.empty())
      fail(f + ".torus_dims", ic.key == "ici" ? "is missing: an ICI fabric needs its largest torus" : "applies only to key 'ici'");
    if (ic.source.empty()) fail(f + ".source", "is empty: every interconnect needs a source");
  }
  const SmLimits& m = s.limits;
  for (const auto& [name, field] : kLimitFields)
    if (m.*field < 0 || m.*field > kMaxLimit)
      fail(std::string("limits.") + name, "must be 0.." + std::to_string(kMaxLimit) + ", got " + std::to_string(m.*field));
  if (m.warp_size > kMaxWarpSize)
    fail("limits.warp_size", "must be at most " + std::to_string(kMaxWarpSize) + ", got " + std::to_string(m.warp_size));
  if (m.max_shared_bytes_per_block > m.shared_bytes_per_sm)
    fail("limits.max_shared_bytes_per_block", "exceeds limits.shared_bytes_per_sm");
  for (size_t i = 0; i < m.carveout_steps.size(); ++i)
    if (m.carveout_steps[i] < 0 || (i > 0 && m.carveout_steps[i] <= m.carveout_steps[i - 1]))
      fail("limits.carveout_steps", "must be ascending sizes ≥ 0");
  if (!m.carveout_steps.empty() && m.carveout_steps.back() != m.shared_bytes_per_sm)
    fail("limits.carveout_steps", "must end at limits.shared_bytes_per_sm");
  if (m.max_warps_per_sm > 0 && m.max_threads_per_block > int64_t(m.max_warps_per_sm) * m.warp_size)
    fail("limits.max_threads_per_block", "exceeds max_warps_per_sm × warp_size");
  if (s.sources.empty()) fail("sources", "is empty: every row needs a source");
  for (const auto& src : s.sources)
    if (src.empty()) fail("sources", "holds an empty string");
}

std::string to_json(const HwSpec& s, int indent) {
  ojson j;
  j["name"] = s.name;
  j["full_name"] = s.full_name;
  j["vendor"] = s.vendor;
  j["arch"] = s.arch;
  j["compute_capability"] = s.compute_capability;
  j["compute_units"] = s.compute_units;
  j["compute_unit_label"] = s.compute_unit_label;
  j["matrix_units"] = s.matrix_units;
  j["matrix_unit_label"] = s.matrix_unit_label;
  j["boost_clock_hz"] = s.boost_clock_hz;
  j["base_clock_hz"] = s.base_clock_hz;
  j["matrix_peaks"] = ojson::object();
  for (const auto& [k, p] : s.matrix_peaks) j["matrix_peaks"][k] = peak_json(p);
  j["vector_peaks"] = ojson::object();
  for (const auto& [k, p] : s.vector_peaks) j["vector_peaks"][k] = peak_json(p);
  j["register_bytes_per_unit"] = s.register_bytes_per_unit;
  j["shared_bytes_per_unit"] = s.shared_bytes_per_unit;
  j["l2_bytes"] = s.l2_bytes;
  j["hbm_bytes"] = s.hbm_bytes;
  j["hbm_bytes_per_s"] = s.hbm_bytes_per_s;
  j["hbm_source"] = s.hbm_source;
  j["levels"] = ojson::array();
  for (const auto& m : s.levels)
    j["levels"].push_back({{"name", m.name},
                           {"capacity_bytes", m.capacity_bytes},
                           {"bytes_per_s", m.bytes_per_s},
                           {"derivation", m.derivation},
                           {"source", m.source}});
  j["host_link"] = link_json(s.host_link);
  j["chip_link"] = link_json(s.chip_link);
  j["interconnects"] = ojson::array();
  for (const auto& ic : s.interconnects) {
    ojson o{{"key", ic.key}, {"name", ic.name}, {"links", ic.links}, {"link_bytes_per_s", ic.link_bytes_per_s},
            {"bytes_per_s", ic.bytes_per_s}, {"max_ranks", ic.max_ranks}};
    if (!ic.torus_dims.empty()) o["torus_dims"] = ic.torus_dims, o["wrap_multiple"] = ic.wrap_multiple;
    o["note"] = ic.note;
    o["source"] = ic.source;
    j["interconnects"].push_back(o);
  }
  j["limits"] = ojson::object();
  for (const auto& [name, field] : kLimitFields) j["limits"][name] = s.limits.*field;
  if (!s.limits.carveout_steps.empty()) j["limits"]["carveout_steps"] = s.limits.carveout_steps;
  j["sources"] = s.sources;
  j["measured"] = s.measured;
  return j.dump(indent);
}

std::vector<HwSpec> from_json_array_text(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number such as 1e999.
    bad_input(origin + ": bad JSON: " + printable(e.what(), 200), "check the file with a JSON validator");
  }
  std::vector<HwSpec> rows;
  if (j.is_array()) {
    if (j.empty()) bad_input(origin + ": the array holds no rows");
    for (size_t i = 0; i < j.size(); ++i) rows.push_back(read_spec(j[i], origin, "row " + std::to_string(i)));
  } else {
    rows.push_back(read_spec(j, origin, "row 0"));
  }
  for (const auto& s : rows) validate(s, origin);
  return rows;
}

HwSpec from_json_text(const std::string& text, const std::string& origin) {
  std::vector<HwSpec> rows = from_json_array_text(text, origin);
  if (rows.size() != 1) bad_input(origin + ": holds " + std::to_string(rows.size()) + " rows where one was expected");
  return rows.front();
}

}  // namespace sol::hw

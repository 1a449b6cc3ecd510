// The roofline of §6: time is bounded below by the compute time F/P and the memory time Q/B;
// with perfect overlap the slower one is the floor. The hierarchical form repeats the memory
// half at every level of the hierarchy whose traffic the cost model knows.
#include "sol/model/roofline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"

namespace sol::model {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool positive_finite(double v) { return v > 0 && std::isfinite(v); }

DType math_type(const Cost& c) { return c.math_dtype.value_or(c.dtype); }

}  // namespace

PeakChoice resolve_peak(const hw::HwSpec& hw, DType dtype, hw::Unit preferred) {
  if (hw.has(dtype, preferred)) return {preferred, dtype, ""};
  if (preferred == hw::Unit::Matrix && hw.has(dtype, hw::Unit::Vector))
    return {hw::Unit::Vector, dtype,
            hw.name + " has no " + dtype_name(dtype) + " matrix peak; using its vector unit (SIMT FMA) instead"};
  if (preferred == hw::Unit::Vector && dtype != DType::f32 && hw.has(DType::f32, hw::Unit::Vector))
    return {hw::Unit::Vector, DType::f32,
            hw.name + "'s vector unit has no " + dtype_name(dtype) + " math; the data is converted and computed in "
            "fp32, so the fp32 vector peak bounds it"};
  return {preferred, dtype, ""};
}

Ceilings datasheet_ceilings(const hw::HwSpec& hw, DType dtype, hw::Unit unit) {
  const hw::Peak& p = hw.peak(dtype, unit);
  if (!positive_finite(p.flops_per_s)) bad_input(hw.name + ": the " + dtype_name(dtype) + " peak is not positive");
  if (!positive_finite(hw.hbm_bytes_per_s)) bad_input(hw.name + " has no HBM bandwidth", "fix the hardware row");
  const std::string origin = hw.measured ? " (measured)" : " (datasheet)";
  Ceilings c;
  c.flops_per_s = p.flops_per_s;
  c.bytes_per_s = hw.hbm_bytes_per_s;
  c.flops_label = si(p.flops_per_s, "FLOP/s") + " " + dtype_name(dtype) + " " + hw::unit_name(unit) + origin;
  c.bytes_label = si(hw.hbm_bytes_per_s, "B/s") + " device memory" + origin;
  return c;
}

Estimate roofline(const Cost& cost, const Ceilings& c) {
  if (!positive_finite(c.flops_per_s) || !positive_finite(c.bytes_per_s))
    bad_input("roofline ceilings must be positive", "check the peak FLOP/s and bandwidth of the hardware row");
  if (!(cost.flops >= 0) || !std::isfinite(cost.flops)) bad_input("FLOP count must be finite and ≥ 0");
  if (!positive_finite(cost.bytes)) bad_input("byte count must be positive (every operation moves its operands)");
  Estimate e;
  e.flops = cost.flops;
  e.bytes = cost.bytes;
  e.saved_bytes = cost.saved_bytes;
  e.ceilings = c;
  e.intensity = cost.flops / cost.bytes;
  e.ridge = c.flops_per_s / c.bytes_per_s;
  e.t_compute_s = cost.flops / c.flops_per_s;
  e.t_memory_s = cost.bytes / c.bytes_per_s;
  e.t_floor_s = std::max(e.t_compute_s, e.t_memory_s);
  // The lecture's rule: compute-bound only when the intensity exceeds the ridge.
  e.bound = e.t_compute_s > e.t_memory_s ? "compute" : "memory";
  e.attainable_flops_per_s = cost.flops / e.t_floor_s;
  e.fraction_of_peak = e.attainable_flops_per_s / c.flops_per_s;
  return e;
}

Estimate roofline(const Cost& cost, const hw::HwSpec& hw) {
  return roofline(cost, datasheet_ceilings(hw, math_type(cost), cost.unit));
}

std::vector<LevelEstimate> hierarchical(const Cost& cost, const hw::HwSpec& hw) {
  const double peak = hw.peak(math_type(cost), cost.unit).flops_per_s;
  if (!positive_finite(cost.bytes)) bad_input("byte count must be positive (every operation moves its operands)");
  auto row = [&](const std::string& name, double bytes, double bw) {
    LevelEstimate l;
    l.level = name;
    l.bytes = bytes;
    l.bytes_per_s = bw;
    l.intensity = cost.flops / bytes;
    l.ridge = peak / bw;
    l.t_s = bytes / bw;
    return l;
  };
  std::vector<LevelEstimate> out;
  // Faster levels first, for those whose traffic the model knows; the database lists HBM last.
  for (size_t i = 0; i + 1 < hw.levels.size(); ++i) {
    const hw::MemLevel& lvl = hw.levels[i];
    if (!positive_finite(lvl.bytes_per_s)) continue;
    for (const LevelTraffic& t : cost.levels)
      if (lower(t.level) == lower(lvl.name) && positive_finite(t.bytes)) out.push_back(row(lvl.name, t.bytes, lvl.bytes_per_s));
  }
  const double hbm_bw = hw.levels.empty() ? hw.hbm_bytes_per_s : hw.levels.back().bytes_per_s;
  if (!positive_finite(hbm_bw)) bad_input(hw.name + " has no device-memory bandwidth", "fix the hardware row");
  out.push_back(row(hw.levels.empty() ? "HBM" : hw.levels.back().name, cost.bytes, hbm_bw));
  auto slowest = std::max_element(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.t_s < b.t_s; });
  slowest->binding = true;
  return out;
}

}  // namespace sol::model

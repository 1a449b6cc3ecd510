// Which database row a device is, and which ceilings a cost is measured against: the datasheet's
// (from the row) and the ones measured on this card in the same run (from the probe).
#include <cmath>

#include "bench/harness.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/predict.hpp"

namespace sol::bench {

namespace {
std::string describe(const results::Device& d) {
  return d.name + " (cc " + std::to_string(d.compute_capability / 10) + "." + std::to_string(d.compute_capability % 10) +
         ", " + std::to_string(d.sms) + " SMs, " + bytes_iec(d.memory_bytes) + ")";
}
}  // namespace

std::string match_database_row(const results::Device& d, std::string* why) {
  int candidates = 0;
  const hw::HwSpec* row = hw::match_builtin(d.compute_capability, d.sms, d.memory_bytes, &candidates);
  std::string reason;
  if (candidates == 0)
    reason = "no database row has the compute capability and SM count of " + describe(d);
  else if (!row)
    reason = std::to_string(candidates) + " row(s) share the compute capability and SM count of " + describe(d) +
             " but none has its memory size within 20 %";
  if (why) *why = reason;
  return row ? row->name : "";
}

const hw::HwSpec& datasheet_for(const results::Device& d, const std::string& override_name) {
  if (!override_name.empty()) return hw::find(override_name);
  if (!d.database_row.empty()) return hw::find(d.database_row);
  std::string why;
  const std::string row = match_database_row(d, &why);
  if (row.empty()) bad_input(why, "pass --gpu NAME with a row from `sol hw list` (or --hw-file) to compare against");
  return hw::find(row);
}

model::Ceilings measured_ceilings(const model::Cost& cost, const results::MeasuredCeilings& m, const hw::HwSpec& row) {
  model::Ceilings c;
  if (m.copy_bytes_per_s > 0) {
    c.bytes_per_s = m.copy_bytes_per_s;
    c.bytes_label = si(c.bytes_per_s, "B/s") + " copy (measured)";
  } else {
    c.bytes_per_s = row.hbm_bytes_per_s;
    c.bytes_label = si(c.bytes_per_s, "B/s") + " HBM (datasheet: not measured)";
  }
  // The unit and math type whose peak bounds this cost on this chip (fp32 matmuls on Hopper run
  // on the vector unit; fp8 data on a vector unit is computed in fp32).
  const model::PeakChoice pick = model::resolve_peak(row, cost.math_dtype.value_or(cost.dtype), cost.unit);
  double measured = 0;
  std::string what;
  if (cost.unit == hw::Unit::Matrix) {
    // A matmul is measured against cuBLASLt's rate for its type, SGEMM included.
    const std::string key = dtype_peak_key(cost.math_dtype.value_or(cost.dtype));
    if (auto it = m.matrix_flops_per_s.find(key); it != m.matrix_flops_per_s.end()) measured = it->second;
    what = key + " matmul (cuBLASLt, measured)";
  } else if (pick.unit == hw::Unit::Vector && pick.dtype == DType::f32) {
    measured = m.fp32_fma_flops_per_s;
    what = "fp32 FMA (measured)";
  }
  if (measured > 0) {
    c.flops_per_s = measured;
    c.flops_label = si(measured, "FLOP/s") + " " + what;
  } else if (row.has(pick.dtype, pick.unit)) {
    c.flops_per_s = row.peak(pick.dtype, pick.unit).flops_per_s;
    c.flops_label = si(c.flops_per_s, "FLOP/s") + " " + dtype_peak_key(pick.dtype) + " " + hw::unit_name(pick.unit) +
                    " (datasheet: not measured)";
  }
  return c;
}

}  // namespace sol::bench

namespace sol::bench {

namespace {
void add_note(results::Record& r, const std::string& note) { r.note += (r.note.empty() ? "" : "; ") + note; }

// The type a result is compared by: the data's, except fp32 multiplied in TF32, whose inputs are
// rounded to 10 mantissa bits (an SGEMM is not comparable with a TF32 GEMM).
std::string record_dtype(const model::Cost& cost) {
  return dtype_name(cost.math_dtype == DType::tf32 ? DType::tf32 : cost.dtype);
}
}  // namespace

void apply_model(results::Record& r, const model::Cost& cost, const results::MeasuredCeilings& m, const hw::HwSpec& row) {
  r.flops = cost.flops;
  r.bytes = cost.bytes;
  r.dtype = record_dtype(cost);
  try {
    const model::PeakChoice pick = model::resolve_peak(row, cost.math_dtype.value_or(cost.dtype), cost.unit);
    const model::Estimate sheet = model::roofline(cost, model::datasheet_ceilings(row, pick.dtype, pick.unit));
    r.floor_s = sheet.t_floor_s;
    r.bound = sheet.bound;
    if (!pick.why.empty()) add_note(r, pick.why);
  } catch (const Error& e) {
    add_note(r, std::string("no datasheet floor: ") + e.what());
  }
  try {
    const model::Ceilings c = measured_ceilings(cost, m, row);
    if (c.flops_per_s > 0 && c.bytes_per_s > 0) {
      const model::Estimate e = model::roofline(cost, c);
      r.floor_measured_s = e.t_floor_s;
      r.floor_measured_base = e.bound == "memory" ? c.bytes_label : c.flops_label;  // the ceiling that binds
    }
  } catch (const Error& e) {
    add_note(r, std::string("no measured floor: ") + e.what());
  }
  try {
    predict::Work w = predict::work_of(r);
    w.exec = cost.exec;  // how the variant runs (its spec), as sol validate reads it from the registry
    r.predicted_s = predict::predict(w, predict::ceilings_for(m, row)).seconds;
  } catch (const Error& e) {
    add_note(r, std::string("no prediction: ") + e.what());
  }
}

void set_achieved(results::Record& r) {
  r.achieved_flops_per_s = r.median_s > 0 ? r.flops / r.median_s : 0;
  r.achieved_bytes_per_s = r.median_s > 0 ? r.bytes / r.median_s : 0;
}

}  // namespace sol::bench

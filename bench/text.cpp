// What the harness prints: the probe's ceilings against the datasheet, a family's records with
// their floors and speed-ups, and the measured profile `sol probe` saves. Plain host code.
#include <algorithm>
#include <cmath>

#include "bench/harness.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace {

std::string pct(double fraction) { return fraction > 0 ? num(100 * fraction, 3) + " %" : "—"; }


const hw::MemLevel* level(const hw::HwSpec& row, const std::string& name) {
  for (const auto& l : row.levels)
    if (l.name == name) return &l;
  return nullptr;
}

// The datasheet rate a probed matrix type is compared with: the matrix peak, or for fp32 (SIMT
// SGEMM on chips without an fp32 matrix unit) the vector peak.
double datasheet_matrix(const hw::HwSpec& row, const std::string& key, std::string* label) {
  if (auto it = row.matrix_peaks.find(key); it != row.matrix_peaks.end()) return it->second.flops_per_s;
  if (auto it = row.vector_peaks.find(key); it != row.vector_peaks.end()) {
    *label += " (vs the vector peak)";
    return it->second.flops_per_s;
  }
  return 0;
}

std::string ratio(double x) { return x > 0 ? num(x, 3) + "×" : "—"; }

}  // namespace


double speedup_over_previous(const results::File& f, const results::Record& r) {
  if (!results::valid(r) || results::is_peer(r) || results::is_dispatch(r)) return 0;
  const results::Record* prev = nullptr;
  for (const auto& o : f.records)
    if (results::valid(o) && !results::is_peer(o) && !results::is_dispatch(o) && o.family == r.family && o.shape == r.shape && o.version < r.version &&
        (!prev || o.version > prev->version))
      prev = &o;
  return prev ? prev->median_s / r.median_s : 0;
}

double speedup_over_peer(const results::File& f, const results::Record& r) {
  if (!results::valid(r) || results::is_peer(r)) return 0;
  const results::Record* best = results::best_peer(f, r);
  return best ? best->median_s / r.median_s : 0;
}

std::string records_table(const results::File& f) {
  std::string out = f.family + " on " + (f.device.name.empty() ? "?" : f.device.name);
  if (!f.device.database_row.empty()) out += " (database row " + f.device.database_row + ")";
  out += "; measured copy ceiling " +
         (f.ceilings.copy_bytes_per_s > 0 ? si(f.ceilings.copy_bytes_per_s, "B/s") : std::string("unknown")) + "\n";
  Table t({"variant", "shape", "time", "spread", "FLOP/s", "B/s", "floor", "% of floor", "floor (meas.)", "% (meas.)",
           "bound", "× prev", "× peer"});
  std::vector<std::string> notes;
  for (const auto& r : f.records) {
    const std::string who = r.variant + (r.shape.empty() ? "" : " " + r.shape);
    if (!r.skipped.empty()) {
      t.add_row({r.variant, r.shape, "skipped"});
      notes.push_back(who + ": " + r.skipped);
      continue;
    }
    if (!r.verified) {
      t.add_row({r.variant, r.shape, "invalid"});
      notes.push_back(who + ": " + (r.note.empty() ? "failed verification" : r.note));
      continue;
    }
    t.add_row({r.variant, r.shape, si(r.median_s, "s", 3), "±" + num(50 * r.spread, 2) + " %",
               r.flops > 0 ? si(r.achieved_flops_per_s, "FLOP/s", 3) : "—", si(r.achieved_bytes_per_s, "B/s", 3),
               r.floor_s > 0 ? si(r.floor_s, "s", 3) : "—", pct(r.floor_s / r.median_s),
               r.floor_measured_s > 0 ? si(r.floor_measured_s, "s", 3) : "—", pct(r.floor_measured_s / r.median_s),
               r.bound.empty() ? "—" : r.bound, ratio(speedup_over_previous(f, r)), ratio(speedup_over_peer(f, r))});
    if (r.throttled) notes.push_back(who + ": taken while throttled (" + r.throttle_reasons + ")");
  }
  out += t.str();
  out += "time = median; spread = ±half of p10–p90; % of floor = the model's floor / time (datasheet, and the "
         "ceilings measured in this run); × prev = over the previous version, × peer = over the fastest peer, "
         "same shape\n";
  for (const auto& n : notes) out += "  note: " + n + "\n";
  return reflow(out);  // the prose lines wrapped; the table fits already
}

hw::HwSpec measured_profile(const ProbeResult& p, const hw::HwSpec& row) {
  hw::HwSpec s = row;
  s.name = "measured";
  s.full_name = (p.device.name.empty() ? row.full_name : p.device.name) + " (measured by sol probe; unmeasured fields from " +
                row.name + ")";
  s.measured = true;
  const std::string src = "sol probe on " + (p.device.name.empty() ? std::string("this GPU") : p.device.name);
  // A measured rate keeps the row's units and work per clock; its clock becomes the effective one.
  auto set_rate = [&](hw::Peak& peak, double rate, const std::string& how) {
    peak.flops_per_s = rate;
    peak.clock_hz = rate / (peak.units * peak.flops_per_clock_per_unit);
    peak.source = src;
    peak.note = "measured: " + how + "; clock_hz is the effective clock that gives this rate";
  };
  for (const auto& [key, rate] : p.ceilings.matrix_flops_per_s)
    if (auto it = s.matrix_peaks.find(key); it != s.matrix_peaks.end() && rate > 0)
      set_rate(it->second, rate, "cuBLASLt " + key + " 8192³");
  if (auto it = s.vector_peaks.find("fp32"); it != s.vector_peaks.end() && p.ceilings.fp32_fma_flops_per_s > 0)
    set_rate(it->second, p.ceilings.fp32_fma_flops_per_s, "independent fp32 FMA chains");
  if (p.ceilings.copy_bytes_per_s > 0) {
    s.hbm_bytes_per_s = p.ceilings.copy_bytes_per_s;
    s.hbm_source = src + ": device-to-device copy, read + write";
    if (!s.levels.empty() && s.levels.back().name == "HBM") {
      s.levels.back().bytes_per_s = s.hbm_bytes_per_s;
      s.levels.back().derivation = "measured copy bandwidth (read + write)";
      s.levels.back().source = src;
    }
  }
  for (size_t i = 0; i < s.levels.size(); ++i) {
    hw::MemLevel& l = s.levels[i];
    const double above = i > 0 ? s.levels[i - 1].bytes_per_s : INFINITY;
    const double below = i + 1 < s.levels.size() ? s.levels[i + 1].bytes_per_s : 0;
    // Only a measurement that keeps the levels ordered fastest first replaces the datasheet's.
    if (l.name == "L2" && p.ceilings.l2_bytes_per_s > below && p.ceilings.l2_bytes_per_s <= above) {
      l.bytes_per_s = p.ceilings.l2_bytes_per_s;
      l.derivation = "measured L2 reads (a quarter of L2, repeated)";
      l.source = src;
    }
  }
  s.sources.push_back(src);
  hw::validate(s, "measured profile");
  return s;
}

std::string probe_table(const ProbeResult& p, const hw::HwSpec* row) {
  const hw::HwSpec none;
  const hw::HwSpec& sheet_row = row ? *row : none;
  Table t({"ceiling", "measured", "datasheet", "% of datasheet"});
  auto add = [&](const std::string& what, double measured, double sheet, const std::string& unit) {
    t.add_row({what, measured > 0 ? si(measured, unit) : "not measured", sheet > 0 ? si(sheet, unit) : "—",
               measured > 0 && sheet > 0 ? pct(measured / sheet) : "—"});
  };
  add("HBM copy, kernel (16 B loads)", p.copy_kernel_bytes_per_s, sheet_row.hbm_bytes_per_s, "B/s");
  add("HBM copy, cudaMemcpy", p.memcpy_bytes_per_s, sheet_row.hbm_bytes_per_s, "B/s");
  const hw::MemLevel* l2 = level(sheet_row, "L2");
  add("L2 read", p.ceilings.l2_bytes_per_s, l2 ? l2->bytes_per_s : 0, "B/s");
  for (const char* key : {"bf16", "fp16", "tf32", "fp32", "fp8"}) {
    std::string label = std::string(key) + " matmul (cuBLASLt)";
    const double sheet = datasheet_matrix(sheet_row, key, &label);
    auto it = p.ceilings.matrix_flops_per_s.find(key);
    add(label, it == p.ceilings.matrix_flops_per_s.end() ? 0 : it->second, sheet, "FLOP/s");
  }
  auto fp32 = sheet_row.vector_peaks.find("fp32");
  add("fp32 FMA (vector)", p.ceilings.fp32_fma_flops_per_s,
      fp32 == sheet_row.vector_peaks.end() ? 0 : fp32->second.flops_per_s, "FLOP/s");
  t.add_row({"launch overhead (per empty kernel)",
             p.ceilings.launch_overhead_s > 0 ? si(p.ceilings.launch_overhead_s, "s") : "not measured", "—", "—"});
  std::string out = p.device.name + ", cc " + std::to_string(p.device.compute_capability / 10) + "." +
                    std::to_string(p.device.compute_capability % 10) + ", " + std::to_string(p.device.sms) + " SMs, " +
                    bytes_iec(p.device.memory_bytes) + ", L2 " + bytes_iec(p.device.l2_bytes) + ", " + p.device.driver +
                    "\ndatabase row: " + (row ? row->name : std::string("none")) + "\n" + t.str();
  for (const auto& n : p.notes) out += "  " + n + "\n";
  if (!p.saved_to.empty()) out += "measured profile saved to " + p.saved_to + " (use it as --gpu measured)\n";
  return out;
}

}  // namespace sol::bench

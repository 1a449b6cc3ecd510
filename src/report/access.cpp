// The access models set against committed measurements (include/sol/report/access.hpp).
#include "sol/report/access.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/shape.hpp"
#include "sol/model/access.hpp"

namespace sol::report {
using namespace sol::model;  // the models drawn or set against measurement

namespace {
const results::Record* find_record(const results::File& f, const std::string& variant, const std::string& shape) {
  for (const auto& r : f.records)
    if (r.variant == variant && r.shape == shape && results::valid(r)) return &r;
  return nullptr;
}

// Per warp of the strided copy: the read at `stride` plus a contiguous fp32 write (128 B).
double strided_warp_bytes(int64_t stride, bool dram) {
  const Coalescing c = coalescing(4, stride);
  return double(dram ? c.dram_bytes : c.sector_bytes) + 128.0;
}

void coalescing_rows(const results::File& f, std::vector<AgainstRow>& out) {
  for (const auto& r : f.records) {
    if (!results::valid(r)) continue;
    const Shape s = Shape::parse(r.shape);
    if (r.variant == "v03_strided" && s.at("stride") > 1) {
      const results::Record* unit = find_record(f, r.variant, "n=" + std::to_string(s.at("n")) + ",stride=1");
      if (!unit) continue;
      const int64_t stride = s.at("stride");
      out.push_back({f.family, "v03_strided stride " + std::to_string(stride) + " vs stride 1",
                     std::to_string(coalescing(4, stride).sectors) + " sectors/request",
                     strided_warp_bytes(stride, false) / strided_warp_bytes(1, false),
                     strided_warp_bytes(stride, true) / strided_warp_bytes(1, true), r.median_s / unit->median_s});
    }
    if (r.variant == "v01_row_per_thread") {
      const results::Record* col = find_record(f, "v02_col_per_thread", r.shape);
      if (!col) continue;
      // A thread per row: lanes a row apart, 32 sectors per request against 4. Each sector is used
      // by the row's next 7 iterations through L1, so DRAM still moves each byte once.
      const Coalescing rows = coalescing(4, s.at("cols")), cols = coalescing(4, 1);
      out.push_back({f.family, "v01_row_per_thread vs v02_col_per_thread at " + r.shape,
                     std::to_string(rows.sectors) + " vs " + std::to_string(cols.sectors) + " sectors/request",
                     double(rows.sectors) / double(cols.sectors), 1.0, r.median_s / col->median_s});
    }
  }
}

// The tile transpose: HBM moves rows·cols·4 B twice (the record's bytes); shared memory serves one
// conflict-free row write and one column read of `degree` wavefronts per 32 elements, one wavefront
// per SM per clock. Predicted time = the slower of the two.
double transpose_time(const results::File& f, const results::Record& r, int degree) {
  const Shape s = Shape::parse(r.shape);
  const double warps = double(s.at("rows")) * double(s.at("cols")) / 32.0;
  const double t_smem = warps * (1 + degree) / (double(f.device.sms) * f.device.sm_clock_hz);
  const double t_hbm = r.bytes / f.ceilings.copy_bytes_per_s;
  return std::max(t_smem, t_hbm);
}

void banks_rows(const results::File& f, std::vector<AgainstRow>& out) {
  if (f.device.sms <= 0 || f.device.sm_clock_hz <= 0 || f.ceilings.copy_bytes_per_s <= 0)
    bad_input("the banks results lack the device's SMs, clock or measured copy ceiling");
  const int conflicted = bank_conflicts({4, 32, 32, 0, false, 32}).degree;
  const int padded = bank_conflicts({4, 32, 32, 1, false, 32}).degree;
  const int swizzled = bank_conflicts({4, 32, 32, 0, true, 32}).degree;
  for (const auto& r : f.records) {
    if (r.variant != "v01_tile32" || !results::valid(r)) continue;
    for (const auto& [fix, degree] : {std::pair<std::string, int>{"v02_padded", padded}, {"v03_swizzled", swizzled}}) {
      const results::Record* other = find_record(f, fix, r.shape);
      if (!other) continue;
      out.push_back({f.family, "v01_tile32 vs " + fix + " at " + r.shape,
                     std::to_string(conflicted) + "-way vs " + std::to_string(degree) + "-way",
                     transpose_time(f, r, conflicted) / transpose_time(f, *other, degree), 0, r.median_s / other->median_s});
    }
  }
}

void divergence_rows(const results::File& f, std::vector<AgainstRow>& out) {
  for (const auto& r : f.records) {
    if (!results::valid(r)) continue;
    const Shape s = Shape::parse(r.shape);
    if (r.variant == "v01_warp_split" && s.at("ways") > 1) {
      const results::Record* one = find_record(f, r.variant, "ways=1");
      if (!one) continue;
      const Divergence d = divergent_paths(int(s.at("ways")));
      out.push_back({f.family, "v01_warp_split ways=" + std::to_string(s.at("ways")) + " vs ways=1",
                     std::to_string(s.at("ways")) + " paths, " + fixed(100 * d.efficiency, 1) + " % lanes busy",
                     d.slowdown, 0, r.median_s / one->median_s});
    }
    if (r.variant == "v02_loop_varied" && s.at("spread") > 0) {
      const results::Record* sorted = find_record(f, "v03_loop_sorted", r.shape);
      if (!sorted) continue;
      // Sorted, each warp's lanes agree and run their own count: the same useful work, no idle lanes.
      const Divergence d = loop_linear(s.at("base"), s.at("spread"));
      out.push_back({f.family, "v02_loop_varied vs v03_loop_sorted at " + r.shape,
                     "max/mean trips " + num(d.issued) + "/" + num(d.useful), d.slowdown, 0,
                     r.median_s / sorted->median_s});
    }
  }
}
}  // namespace

std::vector<AgainstRow> predict_against(const results::File& f) {
  std::vector<AgainstRow> out;
  if (f.family == "coalescing") coalescing_rows(f, out);
  else if (f.family == "banks") banks_rows(f, out);
  else if (f.family == "divergence") divergence_rows(f, out);
  else bad_input("no access model for the family '" + f.family + "'", "give a coalescing, banks or divergence result file");
  return out;
}

std::string against_markdown(const std::vector<AgainstRow>& rows) {
  std::string md = "| family | compared | model | predicted | measured | measured ÷ closer prediction |\n"
                   "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : rows) {
    std::string predicted = fixed(r.predicted, 2) + "×";
    if (r.predicted_alt > 0) predicted += " (DRAM granule 64 B: " + fixed(r.predicted_alt, 2) + "×)";
    const double closest = r.predicted_alt > 0 && std::abs(r.predicted_alt - r.measured) < std::abs(r.predicted - r.measured)
                               ? r.predicted_alt
                               : r.predicted;
    md += "| " + r.family + " | " + r.compared + " | " + r.model + " | " + predicted + " | " + fixed(r.measured, 2) +
          "× | " + fixed(r.measured / closest, 2) + " |\n";
  }
  return md;
}

}  // namespace sol::report

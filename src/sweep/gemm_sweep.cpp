// The GEMM sweep's plan: shapes, variants and the shape model's predictions (include/sol/sweep.hpp).
// The shapes are chosen to sit on each side of the model's cliffs, so that every measured drop
// has a term of the model to answer for it.
#include "sol/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/gemm_rungs.hpp"

namespace sol::sweep {

namespace {
// A term below this is named as a limit of the shape.
constexpr double kLimitNamed = 0.95;
// The Hopper rung reads operands through TMA with 128-byte swizzled boxes: a pitch that is not a
// multiple of 128 bytes is copied into an aligned workspace first (kernels/gemm/tc/hopper.cu).
constexpr int64_t kPackPitchBytes = gemm_rungs::find("v08_tile_choice")->pack_pitch_bytes;
}  // namespace

const std::vector<GemmFamily>& gemm_families() {
  static const std::vector<GemmFamily> all = [] {
    // The tiles of the rungs sol/gemm_rungs.hpp states: the Hopper kernel's 128×256 (v07, and v08
    // where it keeps the wide tile), one CTA per SM, and fp32 v08_warptile_256x128 (the highest
    // rung choose_variants takes), one block per SM.
    constexpr gemm_rungs::Tile w = gemm_rungs::kHopperWide;
    const model::GemmTile hopper{w.m, w.n, w.k_elems(2)};
    constexpr gemm_rungs::Fp32Rung f = *gemm_rungs::find_fp32("v08_warptile_256x128");
    std::vector<GemmFamily> v;
    v.push_back({"gemm_fp32", DType::f32, {f.tile_m, f.tile_n, f.tile_k}, 1, false, 8193,
                 "the larger cubes would cost the fp32 sweep most of its time and show no cliff the smaller ones "
                 "do not"});
    v.push_back({"gemm_bf16", DType::bf16, hopper, 1, true, 16384, ""});
    v.push_back({"gemm_fp16", DType::f16, hopper, 1, true, 16384, ""});
    // a stage is 128 bytes of k per row: 64 bf16/fp16 elements, 128 fp8
    v.push_back({"gemm_fp8", DType::fp8_e4m3, {w.m, w.n, w.k_elems(1)}, 1, true, 16384, ""});
    return v;
  }();
  return all;
}

namespace {
std::string family_names() {
  std::string s = "gemm";
  for (const auto& f : gemm_families()) s += ", " + f.name;
  return s;
}
}  // namespace

const GemmFamily& gemm_family(const std::string& name) {
  for (const auto& f : gemm_families())
    if (f.name == name) return f;
  bad_input("'" + name + "' is not a GEMM family the sweep knows", "use one of: " + family_names());
}

std::vector<std::string> resolve(const std::string& pattern) {
  if (pattern == "gemm") {
    std::vector<std::string> all;
    for (const auto& f : gemm_families()) all.push_back(f.name);
    return all;
  }
  return {gemm_family(pattern).name};
}

const std::vector<int64_t>& cube_sizes() {
  static const std::vector<int64_t> sizes = {256,  512,  1023, 1024, 1025, 1536, 1792, 1793,  2047,  2048, 2049,
                                             3072, 4095, 4096, 4097, 6144, 8191, 8192, 8193, 12288, 16384};
  return sizes;
}

Shape Point::shape() const { return Shape{{{"m", m}, {"n", n}, {"k", k}}}; }

Point waves_point(int64_t tiles, const model::GemmTile& tile, int64_t k) {
  if (tiles < 1 || tile.m < 1 || tile.n < 1 || k < 1) bad_input("a wave shape needs tiles, tile sides and k ≥ 1");
  int64_t best_tm = 0;
  double best = 0;
  for (int64_t tm = 1; tm <= tiles; ++tm) {
    if (tiles % tm) continue;
    const double d = std::abs(std::log(double(tm * tile.m) / double((tiles / tm) * tile.n)));
    // tm ascends, so a tie (equal within rounding) moves to the larger m
    if (best_tm == 0 || d <= best + 1e-12) {
      best_tm = tm;
      best = d;
    }
  }
  Point p;
  p.m = best_tm * tile.m;
  p.n = (tiles / best_tm) * tile.n;
  p.k = k;
  p.kind = "waves";
  return p;
}

std::vector<Point> points(const GemmFamily& f, int sms) {
  if (sms < 1) bad_input("the sweep needs the SM count (got " + std::to_string(sms) + ")");
  std::vector<Point> out;
  for (int64_t n : cube_sizes())
    if (n <= f.max_cube) out.push_back({n, n, n, "cube", ""});
  const int64_t slots = int64_t(sms) * f.blocks_per_sm;
  for (int64_t w = 1; w <= 2; ++w)
    for (int64_t extra = 0; extra <= 1; ++extra) {
      Point p = waves_point(w * slots + extra, f.tile, kWaveK);
      p.why = std::to_string(w * slots + extra) + " tiles = " + std::to_string(w) + (w == 1 ? " wave" : " waves") +
              (extra ? " + 1 tile" : " exactly");
      out.push_back(p);
    }
  return out;
}

std::vector<const Variant*> choose_variants(const std::vector<const Variant*>& members) {
  std::vector<const Variant*> out;
  const Variant* best = nullptr;
  for (const Variant* v : members) {
    if (v->is_peer())
      out.push_back(v);
    else if (v->is_dispatch())
      continue;  // not a rung; `sol bench FAMILY/dispatch --sweep` is not a sweep of sol's best rung
    else if (v->unsupported && !v->unsupported(Shape::parse("m=4096,n=4096,k=4096")).empty())
      continue;  // a rung of another regime (the decode rungs, m ≤ 64): not the sweep's kernel
    else if (!best || v->version > best->version)
      best = v;
  }
  if (!best)
    bad_input(std::string("family ") + (members.empty() ? "?" : members.front()->family) + " has no sol rung to sweep",
              "register at least one version beside its peers");
  out.push_back(best);
  return out;
}

Prediction predict(const GemmFamily& f, int64_t m, int64_t n, int64_t k, const hw::HwSpec& hw) {
  Prediction p;
  p.shape_model = model::gemm_estimate({m, n, k, f.dtype, f.tile, f.blocks_per_sm}, hw);
  const auto& e = p.shape_model;
  const int64_t b = dtype_bytes(f.dtype);
  if (f.packs_unaligned && k * b % kPackPitchBytes != 0) {
    // A (m×k) and B (n×k, the TN layout) both have pitch k: each is read once and written once
    // at a pitch rounded up to 128 bytes.
    const int64_t k_pitch = (k * b + kPackPitchBytes - 1) / kPackPitchBytes * kPackPitchBytes / b;
    p.pack_s = double(m + n) * double(k + k_pitch) * double(b) / hw.hbm_bytes_per_s;
  }
  p.rung_s = f.packs_unaligned ? e.floor_s / (e.tile_efficiency * e.wave_efficiency) + p.pack_s : e.predicted_s;
  p.rung_flops_per_s = e.flops / p.rung_s;
  std::vector<std::pair<std::string, double>> terms = {
      {"alignment", e.alignment_efficiency}, {"waves", e.wave_efficiency}, {"tiles", e.tile_efficiency}};
  std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& c) { return a.second < c.second; });
  for (const auto& [name, eff] : terms)
    if (eff < kLimitNamed) p.limit += (p.limit.empty() ? "" : ", ") + name + " " + fixed(100 * eff, 1) + " %";
  return p;
}

double model_error(double measured, double predicted) {
  return measured > 0 ? std::abs(measured - predicted) / measured : 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

std::string plan_text(const std::vector<std::string>& families, const hw::HwSpec& hw) {
  std::ostringstream o;
  for (const auto& name : families) {
    const GemmFamily& f = gemm_family(name);
    o << name << " (" << dtype_name(f.dtype) << ", tile " << model::tile_str(f.tile) << ", " << f.blocks_per_sm
      << (f.blocks_per_sm == 1 ? " tile" : " tiles") << " per SM, " << hw.compute_units << " SMs of " << hw.name
      << (f.packs_unaligned ? "; the rung packs operands whose pitch is not a multiple of 128 B" : "") << ")\n";
    std::vector<std::string> head = {"M", "N", "K", "tiles", "waves", "tile eff", "wave eff", "align", "model TFLOP/s"};
    if (f.packs_unaligned) head.push_back("+ packing");
    head.push_back("limited by");
    Table t(head);
    t.align(head.size() - 1, Table::Align::Left);
    for (const Point& pt : points(f, hw.compute_units)) {
      const Prediction p = predict(f, pt.m, pt.n, pt.k, hw);
      const auto& e = p.shape_model;
      std::vector<std::string> row = {std::to_string(pt.m), std::to_string(pt.n), std::to_string(pt.k),
                                      std::to_string(e.tiles), num(e.waves, 3), fixed(100 * e.tile_efficiency, 1) + " %",
                                      fixed(100 * e.wave_efficiency, 1) + " %", std::to_string(e.vector_bytes) + " B",
                                      fixed(e.predicted_flops_per_s / 1e12, 1)};
      if (f.packs_unaligned) row.push_back(fixed(p.rung_flops_per_s / 1e12, 1));
      row.push_back(p.limit.empty() ? (pt.cube() ? "-" : pt.why) : (pt.cube() ? p.limit : pt.why + ": " + p.limit));
      t.add_row(row);
    }
    o << t.str();
    if (f.max_cube < cube_sizes().back()) {
      // the reason in numbers: the time of the largest cube left out, and how full the waves already are
      const int64_t big = cube_sizes().back(), edge = f.max_cube - 1;
      const auto eb = model::gemm_estimate({big, big, big, f.dtype, f.tile, f.blocks_per_sm}, hw);
      const auto ee = model::gemm_estimate({edge, edge, edge, f.dtype, f.tile, f.blocks_per_sm}, hw);
      o << "cubes stop at " << f.max_cube << ": one " << big << "³ run takes at least " << si(eb.floor_s, "s")
        << " (the roofline floor), and from " << edge << "³ on the cubes fill " << num(ee.waves, 3)
        << " waves or more (wave efficiency " << fixed(100 * ee.wave_efficiency, 1) << " % or better); "
        << f.max_cube_why << ".\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace sol::sweep

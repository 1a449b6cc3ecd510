// GEMM shape effects: tile and wave quantization and operand alignment, each an efficiency that
// divides the roofline floor. Counting only; the floor comes from the cost and roofline models.
#include "sol/model/shapes.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/size.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/occupancy.hpp"
#include "sol/model/roofline.hpp"

namespace sol::model {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The widest power-of-two load (≤ 16 B) that every row of a pitch-`pitch` operand keeps aligned.
int64_t vector_bytes_of(int64_t pitch) {
  int64_t w = 16;
  while (w > 1 && pitch % w != 0) w /= 2;
  return w;
}

OperandAlignment operand(const std::string& name, int64_t elems_per_row, int64_t elem_bytes) {
  OperandAlignment a;
  a.operand = name;
  a.pitch_bytes = elems_per_row * elem_bytes;
  a.cls = a.pitch_bytes % 128 == 0 ? AlignClass::B128 : a.pitch_bytes % 16 == 0 ? AlignClass::B16 : AlignClass::Narrow;
  a.vector_bytes = vector_bytes_of(a.pitch_bytes);
  return a;
}
}  // namespace

GemmTile parse_tile(const std::string& text) {
  const std::vector<int64_t> v = parse_counts("--tile", text, 3, 3);
  GemmTile t{v[0], v[1], v[2]};
  if (t.m <= 0 || t.n <= 0 || t.k <= 0) bad_input("tile '" + text + "' has a zero side", "every tile side is ≥ 1");
  return t;
}

std::string tile_str(const GemmTile& t) { return str(t.m) + "x" + str(t.n) + "x" + str(t.k); }

std::string align_name(AlignClass a) {
  switch (a) {
    case AlignClass::B128: return "128 B";
    case AlignClass::B16: return "16 B";
    case AlignClass::Narrow: return "narrow";
  }
  return "?";
}

GemmEstimate gemm_estimate(const GemmShape& s, const hw::HwSpec& hw) {
  if (s.tile.m <= 0 || s.tile.n <= 0 || s.tile.k <= 0) bad_input("a GEMM tile with a side ≤ 0");
  if (s.blocks_per_sm < 1) bad_input("blocks per SM = " + str(s.blocks_per_sm), "at least one tile fits on an SM");
  if (hw.compute_units <= 0 || hw.vendor != "nvidia")
    bad_input(hw.name + " has no SMs in the database", "GEMM tile and wave quantization is modeled for NVIDIA GPUs");
  MatmulOp op{s.m, s.n, s.k, s.dtype, MatmulImpl::Minimal, 0};
  Cost cost = matmul(op);  // validates the sizes
  // A type the tensor cores lack (fp32 on Hopper) runs on the vector unit: its peak bounds it.
  const PeakChoice peak = resolve_peak(hw, s.dtype, hw::Unit::Matrix);
  cost.unit = peak.unit;
  if (peak.dtype != s.dtype) cost.math_dtype = peak.dtype;
  const Estimate floor = roofline(cost, hw);

  GemmEstimate e;
  e.shape = s;
  e.tiles_m = ceil_div(s.m, s.tile.m);
  e.tiles_n = ceil_div(s.n, s.tile.n);
  e.tiles_k = ceil_div(s.k, s.tile.k);
  e.tiles = checked_product({e.tiles_m, e.tiles_n}, "GEMM tiles");
  e.tile_efficiency = (double(s.m) / double(e.tiles_m * s.tile.m)) * (double(s.n) / double(e.tiles_n * s.tile.n)) *
                      (double(s.k) / double(e.tiles_k * s.tile.k));
  e.sms = hw.compute_units;
  const Waves w = waves(e.tiles, e.sms, s.blocks_per_sm);
  e.waves = w.waves;
  e.full_waves = w.full_waves;
  e.last_wave_tiles = w.last_wave_blocks;
  e.wave_efficiency = w.efficiency;
  const int64_t b = dtype_bytes(s.dtype);
  e.alignment = {operand("A (M×K)", s.k, b), operand("B (K×N)", s.n, b), operand("C (M×N)", s.n, b)};
  e.vector_bytes = 16;
  for (const auto& a : e.alignment) e.vector_bytes = std::min(e.vector_bytes, a.vector_bytes);
  e.alignment_efficiency = double(e.vector_bytes) / 16.0;
  e.efficiency = e.tile_efficiency * e.wave_efficiency * e.alignment_efficiency;
  e.flops = cost.flops;
  e.floor_s = floor.t_floor_s;
  e.bound = floor.bound;
  e.predicted_s = e.floor_s / e.efficiency;
  e.predicted_flops_per_s = e.flops / e.predicted_s;

  const std::string pad_m = str(e.tiles_m * s.tile.m), pad_n = str(e.tiles_n * s.tile.n), pad_k = str(e.tiles_k * s.tile.k);
  e.derivation = {
      "floor: " + si(e.flops, "FLOP") + " on " + floor.ceilings.flops_label + " and " + floor.ceilings.bytes_label +
          " → " + si(e.floor_s, "s") + " (" + e.bound + "-bound)",
      "tiles: ⌈" + str(s.m) + "/" + str(s.tile.m) + "⌉ × ⌈" + str(s.n) + "/" + str(s.tile.n) + "⌉ = " + str(e.tiles) +
          ", each ⌈" + str(s.k) + "/" + str(s.tile.k) + "⌉ = " + str(e.tiles_k) + " steps; padded to " + pad_m + "×" +
          pad_n + "×" + pad_k + " → tile efficiency " + fixed(100 * e.tile_efficiency, 1) + " %",
      "waves: " + str(e.tiles) + " tiles / (" + str(e.sms) + " SMs × " + str(s.blocks_per_sm) + ") = " +
          num(e.waves, 3) + " → " + str(int64_t(std::ceil(e.waves))) + " wave(s), efficiency " +
          fixed(100 * e.wave_efficiency, 1) + " %",
      "alignment: pitches A " + str(e.alignment[0].pitch_bytes) + " B, B " + str(e.alignment[1].pitch_bytes) +
          " B, C " + str(e.alignment[2].pitch_bytes) + " B → widest aligned load " + str(e.vector_bytes) +
          " B of 16 → efficiency " + fixed(100 * e.alignment_efficiency, 1) + " %",
      "predicted: " + si(e.floor_s, "s") + " / " + fixed(100 * e.efficiency, 1) + " % = " + si(e.predicted_s, "s") +
          " (" + si(e.predicted_flops_per_s, "FLOP/s") + ")",
  };
  return e;
}

SweepRange parse_sweep(const std::string& text) {
  const size_t a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
  if (b == std::string::npos || text.find(':', b + 1) != std::string::npos)
    bad_input("bad value '" + text + "' for --sweep", "write FROM:TO:STEP, e.g. 1024:2048:1 or 1k:4k:256");
  SweepRange r{parse_count("--sweep", text.substr(0, a)), parse_count("--sweep", text.substr(a + 1, b - a - 1)),
               parse_count("--sweep", text.substr(b + 1))};
  if (r.from < 1 || r.step < 1 || r.to < r.from) bad_input("sweep '" + text + "'", "need 1 ≤ FROM ≤ TO and STEP ≥ 1");
  if ((r.to - r.from) / r.step >= 100000) bad_input("sweep '" + text + "' has over 100000 points", "use a larger STEP");
  return r;
}

std::vector<GemmEstimate> gemm_sweep(const GemmShape& base, const SweepRange& r, const hw::HwSpec& hw) {
  std::vector<GemmEstimate> out;
  for (int64_t size = r.from; size <= r.to; size += r.step) {
    GemmShape s = base;
    if (base.m <= 0) s.m = size;
    if (base.n <= 0) s.n = size;
    if (base.k <= 0) s.k = size;
    out.push_back(gemm_estimate(s, hw));
  }
  return out;
}

std::string gemm_estimate_json(const GemmEstimate& e) {
  using ojson = nlohmann::ordered_json;
  ojson j;
  j["m"] = e.shape.m;
  j["n"] = e.shape.n;
  j["k"] = e.shape.k;
  j["dtype"] = dtype_name(e.shape.dtype);
  j["tile"] = tile_str(e.shape.tile);
  j["blocks_per_sm"] = e.shape.blocks_per_sm;
  j["tiles"] = e.tiles;
  j["tiles_m"] = e.tiles_m;
  j["tiles_n"] = e.tiles_n;
  j["k_steps"] = e.tiles_k;
  j["sms"] = e.sms;
  j["waves"] = e.waves;
  j["tile_efficiency"] = e.tile_efficiency;
  j["wave_efficiency"] = e.wave_efficiency;
  ojson al = ojson::array();
  for (const auto& a : e.alignment)
    al.push_back({{"operand", a.operand}, {"pitch_bytes", a.pitch_bytes}, {"class", align_name(a.cls)},
                  {"vector_bytes", a.vector_bytes}});
  j["alignment"] = al;
  j["alignment_efficiency"] = e.alignment_efficiency;
  j["efficiency"] = e.efficiency;
  j["flops"] = e.flops;
  j["floor_s"] = e.floor_s;
  j["bound"] = e.bound;
  j["predicted_s"] = e.predicted_s;
  j["predicted_flops_per_s"] = e.predicted_flops_per_s;
  j["derivation"] = e.derivation;
  return j.dump();
}

}  // namespace sol::model

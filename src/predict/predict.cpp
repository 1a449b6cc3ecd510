// Predictions from declared facts and calibrated ceilings (include/sol/predict.hpp).
#include "sol/predict.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/model/roofline.hpp"
#include "sol/sweep.hpp"

namespace sol::predict {

namespace {
// An efficiency below this is named in Prediction::limit.
constexpr double kNamed = 0.95;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

void overlay(std::map<std::string, hw::Peak>& peaks, const std::string& key, double flops_per_s) {
  if (flops_per_s <= 0) return;
  hw::Peak& p = peaks[key];
  p.flops_per_s = flops_per_s;
  p.source = "measured in the run";
}
}  // namespace

Ceilings ceilings_for(const results::File& f, const hw::HwSpec* profile, const hw::HwSpec& sheet) {
  Ceilings c;
  c.spec = profile ? *profile : sheet;
  c.source = profile ? "the measured profile" : "the " + sheet.name + " datasheet";
  c.copy_bytes_per_s = f.ceilings.copy_bytes_per_s > 0 ? f.ceilings.copy_bytes_per_s : c.spec.hbm_bytes_per_s;
  c.launch_s = f.ceilings.launch_overhead_s;
  for (const auto& [key, v] : f.ceilings.matrix_flops_per_s) overlay(c.spec.matrix_peaks, key, v);
  overlay(c.spec.vector_peaks, dtype_peak_key(DType::f32), f.ceilings.fp32_fma_flops_per_s);
  if (f.device.sms > 0) c.spec.compute_units = f.device.sms;
  return c;
}

Ceilings ceilings_for(const results::MeasuredCeilings& m, const hw::HwSpec& row) {
  results::File f;
  f.ceilings = m;
  return ceilings_for(f, nullptr, row);
}

bool is_gemm_family(const std::string& family) { return family.rfind("gemm_", 0) == 0 && family != sweep::kFamily; }

GemmRung gemm_rung(const std::string& family, const std::string& variant, const std::string& dtype, int64_t m,
                   int64_t n, int sms) {
  if (!is_gemm_family(family)) bad_input("'" + family + "' is not a GEMM family");
  GemmRung g;
  const bool peer = variant.rfind("peer:", 0) == 0;
  if (family == "gemm_fp32") {
    // The SGEMM ladder (kernels/gemm/fp32/): block tiles of 32 (v03), 64 (v04), 128 (v05–v07) and
    // v08's 256×128 or 128×256 with BK = 16, one block per SM from v07 on. Its untiled rungs and
    // the peers run on 128×128 in the model. TF32 (the peers' tensor-core path) is not an SGEMM.
    g.sgemm = dtype != "tf32";
    g.tile = {128, 128, 16};
    if (variant == "v03_smem_tiled") g.tile = {32, 32, 32};
    if (variant == "v04_regblock_1d") g.tile = {64, 64, 8};
    if (variant == "v08_warptile_256x128") g.tile = {256, 128, 16};
    if (variant == "v08_warptile_128x256") g.tile = {128, 256, 16};
    if (dtype == "tf32") g.tile = {128, 256, 32};
    g.stages = variant == "v07_warptile_cp_async" || variant.rfind("v08", 0) == 0 ? 2 : 1;
    g.known = !peer;
    g.name = model::tile_str(g.tile) + (g.known ? "" : " (assumed for a library)");
    return g;
  }
  // The tensor-core ladder (kernels/gemm/tc/): v01, v02 on 128×128 tiles of 64 bytes of k, two
  // CTAs per SM for 16-bit types; v03–v08 the Hopper kernel (sweep::gemm_family's tile), 128 bytes
  // of k per stage, one CTA per SM, 4 stages at 256 columns and 6 at 128.
  const model::GemmTile hopper = sweep::gemm_family(family).tile;
  const int64_t elem = dtype == "fp8_e4m3" || dtype == "fp8_e5m2" ? 1 : 2;
  g.tile = hopper;
  g.stages = 4;
  g.pack_pitch_bytes = 128;
  if (peer) {
    g.known = false;
    g.pack_pitch_bytes = 0;
    g.name = model::tile_str(g.tile) + " (assumed for a library)";
    return g;
  }
  if (variant == "v01_mma_sync" || variant == "v02_multistage") {
    g.tile = {128, 128, 64 / elem};
    g.blocks_per_sm = elem == 1 ? 1 : 2;
    g.stages = variant == "v01_mma_sync" ? 1 : 4;
    g.pack_pitch_bytes = variant == "v01_mma_sync" ? 0 : 16;  // cp.async.16 needs 16-byte rows
  } else if (variant == "v08_tile_choice") {
    // The launcher's rule (v08_tile_choice.cu): rounds of persistent CTAs, clusters of two along m,
    // 128-column tiles charged 10 %; the narrower tile where it quantizes better.
    const auto rounds = [&](int64_t tile_n) {
      const int64_t ctas = ceil_div(ceil_div(m, hopper.m), 2) * 2 * ceil_div(n, tile_n);
      return ceil_div(ctas, std::max(sms, 1));
    };
    if (double(rounds(128)) * 128.0 * 1.1 < double(rounds(hopper.n)) * double(hopper.n)) {
      g.tile.n = 128;
      g.stages = 6;
    }
  }
  g.name = model::tile_str(g.tile) + ", " + std::to_string(g.stages) + (g.stages == 1 ? " stage" : " stages") +
           (g.blocks_per_sm > 1 ? ", " + std::to_string(g.blocks_per_sm) + " CTAs/SM" : "") +
           (g.pack_pitch_bytes > 0 ? ", packs rows to " + std::to_string(g.pack_pitch_bytes) + " B" : ", unaligned rows read in place");
  return g;
}

Work work_of(const results::Record& r) {
  Work w;
  w.family = r.family;
  w.variant = r.variant;
  w.dtype = r.dtype;
  w.shape = Shape::parse(r.shape);
  w.flops = r.flops;
  w.bytes = r.bytes;
  return w;
}

Work work_of(const results::File& f, const results::Record& r) {
  Work w = work_of(r);
  if (w.dtype.empty()) w.dtype = results::comparison_dtype(f, r);
  if (w.dtype.empty() && is_gemm_family(w.family)) w.dtype = dtype_name(sweep::gemm_family(w.family).dtype);  // gemm_fp8
  return w;
}

namespace {

DType storage_type(const Work& w) {
  // The attention kernels store bf16 unless the shape asks for fp16.
  if (w.dtype.empty() && w.family.rfind("attention", 0) == 0) return w.shape.get("fp16", 0) ? DType::f16 : DType::bf16;
  if (w.dtype.empty() || w.dtype == "tf32") return DType::f32;
  return parse_dtype(w.dtype);
}

double peak(const Ceilings& c, hw::Unit unit, DType t, std::string& label) {
  const auto& peaks = unit == hw::Unit::Matrix ? c.spec.matrix_peaks : c.spec.vector_peaks;
  auto it = peaks.find(dtype_peak_key(t));
  if (it == peaks.end() || it->second.flops_per_s <= 0) {
    if (unit == hw::Unit::Vector && t != DType::f32) return peak(c, unit, DType::f32, label);  // converted to fp32
    bad_input(c.spec.name + " has no " + hw::unit_name(unit) + " peak for " + dtype_name(t));
  }
  label = si(it->second.flops_per_s, "FLOP/s") + " " + dtype_name(t) + " " + hw::unit_name(unit);
  return it->second.flops_per_s;
}

void finish(Prediction& p) {
  p.seconds = 0;
  const Term* top = nullptr;
  for (const Term& t : p.terms) {
    p.seconds += t.seconds;
    if (!top || t.seconds > top->seconds) top = &t;
  }
  std::vector<std::pair<std::string, double>> effs = {{"tile quantization", p.tile_efficiency},
                                                      {"wave quantization", p.wave_efficiency},
                                                      {"alignment", p.alignment_efficiency}};
  std::stable_sort(effs.begin(), effs.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string named;
  for (const auto& [name, e] : effs)
    if (e < kNamed) named += (named.empty() ? "" : ", ") + name + " " + fixed(100 * e, 1) + " %";
  p.limit = (top ? top->name : std::string("?")) + (named.empty() ? "" : " (" + named + ")");
}

Prediction predict_gemm_on(const Work& w, const Ceilings& c, const GemmRung& g) {
  const int64_t m = w.shape.at("m"), n = w.shape.at("n"), k = w.shape.at("k");
  const int sms = c.spec.compute_units;
  const DType t = storage_type(w);
  const int64_t b = dtype_bytes(t);
  Prediction p;
  p.rung = g.name;
  std::string label;
  double ceiling = 0;
  if (g.sgemm) {
    ceiling = kSgemmShareOfFma * peak(c, hw::Unit::Vector, DType::f32, label);
    label = fixed(100 * kSgemmShareOfFma, 0) + " % of " + label + " (an SGEMM's share of the FMA chain)";
  } else {
    ceiling = peak(c, hw::Unit::Matrix, w.dtype == "tf32" ? DType::tf32 : t, label);
  }
  const model::GemmEstimate e = model::gemm_estimate({m, n, k, t, g.tile, g.blocks_per_sm}, c.spec);
  p.tile_efficiency = e.tile_efficiency;
  p.wave_efficiency = e.wave_efficiency;
  // Operands whose row pitch the rung cannot read: copied by a packing kernel, else read narrow.
  const int64_t lda = w.shape.get("lda", k), ldb = w.shape.get("ldb", k);
  double pack_bytes = 0;
  if (g.pack_pitch_bytes > 0) {
    const int64_t padded = ceil_div(k * b, g.pack_pitch_bytes) * g.pack_pitch_bytes;
    if (lda * b % g.pack_pitch_bytes != 0) pack_bytes += double(m) * double(k * b + padded);
    if (ldb * b % g.pack_pitch_bytes != 0) pack_bytes += double(n) * double(k * b + padded);
  } else if (!g.sgemm) {
    // Tensor-core rungs that read unaligned rows in place need 16/w as many loads per MMA.
    // An SGEMM issues one shared-memory load per 8–16 FFMAs: narrower global loads hide under them
    // (the fp32 v08 rung at 4095³ takes 1.10× its 4096³ time, not the 4× of 4-byte loads).
    p.alignment_efficiency = e.alignment_efficiency;
  }
  const double eff = p.tile_efficiency * p.wave_efficiency * p.alignment_efficiency;
  const double main_s = w.flops / (ceiling * eff);
  const double memory_s = w.bytes / c.copy_bytes_per_s;
  if (memory_s > main_s) {
    p.bound = "memory";
    p.terms.push_back({"memory", memory_s, si(w.bytes, "B") + " ÷ " + si(c.copy_bytes_per_s, "B/s") + " copy"});
  } else {
    p.bound = "compute";
    p.terms.push_back({"mainloop", main_s,
                       "FLOPs ÷ (" + label + " × tiles " + fixed(100 * p.tile_efficiency, 1) + " % × waves " +
                           fixed(100 * p.wave_efficiency, 1) + " %" +
                           (p.alignment_efficiency < 1 ? " × alignment " + fixed(100 * p.alignment_efficiency, 1) + " %" : "") +
                           "), " + std::to_string(e.tiles) + " tiles of " + model::tile_str(g.tile)});
  }
  if (pack_bytes > 0)
    p.terms.push_back({"packing", pack_bytes / c.copy_bytes_per_s + c.launch_s,
                       "copying unaligned operands to " + std::to_string(g.pack_pitch_bytes) + "-byte rows: " +
                           si(pack_bytes, "B") + " at the copy bandwidth, one launch"});
  // The first stage must land before the first MMA and the last C tile leave after the last one;
  // each SM has its share of the bandwidth for both.
  const double out_b = g.sgemm ? 4 : 2;
  const double fill_bytes = double(g.tile.m + g.tile.n) * double(g.tile.k) * double(b) + double(g.tile.m * g.tile.n) * out_b;
  p.terms.push_back({"fill", fill_bytes / (c.copy_bytes_per_s / sms),
                     "one stage in (" + si(double(g.tile.m + g.tile.n) * double(g.tile.k * b), "B") + ") and one C tile out at 1/" +
                         std::to_string(sms) + " of the copy bandwidth"});
  p.terms.push_back({"launch", c.launch_s, "one launch"});
  finish(p);
  return p;
}

Prediction predict_gemm(const Work& w, const Ceilings& c) {
  const int sms = c.spec.compute_units;
  if (sms < 1) bad_input("the ceilings have no SM count: a GEMM's waves cannot be modelled");
  const GemmRung g = gemm_rung(w.family, w.variant, w.dtype, w.shape.at("m"), w.shape.at("n"), sms);
  if (g.known) return predict_gemm_on(w, c, g);
  // A library picks its tile by the shape: the best of its usual block tiles, full and halved.
  Prediction best;
  using Sides = std::pair<int64_t, int64_t>;
  for (const Sides& sides : {Sides{g.tile.m, g.tile.n}, Sides{g.tile.m, g.tile.n / 2}, Sides{g.tile.m / 2, g.tile.n / 2}}) {
    GemmRung r = g;
    r.tile.m = sides.first;
    r.tile.n = sides.second;
    r.name = model::tile_str(r.tile) + " (the best of a library's usual tiles)";
    Prediction p = predict_gemm_on(w, c, r);
    if (best.terms.empty() || p.seconds < best.seconds) best = std::move(p);
  }
  return best;
}

// The attention rung that runs on the FP32 pipes, without tensor cores (kernels/attention/standard.cu).
bool simt_attention(const Work& w) { return w.family == "attention" && w.variant == "v01_standard"; }

}  // namespace

Prediction predict(const Work& w, const Ceilings& c) {
  if (!(c.copy_bytes_per_s > 0)) bad_input("the ceilings have no copy bandwidth", "run sol probe, or give a datasheet row");
  if (w.flops < 0 || w.bytes < 0) bad_input(w.family + "/" + w.variant + ": negative FLOPs or bytes");
  if (is_gemm_family(w.family) && w.shape.has("m") && w.shape.has("n") && w.shape.has("k")) return predict_gemm(w, c);
  Prediction p;
  const bool matrix = !simt_attention(w) && (w.family.rfind("attention", 0) == 0 ||
                                             w.variant.find("gemm") != std::string::npos ||
                                             w.variant.find("matmul") != std::string::npos);
  if (matrix && w.dtype.empty() && w.family.rfind("attention", 0) != 0)
    bad_input(w.family + "/" + w.variant + " names no element type, and a matrix op's ceiling depends on it",
              "re-measure it: records of schema 2 and later carry their dtype");
  const DType t = simt_attention(w) ? DType::f32 : storage_type(w);
  // A type the tensor cores lack (fp32 on Hopper) runs on the vector unit (model::resolve_peak).
  const model::PeakChoice unit = model::resolve_peak(c.spec, t, matrix ? hw::Unit::Matrix : hw::Unit::Vector);
  std::string label;
  const double compute_s = w.flops > 0 ? w.flops / peak(c, unit.unit, unit.dtype, label) : 0;
  const double memory_s = w.bytes / c.copy_bytes_per_s;
  // Attention's exponentials, one per query-key pair: FLOPs = 4·d per pair forward, 2.5× backward.
  double exp_s = 0, pairs = 0;
  if (w.family.rfind("attention", 0) == 0 && w.shape.has("d")) {
    pairs = w.flops / (4.0 * double(w.shape.at("d")) * (w.family == "attention_bwd" ? 2.5 : 1.0));
    const auto it = c.spec.matrix_peaks.find(dtype_peak_key(t == DType::f32 ? DType::bf16 : t));
    const double clock = it != c.spec.matrix_peaks.end() && it->second.clock_hz > 0 ? it->second.clock_hz : c.spec.boost_clock_hz;
    if (clock > 0 && c.spec.compute_units > 0) exp_s = pairs / (kExpPerClockPerSm * c.spec.compute_units * clock);
  }
  if (compute_s + exp_s > memory_s) {
    p.bound = "compute";
    p.terms.push_back({"compute", compute_s, si(w.flops, "FLOP") + " ÷ " + label});
    if (exp_s > 0)
      p.terms.push_back({"softmax exp", exp_s,
                         si(pairs, "") + " exponentials at " + fixed(kExpPerClockPerSm, 0) + " per clock per SM"});
  } else {
    p.bound = "memory";
    p.terms.push_back({"memory", memory_s, si(w.bytes, "B") + " ÷ " + si(c.copy_bytes_per_s, "B/s") + " copy"});
  }
  p.terms.push_back({"launch", c.launch_s, "one launch"});
  if (c.launch_s > std::max(compute_s + exp_s, memory_s)) p.bound = "launch";
  finish(p);
  return p;
}

}  // namespace sol::predict

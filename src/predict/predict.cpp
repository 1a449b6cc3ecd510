// Predictions from declared facts and calibrated ceilings (include/sol/predict.hpp).
#include "sol/predict.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/gemm_rungs.hpp"
#include "sol/model/access.hpp"
#include "sol/model/occupancy.hpp"
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
  c.l2_bytes_per_s = f.ceilings.l2_bytes_per_s;
  for (const hw::MemLevel& l : c.spec.levels) {
    if (l.name == "L2" && !(c.l2_bytes_per_s > 0)) c.l2_bytes_per_s = l.bytes_per_s;
    if (l.name == "smem/L1") c.smem_bytes_per_s = l.bytes_per_s;
  }
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

namespace {
// Blocks of `block` a grid of `blocks` has on the GPU at once.
double resident_blocks(int64_t blocks, const model::KernelResources& block, const Ceilings& c, const std::string& what) {
  const int sms = c.spec.compute_units;
  if (sms < 1 || blocks < 1) bad_input("'" + what + "': no SMs or an empty grid");
  const model::Occupancy o = model::occupancy(c.spec.limits, block);
  if (o.blocks_per_sm < 1) bad_input("'" + what + "': its block does not fit on an SM of " + c.spec.name);
  return double(std::min<int64_t>(blocks, int64_t(sms) * o.blocks_per_sm));
}
}  // namespace

double stream_seconds(const model::LoadStream& s, const Ceilings& c, std::string* why) {
  if (s.load_bytes < 1 || s.loads_in_flight < 1) bad_input("'" + s.what + "': a load stream needs loads of at least one byte");
  const double resident = resident_blocks(s.blocks, s.block, c, s.what);
  const double in_flight = resident * s.block.block_threads * s.loads_in_flight * double(s.load_bytes);
  const double latency_rate = in_flight / kDramLatencyS;
  const double copy_s = (s.read_bytes + s.write_bytes) / c.copy_bytes_per_s;
  const double latency_s = s.read_bytes / latency_rate;
  if (why)
    *why = s.what + ": " + si(in_flight, "B") + " in flight (" + std::to_string(int64_t(resident)) + " blocks × " +
           std::to_string(s.block.block_threads) + " threads × " + std::to_string(s.loads_in_flight) + " × " +
           std::to_string(s.load_bytes) + " B) ÷ " + si(kDramLatencyS, "s") + " = " + si(latency_rate, "B/s") +
           (latency_s > copy_s ? " binds" : ", under the copy bandwidth");
  return std::max(copy_s, latency_s);
}

double greedy_makespan(const std::vector<double>& cta_s, int64_t repeats, int64_t slots) {
  if (slots < 1) bad_input("a CTA schedule needs at least one slot");
  if (cta_s.empty() || repeats < 1) return 0;
  const int64_t per_group = int64_t(cta_s.size());
  double group_s = 0;
  for (double t : cta_s) {
    if (!(t >= 0)) bad_input("a CTA's time must be a non-negative number");
    group_s += t;
  }
  // The groups past what is scheduled one by one: spread evenly over the slots.
  const int64_t exact_groups = std::min(repeats, std::max<int64_t>(1, kExactCtas / per_group));
  const double start = double(repeats - exact_groups) * group_s / double(slots);
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int64_t i = 0; i < std::min<int64_t>(slots, exact_groups * per_group); ++i) free_at.push(start);
  double last = start;
  for (int64_t g = 0; g < exact_groups; ++g)
    for (double t : cta_s) {
      const double end = free_at.top() + t;
      free_at.pop();
      free_at.push(end);
      last = std::max(last, end);
    }
  return last;
}

double schedule_seconds(const model::CtaSchedule& s, double core_s, const Ceilings& c, std::string* why) {
  const int sms = c.spec.compute_units;
  if (s.tiles.empty() || s.groups < 1 || !(core_s > 0)) return core_s;
  if (sms < 1 || s.ctas_per_sm < 1) bad_input("a CTA schedule needs the SM count and the CTAs per SM");
  const int64_t slots = int64_t(sms) * s.ctas_per_sm;
  double tiles = 0;
  int64_t fewest = s.tiles.front(), most = s.tiles.front();
  for (int64_t t : s.tiles) {
    tiles += double(t);
    fewest = std::min(fewest, t);
    most = std::max(most, t);
  }
  tiles *= double(s.groups);
  if (!(tiles > 0)) return core_s;
  // On `slots` slots at 1/ctas_per_sm of an SM each, fills hidden where CTAs share an SM; and,
  // where they do, as lone CTAs at a whole SM's rate, each paying its fill: a grid that leaves SMs
  // half empty runs nearer the second. The lesser of the two.
  const double fill_s = s.fill_bytes / (c.copy_bytes_per_s / sms);
  const auto on = [&](int64_t slot_count, double fill) {
    const double tile_s = core_s * double(slot_count) / tiles;  // one tile on one slot
    std::vector<double> cta_s;
    cta_s.reserve(s.tiles.size());
    for (int64_t t : s.tiles) cta_s.push_back(double(t) * tile_s + fill);
    return greedy_makespan(cta_s, s.groups, slot_count);
  };
  double makespan = on(slots, s.ctas_per_sm == 1 ? fill_s : 0);
  if (s.ctas_per_sm > 1) makespan = std::min(makespan, on(sms, fill_s));
  const double end = std::max(core_s, makespan);
  if (why) {
    const double ctas = double(s.groups) * double(s.tiles.size());
    *why = si(ctas, "") + " CTAs of " + (fewest == most ? std::to_string(most) : std::to_string(fewest) + "–" + std::to_string(most)) +
           " tiles over " + std::to_string(slots) + " slots (" + std::to_string(sms) + " SMs × " + std::to_string(s.ctas_per_sm) +
           "), " + fixed(ctas / double(slots), 2) + " waves, each CTA on the first free slot; alone on its SM, a CTA moves " +
           si(s.fill_bytes, "B") + " around its tiles at 1/" + std::to_string(sms) + " of the copy bandwidth (" + si(fill_s, "s") +
           ")";
  }
  return end;
}

double l1_seconds(double wavefronts, int64_t blocks, const Ceilings& c) {
  const int sms = c.spec.compute_units;
  if (!(wavefronts > 0)) return 0;
  if (sms < 1 || !(c.spec.boost_clock_hz > 0)) bad_input("L1 wavefronts need the SM count and clock of " + c.spec.name);
  const double per_sm = blocks > 0 ? wavefronts / double(blocks) * double((blocks + sms - 1) / sms) : wavefronts / sms;
  return per_sm / c.spec.boost_clock_hz;
}

double reread_dram_bytes(const model::Reread& r, const Ceilings& c, std::string* why) {
  if (!(r.bytes > 0)) return 0;
  const double resident = resident_blocks(r.blocks, r.block, c, "a second read");
  const double distance = resident * r.block_bytes;
  const bool misses = distance > c.spec.l2_bytes;
  if (why)
    *why = "the second read of " + si(r.bytes, "B") + (misses ? " misses" : " hits") + " L2: " +
           std::to_string(int64_t(resident)) + " resident blocks × " + si(r.block_bytes, "B") + " = " + si(distance, "B") +
           (misses ? " > " : " ≤ ") + si(c.spec.l2_bytes, "B");
  return misses ? r.bytes : 0;
}

bool is_gemm_family(const std::string& family) { return family.rfind("gemm_", 0) == 0 && family != sweep::kFamily; }

GemmRung gemm_rung(const std::string& family, const std::string& variant, const std::string& dtype, int64_t m,
                   int64_t n, int64_t k, int sms, int max_splits, int tile_n) {
  if (!is_gemm_family(family)) bad_input("'" + family + "' is not a GEMM family");
  GemmRung g;
  const bool peer = variant.rfind("peer:", 0) == 0;
  if (family == "gemm_fp32") {
    // The SGEMM ladder's block tiles and stages (sol/gemm_rungs.hpp); its untiled rungs (v01, v02
    // read global memory only) and the peers run on 128×128×16 in the model. TF32 (the peers'
    // tensor-core path) is not an SGEMM.
    g.sgemm = dtype != "tf32";
    g.tile = {128, 128, 16};
    if (const gemm_rungs::Fp32Rung* r = gemm_rungs::find_fp32(variant)) {
      if (r->tile_k > 0) {
        g.tile = {r->tile_m, r->tile_n, r->tile_k};
        g.stages = std::max(r->stages, 1);
      }
      g.wavefronts_per_warp_fma = r->wavefronts_per_warp_fma;
      g.grid_blocks = ceil_div(m, r->tile_m) * ceil_div(n, r->tile_n);
    }
    if (dtype == "tf32") g.tile = {128, 256, 32};
    g.known = !peer;
    g.name = model::tile_str(g.tile) + (g.known ? "" : " (assumed for a library)");
    return g;
  }
  // The tensor-core ladder (sol/gemm_rungs.hpp): each rung's tile, stages, CTAs per SM and pack
  // pitch as declared; v08 takes the tile its launcher's rule picks for the shape. A library peer,
  // the dispatcher and the decode rungs are modelled on the Hopper kernel's wide tile.
  const int elem = dtype == "fp8_e4m3" || dtype == "fp8_e5m2" ? 1 : 2;
  const gemm_rungs::Rung* r = peer ? nullptr : gemm_rungs::find(variant);
  gemm_rungs::Tile t = r ? r->tile : gemm_rungs::kHopperWide;
  if (variant == "v08_tile_choice") {
    const gemm_rungs::Decomposition d =
        gemm_rungs::decomposition(m, n, gemm_rungs::hopper_k_tiles(k, elem), sms, max_splits, tile_n);
    t = d.tile;
    g.splits = d.splits;
  }
  g.tile = {t.m, t.n, t.k_elems(elem)};
  g.stages = t.stages;
  g.blocks_per_sm = t.ctas_per_sm(elem);
  g.pack_pitch_bytes = r ? r->pack_pitch_bytes : 128;
  g.c_tma_store = r && r->epilogue == gemm_rungs::Epilogue::tma_store;
  if (peer) {
    g.known = false;
    g.pack_pitch_bytes = 0;
    g.name = model::tile_str(g.tile) + " (assumed for a library)";
    return g;
  }
  if (r && !r->sm90a) {
    // Warp tiles of 64 × 32: per 32-byte k step a warp reads (64 + 32) rows of 32 bytes by ldmatrix
    // for 2·64·32·(32 ÷ element bytes) FLOPs.
    g.mma_sync = true;
    g.smem_bytes_per_flop = (64.0 + 32.0) * 32.0 / (2.0 * 64 * 32 * (32.0 / double(elem)));
  }
  g.name = model::tile_str(g.tile) + ", " + std::to_string(g.stages) + (g.stages == 1 ? " stage" : " stages") +
           (g.blocks_per_sm > 1 ? ", " + std::to_string(g.blocks_per_sm) + " CTAs/SM" : "") +
           (g.pack_pitch_bytes > 0 ? ", packs rows to " + std::to_string(g.pack_pitch_bytes) + " B" : ", unaligned rows read in place") +
           (g.splits > 1 ? ", k split " + std::to_string(g.splits) + " ways over a cluster" : "");
  return g;
}

GemmRung gemm_rung(const std::string& family, const std::string& variant, const std::string& dtype, const Shape& s,
                   int sms) {
  // v08's keys, as its Case refuses them: a cap of 1 to kMaxSplitK, one of its tile widths.
  if (s.has(gemm_rungs::kMaxSplitsKey) &&
      (s.at(gemm_rungs::kMaxSplitsKey) < 1 || s.at(gemm_rungs::kMaxSplitsKey) > gemm_rungs::kMaxSplitK))
    bad_input(std::string(gemm_rungs::kMaxSplitsKey) + "=" + std::to_string(s.at(gemm_rungs::kMaxSplitsKey)) +
              ": v08 splits k 1 to " + std::to_string(gemm_rungs::kMaxSplitK) + " ways");
  if (s.has(gemm_rungs::kTileNKey))
    if (std::string why = gemm_rungs::tile_n_refusal(s.at(gemm_rungs::kTileNKey)); !why.empty()) bad_input(why);
  return gemm_rung(family, variant, dtype, s.at("m"), s.at("n"), s.at("k"), sms,
                   int(s.get(gemm_rungs::kMaxSplitsKey, gemm_rungs::kMaxSplitK)), int(s.get(gemm_rungs::kTileNKey, 0)));
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
    // sm_90 has no e4m3 mma.sync: the compiler converts to fp16 and runs the fp16 instruction.
    const bool fp8_as_fp16 = g.mma_sync && dtype_bytes(t) == 1 && c.spec.compute_capability == kFp8MmaSyncAsFp16Cc;
    ceiling = peak(c, hw::Unit::Matrix, w.dtype == "tf32" ? DType::tf32 : fp8_as_fp16 ? DType::f16 : t, label);
    if (g.mma_sync) {
      const double share = kMmaSyncShareOfWgmma * (fp8_as_fp16 ? kE4m3MmaSyncShareOfFp16 : 1.0);
      ceiling *= share;
      label = fixed(100 * share, 0) + " % of " + label + " (mma.sync" +
              (fp8_as_fp16 ? ": e4m3 emulated by fp16 HMMAs, converts and adds on sm_90" : "") + ")";
    }
  }
  const model::GemmEstimate e = model::gemm_estimate({m, n, k, t, g.tile, g.blocks_per_sm}, c.spec);
  p.tile_efficiency = e.tile_efficiency;
  p.wave_efficiency = e.wave_efficiency;
  // k split S ways over a cluster per tile: tiles × S CTAs fill the waves, each running the
  // longest share of the k-tiles, ⌈k-tiles ÷ S⌉; then every CTA reads the tile's fp32 partials
  // (its rows of all S) across the cluster.
  const int splits = g.splits;
  if (splits > 1) {
    const double longest = double(ceil_div(e.tiles_k, int64_t(splits)));
    p.wave_efficiency = model::waves(e.tiles * splits, sms, g.blocks_per_sm).efficiency *
                        (double(e.tiles_k) / double(splits) / longest);
  }
  // Operands whose row pitch the rung cannot read: copied by a packing kernel, else read narrow.
  const int64_t lda = w.shape.get("lda", k), ldb = w.shape.get("ldb", k);
  double pack_bytes = 0;
  if (g.pack_pitch_bytes > 0) {
    const int64_t padded = ceil_div(k * b, g.pack_pitch_bytes) * g.pack_pitch_bytes;
    if (lda * b % g.pack_pitch_bytes != 0) pack_bytes += double(m) * double(k * b + padded);
    if (ldb * b % g.pack_pitch_bytes != 0) pack_bytes += double(n) * double(k * b + padded);
  } else if (!g.sgemm && !g.mma_sync) {
    // A library that reads unaligned rows in place needs 16/w as many loads per MMA.
    // An SGEMM issues one shared-memory load per 8–16 FFMAs: narrower global loads hide under them
    // (the fp32 v08 rung at 4095³ takes 1.10× its 4096³ time, not the 4× of 4-byte loads). The
    // mma.sync rung v01 loads a chunk as 16/w guarded element loads issued together, waited on once
    // per k step with the rest of its one buffer: their latency, not their count (8193³ bf16 takes
    // 1.14× its 8192³ time, not 8×).
    p.alignment_efficiency = e.alignment_efficiency;
  }
  const double eff = p.tile_efficiency * p.wave_efficiency * p.alignment_efficiency;
  const double main_s = w.flops / (ceiling * eff);
  // An SGEMM whose operands come one load per FMA waits on the L1's passes, not the FMA pipe.
  const double l1_s = l1_seconds(w.flops / 2 / 32 * g.wavefronts_per_warp_fma, g.grid_blocks, c);
  const double memory_s = w.bytes / c.copy_bytes_per_s;
  if (l1_s > std::max(main_s, memory_s)) {
    p.bound = "L1";
    p.terms.push_back({"L1 wavefronts", l1_s,
                       std::to_string(g.wavefronts_per_warp_fma) + " L1 passes per warp FMA, one per clock per SM over " +
                           std::to_string(g.grid_blocks) + " blocks"});
  } else if (memory_s > main_s) {
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
  // One buffer (a single stage): each k step a CTA loads its operands, waits on them, then computes,
  // so a load's latency (kDramLatencyS) stands between its MMAs; the other CTAs on the SM compute
  // meanwhile. blocks_per_sm CTAs alternating take max(L + t, blocks·t) for blocks steps of t each.
  if (g.known && !g.sgemm && g.stages == 1 && p.bound == "compute" && sms > 0) {
    const double step_s = 2.0 * double(g.tile.m) * double(g.tile.n) * double(g.tile.k) / (ceiling * eff / sms);
    const double blocks = std::max(g.blocks_per_sm, 1);
    const double factor = std::max(1.0, (kDramLatencyS + step_s) / (blocks * step_s));
    if (factor > 1)
      p.terms.push_back({"load latency", main_s * (factor - 1),
                         "one buffer: each k step waits " + si(kDramLatencyS, "s") + " on its loads beside " +
                             si(step_s, "s") + " of MMAs, " + std::to_string(g.blocks_per_sm) + " CTAs per SM to overlap"});
  }
  // ldmatrix's operand reads wait in the same warps as the MMAs they feed: they add.
  const double smem_s = g.smem_bytes_per_flop > 0 && c.smem_bytes_per_s > 0 ? w.flops * g.smem_bytes_per_flop / c.smem_bytes_per_s : 0;
  if (smem_s > 0 && p.bound == "compute")
    p.terms.push_back({"shared memory", smem_s,
                       fixed(g.smem_bytes_per_flop, 4) + " B of ldmatrix operands per FLOP ÷ " + si(c.smem_bytes_per_s, "B/s")});
  if (splits > 1) {
    const double part_bytes = double(g.tile.m) * double(g.tile.n) * 4.0;
    const double share = c.l2_bytes_per_s > 0 ? c.l2_bytes_per_s : c.copy_bytes_per_s;
    p.terms.push_back({"split-k sum", part_bytes / (share / sms),
                       "k split " + std::to_string(splits) + " ways over a cluster: each CTA reads " +
                           si(part_bytes, "B") + " of fp32 partials across it, charged at 1/" + std::to_string(sms) +
                           " of the " + (c.l2_bytes_per_s > 0 ? "L2" : "copy") +
                           " bandwidth (no probe measures distributed shared memory)"});
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
  // A CTA alone on its SM that stores C itself (from its registers, or staged where TMA cannot store
  // it) does so between its tiles: the tensor cores wait while each C tile but the last (in the
  // fill) leaves at the SM's share of the bandwidth. Where C leaves by TMA stores they drain under
  // the next tile; where two CTAs share the SM, the other's MMAs run meanwhile.
  const int64_t ldc = w.shape.get("ldc", n);
  const bool c_overlapped = g.c_tma_store && gemm_rungs::c_rows_tma_storable(n, ldc);
  const int64_t rounds = ceil_div(e.tiles * splits, int64_t(sms) * g.blocks_per_sm);
  if (g.known && !g.sgemm && g.blocks_per_sm == 1 && !c_overlapped && rounds > 1) {
    const double c_tile_bytes = double(g.tile.m * g.tile.n) * out_b;
    p.terms.push_back({"epilogue", double(rounds - 1) * c_tile_bytes / (c.copy_bytes_per_s / sms),
                       std::to_string(rounds - 1) + " more C tiles of " + si(c_tile_bytes, "B") + " stored by the CTA between its " +
                           std::to_string(rounds) + " tiles, at 1/" + std::to_string(sms) + " of the copy bandwidth" +
                           (g.c_tma_store ? " (C's rows are not whole 16-byte chunks: no TMA store)" : "")});
  }
  p.terms.push_back({"launch", c.launch_s, "one launch"});
  finish(p);
  return p;
}

Prediction predict_gemm(const Work& w, const Ceilings& c) {
  const int sms = c.spec.compute_units;
  if (sms < 1) bad_input("the ceilings have no SM count: a GEMM's waves cannot be modelled");
  const GemmRung g = gemm_rung(w.family, w.variant, w.dtype, w.shape, sms);
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
  // fp16 in, bf16 out is not among cuBLASLt's documented type combinations (an fp16 A and B give an
  // fp16 or fp32 D): its peer writes fp16 D and converts it in one more pass
  // (kernels/gemm/tc/peer_cublaslt.cu), reading 2 and writing 2 bytes an output.
  if (w.family == "gemm_fp16" && w.variant == "peer:cublasLt") {
    const double out_bytes = double(w.shape.at("m")) * double(w.shape.at("n")) * 4.0;
    best.terms.push_back({"conversion", out_bytes / c.copy_bytes_per_s + c.launch_s,
                          "fp16 D to bf16 C: " + si(out_bytes, "B") + " at the copy bandwidth, one launch"});
    finish(best);
  }
  return best;
}

}  // namespace

Prediction predict_gemm_with(const Work& w, const Ceilings& c, const GemmRung& g) {
  if (!(c.copy_bytes_per_s > 0)) bad_input("the ceilings have no copy bandwidth", "run sol probe, or give a datasheet row");
  if (!is_gemm_family(w.family) || !w.shape.has("m") || !w.shape.has("n") || !w.shape.has("k"))
    bad_input(w.family + "/" + w.variant + ": not a GEMM with m, n and k");
  if (c.spec.compute_units < 1) bad_input("the ceilings have no SM count: a GEMM's waves cannot be modelled");
  return predict_gemm_on(w, c, g);
}

namespace {

// The prediction from what the work declares of how it runs (else the roofline of its FLOPs and
// bytes): every family but the tiled GEMMs.
Prediction predict_declared(const Work& w, const Ceilings& c) {
  model::Execution x = w.exec;
  if (!x.declared)
    if (auto peer = peer_execution(w)) x = *peer;
  const bool attention = w.family.rfind("attention", 0) == 0;
  const bool simt = x.declared && x.mma == model::MatrixInstruction::None && attention;
  const bool matrix = !simt && (x.mma != model::MatrixInstruction::None || attention ||
                                w.variant.find("gemm") != std::string::npos || w.variant.find("matmul") != std::string::npos);
  if (matrix && w.dtype.empty() && !attention)
    bad_input(w.family + "/" + w.variant + " names no element type, and a matrix op's ceiling depends on it",
              "re-measure it: records of schema 2 and later carry their dtype");
  const DType t = simt ? DType::f32 : storage_type(w);
  // A type the tensor cores lack (fp32 on Hopper) runs on the vector unit (model::resolve_peak).
  const model::PeakChoice unit = model::resolve_peak(c.spec, t, matrix ? hw::Unit::Matrix : hw::Unit::Vector);
  const double clock = c.spec.boost_clock_hz, sms = c.spec.compute_units;
  Prediction p;
  std::string label;
  const double work = x.work_flops > 0 ? x.work_flops : w.flops;
  double rate = work > 0 ? peak(c, unit.unit, unit.dtype, label) : 0;
  if (x.mma == model::MatrixInstruction::MmaSync) {
    rate *= kMmaSyncShareOfWgmma;
    label = fixed(100 * kMmaSyncShareOfWgmma, 0) + " % of " + label + " (mma.sync)";
  }
  const double compute_s = work > 0 ? work / rate : 0;
  // Attention's exponentials: declared, else one per query-key pair of the counted FLOPs
  // (4·d per pair forward, 2.5× backward).
  double exps = x.exps;
  if (!x.declared && attention && w.shape.has("d"))
    exps = w.flops / (4.0 * double(w.shape.at("d")) * (w.family == "attention_bwd" ? 2.5 : 1.0));
  const double exp_s = exps > 0 && clock > 0 && sms > 0 ? exps / (kExpPerClockPerSm * sms * clock) : 0;
  // One issue slot per FMA at the rate the probe's FMA chain sustained.
  std::string fma_label;
  const double issue_rate = x.issue_slots > 0 ? peak(c, hw::Unit::Vector, DType::f32, fma_label) / 2 : 0;
  const double issue_s = x.issue_slots > 0 ? x.issue_slots / issue_rate : 0;
  const double wavefront_bytes = double(model::kBanks * model::kBankBytes);
  const double smem_s = x.smem_wavefronts > 0 && c.smem_bytes_per_s > 0 ? x.smem_wavefronts * wavefront_bytes / c.smem_bytes_per_s : 0;
  const double l1_s = l1_seconds(x.l1_wavefronts, x.grid_blocks, c);
  const double atomic_s = x.l2_atomic_bytes > 0 && c.l2_bytes_per_s > 0 ? x.l2_atomic_bytes / c.l2_bytes_per_s : 0;
  std::string reread_why;
  const double dram = (x.dram_bytes > 0 ? x.dram_bytes : w.bytes) + reread_dram_bytes(x.reread, c, &reread_why);
  double memory_s = dram / c.copy_bytes_per_s;
  std::string streams_why;
  if (!x.streams.empty()) {
    memory_s = 0;
    int bound = 0;
    for (const model::LoadStream& st : x.streams) {
      std::string line;
      const double s = stream_seconds(st, c, &line);
      memory_s += s;
      if (s > (st.read_bytes + st.write_bytes) / c.copy_bytes_per_s) {
        ++bound;
        if (streams_why.empty()) streams_why = "; e.g. " + line;
      }
    }
    streams_why = std::to_string(x.streams.size()) + " launches one after another, " + std::to_string(bound) +
                  " bound by their loads in flight (Little's law)" + streams_why;
  }
  const Term t_compute{"compute", compute_s, si(work, "FLOP") + " ÷ " + label + (x.work_flops > 0 && x.work_flops != w.flops ? " (the FLOPs run: " + x.how + ")" : "")};
  const Term t_exp{"softmax exp", exp_s, si(exps, "") + " exponentials at " + fixed(kExpPerClockPerSm, 0) + " per clock per SM"};
  const Term t_issue{"issue", issue_s, si(x.issue_slots, "") + " thread-instructions at one per FMA slot of " + fma_label};
  const std::string l1_why = si(x.l1_wavefronts, "") + " L1 passes of global accesses at one per clock per SM" +
                             (x.grid_blocks > 0 ? " (" + std::to_string(x.grid_blocks) + " blocks)" : "");
  // Shared-memory wavefronts and the L1 passes of global loads and stores go through one pipe,
  // the L1's data stage: where a kernel has both, they add (in the shared-memory term).
  const Term t_smem{"shared memory", smem_s + (smem_s > 0 ? l1_s : 0),
                    si(x.smem_wavefronts, "") + " wavefronts of 128 B ÷ " + si(c.smem_bytes_per_s, "B/s") +
                        (smem_s > 0 && l1_s > 0 ? ", beside " + l1_why + " in the same pipe" : "")};
  const Term t_l1{"L1 wavefronts", smem_s > 0 ? 0 : l1_s, l1_why};
  const Term t_atomic{"L2 atomics", atomic_s, si(x.l2_atomic_bytes, "B") + " of fp32 adds ÷ " + si(c.l2_bytes_per_s, "B/s") + " L2"};
  const Term t_memory{"memory", memory_s,
                      !streams_why.empty() ? streams_why
                                           : si(dram, "B") + " ÷ " + si(c.copy_bytes_per_s, "B/s") + " copy" +
                                                 (x.dram_bytes > 0 && x.dram_bytes != w.bytes ? " (" + x.how + ")" : "") +
                                                 (reread_why.empty() ? "" : "; " + reread_why)};
  // The binding resource of a SIMT or vector kernel: FMAs, issue slots or shared memory.
  const auto slowest = [](std::initializer_list<const Term*> ts) {
    const Term* top = *ts.begin();
    for (const Term* t : ts) if (t->seconds > top->seconds) top = t;
    return *top;
  };
  std::vector<Term> core;
  if (simt) {
    core.push_back(slowest({&t_compute, &t_issue, &t_smem}));
  } else if (matrix) {
    for (const Term* t : {&t_compute, &t_exp, &t_smem, &t_atomic})
      if (t->seconds > 0) core.push_back(*t);
  } else {
    core.push_back(slowest({&t_compute, &t_issue, &t_smem, &t_l1}));
  }
  double core_s = 0;
  for (const Term& t : core) core_s += t.seconds;
  if (simt) {
    // Its kernels run one after another: the SIMT GEMMs, then the softmax's pass over S and P.
    p.bound = core_s > memory_s ? "compute" : "memory";
    p.terms = core;
    p.terms.push_back(t_memory);
  } else if (core_s > memory_s) {
    p.bound = "compute";
    p.terms = core;
    // Its tiles as its CTAs run them: uneven CTAs, a partial last wave, a lone CTA's fill.
    std::string schedule_why;
    const double end_s = schedule_seconds(x.schedule, core_s, c, &schedule_why);
    if (end_s > core_s) p.terms.push_back({"CTA schedule", end_s - core_s, schedule_why});
  } else {
    p.bound = "memory";
    p.terms.push_back(t_memory);
  }
  const int kernels = std::max(x.kernels, 1);
  p.terms.push_back({"launch", kernels * c.launch_s, kernels == 1 ? "one launch" : std::to_string(kernels) + " launches"});
  if (kernels * c.launch_s > std::max(core_s, memory_s)) p.bound = "launch";
  finish(p);
  return p;
}

}  // namespace

Prediction predict(const Work& w, const Ceilings& c) {
  if (!(c.copy_bytes_per_s > 0)) bad_input("the ceilings have no copy bandwidth", "run sol probe, or give a datasheet row");
  if (w.flops < 0 || w.bytes < 0) bad_input(w.family + "/" + w.variant + ": negative FLOPs or bytes");
  // The tiled GEMMs (the ladders' rungs, the libraries, the dispatcher) by their tiles and waves; a
  // GEMM family's other kernels (the decode rungs: streams of W) by the execution they declare.
  const bool peer = w.variant.rfind("peer:", 0) == 0;
  const bool tiled = peer || w.variant == "dispatch" || gemm_rungs::find(w.variant) || gemm_rungs::find_fp32(w.variant) ||
                     !w.exec.declared;
  if (is_gemm_family(w.family) && tiled && w.shape.has("m") && w.shape.has("n") && w.shape.has("k")) {
    Prediction tile = predict_gemm(w, c);
    // The dispatcher's 16-bit call at a decode shape runs a decode rung where that is faster: a
    // stream of W on mma.sync, one launch.
    const bool decode_rungs = w.family == "gemm_bf16" || w.family == "gemm_fp16";
    if (w.variant != "dispatch" || !decode_rungs || w.shape.at("m") > gemm_rungs::kDecodeMaxM) return tile;
    Work stream = w;
    stream.exec = {};
    stream.exec.declared = true;
    stream.exec.mma = model::MatrixInstruction::MmaSync;
    stream.exec.how = "a decode rung's stream of W";
    Prediction rung = predict_declared(stream, c);
    return rung.seconds < tile.seconds ? rung : tile;
  }
  return predict_declared(w, c);
}

}  // namespace sol::predict

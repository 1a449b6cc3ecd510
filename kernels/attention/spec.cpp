// The attention families' cost, host C++ in every build: one byte and FLOP model
// (model::attention) for every forward and backward rung, from b, h, hkv, n, nk, d and the mask.
// Shape rules, tolerance and make are in case.cu (CUDA only).
#include "kernels/attention/case.hpp"
#include "kernels/attention/decode_plan.hpp"
#include "kernels/attention/residency.hpp"

#include "sol/model/cost.hpp"
#include "sol/predict.hpp"

namespace sol::kernels::attention {

model::Cost cost(const Shape& s, bool flash, bool backward, int64_t block_q) {
  return model::attention_at(s, flash, backward, block_q);
}

namespace {
using model::MatrixInstruction;

// How each rung runs its tiles (the headers of standard.cu, flash.cu, flash_wgmma.cu, backward*.cu).
// mma.sync rungs read their operands from shared memory by ldmatrix, per FLOP:
//   v02 forward: each warp reads the whole 64-key K and V tile (2·64·d·2 B) for its 16 rows'
//                4·16·64·d FLOPs: 1/16 B per FLOP;
//   v03 forward: the same tiles for 32 rows, plus the Q fragments re-read (32·d·2 B): 320/8192;
//   v02 backward: ≈ 800 ldmatrix.x4-sized (512 B) accesses per 64 × 64 tile at d = 128 (its
//                header), over that tile's 2.5·4·64·64·128 FLOPs; v01 issues 0.6 ldmatrix per
//                MMA to v02's 0.55.
constexpr double kSmemPerFlopFwdV02 = 2.0 * 2 / (4 * 16);
constexpr double kSmemPerFlopFwdV03 = (2.0 * 2 * 64 + 2 * 32) / (4.0 * 32 * 64);
constexpr double kSmemPerFlopBwdV02 = 800.0 * 512 / (2.5 * 4 * 64 * 64 * 128);
constexpr double kSmemPerFlopBwdV01 = kSmemPerFlopBwdV02 * 0.6 / 0.55;

predict::AttentionTiling tiling(Version v) {
  predict::AttentionTiling t;
  t.ctas_per_sm = kWgmmaForwardCtasPerSm;  // v04, v05: wgmma on 128 × 128 tiles fed by TMA
  if (v == Version::v02_flash_mma || v == Version::v03_flash_mma_128) {
    t.mma = MatrixInstruction::MmaSync;
    t.block_q = v == Version::v02_flash_mma ? 64 : 128;
    t.block_k = 64;
    t.smem_bytes_per_flop = v == Version::v02_flash_mma ? kSmemPerFlopFwdV02 : kSmemPerFlopFwdV03;
    t.ctas_per_sm = kMmaSyncCtasPerSm;
  }
  if (v == Version::v06_split_kv_decode) {  // mma.sync on 16-row slices, 64-key tiles; split + combine
    t.mma = MatrixInstruction::MmaSync;
    t.block_q = decode_row_tile(1);
    t.block_k = 64;
    t.kernels = 2;
    t.ctas_per_sm = 0;  // its splits are planned per shape (decode_plan.hpp): no schedule declared
  }
  return t;
}

predict::AttentionTiling tiling(BwdVersion v, bool det, int d) {
  // A CTA owns 64 keys (v04: two warpgroups, 128) and streams 64-row query tiles past them (v04
  // at d = 64: 128 rows); three kernels: the D = rowsum(dO∘O) pre-pass, the main kernel, dQ's
  // conversion (det=1: dQ's own pass).
  predict::AttentionTiling t;
  const bool two_wg = v == BwdVersion::v04_flash_bwd_2wg;
  t.block_q = v == BwdVersion::v03_flash_bwd_wgmma || two_wg ? wgmma_backward_rows(two_wg ? 2 : 1, d) : 64;
  t.block_k = two_wg ? 128 : 64;
  t.kernels = 3;
  t.ctas_per_sm = v == BwdVersion::v03_flash_bwd_wgmma || two_wg ? wgmma_backward_ctas_per_sm(two_wg ? 2 : 1, d)
                                                                 : kMmaSyncCtasPerSm;
  if (v == BwdVersion::v01_flash_bwd || v == BwdVersion::v02_flash_bwd_8warp) {
    t.mma = MatrixInstruction::MmaSync;
    t.smem_bytes_per_flop = v == BwdVersion::v01_flash_bwd ? kSmemPerFlopBwdV01 : kSmemPerFlopBwdV02;
  }
  if (det) t.recompute = 1.4;  // S and dP recomputed by the dQ pass (its note)
  else t.dq_keys_per_add = t.block_k;
  return t;
}
}  // namespace

model::Cost cost(Version v, const Shape& s) {
  // Every flash rung from v03 on runs 128-row Q tiles (v02: 64; the decode kernel 16-row slices).
  // The tile sets only the L2 traffic (the re-reads are counted once), so the HBM bytes are the
  // same for every flash rung.
  const int64_t block_q = v == Version::v02_flash_mma ? 64 : v == Version::v06_split_kv_decode ? decode_row_tile(1) : 128;
  model::Cost c = cost(s, v != Version::v01_standard, false, block_q);
  if (v == Version::dispatch) return c;
  c.exec = v == Version::v01_standard ? predict::standard_attention_execution(s)
                                      : predict::attention_execution(s, false, tiling(v));
  return c;
}

model::Cost cost(BwdVersion v, const Shape& s) {
  model::Cost c = cost(s, true, true, 64);
  const bool det = s.get("det", 0) != 0;
  if (det)
    c.notes.push_back("det=1: a separate dQ kernel recomputes S and dP (≈ 1.4× the counted FLOPs run); FLOPs "
                      "counted by the convention, 2.5 × forward, so that rates compare");
  if (v != BwdVersion::dispatch) c.exec = predict::attention_execution(s, true, tiling(v, det, int(s.at("d"))));
  return c;
}

}  // namespace sol::kernels::attention

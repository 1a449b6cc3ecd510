#pragma once
// v08's kernel, one template for both registered tiles (v08_warptile_256x128.cu,
// v08_warptile_128x256.cu): the shape cuBLAS's own fp32 kernel has on this H200 (ncu:
// sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma, 254
// registers, one CTA of 8 warps per SM), re-derived from v07 (lecture §10: reuse grows with the
// tile, here at the register level). Three changes against v07:
//  1. Twice the work per thread: 8×16 accumulators (v07: 8×8). A warp owns a 64×64 sub-tile, its
//     lanes an 8 (m) × 4 (n) grid; a lane's rows are 2 float4 groups 32 apart, its columns 4 float4
//     groups 16 apart. Per k-step a lane reads 2 + 4 LDS.128 for 128 FFMA (v07: 4 for 64), and a
//     warp's reads are 8 (A) and 4 (B) contiguous float4: no bank conflicts. The CTA is 8 warps,
//     a 256×128 (4×2 warps) or 128×256 (2×4) tile; __launch_bounds__(256, 1) leaves ptxas up to
//     255 registers and one CTA (8 warps) per SM: latency is hidden by ILP within a thread
//     (fragments for step d+1 are read while step d multiplies), not by more warps.
//  2. A multi-stage cp.async pipeline (kStages shared buffers, one commit group per k-tile, one
//     __syncthreads per k-tile): tiles t+1 … t+kStages−1 are in flight while tile t is computed.
//  3. A goes global → shared with 4-byte cp.async copies that transpose as they land (sA[k][m]),
//     so A, like B, passes through no registers (v07 staged A in registers). A warp's 32 copies
//     are 4 rows × 8 consecutive k (128 bytes of A, 4 whole sectors). sA's rows are padded to
//     kTileM + 4 floats: copy (k, m) lands in bank 4·(k % 8) + m (mod 32), so the 8 k × 4 m of one
//     warp hit 32 distinct banks, while a float4 of 4 consecutive m stays whole and every fragment
//     read is the stage's base plus a constant (an XOR swizzle, as v07's, cost an address
//     computation per read). 8 such copies per thread per k-tile sit beside 1024 (BK = 8) or
//     2048 (BK = 16) FFMA.
// Edges: tiles with no edge in them (all of A's rows, all of k, n % 4 == 0 and all of B's columns)
// take unguarded copies from running pointers; the others bounds-check every copy and zero-fill
// what lies outside (src-size 0), so the pipeline has no synchronous side path. B uses 16-byte
// copies when n % 4 == 0 (a float4 of B is then wholly in or wholly out), else four 4-byte
// copies; A's 4-byte copies need no alignment beyond the element, so k % 4 ≠ 0 costs nothing.
// Stores: store_c4 (16 bytes where the row allows, guarded scalars otherwise).
#include <cstdint>

#include "kernels/common/check.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32::v08 {

constexpr int kThreads = 256;
constexpr int kWarpM = 64, kWarpN = 64;  // warp tile
constexpr int kLanesN = 4;               // lanes: 8 along m × 4 along n
constexpr int kSubM = 32, kSubN = 16;    // a lane's float4 groups lie this far apart
constexpr int kRowsPerCopy = kThreads / 8;  // A copies: 8 consecutive k of a row per 8 lanes

template <int kTileM_, int kTileN_, int kTileK_, int kStages_>
struct Config {
  static constexpr int kTileM = kTileM_, kTileN = kTileN_, kTileK = kTileK_, kStages = kStages_;
  static constexpr int kWarpsN = kTileN / kWarpN;
  static constexpr int kPitchA = kTileM + 4;  // sA[k][m] row pitch in floats (see 3. above)
  static constexpr int kRoundsA = kTileM / kRowsPerCopy;           // row rounds of A copies
  static constexpr int kRowsPerCopyB = kThreads / (kTileN / 4);    // B rows per round of float4 copies
  static constexpr int kCopiesB = kTileK * kTileN / 4 / kThreads;  // float4 copies per thread
  static constexpr int kFloatsA = kTileK * kPitchA;
  static constexpr int kStageFloats = kFloatsA + kTileK * kTileN;  // sA[kTileK][kPitchA], then sB[kTileK][kTileN]
  static constexpr int kSmemBytes = kStages * kStageFloats * int(sizeof(float));
  static_assert((kTileM / kWarpM) * kWarpsN == kThreads / 32, "8 warps of 64×64");
  static_assert(kTileK % 8 == 0 && kTileM % kRowsPerCopy == 0 && kTileM % 32 == 0,
                "A copies: whole groups of 8 k, 32 rows per round; the padding argument needs kTileM % 32 == 0");
  static_assert(kCopiesB >= 1 && kTileK * kTileN / 4 % kThreads == 0, "B copies: whole float4 rounds");
  static_assert(kFloatsA % 4 == 0 && kStageFloats % 4 == 0, "sB and every stage start 16-byte aligned");
  static_assert(kStages >= 2, "a pipeline needs two buffers at least");
};

// rAcc[i][j] += rA[i]·rB[j] over a lane's 8×16 micro-tile.
__device__ __forceinline__ void outer_product_8x16(float (&rAcc)[8][16], const float (&rA)[8], const float (&rB)[16]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 16; ++j) rAcc[i][j] += rA[i] * rB[j];
}

template <class C>
__global__ void __launch_bounds__(kThreads, 1) multistage_kernel(GemmArgs g) {
  extern __shared__ __align__(16) float smem[];  // kStages × (sA, sB)
  const TileOrigin tile = tile_origin(g, C::kTileM, C::kTileN);
  const int row0 = tile.row0, col0 = tile.col0;
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int m0 = (warp / C::kWarpsN) * kWarpM + (lane / kLanesN) * 4;  // this lane's first row in the tile
  const int n0 = (warp % C::kWarpsN) * kWarpN + (lane % kLanesN) * 4;  // and first column

  // A copy (jj, kg): tile row a_m + 32·jj, k = 8·kg + a_k — a warp copies 4 rows × 8 consecutive k
  // (4 whole sectors). gA walks along k; rows kRowsPerCopy apart are a_stride away.
  const int a_k = tid % 8, a_m = tid / 8;
  const float* gA = g.a + int64_t(row0 + a_m) * g.k + a_k;  // dereferenced only where the row is inside
  const int64_t a_stride = int64_t(kRowsPerCopy) * g.k;
  const int sA_copy = a_k * C::kPitchA + a_m;  // where copy 0 lands in a stage's sA
  // B copy j: row b_r + kRowsPerCopyB·j, columns b_c … b_c+3 of the tile.
  const int b_r = tid / (C::kTileN / 4), b_c = tid % (C::kTileN / 4) * 4;
  const float* gB = g.b + int64_t(b_r) * g.n + col0 + b_c;
  const int64_t b_stride = int64_t(C::kRowsPerCopyB) * g.n;
  const int sB_copy = C::kFloatsA + b_r * C::kTileN + b_c;
  // The common case has no edge in the tile: all of A's rows inside, n % 4 == 0 and all of B's columns.
  const bool b_vec = (g.n & 3) == 0;
  const bool rows_whole = row0 + C::kTileM <= g.m, cols_whole = b_vec && col0 + C::kTileN <= g.n;

  // Tile k0 … k0+kTileK−1 into `stage`. Interior tiles take unguarded copies from running
  // pointers; tiles on an edge bounds-check every element and zero-fill what lies outside.
  auto copy_tile = [&](int k0, int stage) {
    float* sAs = smem + stage * C::kStageFloats + sA_copy;
    float* sBs = smem + stage * C::kStageFloats + sB_copy;
    const float* gAk = gA + k0;
    const float* gBk = gB + int64_t(k0) * g.n;
    if (rows_whole && cols_whole && k0 + C::kTileK <= g.k) {
#pragma unroll
      for (int jj = 0; jj < C::kRoundsA; ++jj, gAk += a_stride)
#pragma unroll
        for (int kg = 0; kg < C::kTileK / 8; ++kg) cp_async_4(sAs + kg * 8 * C::kPitchA + jj * kRowsPerCopy, gAk + kg * 8);
#pragma unroll
      for (int j = 0; j < C::kCopiesB; ++j, gBk += b_stride) cp_async_16(sBs + j * C::kRowsPerCopyB * C::kTileN, gBk);
      return;
    }
#pragma unroll
    for (int jj = 0; jj < C::kRoundsA; ++jj, gAk += a_stride) {
      const bool row_in = row0 + a_m + jj * kRowsPerCopy < g.m;
#pragma unroll
      for (int kg = 0; kg < C::kTileK / 8; ++kg) {
        const bool inside = row_in && k0 + kg * 8 + a_k < g.k;
        cp_async_4(sAs + kg * 8 * C::kPitchA + jj * kRowsPerCopy, inside ? gAk + kg * 8 : g.a, inside ? 4 : 0);
      }
    }
#pragma unroll
    for (int j = 0; j < C::kCopiesB; ++j, gBk += b_stride) {
      float* dst = sBs + j * C::kRowsPerCopyB * C::kTileN;
      const bool row_in = k0 + b_r + j * C::kRowsPerCopyB < g.k;
      if (b_vec) {  // n % 4 == 0 and b_c % 4 == 0: the float4 is wholly in or wholly out
        const bool inside = row_in && col0 + b_c < g.n;
        cp_async_16(dst, inside ? gBk : g.b, inside ? 16 : 0);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const bool inside = row_in && col0 + b_c + e < g.n;
          cp_async_4(dst + e, inside ? gBk + e : g.b, inside ? 4 : 0);
        }
      }
    }
  };

  // A lane's operands for k-step d: 8 values of A (2 float4), 16 of B (4 float4), all at fixed
  // offsets from the stage's base.
  auto read_fragments = [&](const float* sStage, int d, float (&rA)[8], float (&rB)[16]) {
    const float* sAd = sStage + d * C::kPitchA + m0;
    const float* sBd = sStage + C::kFloatsA + d * C::kTileN + n0;
#pragma unroll
    for (int i = 0; i < 2; ++i) *reinterpret_cast<float4*>(&rA[4 * i]) = *reinterpret_cast<const float4*>(sAd + i * kSubM);
#pragma unroll
    for (int j = 0; j < 4; ++j) *reinterpret_cast<float4*>(&rB[4 * j]) = *reinterpret_cast<const float4*>(sBd + j * kSubN);
  };

  float rAcc[8][16] = {};  // [i·4 + r][j·4 + c]: row m0 + i·kSubM + r, column n0 + j·kSubN + c
  const int k_tiles = (g.k + C::kTileK - 1) / C::kTileK;
  // Prologue: tiles 0 … kStages−2 in flight, one commit group each (empty past the last tile, so
  // that group t always holds tile t and the waits below count right).
#pragma unroll
  for (int s = 0; s < C::kStages - 1; ++s) {
    if (s < k_tiles) copy_tile(s * C::kTileK, s);
    cp_async_commit();
  }
  // Tile t+1's first fragments are read before tile t's last k-step is multiplied, so the
  // barrier that publishes tile t+1 sits before those 128 FFMA and their latency hides the reads'.
  int read_stage = 0, write_stage = C::kStages - 1;
  float rA[2][8], rB[2][16];  // fragments double-buffered across k-steps
  cp_async_wait<C::kStages - 2>();  // kStages−1 groups committed, group 0 (tile 0) landed
  __syncthreads();
  read_fragments(smem, 0, rA[0], rB[0]);
  for (int t = 0; t < k_tiles; ++t) {
    // Stage write_stage held tile t−1, which every thread finished reading before the last
    // barrier (t = 0: a stage not yet used).
    if (t + C::kStages - 1 < k_tiles) copy_tile((t + C::kStages - 1) * C::kTileK, write_stage);
    cp_async_commit();
    const float* sStage = smem + read_stage * C::kStageFloats;
#pragma unroll
    for (int d = 0; d < C::kTileK; ++d) {
      if (d + 1 < C::kTileK) {
        read_fragments(sStage, d + 1, rA[(d + 1) & 1], rB[(d + 1) & 1]);
      } else if (t + 1 < k_tiles) {
        // kStages+t groups committed; at most kStages−2 pending ⇒ groups 0 … t+1 (tile t+1) have
        // landed. The barrier publishes them, and it follows every thread's last read of tile t.
        cp_async_wait<C::kStages - 2>();
        __syncthreads();
        write_stage = read_stage;
        read_stage = read_stage + 1 == C::kStages ? 0 : read_stage + 1;
        read_fragments(smem + read_stage * C::kStageFloats, 0, rA[(d + 1) & 1], rB[(d + 1) & 1]);
      }
      outer_product_8x16(rAcc, rA[d & 1], rB[d & 1]);
    }
  }
  cp_async_wait_all();  // only empty groups remain; leave none behind at exit
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + m0 + (i / 4) * kSubM + i % 4;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float* r = &rAcc[i][4 * j];
      store_c4(g, row, col0 + n0 + j * kSubN, make_float4(r[0], r[1], r[2], r[3]));
    }
  }
}

// The plan for one configuration; its dynamic shared memory (over the default 48 KiB in both
// registered configurations) is opted into once per device.
template <class C>
LaunchInfo plan_for(const GemmArgs& g) {
  opt_in_dynamic_smem(multistage_kernel<C>, C::kSmemBytes);
  LaunchInfo p = tile_plan(reinterpret_cast<const void*>(multistage_kernel<C>), g, C::kTileM, C::kTileN, kThreads);
  p.dynamic_smem_bytes = C::kSmemBytes;
  return p;
}

}  // namespace sol::kernels::gemm::fp32::v08

// v03_flash_bwd_wgmma, v04_flash_bwd_2wg: the FlashAttention backward (lecture §11.6: recompute P
// from L, the D = rowsum(dO∘O) pre-pass) on Hopper's own path, FA3's structure with sol's code:
// wgmma fed by TMA instead of v02's mma.sync + ldmatrix. Each consumer warpgroup (128 threads)
// owns 64 keys of one K/V head; a CTA holds one (v03) or two (v04) of them. K and V land once by
// TMA; the Q and dO tiles (64 query rows each) of every query head of its GQA group stream through
// a kStages-deep TMA/mbarrier ring (thread 0 refills a stage once every warpgroup is past it),
// with the rows' L and D staged through a small double buffer. Per query tile, each warp owning
// keys 16w…16w+15 of its warpgroup's 64:
//   Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ   wgmma m64n64k16, both operands K-major from shared memory (as the
//                           forward's Q·Kᵀ), two commit groups: Pᵀ is formed while dPᵀ runs;
//   Pᵀ = exp2(Sᵀ·scale·log2e − L·log2e), dSᵀ = Pᵀ∘(dPᵀ − D) on the accumulator fragments (masked
//                           only on edge tiles), packed to 16 bits;
//   dV += Pᵀ·dO, dK += dSᵀ·Q  wgmma with Pᵀ / dSᵀ as the REGISTER A operand (the forward's P
//                           form) and dO / Q as MN-major B (the forward's V form);
//   dQ = dS·K                dS stored to shared memory as [query][key] (16-bit, 128B-swizzled)
//                           and read back as a K-major A (the forward's Q form), K as MN-major
//                           B; added to the fp32 dQ accumulator with one float4 atomic per 4
//                           columns (v02's pairing).
// dS is stored untransposed (2-byte stores, 32 per thread and tile) rather than as dSᵀ read
// through wgmma's transposed-A form (16 4-byte stores): every operand form this kernel issues is
// then one the forward already runs on the H200 (K-major A and B, register A, MN-major B).
// det=1 skips dQ here and v01's dq_kernel (backward.cuh) forms it, as v02 does.
// v03, one warpgroup of 64 keys per CTA: its dK, dV (64 keys × d = 128: 128 fp32 registers per
// thread), dQ (64) and the 16-bit Pᵀ, dSᵀ (32) fill 250 registers, so the register file holds 8
// such warps per SM either way. Two independent CTAs per SM at d = 128 (106 KiB of shared memory
// each) and three at d = 64 (74 KiB, 168 registers) each run a serial chain S/dP → P/dS →
// dV/dK/dQ with two CTA barriers per tile. ncu (bench/results/h200/ncu/attention_bwd-v03-summary.txt):
// L2 throughput 72–76 % with DRAM at 1–3 %: every CTA streams all of its group's Q/dO and adds a
// 64 × d fp32 dQ partial per tile, both per 64 keys.
// v04, two warpgroups of 64 keys per CTA (128 keys, FA3's split): each Q/dO tile is loaded once
// for 128 keys and dQ = dS·K sums over 128 keys before its atomics, so both L2 streams halve per
// FLOP. dQ needs both warpgroups' dS: one __syncthreads per tile, after which warpgroup w computes
// dQ's columns w·d/2… over all 128 keys (m64n64 at d = 128, m64n32 at d = 64; 32 / 16 registers
// instead of 64). dV and dK need only the warpgroup's own Pᵀ, dSᵀ, so they are issued before the
// barrier and run while it waits; dS is double-buffered so that no closing barrier is needed, and
// the stage of tile j − 1 is refilled after tile j's barrier (everyone is past j − 1). 235
// registers at d = 128, one CTA (8 warps) per SM, 194 KiB of shared memory with a 3-stage ring.
// Causal (bottom-right aligned): query tiles wholly before the key tile are skipped, edge tiles
// masked. Query rows past n arrive as TMA zero fill with L = +∞ (P = 0); keys past nk are masked
// and their dK, dV not stored.
// Floor at b=4,h=16,n=4096,d=128: 1.37 TFLOP (2.5 × 4·b·h·n²·d) → 1.39 ms at the 989 TFLOP/s
// dense peak; v02 took 8.8 ms, the flash backend (FA2) 4.8 ms, cuDNN 2.9 ms.
// measured (H200, bench/results/h200/): v03_flash_bwd_wgmma b=4,h=16,n=4096,d=128: 5.22 ms, 263 TFLOP/s (attention_bwd), 27 % of the model's floor
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/attention/backward.cuh"
#include "kernels/attention/forward.cuh"
#include "kernels/attention/hopper_attention.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/gemm/tc/hopper.cuh"

namespace sol::kernels::attention {
namespace {

namespace hw = gemm_tc::hopper;
using namespace hopper_attn;  // TMA, bounded waits, tile layout, descriptors, tensor maps

constexpr int kWgKeys = 64;     // keys per consumer warpgroup: the m of Sᵀ, dPᵀ, dK, dV
constexpr int kRows = 64;       // query rows per streamed tile: the n of Sᵀ, dPᵀ, the k of dK, dV
constexpr int kTileLbo = kRows * kSwizzleRow;  // MN-major LBO of a 64-row tile: the next 64 columns
static_assert(kWgKeys == kRows, "K, V, Q, dO tiles share one row count (one LBO, one K-major start)");

// dQ's B operand for warpgroup w, k-step kk: keys 16kk… of the K tile, its kD/kWG columns from
// w·kD/kWG (a column block, or half of one at d = 64: 64 bytes into the 128B swizzle row, as the
// K-major k-steps start 32 bytes in).
template <int kD, int kWG>
__host__ __device__ constexpr int dq_b_start(int w, int kk) {
  return tile_byte(kWgKeys * kWG, 16 * kk, w * (kD / kWG));
}

// Shared memory of one CTA of kWG warpgroups (64·kWG keys): K, V (kD/64 column blocks of [keys ×
// 128 B] each, as TMA writes them), the Q and dO ring, dS ([64 queries × keys], one column block
// per 64 keys; double-buffered with two warpgroups, whose tiles are not closed by a barrier), L·log2e
// and D of the current and the next tile, barriers.
template <int kD, int kWG>
struct BwdSmem {
  static constexpr int kKeys = kWgKeys * kWG;
  static constexpr int kKV = kKeys * kD * 2;     // one of K, V
  static constexpr int kTile = kRows * kD * 2;   // one 64-row Q or dO tile: 16 KiB at d = 128
  static constexpr int kStages = kWG == 1 ? (kD == 128 ? 2 : 3) : (kD == 128 ? 3 : 4);
  static constexpr int kDsBuffers = kWG;
  static constexpr int kDs = kRows * kKeys * 2;  // dS: 8 KiB per 64 keys
  static constexpr int kStats = 2 * 2 * kRows * 4;  // L and D, two buffers
  static constexpr int kBarriers = 1 + kStages;  // K/V full; Q/dO full per stage
  static constexpr int kBytes = 2 * kKV + 2 * kStages * kTile + kDsBuffers * kDs + kStats + kBarriers * 8 + 1024 /* alignment */;
  // One warpgroup: two CTAs (and their 1 KiB reserves) per SM at d = 128, three at d = 64; two
  // warpgroups: one CTA (the register file).
  static constexpr int kCtasPerSm = kWG == 2 ? 1 : kD == 128 ? 2 : 3;
  static_assert(kCtasPerSm * (kBytes + 1024) <= 228 * 1024, "CTAs per SM as planned");
};

// Compile-time check of every operand start against the PTX ISA's canonical layouts
// (hopper_attention.cuh), where TMA (K, V, Q, dO) and the dS stores put each element:
//   Sᵀ, dPᵀ: A = warpgroup w's 64 keys of K or V (rows 64w…, 16 of d), B = Q or dO (64 queries ×
//            16 of d), K-major;
//   dQ:      A = dS (64 queries × keys 16kk…, stored [query][key]), K-major;
//   dV, dK:  B = dO or Q, k-step kk = queries 16kk…, MN-major (n = d), LBO one column block;
//   dQ:      B = K (k = keys 16kk…, n = warpgroup w's kD/kWG columns of d), MN-major.
template <int kD, int kWG>
constexpr bool descriptors_address_the_tiles() {
  constexpr int kKeys = kWgKeys * kWG, kQCols = kD / kWG;
  for (int w = 0; w < kWG; ++w)
    for (int step = 0; step < kD / 16; ++step)
      for (int r = 0; r < 64; r += 3)
        for (int k = 0; k < 16; ++k) {
          if (qk_start(kKeys, 64 * w, step) + k_major_byte(r, k, kSbo) != tile_byte(kKeys, 64 * w + r, 16 * step + k)) return false;
          if (qk_start(kRows, 0, step) + k_major_byte(r, k, kSbo) != tile_byte(kRows, r, 16 * step + k)) return false;
        }
  for (int kk = 0; kk < kKeys / 16; ++kk)
    for (int r = 0; r < 64; r += 3)
      for (int k = 0; k < 16; ++k)
        if (qk_start(kRows, 0, kk) + k_major_byte(r, k, kSbo) != tile_byte(kRows, r, 16 * kk + k)) return false;
  for (int kk = 0; kk < kRows / 16; ++kk)
    for (int k = 0; k < 16; ++k)
      for (int col = 0; col < kD; ++col)
        if (pv_start(kk) + mn_major_byte(k, col, kTileLbo, kSbo) != tile_byte(kRows, 16 * kk + k, col)) return false;
  for (int w = 0; w < kWG; ++w)
    for (int kk = 0; kk < kKeys / 16; ++kk)
      for (int k = 0; k < 16; ++k)
        for (int col = 0; col < kQCols; ++col)
          if (dq_b_start<kD, kWG>(w, kk) + mn_major_byte(k, col, kKeys * kSwizzleRow, kSbo) !=
              tile_byte(kKeys, 16 * kk + k, w * kQCols + col))
            return false;
  return true;
}
static_assert(descriptors_address_the_tiles<64, 1>() && descriptors_address_the_tiles<128, 1>() &&
                  descriptors_address_the_tiles<64, 2>() && descriptors_address_the_tiles<128, 2>(),
              "wgmma operand starts, LBO and SBO address the bytes TMA and the dS stores wrote");
static_assert((2 * kTileLbo >> 4) < (1 << 14), "leading byte offsets fit their 14-bit field");

// Byte of dS element (query q, key) after the 128B swizzle, as TMA would have put it: column block
// key/64, 16-byte chunk (key % 64)/8 of the query's 128-byte row XOR q % 8 (the tile is
// 1024-aligned). The 32 lanes of one store (g → key % 8, t → q) hit 16 distinct banks, two lanes
// per 4-byte word: no conflict.
__host__ __device__ constexpr int ds_byte(int q, int key) {
  return (key / 64) * kRows * kSwizzleRow + q * kSwizzleRow + ((((key % 64) / 8) ^ (q % 8)) << 4) + (key % 8) * 2;
}
// TMA's 128B swizzle on a 1024-aligned tile (bits 4–6 of the offset ^= bits 7–9): ds_byte is it,
// applied to element (q, key) of a [64 × keys] tile, i.e. where the K-major A descriptor reads it.
constexpr int swizzle_128b(int byte) { return byte ^ (((byte >> 7) & 7) << 4); }
constexpr bool ds_stores_match_tma_layout() {
  for (int q = 0; q < kRows; ++q)
    for (int key = 0; key < 2 * kWgKeys; ++key)
      if (ds_byte(q, key) != swizzle_128b(tile_byte(kRows, q, key))) return false;
  return true;
}
static_assert(ds_stores_match_tma_layout(), "dS stores land where TMA would have put a [query][key] tile");

// Accumulator fragments (wgmma D, m64nN; flash_wgmma.cu): warp w of a warpgroup owns rows
// 16w…16w+15; in 8-column chunk c a lane (g = lane/4, t = lane%4) holds acc[4c + 0..1] = (row g,
// cols 8c + 2t, +1) and acc[4c + 2..3] = row g + 8. Rows are keys for Sᵀ, dPᵀ, dK, dV and queries
// for dQ.
template <class T, int kD, int kWG>
__global__ void __launch_bounds__(128 * kWG, BwdSmem<kD, kWG>::kCtasPerSm)
    flash_bwd_wgmma_kernel(const __grid_constant__ CUtensorMap mapQ, const __grid_constant__ CUtensorMap mapK,
                           const __grid_constant__ CUtensorMap mapV, const __grid_constant__ CUtensorMap mapdO,
                           AttnBwdArgs<T> a) {
  using S = BwdSmem<kD, kWG>;
  constexpr int kStages = S::kStages;
  constexpr int kKeys = S::kKeys;     // keys per CTA
  constexpr int kSAcc = kRows / 2;    // Sᵀ, dPᵀ accumulators per thread: 64 × 64 / 128
  constexpr int kOAcc = kD / 2;       // dK, dV accumulators per thread: 64 × kD / 128
  constexpr int kQCols = kD / kWG;    // dQ columns per warpgroup
  constexpr int kQAcc = kQCols / 2;   // dQ accumulators per thread
  constexpr int kColBlocks = kD / kBoxCols;
  constexpr int kSteps = kRows / 16;  // k-steps of dV, dK (queries)
  constexpr int kQSteps = kKeys / 16; // k-steps of dQ (keys)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* sK = smem;                        // [kD/64][kKeys][128 B]
  uint8_t* sV = sK + S::kKV;
  uint8_t* sQ = sV + S::kKV;                 // [kStages][kD/64][64 rows][128 B]
  uint8_t* sdO = sQ + kStages * S::kTile;    // same
  uint8_t* sdS = sdO + kStages * S::kTile;   // [kDsBuffers] dS [kKeys/64][64 queries][128 B], swizzled
  float* sL = reinterpret_cast<float*>(sdS + S::kDsBuffers * S::kDs);  // [2][kRows]: L·log2e (+∞ past n)
  float* sDelta = sL + 2 * kRows;                                      // [2][kRows]: D (0 past n)
  uint64_t* kv_full = reinterpret_cast<uint64_t*>(sDelta + 2 * kRows);
  uint64_t* full = kv_full + 1;

  const AttnArgs<T>& f = a.f;
  const int wg = kWG == 1 ? 0 : int(threadIdx.x / 128);
  const int warp = int(threadIdx.x / 32) % 4, lane = int(threadIdx.x % 32);
  const int g = lane / 4, t = lane % 4;
  const bool stats_thread = kWG == 1 || threadIdx.x < 128;  // the first warpgroup stages L and D
  // Rows and keys fit 32 bits (n, nk ≤ 2^24 by the shape rules); global offsets are 64-bit.
  const int n = int(f.n), nk = int(f.nk), n0 = int(blockIdx.x) * kKeys;
  const int n0w = n0 + kWgKeys * wg;  // this warpgroup's first key
  const int hk = int(blockIdx.y), group = int(f.h / f.hkv), bi = int(blockIdx.z);
  const int shift = nk - n;  // query i sees keys j ≤ i + shift when causal
  const float scale_log2 = f.scale * bwd::kLog2e;
  // Causal: the first query that sees key n0 is n0 − shift; earlier query tiles are skipped.
  // Tile j: query head hk·group + j / per_head, rows m_begin + 64·(j % per_head) ….
  const int m_begin = f.causal && n0 - shift > 0 ? (n0 - shift) / kRows * kRows : 0;
  const int per_head = m_begin < n ? (n - m_begin + kRows - 1) / kRows : 0;
  const int tiles = per_head * group;
  const auto tile_m0 = [&](int j) { return m_begin + (j % per_head) * kRows; };
  const auto tile_hq = [&](int j) { return hk * group + j / per_head; };

  // Threads 0–63 fetch L·log2e of row m0 + tid of tile j, threads 64–127 its D.
  const auto stat = [&](int j) -> float {
    const int i = tile_m0(j) + int(threadIdx.x) % kRows;
    const int64_t at = (int64_t(bi) * f.h + tile_hq(j)) * n + i;
    if (threadIdx.x < kRows) return i < n ? f.lse[at] * bwd::kLog2e : INFINITY;
    return i < n ? a.delta[at] : 0.f;
  };
  const auto put_stat = [&](int buf, float v) { (threadIdx.x < kRows ? sL : sDelta)[buf * kRows + threadIdx.x % kRows] = v; };
  // Tile j's Q and dO into stage j % kStages (free), counted on that stage's barrier.
  const auto load_qdo = [&](int j) {
    const int s = j % kStages, m0 = tile_m0(j), hq = tile_hq(j);
    hw::mbar_expect_bytes(&full[s], 2 * S::kTile);
    for (int cb = 0; cb < kColBlocks; ++cb) {
      tma_load_3d(sQ + s * S::kTile + cb * kRows * kSwizzleRow, &mapQ, &full[s], hq * kD + cb * kBoxCols, m0, bi);
      tma_load_3d(sdO + s * S::kTile + cb * kRows * kSwizzleRow, &mapdO, &full[s], hq * kD + cb * kBoxCols, m0, bi);
    }
  };

  if (threadIdx.x == 0) {
    hw::mbar_init(kv_full, 1);
    for (int s = 0; s < kStages; ++s) hw::mbar_init(&full[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (tiles > 0 && stats_thread) put_stat(0, stat(0));
  __syncthreads();  // barriers initialized, tile 0's L and D in buffer 0
  if (threadIdx.x == 0 && tiles > 0) {  // a CTA with no query tile loads nothing (and stores zeros)
    hw::mbar_expect_bytes(kv_full, 2 * S::kKV);
    for (int cb = 0; cb < kColBlocks; ++cb) {
      tma_load_3d(sK + cb * kKeys * kSwizzleRow, &mapK, kv_full, hk * kD + cb * kBoxCols, n0, bi);
      tma_load_3d(sV + cb * kKeys * kSwizzleRow, &mapV, kv_full, hk * kD + cb * kBoxCols, n0, bi);
    }
    for (int j = 0; j < tiles && j < kStages; ++j) load_qdo(j);
  }

  float rdK[kOAcc], rdV[kOAcc];
#pragma unroll
  for (int i = 0; i < kOAcc; ++i) rdK[i] = rdV[i] = 0.f;
  if (tiles > 0) mbar_wait_bounded(kv_full, 0);

#pragma unroll 1
  for (int j = 0; j < tiles; ++j) {
    const int s = j % kStages, buf = j & 1;
    const int m0 = tile_m0(j), hq = tile_hq(j);
    const float next_stat = stats_thread && j + 1 < tiles ? stat(j + 1) : 0.f;  // lands in buffer buf ^ 1 before the mid barrier
    const uint8_t* sQs = sQ + s * S::kTile;
    const uint8_t* sdOs = sdO + s * S::kTile;
    uint8_t* sdSb = sdS + (S::kDsBuffers == 1 ? 0 : buf * S::kDs);
    mbar_wait_bounded(&full[s], uint32_t(j / kStages) & 1);

    // Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ on this warpgroup's 64 keys: d/16 k-steps of 32 bytes each, two
    // commit groups.
    float rS[kSAcc], rdP[kSAcc];
#pragma unroll
    for (int i = 0; i < kSAcc; ++i) rS[i] = rdP[i] = 0.f;
    fence_operands(rS);
    fence_operands(rdP);
    hw::wgmma_fence();
#pragma unroll
    for (int step = 0; step < kD / 16; ++step)
      ss<T, 0, 0>(rS, hw::smem_desc(sK + qk_start(kKeys, kWgKeys * wg, step)), hw::smem_desc(sQs + qk_start(kRows, 0, step)));
    hw::wgmma_commit();
#pragma unroll
    for (int step = 0; step < kD / 16; ++step)
      ss<T, 0, 0>(rdP, hw::smem_desc(sV + qk_start(kKeys, kWgKeys * wg, step)), hw::smem_desc(sdOs + qk_start(kRows, 0, step)));
    hw::wgmma_commit();

    // Pᵀ (in rS) while dPᵀ is still on the tensor cores. Element (c, e): key n0w + 16·warp + g +
    // 8·(e/2), query 8c + 2t + e%2. Hidden (masked, past nk, past n) → 0 by selection, so an L of
    // ±∞ there never reaches the sums.
    hw::wgmma_wait<1>();
    fence_operands(rS);
    const float* sLb = sL + buf * kRows;
    const float* sDb = sDelta + buf * kRows;
    const bool edge = m0 + kRows > n || n0w + kWgKeys > nk || (f.causal && n0w + kWgKeys - 1 > m0 + shift);
#pragma unroll
    for (int c = 0; c < kSAcc / 4; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int q = 8 * c + 2 * t + (e & 1);
        float p = exp2f(fmaf(rS[4 * c + e], scale_log2, -sLb[q]));
        if (edge) {
          const int i = m0 + q, key = n0w + 16 * warp + g + 8 * (e >> 1);
          if (i >= n || key >= nk || (f.causal && key > i + shift)) p = 0.f;
        }
        rS[4 * c + e] = p;
      }
    hw::wgmma_wait<0>();
    fence_operands(rdP);
    // dSᵀ = Pᵀ∘(dPᵀ − D); both packed to 16 bits as the register A fragments of dV's and dK's
    // k-steps (queries 16kk…16kk+15: chunks 2kk and 2kk+1).
    uint32_t rP[kSteps][4], rdS[kSteps][4];
#pragma unroll
    for (int c = 0; c < kSAcc / 4; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) rdP[4 * c + e] = rS[4 * c + e] * (rdP[4 * c + e] - sDb[8 * c + 2 * t + (e & 1)]);
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        rP[kk][r] = pack2<T>(rS[8 * kk + 2 * r], rS[8 * kk + 2 * r + 1]);
        rdS[kk][r] = pack2<T>(rdP[8 * kk + 2 * r], rdP[8 * kk + 2 * r + 1]);
      }
    if (!a.deterministic) {  // uniform across the CTA
      // dS to shared memory for dQ: register r of k-step kk holds (key 16·warp + g + 8·(r & 1) of
      // this warpgroup's 64, query 16kk + 8·(r >> 1) + 2t) in its low half and query + 1 in its
      // high half; then made visible to wgmma (the async proxy).
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int key = kWgKeys * wg + 16 * warp + g + 8 * (r & 1), q = 16 * kk + 8 * (r >> 1) + 2 * t;
          *reinterpret_cast<uint16_t*>(sdSb + ds_byte(q, key)) = uint16_t(rdS[kk][r] & 0xFFFFu);
          *reinterpret_cast<uint16_t*>(sdSb + ds_byte(q + 1, key)) = uint16_t(rdS[kk][r] >> 16);
        }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }

    // dV += Pᵀ·dO, dK += dSᵀ·Q (register A, MN-major B): this warpgroup's own keys, so with two
    // warpgroups they go to the tensor cores before the barrier that dQ needs.
    float rdQ[kQAcc];
#pragma unroll
    for (int i = 0; i < kQAcc; ++i) rdQ[i] = 0.f;
    const auto issue_dv_dk = [&] {
      fence_operands(rdQ);
      fence_operands(rdV);
      fence_operands(rdK);
      fence_operands(rP);
      fence_operands(rdS);
      hw::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk) rs<T>(rdV, rP[kk], mn_major_desc(smem_addr(sdOs + pv_start(kk)), kTileLbo));
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk) rs<T>(rdK, rdS[kk], mn_major_desc(smem_addr(sQs + pv_start(kk)), kTileLbo));
    };
    if constexpr (kWG == 2) {
      issue_dv_dk();
      hw::wgmma_commit();
    }
    if (stats_thread && j + 1 < tiles) put_stat(buf ^ 1, next_stat);  // buffer buf ^ 1 was last read before the previous tile's mid barrier
    __syncthreads();  // dS complete (every warpgroup's keys); the next tile's L and D in place
    if constexpr (kWG == 2) {
      // Every thread is past tile j − 1 (its wgmmas waited for): its stage takes tile j − 1 + kStages.
      if (threadIdx.x == 0 && j >= 1 && j - 1 + kStages < tiles) load_qdo(j - 1 + kStages);
    } else {
      issue_dv_dk();
    }

    // dQ = dS·K over the CTA's keys (K-major A, MN-major B), this warpgroup's kQCols columns.
    if (!a.deterministic) {
#pragma unroll
      for (int kk = 0; kk < kQSteps; ++kk)
        ss<T, 0, 1>(rdQ, hw::smem_desc(sdSb + qk_start(kRows, 0, kk)),
                    mn_major_desc(smem_addr(sK + dq_b_start<kD, kWG>(wg, kk)), kKeys * kSwizzleRow));
    }
    hw::wgmma_commit();
    hw::wgmma_wait<0>();
    fence_operands(rdV);
    fence_operands(rdK);
    fence_operands(rdQ);

    if (!a.deterministic) {
      // dQ rows (queries) 16·warp + g, +8 × columns 8c + 2t, +1 of this warpgroup's, scaled, into
      // the fp32 accumulator: even t adds (row g, columns 8c + 2t … +3), odd t (row g + 8,
      // columns 8c + 2t − 2 … 2t + 1), each lane sending its partner t^1 the pair the partner lacks.
      const bool odd = (t & 1) != 0;
      const int i = m0 + 16 * warp + g + (odd ? 8 : 0);  // the row this lane adds to
      float* gdQ = a.dq_accum + ((int64_t(bi) * n + i) * f.h + hq) * kD + kQCols * wg + 2 * (t & ~1);
#pragma unroll
      for (int c = 0; c < kQAcc / 4; ++c) {
        const float* x = rdQ + 4 * c;
        const float s0 = odd ? x[0] : x[2], s1 = odd ? x[1] : x[3];
        const float r0 = __shfl_xor_sync(0xffffffffu, s0, 1), r1 = __shfl_xor_sync(0xffffffffu, s1, 1);
        const float4 v = odd ? make_float4(r0 * f.scale, r1 * f.scale, x[2] * f.scale, x[3] * f.scale)
                             : make_float4(x[0] * f.scale, x[1] * f.scale, r0 * f.scale, r1 * f.scale);
        if (i < n) atomicAdd(reinterpret_cast<float4*>(gdQ + 8 * c), v);
      }
    }
    if constexpr (kWG == 1) {
      // Every warp's wgmmas are complete: stage s, dS and L/D buffer buf are free.
      __syncthreads();
      if (threadIdx.x == 0 && j + kStages < tiles) load_qdo(j + kStages);
    }
  }

  // dK (scaled) and dV for keys n0w + 16·warp + g, +8 × columns 8c + 2t, +1; keys past nk unstored.
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int key = n0w + 16 * warp + g + 8 * half;
    if (key >= nk) continue;
    const int64_t off = ((int64_t(bi) * nk + key) * f.hkv + hk) * kD + 2 * t;
#pragma unroll
    for (int c = 0; c < kOAcc / 4; ++c) {
      *reinterpret_cast<uint32_t*>(a.dk + off + 8 * c) =
          pack2<T>(rdK[4 * c + 2 * half] * f.scale, rdK[4 * c + 2 * half + 1] * f.scale);
      *reinterpret_cast<uint32_t*>(a.dv + off + 8 * c) = pack2<T>(rdV[4 * c + 2 * half], rdV[4 * c + 2 * half + 1]);
    }
  }
}

template <class T, int kD, int kWG>
void launch(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  using S = BwdSmem<kD, kWG>;
  const AttnArgs<T>& f = a.f;
  for (const void* p : {static_cast<const void*>(f.q), static_cast<const void*>(f.k), static_cast<const void*>(f.v),
                        static_cast<const void*>(a.dout)})
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
      bad_input("flash attention backward (wgmma): Q, K, V and dO must start on 16-byte boundaries (TMA)",
                "use v02_flash_bwd_8warp");
  const CUtensorMap mapQ = cached_map(f.q, f.b, f.n, f.h * kD, kRows);
  const CUtensorMap mapdO = cached_map(a.dout, f.b, f.n, f.h * kD, kRows);
  const CUtensorMap mapK = cached_map(f.k, f.b, f.nk, f.hkv * kD, S::kKeys);
  const CUtensorMap mapV = cached_map(f.v, f.b, f.nk, f.hkv * kD, S::kKeys);
  const auto kernel = &flash_bwd_wgmma_kernel<T, kD, kWG>;
  static bool opted_in = false;  // > 48 KiB of dynamic shared memory needs the opt-in once
  if (!opted_in) {
    SOL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kBytes));
    SOL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    opted_in = true;
  }
  const dim3 grid(unsigned(blocks_for(f.nk, S::kKeys)), unsigned(f.hkv), unsigned(f.b));
  kernel<<<grid, 128 * kWG, S::kBytes, stream>>>(mapQ, mapK, mapV, mapdO, a);
  SOL_LAUNCH_CHECK();
  if (a.deterministic) bwd::launch_dq<T, kD>(a, stream);
}

template <class T, int kWG>
LaunchPlan plan(const AttnBwdArgs<T>& a) {
  LaunchPlan p;
  p.func = a.f.d == 64 ? reinterpret_cast<const void*>(&flash_bwd_wgmma_kernel<T, 64, kWG>)
                       : reinterpret_cast<const void*>(&flash_bwd_wgmma_kernel<T, 128, kWG>);
  p.grid = blocks_for(a.f.nk, kWgKeys * kWG) * a.f.hkv * a.f.b;
  p.block = 128 * kWG;
  p.smem = a.f.d == 64 ? BwdSmem<64, kWG>::kBytes : BwdSmem<128, kWG>::kBytes;
  return p;
}

}  // namespace

template <class T>
void flash_backward_wgmma(const AttnBwdArgs<T>& a, cudaStream_t stream, int warpgroups) {
  if (a.f.d != 64 && a.f.d != 128)
    bad_input("flash attention backward (wgmma): head dimension " + std::to_string(a.f.d) + " is not built",
              "use d=64 or d=128");
  bwd::launch_delta(a, stream);
  if (warpgroups == 2) {
    if (a.f.d == 64) launch<T, 64, 2>(a, stream);
    else launch<T, 128, 2>(a, stream);
  } else {
    if (a.f.d == 64) launch<T, 64, 1>(a, stream);
    else launch<T, 128, 1>(a, stream);
  }
  if (!a.deterministic) bwd::launch_convert(a, stream);
}

template <class T>
LaunchPlan flash_backward_wgmma_plan(const AttnBwdArgs<T>& a, int warpgroups) {
  return warpgroups == 2 ? plan<T, 2>(a) : plan<T, 1>(a);
}

template void flash_backward_wgmma<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, cudaStream_t, int);
template void flash_backward_wgmma<__half>(const AttnBwdArgs<__half>&, cudaStream_t, int);
template LaunchPlan flash_backward_wgmma_plan<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, int);
template LaunchPlan flash_backward_wgmma_plan<__half>(const AttnBwdArgs<__half>&, int);

}  // namespace sol::kernels::attention

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
//   dQ = dS·K                dS stored to shared memory as [query][key] (16-bit, 128B-swizzled,
//                           one stmatrix.trans per 16 queries) and read back as a K-major A (the
//                           forward's Q form), K as MN-major B; v03 adds it to the fp32 dQ
//                           accumulator with one float4 atomic per 4 columns (v02's pairing),
//                           v04 through shared memory and a TMA reduce-add (below).
// dS is stored untransposed rather than as dSᵀ read through wgmma's transposed-A form: every
// operand form this kernel issues is then one the forward already runs on the H200 (K-major A
// and B, register A, MN-major B).
// The elementwise code is written for the issue slots (the SASS showed them spent elsewhere):
// shared memory through pointers the compiler knows are shared (LDS/STS, not generic LD/ST), the
// edge mask in its own copy of the loop, MUFU.EX2 alone (ex2.approx.ftz), L and D as float2,
// tile positions advanced without dividing, and wgmma descriptors built once per tile and
// advanced by constants (desc_plus).
// det=1 skips dQ here and backward_dq_wgmma.cu forms it per query tile, without atomics.
// v03, one warpgroup of 64 keys per CTA: its dK, dV (64 keys × d = 128: 128 fp32 registers per
// thread), dQ (64) and the 16-bit Pᵀ, dSᵀ (32) fill 250 registers, so the register file holds 8
// such warps per SM either way. Two independent CTAs per SM at d = 128 (106 KiB of shared memory
// each) and three at d = 64 (74 KiB, 163 registers) each run a serial chain S/dP → P/dS →
// dV/dK/dQ with two CTA barriers per tile. ncu (bench/results/h200/ncu/attention_bwd-v03-summary.txt):
// L2 throughput 72–76 % with DRAM at 1–3 %: every CTA streams all of its group's Q/dO and adds a
// 64 × d fp32 dQ partial per tile, both per 64 keys.
// v04, two warpgroups of 64 keys per CTA (128 keys, FA3's split): each Q/dO tile is loaded once
// for 128 keys and dQ = dS·K sums over 128 keys before it is added, so both L2 streams halve per
// FLOP. dQ needs both warpgroups' dS: one __syncthreads per tile, after which each warpgroup
// computes its 64 × 64 block of dQ over all 128 keys (d = 128: a column half of the 64-row tile;
// d = 64, whose tiles are 128 query rows so that the GEMMs between the per-tile waits are as long
// as d = 128's: a 64-row half). dV and dK need only the warpgroup's own Pᵀ, dSᵀ, so they are
// issued before the barrier and run while it waits; dS is double-buffered so that no closing
// barrier is needed, and the stage of tile j − 1 is refilled after tile j's barrier (everyone is
// past j − 1). The dQ block goes to shared memory (fp32, 128B-swizzled) and one thread per
// warpgroup adds it to the fp32 accumulator with a TMA reduce-add (FA3 does the same from a
// dedicated warp): 16 float2 stores per thread instead of 8 shuffled float4 atomics, and whole
// 128-byte lines to L2. 233 registers at d = 128, 240 at d = 64, one CTA (8 warps) per SM,
// 226 KiB of shared memory (a 3-stage ring at d = 128, 2 stages of 128-row tiles at d = 64).
// Causal (bottom-right aligned): query tiles wholly before the key tile are skipped, edge tiles
// masked. Scores::Windowed (v04 only): a CTA visits the query tiles whose rows' windows reach its
// keys (sol/core/attention_window.hpp's query_tiles), both sides, and masks the tiles the window
// does not cover. Scores::Capped adds the softcap: Sᵀ holds tanh(Sᵀ·scale/cap) once it is done
// (while dPᵀ runs), then Pᵀ = exp2(tanh·cap·log2e − L·log2e) and dSᵀ = Pᵀ∘(dPᵀ − D)∘(1 − tanh²)
// in one pass after dPᵀ (the tanh must stay alive for the cap's derivative: no registers for a
// second copy). Query rows past n arrive as TMA zero fill with L = +∞ (P = 0); keys past nk are masked
// and their dK, dV not stored.
// Floor at b=4,h=16,n=4096,d=128: 1.37 TFLOP (2.5 × 4·b·h·n²·d) → 1.39 ms at the 989 TFLOP/s
// dense peak; v02 took 8.8 ms, the flash backend (FA2) 4.8 ms, cuDNN 2.9 ms.
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
#include "kernels/attention/residency.hpp"

namespace sol::kernels::attention {
namespace {

namespace hw = ::sol::kernels::hopper;  // mbarrier, TMA, wgmma
using namespace hopper_attn;  // tile layout, descriptors, tensor maps

constexpr int kWgKeys = 64;  // keys per consumer warpgroup: the m of Sᵀ, dPᵀ, dK, dV

// A CTA of kWG warpgroups at head dimension kD: its tiles and its shared memory. Query tiles are
// 64 rows (the n of Sᵀ, dPᵀ, the k of dK, dV), or 128 for v04 at d = 64, where the GEMMs per tile
// are half as long and the per-tile costs (waits, barrier, L/D staging) would weigh twice: 128
// rows double the work between them (Sᵀ and dPᵀ 64 registers each, dK and dV 32).
// dQ (kRows × kD per tile) is split among the warpgroups by 64-row blocks first, then by columns:
// v03 one 64 × kD block; v04 d = 128 two 64 × 64 column halves; v04 d = 64 two 64-row blocks.
// Shared memory: K, V (kD/64 column blocks of [keys × 128 B] each, as TMA writes them), the Q and
// dO ring, dS ([kRows queries × keys], one column block per 64 keys; double-buffered with two
// warpgroups, whose tiles are not closed by a barrier), L·log2e and D of the current and the next
// tile, barriers.
template <int kD, int kWG>
struct Geometry {
  static constexpr int kKeys = kWgKeys * kWG;                  // keys per CTA
  static constexpr int kRows = wgmma_backward_rows(kWG, kD);   // query rows per streamed tile
  static constexpr int kQRowBlocks = kRows / 64;               // dQ split: 64-row blocks …
  static constexpr int kQColParts = kWG / kQRowBlocks;         // … then column parts
  static constexpr int kQCols = kD / kQColParts;               // dQ columns per warpgroup
  static constexpr int kTileLbo = kRows * kSwizzleRow;         // MN-major LBO of a Q/dO tile: the next 64 columns
  static_assert(kQRowBlocks * kQColParts == kWG, "every warpgroup owns one dQ block");
  static_assert(kWG == 1 || kQCols == 64, "v04's dQ blocks are 64 × 64 (two 32-column TMA boxes)");
  static_assert((kTileLbo >> 4) < (1 << 14) && ((kKeys * kSwizzleRow) >> 4) < (1 << 14), "LBOs fit their 14-bit field");

  static constexpr int kKV = kKeys * kD * 2;     // one of K, V
  static constexpr int kTile = kRows * kD * 2;   // one Q or dO tile: 16 KiB
  // v04 at d = 64: two stages of 128-row tiles (the dQ staging takes the third's 32 KiB); a tile
  // is refilled half a tile (≈ 2 µs) before it is needed.
  static constexpr int kStages = kWG == 1 ? (kD == 128 ? 2 : 3) : kD == 128 ? 3 : 2;
  static constexpr int kDsBuffers = kWG;
  static constexpr int kDs = kRows * kKeys * 2;  // dS: 8 KiB per 64 × 64
  // v04: each warpgroup's 64 × 64 fp32 dQ block staged for a TMA reduce-add ([2][64 rows][128 B],
  // 128B-swizzled as the fp32 tensor map reads it); v03 adds from registers (its two or three
  // CTAs per SM leave no room).
  static constexpr bool kDqByTma = kWG == 2;
  static constexpr int kDqStage = kDqByTma ? 64 * 64 * 4 : 0;
  static constexpr int kStats = 2 * 2 * kRows * 4;  // L and D, two buffers
  static constexpr int kBarriers = 1 + kStages;  // K/V full; Q/dO full per stage
  static constexpr int kBytes = 2 * kKV + 2 * kStages * kTile + kDsBuffers * kDs + kWG * kDqStage + kStats +
                                kBarriers * 8 + 1024 /* alignment */;
  // CTAs per SM (residency.hpp); shared memory holds them with their 1 KiB reserves.
  static constexpr int kCtasPerSm = wgmma_backward_ctas_per_sm(kWG, kD);
  static_assert(kCtasPerSm * (kBytes + 1024) <= 228 * 1024, "CTAs per SM as planned");

  // dQ's B operand for warpgroup w, k-step kk: keys 16kk… of the K tile, its column part.
  static constexpr int dq_b_start(int w, int kk) { return tile_byte(kKeys, 16 * kk, (w % kQColParts) * kQCols); }
  // dQ's A operand (dS, K-major) for warpgroup w, k-step kk: its 64-row block, keys 16kk….
  static constexpr int dq_a_start(int w, int kk) { return qk_start(kRows, 64 * (w / kQColParts), kk); }
  // Byte of dS element (query q, key) after the 128B swizzle, as TMA would have put it: column
  // block key/64, 16-byte chunk (key % 64)/8 of the query's 128-byte row XOR q % 8 (the tile is
  // 1024-aligned). A stmatrix.trans writes 8 such 16-byte rows (8 queries' chunks of one key
  // octet) per matrix; q % 8 spreads them over the 8 chunks of a 128-byte span: no conflict.
  static constexpr int ds_byte(int q, int key) {
    return (key / 64) * kRows * kSwizzleRow + q * kSwizzleRow + ((((key % 64) / 8) ^ (q % 8)) << 4) + (key % 8) * 2;
  }
  // Byte of fp32 dQ element (row, col) of a warpgroup's 64 × 64 staging block, as the fp32 tensor
  // map (32-column boxes of 128 B) reads it: box col/32, 16-byte chunk (col % 32)/4 XOR row % 8.
  static constexpr int dq_byte(int row, int col) {
    return (col / 32) * 64 * kSwizzleRow + row * kSwizzleRow + ((((col % 32) / 4) ^ (row % 8)) << 4) + (col % 4) * 4;
  }
};

// TMA's 128B swizzle on a 1024-aligned tile (bits 4–6 of the offset ^= bits 7–9).
constexpr int swizzle_128b(int byte) { return byte ^ (((byte >> 7) & 7) << 4); }

// Compile-time check of every operand start against the PTX ISA's canonical layouts
// (hopper_attention.cuh), where TMA (K, V, Q, dO) and the dS stores put each element:
//   Sᵀ, dPᵀ: A = warpgroup w's 64 keys of K or V (rows 64w…, 16 of d), B = Q or dO (kRows
//            queries × 16 of d), K-major;
//   dQ:      A = dS (warpgroup w's 64 queries × keys 16kk…, stored [query][key]), K-major;
//   dV, dK:  B = dO or Q, k-step kk = queries 16kk…, MN-major (n = d), LBO one column block;
//   dQ:      B = K (k = keys 16kk…, n = warpgroup w's columns of d), MN-major;
// and the dS stores: ds_byte is TMA's swizzle applied to element (q, key) of a [kRows × keys]
// tile, i.e. where the K-major A descriptor reads it; dq_byte is the fp32 map's box layout.
template <int kD, int kWG>
constexpr bool descriptors_address_the_tiles() {
  using G = Geometry<kD, kWG>;
  for (int w = 0; w < kWG; ++w)
    for (int step = 0; step < kD / 16; ++step)
      for (int r = 0; r < 64; r += 3)
        for (int k = 0; k < 16; ++k)
          if (qk_start(G::kKeys, 64 * w, step) + k_major_byte(r, k, kSbo) != tile_byte(G::kKeys, 64 * w + r, 16 * step + k))
            return false;
  for (int step = 0; step < kD / 16; ++step)
    for (int r = 0; r < G::kRows; r += 3)
      for (int k = 0; k < 16; ++k)
        if (qk_start(G::kRows, 0, step) + k_major_byte(r, k, kSbo) != tile_byte(G::kRows, r, 16 * step + k)) return false;
  for (int w = 0; w < kWG; ++w)
    for (int kk = 0; kk < G::kKeys / 16; ++kk)
      for (int r = 0; r < 64; r += 3)
        for (int k = 0; k < 16; ++k)
          if (G::dq_a_start(w, kk) + k_major_byte(r, k, kSbo) != tile_byte(G::kRows, 64 * (w / G::kQColParts) + r, 16 * kk + k))
            return false;
  for (int kk = 0; kk < G::kRows / 16; ++kk)
    for (int k = 0; k < 16; ++k)
      for (int col = 0; col < kD; ++col)
        if (pv_start(kk) + mn_major_byte(k, col, G::kTileLbo, kSbo) != tile_byte(G::kRows, 16 * kk + k, col)) return false;
  for (int w = 0; w < kWG; ++w)
    for (int kk = 0; kk < G::kKeys / 16; ++kk)
      for (int k = 0; k < 16; ++k)
        for (int col = 0; col < G::kQCols; ++col)
          if (G::dq_b_start(w, kk) + mn_major_byte(k, col, G::kKeys * kSwizzleRow, kSbo) !=
              tile_byte(G::kKeys, 16 * kk + k, (w % G::kQColParts) * G::kQCols + col))
            return false;
  for (int q = 0; q < G::kRows; ++q)
    for (int key = 0; key < G::kKeys; ++key)
      if (G::ds_byte(q, key) != swizzle_128b(tile_byte(G::kRows, q, key))) return false;
  for (int row = 0; row < 64; ++row)
    for (int col = 0; col < 64; ++col)
      if (G::dq_byte(row, col) != swizzle_128b((col / 32) * 64 * kSwizzleRow + row * kSwizzleRow + (col % 32) * 4))
        return false;
  return true;
}
static_assert(descriptors_address_the_tiles<64, 1>() && descriptors_address_the_tiles<128, 1>() &&
                  descriptors_address_the_tiles<64, 2>() && descriptors_address_the_tiles<128, 2>(),
              "wgmma operand starts, LBO and SBO address the bytes TMA and the dS stores wrote");

// Accumulator fragments (wgmma D, m64nN; flash_wgmma.cu): warp w of a warpgroup owns rows
// 16w…16w+15; in 8-column chunk c a lane (g = lane/4, t = lane%4) holds acc[4c + 0..1] = (row g,
// cols 8c + 2t, +1) and acc[4c + 2..3] = row g + 8. Rows are keys for Sᵀ, dPᵀ, dK, dV and queries
// for dQ.
template <class T, int kD, int kWG, Scores kScores>
__global__ void __launch_bounds__(128 * kWG, Geometry<kD, kWG>::kCtasPerSm)
    flash_bwd_wgmma_kernel(const __grid_constant__ CUtensorMap mapQ, const __grid_constant__ CUtensorMap mapK,
                           const __grid_constant__ CUtensorMap mapV, const __grid_constant__ CUtensorMap mapdO,
                           const __grid_constant__ CUtensorMap mapdQ, AttnBwdArgs<T> a) {
  constexpr bool kWindowed = kScores != Scores::Plain, kCapped = kScores == Scores::Capped;
  static_assert(kWG == 2 || !kWindowed, "v04 alone has the Windowed forms");
  using S = Geometry<kD, kWG>;
  constexpr int kStages = S::kStages;
  constexpr int kKeys = S::kKeys;     // keys per CTA
  constexpr int kRows = S::kRows;     // query rows per tile
  constexpr int kSAcc = kRows / 2;    // Sᵀ, dPᵀ accumulators per thread: 64 × kRows / 128
  constexpr int kOAcc = kD / 2;       // dK, dV accumulators per thread: 64 × kD / 128
  constexpr int kQCols = S::kQCols;   // dQ columns per warpgroup
  constexpr int kQAcc = kQCols / 2;   // dQ accumulators per thread: 64 rows × kQCols / 128
  constexpr int kColBlocks = kD / kBoxCols;
  constexpr int kSteps = kRows / 16;  // k-steps of dV, dK (queries)
  constexpr int kQSteps = kKeys / 16; // k-steps of dQ (keys)
  extern __shared__ uint8_t smem_raw[];
  // Aligned up to 1024 bytes by an offset, so that every pointer below stays a shared-memory one
  // to the compiler (LDS/STS; a round trip through uintptr_t would make them generic).
  uint8_t* smem = smem_raw + ((1024u - (smem_addr(smem_raw) & 1023u)) & 1023u);
  uint8_t* sK = smem;                        // [kD/64][kKeys][128 B]
  uint8_t* sV = sK + S::kKV;
  uint8_t* sQ = sV + S::kKV;                 // [kStages][kD/64][64 rows][128 B]
  uint8_t* sdO = sQ + kStages * S::kTile;    // same
  uint8_t* sdS = sdO + kStages * S::kTile;   // [kDsBuffers] dS [kKeys/64][64 queries][128 B], swizzled
  uint8_t* sdQ = sdS + S::kDsBuffers * S::kDs;  // v04: [kWG] dQ blocks [2][64 rows][128 B], swizzled
  float* sL = reinterpret_cast<float*>(sdQ + kWG * S::kDqStage);  // [2][kRows]: L·log2e (+∞ past n)
  float* sDelta = sL + 2 * kRows;                                      // [2][kRows]: D (0 past n)
  uint64_t* kv_full = reinterpret_cast<uint64_t*>(sDelta + 2 * kRows);
  uint64_t* full = kv_full + 1;

  const AttnArgs<T>& f = a.f;
  const int wg = kWG == 1 ? 0 : int(threadIdx.x / 128);
  const int warp = int(threadIdx.x / 32) % 4, lane = int(threadIdx.x % 32);
  const int g = lane / 4, t = lane % 4;
  const bool stats_thread = threadIdx.x < 2 * kRows;  // L and D of a tile: one value per thread
  const int q_row0 = 64 * (wg / S::kQColParts), q_col0 = (wg % S::kQColParts) * kQCols;  // this warpgroup's dQ block
  // Rows and keys fit 32 bits (n, nk ≤ 2^24 by the shape rules); global offsets are 64-bit.
  const int n = int(f.n), nk = int(f.nk), n0 = int(blockIdx.x) * kKeys;
  const int n0w = n0 + kWgKeys * wg;  // this warpgroup's first key
  const int hk = int(blockIdx.y), group = int(f.h / f.hkv), bi = int(blockIdx.z);
  const int shift = nk - n;  // query i sees keys j ≤ i + shift when causal
  // Log2 units per unit of Sᵀ: scale·log2e, or capped (Sᵀ then holds the tanh) cap·log2e.
  const float scale_log2 = kCapped ? log2_per_unit(f, true) : f.scale * bwd::kLog2e;
  // Causal: the first query that sees key n0 is n0 − shift; earlier query tiles are skipped.
  // Windowed: the query tiles whose rows see one of the CTA's keys. Tile j: query head
  // hk·group + j / per_head, rows m_begin + 64·(j % per_head) ….
  const KeyWindow<int> window = window_of(f, nk);  // Windowed only
  int m_begin = 0, per_head = 0;
  if constexpr (kWindowed) {
    const TileSpan<int> span = query_tiles(window, n0, min(n0 + kKeys, nk) - 1, n, kRows);
    m_begin = span.begin * kRows;
    per_head = span.end - span.begin;
  } else {
    m_begin = f.causal && n0 - shift > 0 ? (n0 - shift) / kRows * kRows : 0;
    per_head = m_begin < n ? (n - m_begin + kRows - 1) / kRows : 0;
  }
  // Windowed: the rows that see each of this thread's keys (n0w + 16·warp + g, + 8), within n
  // (none for a key past nk): the edge mask.
  int first_row[2] = {0, 0}, last_row[2] = {0, 0};
  if constexpr (kWindowed) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int key = n0w + 16 * warp + g + 8 * half;
      first_row[half] = window.first_row(key);
      last_row[half] = key < nk ? min(window.last_row(key), n - 1) : -1;
    }
  }
  const int tiles = per_head * group;
  const auto tile_m0 = [&](int j) { return m_begin + (j % per_head) * kRows; };  // thread 0's refills
  const auto tile_hq = [&](int j) { return hk * group + j / per_head; };
  // The loop's own tiles advance without dividing: rows by kRows, then the next query head.
  struct TilePos {
    int m0, hq;
  };
  const int m_end = m_begin + per_head * kRows;
  const auto next_pos = [&](TilePos p) { return p.m0 + kRows < m_end ? TilePos{p.m0 + kRows, p.hq} : TilePos{m_begin, p.hq + 1}; };

  // Threads 0…kRows − 1 fetch L·log2e of row m0 + tid of the tile at p, the next kRows threads its D.
  const auto stat = [&](TilePos p) -> float {
    const int i = p.m0 + int(threadIdx.x) % kRows;
    const int64_t at = (int64_t(bi) * f.h + p.hq) * n + i;
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
  TilePos pos{m_begin, hk * group};  // tile j's
  if (tiles > 0 && stats_thread) put_stat(0, stat(pos));
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

  // Operand descriptors at the tiles' starts (desc_plus adds each k-step's constant offset):
  // this warpgroup's 64 keys of K and V (K-major), K as dQ's MN-major B, and per stage and buffer
  // below Q, dO (K-major for Sᵀ, dPᵀ; MN-major for dK, dV) and dS.
  const uint64_t dK = hw::smem_desc(sK + qk_start(kKeys, kWgKeys * wg, 0));
  const uint64_t dV = hw::smem_desc(sV + qk_start(kKeys, kWgKeys * wg, 0));
  const uint64_t dK_mn = mn_major_desc(smem_addr(sK), kKeys * kSwizzleRow);
  const uint64_t dQ0 = hw::smem_desc(sQ), ddO0 = hw::smem_desc(sdO), ddS0 = hw::smem_desc(sdS);
  const uint64_t dQ0_mn = mn_major_desc(smem_addr(sQ), S::kTileLbo), ddO0_mn = mn_major_desc(smem_addr(sdO), S::kTileLbo);

#pragma unroll 1
  for (int j = 0; j < tiles; ++j) {
    const int s = j % kStages, buf = j & 1;
    const int m0 = pos.m0, hq = pos.hq;
    pos = next_pos(pos);
    const float next_stat = stats_thread && j + 1 < tiles ? stat(pos) : 0.f;  // lands in buffer buf ^ 1 before the mid barrier
    uint8_t* sdSb = sdS + (S::kDsBuffers == 1 ? 0 : buf * S::kDs);
    const uint64_t dQs = desc_plus(dQ0, s * S::kTile), ddOs = desc_plus(ddO0, s * S::kTile);
    const uint64_t dQs_mn = desc_plus(dQ0_mn, s * S::kTile), ddOs_mn = desc_plus(ddO0_mn, s * S::kTile);
    const uint64_t ddS = desc_plus(ddS0, S::kDsBuffers == 1 ? 0 : buf * S::kDs);
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
      ss<T, 0, 0>(rS, desc_plus(dK, qk_start(kKeys, 0, step)), desc_plus(dQs, qk_start(kRows, 0, step)));
    hw::wgmma_commit();
#pragma unroll
    for (int step = 0; step < kD / 16; ++step)
      ss<T, 0, 0>(rdP, desc_plus(dV, qk_start(kKeys, 0, step)), desc_plus(ddOs, qk_start(kRows, 0, step)));
    hw::wgmma_commit();

    // Pᵀ (in rS) while dPᵀ is still on the tensor cores. Element (c, e): key n0w + 16·warp + g +
    // 8·(e/2), query 8c + 2t + e%2 (its L·log2e and D: one float2 per chunk). Hidden (masked, past
    // nk, past n) → 0 by selection, so an L of ±∞ there never reaches the sums; only edge tiles
    // test, in their own copy of the loop (predicated tests would cost every tile their issue slots).
    hw::wgmma_wait<1>();
    fence_operands(rS);
    const float* sLb = sL + buf * kRows;
    const float* sDb = sDelta + buf * kRows;
    bool edge;
    if constexpr (kWindowed)
      edge = m0 + kRows > n || n0w + kWgKeys > nk || !window.covers(m0, m0 + kRows - 1, n0w, n0w + kWgKeys - 1);
    else
      edge = m0 + kRows > n || n0w + kWgKeys > nk || (f.causal && n0w + kWgKeys - 1 > m0 + shift);
    // Windowed: element (c, e) is hidden iff its query row m0 + 2t + (8c + e % 2) is outside the
    // rows that see its key (or past n): 8c + e % 2, a constant, against those rows less m0 + 2t
    // (taken in the masked copy alone: the absolute row per element spilled d = 64's capped form).
    struct Rows {
      int first[2], last[2];
    };
    const auto relative_rows = [&] {
      return Rows{{first_row[0] - m0 - 2 * t, first_row[1] - m0 - 2 * t}, {last_row[0] - m0 - 2 * t, last_row[1] - m0 - 2 * t}};
    };
    const auto hidden = [](const Rows& r, int c, int e) {
      const int q = 8 * c + (e & 1);
      return q < r.first[e >> 1] || q > r.last[e >> 1];
    };
    const auto form_p = [&](auto masked) {
      const Rows rows = relative_rows();  // Windowed, masked only
#pragma unroll
      for (int c = 0; c < kSAcc / 4; ++c) {
        const float2 l2 = *reinterpret_cast<const float2*>(sLb + 8 * c + 2 * t);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          float p = ex2_approx(fmaf(rS[4 * c + e], scale_log2, -(e & 1 ? l2.y : l2.x)));
          if constexpr (decltype(masked)::value) {
            if constexpr (kWindowed) {
              if (hidden(rows, c, e)) p = 0.f;
            } else {
              const int i = m0 + 8 * c + 2 * t + (e & 1), key = n0w + 16 * warp + g + 8 * (e >> 1);
              if (i >= n || key >= nk || (f.causal && key > i + shift)) p = 0.f;
            }
          }
          rS[4 * c + e] = p;
        }
      }
    };
    // Capped, once dPᵀ is done: Pᵀ from the tanh in rS (masked as form_p) and
    // dSᵀ = Pᵀ∘(dPᵀ − D)∘(1 − tanh²), packed to 16 bits as they are formed (rP, rdS: as the packing
    // below) so that rS and rdP die chunk by chunk; held whole in fp32, d = 64's 128-row tiles spilled.
    uint32_t rP[kSteps][4], rdS[kSteps][4];
    const auto form_p_ds_capped = [&](auto masked) {
      const Rows rows = relative_rows();  // masked only
#pragma unroll
      for (int c = 0; c < kSAcc / 4; ++c) {
        const float2 l2 = *reinterpret_cast<const float2*>(sLb + 8 * c + 2 * t);
        const float2 d2 = *reinterpret_cast<const float2*>(sDb + 8 * c + 2 * t);
        float p[4], ds[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float th = rS[4 * c + e];
          p[e] = ex2_approx(fmaf(th, scale_log2, -(e & 1 ? l2.y : l2.x)));
          if constexpr (decltype(masked)::value) {
            if (hidden(rows, c, e)) p[e] = 0.f;
          }
          ds[e] = p[e] * (rdP[4 * c + e] - (e & 1 ? d2.y : d2.x)) * (1.f - th * th);
        }
        // Elements 4c … 4c + 3 are registers 2(c % 2), +1 of k-step c / 2 (rows g, g + 8).
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          rP[c / 2][2 * (c % 2) + h] = pack2<T>(p[2 * h], p[2 * h + 1]);
          rdS[c / 2][2 * (c % 2) + h] = pack2<T>(ds[2 * h], ds[2 * h + 1]);
        }
      }
    };
    if constexpr (kCapped) {
      const float into_tanh = capped_input(f);
#pragma unroll
      for (int i = 0; i < kSAcc; ++i) rS[i] = tanh_approx(rS[i] * into_tanh);
    } else {
      if (edge) form_p(std::true_type{});
      else form_p(std::false_type{});
    }
    hw::wgmma_wait<0>();
    fence_operands(rdP);
    // dSᵀ = Pᵀ∘(dPᵀ − D); both packed to 16 bits as the register A fragments of dV's and dK's
    // k-steps (queries 16kk…16kk+15: chunks 2kk and 2kk+1).
    if constexpr (kCapped) {
      if (edge) form_p_ds_capped(std::true_type{});
      else form_p_ds_capped(std::false_type{});
    } else {
#pragma unroll
      for (int c = 0; c < kSAcc / 4; ++c) {
        const float2 d2 = *reinterpret_cast<const float2*>(sDb + 8 * c + 2 * t);
#pragma unroll
        for (int e = 0; e < 4; ++e) rdP[4 * c + e] = rS[4 * c + e] * (rdP[4 * c + e] - (e & 1 ? d2.y : d2.x));
      }
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          rP[kk][r] = pack2<T>(rS[8 * kk + 2 * r], rS[8 * kk + 2 * r + 1]);
          rdS[kk][r] = pack2<T>(rdP[8 * kk + 2 * r], rdP[8 * kk + 2 * r + 1]);
        }
    }
    if (!a.deterministic) {  // uniform across the CTA
      // dS to shared memory for dQ, one stmatrix.trans per k-step: register r of k-step kk is the
      // 8×8 block (keys 16·warp + 8·(r & 1) + g of this warpgroup's 64, queries 16kk + 8·(r >> 1)
      // + 2t, +1) in the mma fragment layout; stored transposed, block row c is query c's 8 keys,
      // 16 bytes at ds_byte(query, first key), whose address lane 8r + c gives. Then made visible
      // to wgmma (the async proxy).
      const int block = lane / 8, block_row = lane % 8;
      const int key0 = kWgKeys * wg + 16 * warp + 8 * (block & 1);
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk)
        stmatrix_x4_trans(sdSb + S::ds_byte(16 * kk + 8 * (block >> 1) + block_row, key0), rdS[kk]);
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
      for (int kk = 0; kk < kSteps; ++kk) rs<T>(rdV, rP[kk], desc_plus(ddOs_mn, pv_start(kk)));
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk) rs<T>(rdK, rdS[kk], desc_plus(dQs_mn, pv_start(kk)));
    };
    if constexpr (kWG == 2) {
      issue_dv_dk();
      hw::wgmma_commit();
    }
    if (stats_thread && j + 1 < tiles) put_stat(buf ^ 1, next_stat);  // buffer buf ^ 1 was last read before the previous tile's mid barrier
    if constexpr (S::kDqByTma) {
      if (threadIdx.x % 128 == 0) hw::bulk_wait_read();  // the previous tile's dQ reduce has read the staging
    }
    __syncthreads();  // dS complete (every warpgroup's keys); the next tile's L and D in place
    if constexpr (kWG == 2) {
      // Every thread is past tile j − 1 (its wgmmas waited for): its stage takes tile j − 1 + kStages.
      if (threadIdx.x == 0 && j >= 1 && j - 1 + kStages < tiles) load_qdo(j - 1 + kStages);
    } else {
      issue_dv_dk();
    }

    // dQ = dS·K over the CTA's keys (K-major A, MN-major B), this warpgroup's block. v04 commits
    // it only when it is issued: a commit after the branch would cost every tile a dummy wgmma
    // that ptxas adds to close a group that may be empty.
    if (!a.deterministic) {
#pragma unroll
      for (int kk = 0; kk < kQSteps; ++kk)
        ss<T, 0, 1>(rdQ, desc_plus(ddS, S::dq_a_start(wg, kk)), desc_plus(dK_mn, S::dq_b_start(wg, kk)));
      if constexpr (kWG == 2) hw::wgmma_commit();
    }
    if constexpr (kWG == 1) hw::wgmma_commit();  // dV, dK and dQ in one group
    hw::wgmma_wait<0>();
    fence_operands(rdV);
    fence_operands(rdK);
    fence_operands(rdQ);

    if (!a.deterministic) {
      if constexpr (S::kDqByTma) {
        // dQ (scaled) through this warpgroup's staging block: element (row 16·warp + g + 8h, column
        // 8c + 2t, +1) at dq_byte, where the fp32 map reads it (a warp's float2 stores take the
        // minimum two wavefronts). Then one elected thread adds both boxes into the fp32 accumulator
        // by TMA (rows past n dropped by the map), waited for before the next tile overwrites.
        uint8_t* sdQw = sdQ + wg * S::kDqStage;
#pragma unroll
        for (int c = 0; c < kQAcc / 4; ++c)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = 16 * warp + g + 8 * h, col = 8 * c + 2 * t;
            *reinterpret_cast<float2*>(sdQw + S::dq_byte(row, col)) =
                make_float2(rdQ[4 * c + 2 * h] * f.scale, rdQ[4 * c + 2 * h + 1] * f.scale);
          }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        hw::consumer_sync(wg);  // this warpgroup's block is complete
        if (threadIdx.x % 128 == 0) {
          for (int box = 0; box < 2; ++box)
            tma_reduce_add_3d(&mapdQ, sdQw + box * 64 * kSwizzleRow, hq * kD + q_col0 + 32 * box, m0 + q_row0, bi);
          hw::bulk_commit();
        }
      } else {
        // dQ rows (queries) q_row0 + 16·warp + g, +8 × columns q_col0 + 8c + 2t, +1, scaled, into
        // the fp32 accumulator: even t adds (row g, columns 8c + 2t … +3), odd t (row g + 8,
        // columns 8c + 2t − 2 … 2t + 1), each lane sending its partner t^1 the pair the partner lacks.
        const bool odd = (t & 1) != 0;
        const int i = m0 + q_row0 + 16 * warp + g + (odd ? 8 : 0);  // the row this lane adds to
        float* gdQ = a.dq_accum + ((int64_t(bi) * n + i) * f.h + hq) * kD + q_col0 + 2 * (t & ~1);
        const auto add_dq = [&](auto guarded) {
#pragma unroll
          for (int c = 0; c < kQAcc / 4; ++c) {
            const float* x = rdQ + 4 * c;
            const float s0 = odd ? x[0] : x[2], s1 = odd ? x[1] : x[3];
            const float r0 = __shfl_xor_sync(0xffffffffu, s0, 1), r1 = __shfl_xor_sync(0xffffffffu, s1, 1);
            const float4 v = odd ? make_float4(r0 * f.scale, r1 * f.scale, x[2] * f.scale, x[3] * f.scale)
                                 : make_float4(x[0] * f.scale, x[1] * f.scale, r0 * f.scale, r1 * f.scale);
            if (!decltype(guarded)::value || i < n) atomicAdd(reinterpret_cast<float4*>(gdQ + 8 * c), v);
          }
        };
        if (m0 + q_row0 + 64 > n) add_dq(std::true_type{});  // rows past n: not added
        else add_dq(std::false_type{});
      }
    }
    if constexpr (kWG == 1) {
      // Every warp's wgmmas are complete: stage s, dS and L/D buffer buf are free.
      __syncthreads();
      if (threadIdx.x == 0 && j + kStages < tiles) load_qdo(j + kStages);
    }
  }

  if constexpr (S::kDqByTma) {
    if (threadIdx.x % 128 == 0) hw::bulk_wait();  // the last dQ reduces complete before the CTA's shared memory goes
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

template <class T, int kD, int kWG, Scores kScores>
LaunchInfo plan_for(const AttnBwdArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&flash_bwd_wgmma_kernel<T, kD, kWG, kScores>);
  p.grid_blocks = blocks_for(a.f.nk, kWgKeys * kWG) * a.f.hkv * a.f.b;
  p.block_threads = 128 * kWG;
  p.dynamic_smem_bytes = Geometry<kD, kWG>::kBytes;
  opt_in_dynamic_smem(p.func, p.dynamic_smem_bytes, true);
  return p;
}

template <class T, int kD, int kWG, Scores kScores>
void launch(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  using S = Geometry<kD, kWG>;
  const AttnArgs<T>& f = a.f;
  for (const void* p : {static_cast<const void*>(f.q), static_cast<const void*>(f.k), static_cast<const void*>(f.v),
                        static_cast<const void*>(a.dout)})
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
      bad_input("flash attention backward (wgmma): Q, K, V and dO must start on 16-byte boundaries (TMA)",
                "use v02_flash_bwd_8warp");
  const CUtensorMap mapQ = cached_map(f.q, f.b, f.n, f.h * kD, S::kRows);
  const CUtensorMap mapdO = cached_map(a.dout, f.b, f.n, f.h * kD, S::kRows);
  const CUtensorMap mapK = cached_map(f.k, f.b, f.nk, f.hkv * kD, S::kKeys);
  const CUtensorMap mapV = cached_map(f.v, f.b, f.nk, f.hkv * kD, S::kKeys);
  // v04's dQ reduce-add target: the fp32 accumulator [b, n, h·d] in 32-column × 64-row boxes.
  const CUtensorMap mapdQ = S::kDqByTma ? cached_map(a.dq_accum, f.b, f.n, f.h * kD, 64) : CUtensorMap{};
  const LaunchInfo plan = plan_for<T, kD, kWG, kScores>(a);
  const dim3 grid(unsigned(blocks_for(f.nk, S::kKeys)), unsigned(f.hkv), unsigned(f.b));
  flash_bwd_wgmma_kernel<T, kD, kWG, kScores>
      <<<grid, unsigned(plan.block_threads), size_t(plan.dynamic_smem_bytes), stream>>>(mapQ, mapK, mapV, mapdO, mapdQ, a);
  SOL_LAUNCH_CHECK();
  if (a.deterministic) flash_backward_dq_wgmma<T>(a, stream);
}

// f.template operator()<kD, kWG, kScores>() for the instantiation that serves a on `warpgroups`
// warpgroups: its d and, with two (v04), the form of its scores (scores_of; v03 refuses a window
// or softcap).
template <class T, class F>
decltype(auto) with_instance(const AttnBwdArgs<T>& a, int warpgroups, F&& f) {
  const auto by_scores = [&]<int kD>() -> decltype(auto) {
    if (warpgroups != 2) return f.template operator()<kD, 1, Scores::Plain>();
    switch (scores_of(a.f)) {
      case Scores::Plain: return f.template operator()<kD, 2, Scores::Plain>();
      case Scores::Windowed: return f.template operator()<kD, 2, Scores::Windowed>();
      default: return f.template operator()<kD, 2, Scores::Capped>();
    }
  };
  return a.f.d == 64 ? by_scores.template operator()<64>() : by_scores.template operator()<128>();
}

}  // namespace

template <class T>
void flash_backward_wgmma(const AttnBwdArgs<T>& a, cudaStream_t stream, int warpgroups) {
  if (warpgroups != 2) refuse_scores(a.f, "attention_bwd/v03_flash_bwd_wgmma");
  if (a.f.d != 64 && a.f.d != 128)
    bad_input("flash attention backward (wgmma): head dimension " + std::to_string(a.f.d) + " is not built",
              "use d=64 or d=128");
  bwd::launch_delta(a, stream);
  with_instance(a, warpgroups, [&]<int kD, int kWG, Scores kScores>() { launch<T, kD, kWG, kScores>(a, stream); });
  if (!a.deterministic) bwd::launch_convert(a, stream);
}

template <class T>
LaunchInfo flash_backward_wgmma_plan(const AttnBwdArgs<T>& a, int warpgroups) {
  return with_instance(a, warpgroups, [&]<int kD, int kWG, Scores kScores>() { return plan_for<T, kD, kWG, kScores>(a); });
}

template void flash_backward_wgmma<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, cudaStream_t, int);
template void flash_backward_wgmma<__half>(const AttnBwdArgs<__half>&, cudaStream_t, int);
template LaunchInfo flash_backward_wgmma_plan<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, int);
template LaunchInfo flash_backward_wgmma_plan<__half>(const AttnBwdArgs<__half>&, int);

}  // namespace sol::kernels::attention

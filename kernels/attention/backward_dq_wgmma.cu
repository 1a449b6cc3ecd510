// The deterministic dQ of the Hopper backward rungs (v03/v04 at det=1): dQ = scale·Σ_keys dS·K with
// dS = P∘(dP − D), P = exp(S·scale − L), S = Q·Kᵀ, dP = dO·Vᵀ — the forward's loop over key tiles
// (flash_wgmma.cu) with one more GEMM and no online softmax (L and D are known). Each dQ element
// is summed by one thread in key order, in registers, and stored once: no atomics, no fp32
// workspace, the same bits every run. S and dP are recomputed (two of the backward's five GEMMs
// run twice: ≈ 1.4× its counted FLOPs in all).
// A CTA owns 128 query rows of one (batch, query head): two consumer warpgroups of 64 rows, as the
// forward. Q and dO land once by TMA; K and V tiles stream through a kStages-deep TMA/mbarrier
// ring (a "K full", a "V full" and an "empty" barrier per stage). As in v05 there is no producer
// warp (256 threads may take 255 registers): thread 0 issues every load. After tile j's dP wait
// (no wgmma of its own in flight, see below) it refills the stage of tile j − 2 once both
// consumers have released it: it waits for the other consumer only when that one is more than a
// tile behind, and loads run kStages − 2 tiles ahead.
// Per key tile, in each consumer (its rows' L·log2e and D in registers):
//   S = Q·Kᵀ, dP = dO·Vᵀ  wgmma, both operands K-major from 128B-swizzled shared memory (the
//                         forward's Q·Kᵀ form), two commit groups: P is formed while dP runs;
//   P = exp2(S·scale·log2e − L·log2e), masked (keys past nk, causal) only on edge tiles;
//                         dS = P∘(dP − D) packed to 16 bits;
//   dQ += dS·K            wgmma with dS as the REGISTER A operand and K as MN-major B: exactly the
//                         forward's O += P·V with V. Left in flight: the next tile's S and dP
//                         queue behind it on the tensor cores, and its K stage is released at the
//                         next tile's first wait.
// What keeps ptxas from serializing every wgmma (C7515/C7520) with dQ in flight across tiles:
// S and dP start with a scale-d = 0 k-step instead of zeroed registers (no ordinary writes to
// their accumulators while dQ runs); edge tiles, a suffix of the key tiles, run in a second copy
// of the loop rather than behind a branch in the body; thread 0's divergent empty-wait and loads
// sit where no wgmma of the warpgroup is in flight; the fences follow the mbarrier waits.
// Keys per tile by registers (S, dP, dQ and the 16-bit dS live together): 64 at d = 128
// (32 + 32 + 64 + 16 accumulator registers: 175 in all), 128 at d = 64 (64 + 64 + 32 + 32: 226);
// no spills. 128 keys at d = 128 would leave room for only 2 stages in shared memory.
// Causal (bottom-right aligned): key tiles past the CTA's last diagonal are never loaded (the
// first consumer still runs the CTA's last tiles, wholly masked for it: its partner's diagonal).
// Rows past n compute on TMA's zero fill with L = +∞ (P = 0) and are not stored; a row that sees
// no key (L = −∞) is given L = +∞ too, so its P is 0 however its tiles are masked; a CTA whose
// rows see no key loads nothing and stores zeros.
// Scores::Windowed (a sliding window): the key tiles are those the CTA's rows' windows reach
// (sol/core/attention_window.hpp's key_tiles) and the tiles that need a mask a prefix (the
// window's left side) and a suffix (its right side, nk): three loop copies, the middle unmasked
// (covered_tiles). Scores::Capped adds the softcap: S holds tanh(S·scale/cap) once S is done,
// P = exp2(S·cap·log2e − L·log2e) is formed after dP (it needs the tanh alive: no register for a
// second copy), and dS = P∘(dP − D)∘(1 − tanh²), the cap's derivative.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/attention/forward.cuh"
#include "kernels/attention/hopper_attention.cuh"
#include "kernels/attention/mma.cuh"

namespace sol::kernels::attention {
namespace {

namespace hw = ::sol::kernels::hopper;  // mbarrier, TMA, wgmma
using namespace hopper_attn;  // tile layout, descriptors, tensor maps

constexpr int kRowsPerCta = 128;  // query rows per CTA: two consumer warpgroups of 64
constexpr int kCtaThreads = 256;
constexpr float kLog2eF = 1.4426950408889634f;

// Tiles and shared memory at head dimension kD: Q and dO ([kD/64][128 rows][128 B] each), the
// K/V ring ([kStages][kD/64][kKeys][128 B] each), barriers.
template <int kD>
struct DqGeometry {
  static constexpr int kKeys = kD == 128 ? 64 : 128;  // keys per streamed tile: the n of S, dP; the k of dQ
  static constexpr int kColBlocks = kD / kBoxCols;
  static constexpr int kQTile = kRowsPerCta * kD * 2;  // one of Q, dO
  static constexpr int kKVTile = kKeys * kD * 2;       // one of K, V
  static constexpr int kStages = kD == 128 ? 4 : 5;  // loads run kStages − 2 tiles ahead
  static constexpr int kKLbo = kKeys * kSwizzleRow;    // K as MN-major B: the next 64 columns of d
  static constexpr int kBarriers = 1 + 3 * kStages;    // Q/dO full; K full, V full, empty per stage
  static constexpr int kBytes = 2 * kQTile + 2 * kStages * kKVTile + kBarriers * 8 + 1024 /* 1024-byte alignment */;
  static_assert(kBytes <= 227 * 1024, "fits one SM's shared memory");
  static_assert((kKLbo >> 4) < (1 << 14), "leading byte offset fits its 14-bit field");
  // Every operand start checked against the PTX ISA's canonical layouts (hopper_attention.cuh):
  // A = Q or dO, each consumer's 64 rows, K-major; B = K or V for S and dP, K-major; B = K for dQ,
  // MN-major (k = keys, n = d).
  static constexpr bool kDescriptorsChecked = k_major_steps_address(kRowsPerCta, 0, 64, kD) &&
                                              k_major_steps_address(kRowsPerCta, 64, 64, kD) &&
                                              k_major_steps_address(kKeys, 0, kKeys, kD) && mn_major_steps_address(kKeys, kD);
  static_assert(kDescriptorsChecked, "wgmma operand starts, LBO and SBO address the bytes TMA wrote");
};

// Accumulator fragments (wgmma D, m64nN; flash_wgmma.cu): warp w of a consumer owns rows
// 16w…16w+15; in 8-column chunk c a lane (g = lane/4, t = lane%4) holds acc[4c + 0..1] = (row g,
// cols 8c + 2t, +1) and acc[4c + 2..3] = row g + 8. Packed to 16 bits, chunks 2kk and 2kk + 1
// of dS are the register A fragment of dQ's k-step kk (keys 16kk…16kk+15).
template <class T, int kD, Scores kScores>
__global__ void __launch_bounds__(kCtaThreads, 1)
    flash_dq_wgmma_kernel(const __grid_constant__ CUtensorMap mapQ, const __grid_constant__ CUtensorMap mapK,
                          const __grid_constant__ CUtensorMap mapV, const __grid_constant__ CUtensorMap mapdO,
                          AttnBwdArgs<T> a) {
  constexpr bool kWindowed = kScores != Scores::Plain, kCapped = kScores == Scores::Capped;
  using G = DqGeometry<kD>;
  constexpr int kKeys = G::kKeys, kStages = G::kStages;
  constexpr int kSAcc = kKeys / 2;   // S, dP accumulators per thread: 64 × kKeys / 128
  constexpr int kQAcc = kD / 2;      // dQ accumulators per thread
  constexpr int kQSteps = kKeys / 16;  // k-steps of dQ
  extern __shared__ uint8_t smem_raw[];
  // Aligned up to 1024 bytes by an offset, so that the pointers below stay shared-memory ones.
  uint8_t* smem = smem_raw + ((1024u - (smem_addr(smem_raw) & 1023u)) & 1023u);
  uint8_t* sQ = smem;
  uint8_t* sdO = sQ + G::kQTile;
  uint8_t* sK = sdO + G::kQTile;             // [kStages] K tiles
  uint8_t* sV = sK + kStages * G::kKVTile;   // [kStages] V tiles
  uint64_t* qdo_full = reinterpret_cast<uint64_t*>(sV + kStages * G::kKVTile);
  uint64_t* k_full = qdo_full + 1;
  uint64_t* v_full = k_full + kStages;
  uint64_t* empty = v_full + kStages;

  const AttnArgs<T>& f = a.f;
  // Rows and keys fit 32 bits (n, nk ≤ 2^24 by the shape rules); global offsets are 64-bit.
  const int n = int(f.n), nk = int(f.nk), shift = nk - n;  // causal: query i sees keys j ≤ i + shift
  const int m0 = int(gridDim.x - 1 - blockIdx.x) * kRowsPerCta;  // long causal tiles first
  const int hi = int(blockIdx.y), bi = int(blockIdx.z), hk = hi / int(f.h / f.hkv);
  const int cta_last_row = (m0 + kRowsPerCta < n ? m0 + kRowsPerCta : n) - 1;
  // The key tiles this CTA visits: tile0 … tile0 + tiles − 1 (tile0 = 0 but for a window).
  const KeyWindow<int> window = window_of(f, nk);  // Windowed only
  int tile0 = 0, tiles = 0;
  if constexpr (kWindowed) {
    const TileSpan<int> span = key_tiles(window, m0, cta_last_row, nk, kKeys);
    tile0 = span.begin;
    tiles = span.end - span.begin;
  } else {
    const int key_end = f.causal && cta_last_row + shift + 1 < nk ? cta_last_row + shift + 1 : nk;
    tiles = key_end > 0 ? (key_end + kKeys - 1) / kKeys : 0;
  }

  const auto load_kv = [&](int j) {  // visited tile j (keys (tile0 + j)·kKeys …) into stage j % kStages (free)
    const int s = j % kStages;
    hw::mbar_expect_bytes(&k_full[s], G::kKVTile);
    tma_load_tile<G::kColBlocks>(sK + s * G::kKVTile, &mapK, &k_full[s], kKeys, hk * kD, (tile0 + j) * kKeys, bi);
    hw::mbar_expect_bytes(&v_full[s], G::kKVTile);
    tma_load_tile<G::kColBlocks>(sV + s * G::kKVTile, &mapV, &v_full[s], kKeys, hk * kD, (tile0 + j) * kKeys, bi);
  };
  if (threadIdx.x == 0) {  // the barriers in order: Q/dO full, K full ×kStages, V full ×kStages, empty ×kStages
    for (int b = 0; b < G::kBarriers; ++b) hw::mbar_init(qdo_full + b, b < 1 + 2 * kStages ? 1 : 2);  // empty: one arrive per consumer
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0 && tiles > 0) {  // a CTA with no visible key loads nothing (and stores zeros)
    hw::mbar_expect_bytes(qdo_full, 2 * G::kQTile);
    tma_load_tile<G::kColBlocks>(sQ, &mapQ, qdo_full, kRowsPerCta, hi * kD, m0, bi);
    tma_load_tile<G::kColBlocks>(sdO, &mapdO, qdo_full, kRowsPerCta, hi * kD, m0, bi);
    for (int j = 0; j < tiles && j < kStages; ++j) load_kv(j);
  }

  const int consumer = int(threadIdx.x / 128);
  const int warp = int(threadIdx.x / 32) % 4, lane = int(threadIdx.x % 32);
  const int g = lane / 4, t = lane % 4;
  const int c0 = m0 + 64 * consumer;         // this consumer's first query row
  const int row0 = c0 + 16 * warp + g;       // this thread's rows: row0, row0 + 8
  // Log2 units per unit of S: scale·log2e, or capped (S then holds the tanh) cap·log2e.
  const float scale_log2 = kCapped ? log2_per_unit(f, true) : f.scale * kLog2eF;
  // Windowed: the keys each of this thread's rows sees, first_key … last_key ≤ nk − 1 (the mask).
  int first_key[2] = {0, 0}, last_key[2] = {0, 0};
  if constexpr (kWindowed) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      first_key[half] = window.first(row0 + 8 * half);
      last_key[half] = min(window.last(row0 + 8 * half), nk - 1);
    }
  }
  float rL[2], rD[2];  // L·log2e (+∞ where P must be 0: past n, or no visible key) and D
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = row0 + 8 * half;
    const int64_t at = (int64_t(bi) * f.h + hi) * n + i;
    const float lse = i < n ? f.lse[at] : -INFINITY;
    rL[half] = lse == -INFINITY ? INFINITY : lse * kLog2eF;
    rD[half] = i < n ? a.delta[at] : 0.f;
  }

  // Declared here: the loop's dQ wgmma reads rdS and writes rdQ into the next iteration.
  float rdQ[kQAcc], rS[kSAcc], rdP[kSAcc];
  uint32_t rdS[kQSteps][4];
#pragma unroll
  for (int i = 0; i < kQAcc; ++i) rdQ[i] = 0.f;

  // Windowed: whether accumulator i's key (of a tile from key0) is outside its row's window or nk.
  const auto hidden = [&](int key0, int i) {
    const int half = (i >> 1) & 1, key = key0 + 8 * (i >> 2) + 2 * t + (i & 1);
    return key < first_key[half] || key > last_key[half];
  };
  // P = exp2(S·scale·log2e − L·log2e) into rS; masked: hidden keys → 0 by selection. (The plain
  // form spells hidden() out: written as the call, the same test cost 11 registers more at d = 128.)
  const auto form_p = [&](int key0, auto masked) {
#pragma unroll
    for (int i = 0; i < kSAcc; ++i) {
      const int half = (i >> 1) & 1;
      float p = ex2_approx(fmaf(rS[i], scale_log2, -rL[half]));
      if constexpr (decltype(masked)::value) {
        if constexpr (kWindowed) {
          if (hidden(key0, i)) p = 0.f;
        } else {
          const int key = key0 + 8 * (i >> 2) + 2 * t + (i & 1);
          if (key >= nk || (f.causal && key > row0 + 8 * half + shift)) p = 0.f;
        }
      }
      rS[i] = p;
    }
  };
  // Capped, once dP is done: P from the tanh in rS (masked as form_p), and dS = P∘(dP − D)∘(1 − tanh²)
  // into rdP; P into rS.
  const auto form_p_ds_capped = [&](int key0, auto masked) {
#pragma unroll
    for (int i = 0; i < kSAcc; ++i) {
      const int half = (i >> 1) & 1;
      const float th = rS[i];
      float p = ex2_approx(fmaf(th, scale_log2, -rL[half]));
      if constexpr (decltype(masked)::value) {
        if (hidden(key0, i)) p = 0.f;
      }
      rdP[i] = p * (rdP[i] - rD[half]) * (1.f - th * th);
      rS[i] = p;
    }
  };

  // acc = A·Bᵀ over d for this consumer's 64 rows (S = Q·Kᵀ, dP = dO·Vᵀ): d/16 k-steps of 32 bytes,
  // the first with scale-d = 0, so that acc needs no zeroing while dQ runs (see the header).
  // (Descriptors built once per tile and advanced by constants: desc_plus.)
  const auto issue_product = [&](float (&acc)[kSAcc], const uint8_t* sA, const uint8_t* sB) {
    const uint64_t dA = hw::smem_desc(sA + qk_start(kRowsPerCta, 64 * consumer, 0)), dB = hw::smem_desc(sB);
    ss<T, 0, 0, 0>(acc, dA, dB);
#pragma unroll
    for (int step = 1; step < kD / 16; ++step)
      ss<T>(acc, desc_plus(dA, qk_start(kRowsPerCta, 0, step)), desc_plus(dB, qk_start(kKeys, 0, step)));
  };
#pragma unroll
  for (int i = 0; i < kSAcc; ++i) rS[i] = rdP[i] = 0.f;  // never read (scale-d = 0), but defined
  if (tiles > 0) mbar_wait_bounded(qdo_full, 0);
  const auto run_tile = [&](int j, auto masked) {
    const int s = j % kStages;
    const uint32_t parity = uint32_t(j / kStages) & 1;
    const uint8_t* sKs = sK + s * G::kKVTile;
    // S, then dP, one commit group apiece, queued behind dQ of tile j − 1. The fences follow the
    // waits' branches (ptxas would insert them there).
    mbar_wait_bounded(&k_full[s], parity);
    hw::wgmma_fence();
    issue_product(rS, sQ, sKs);
    hw::wgmma_commit();
    mbar_wait_bounded(&v_full[s], parity);
    hw::wgmma_fence();
    issue_product(rdP, sdO, sV + s * G::kKVTile);
    hw::wgmma_commit();

    hw::wgmma_wait<1>();  // dQ of tile j − 1 and S are complete; dP may still run
    fence_operands(rS);
    if (j >= 1 && threadIdx.x % 128 == 0) hw::mbar_arrive(&empty[(j - 1) % kStages]);  // done with tile j − 1
    const int key0 = (tile0 + j) * kKeys;
    if constexpr (kCapped) {
      const float into_tanh = capped_input(f);
#pragma unroll
      for (int i = 0; i < kSAcc; ++i) rS[i] = tanh_approx(rS[i] * into_tanh);
    } else {
      form_p(key0, masked);
    }
    hw::wgmma_wait<0>();
    fence_operands(rdP);
    // Nothing in flight: thread 0 refills the stage of tile j − 2 (released by both consumers once
    // the other one is past tile j − 1's first wait).
    if (threadIdx.x == 0 && j >= 2 && j - 2 + kStages < tiles) {
      mbar_wait_bounded(&empty[(j - 2) % kStages], uint32_t((j - 2) / kStages) & 1);
      load_kv(j - 2 + kStages);
    }

    // dS = P∘(dP − D), packed: register r of k-step kk holds elements 8kk + 2r, +1 (row half r & 1).
    // Capped: dS formed in rdP with P, then packed.
    if constexpr (kCapped) {
      form_p_ds_capped(key0, masked);
#pragma unroll
      for (int kk = 0; kk < kQSteps; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) rdS[kk][r] = pack2<T>(rdP[8 * kk + 2 * r], rdP[8 * kk + 2 * r + 1]);
    } else {
#pragma unroll
      for (int kk = 0; kk < kQSteps; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int i = 8 * kk + 2 * r;
          const float d = rD[r & 1];
          rdS[kk][r] = pack2<T>(rS[i] * (rdP[i] - d), rS[i + 1] * (rdP[i + 1] - d));
        }
    }
    // dQ += dS·K: k-step kk reads K's keys 16kk…16kk+15 (MN-major, n = d); left in flight.
    fence_operands(rdQ);
    fence_operands(rdS);
    hw::wgmma_fence();  // rdS (and rdQ's zeros, on the first tile) were written by ordinary instructions
    const uint64_t dKs = mn_major_desc(smem_addr(sKs), G::kKLbo);
#pragma unroll
    for (int kk = 0; kk < kQSteps; ++kk) rs<T>(rdQ, rdS[kk], desc_plus(dKs, pv_start(kk)));
    hw::wgmma_commit();
  };
  int j = 0;
  if constexpr (kWindowed) {
    // Visited tiles j < whole_begin and j ≥ whole_end need a mask (the window's two sides, nk);
    // those between, covered by every row of the CTA, run in the unmasked copy.
    const TileSpan<int> whole = covered_tiles(window, m0, cta_last_row, nk, kKeys);
    const int whole_begin = min(max(whole.begin - tile0, 0), tiles);
    const int whole_end = min(max(whole.end - tile0, whole_begin), tiles);
#pragma unroll 1
    for (; j < whole_begin; ++j) run_tile(j, std::true_type{});
#pragma unroll 1
    for (; j < whole_end; ++j) run_tile(j, std::false_type{});
  } else {
    // Edge tiles (keys past nk; causal: any key above the diagonal of the CTA's first row, for both
    // consumers) are a suffix of the key tiles: the unmasked ones run in their own loop copy.
    int first_edge = nk / kKeys;
    if (f.causal && (m0 + shift + 1) / kKeys < first_edge) first_edge = m0 + shift + 1 > 0 ? (m0 + shift + 1) / kKeys : 0;
    if (first_edge > tiles) first_edge = tiles;
#pragma unroll 1
    for (; j < first_edge; ++j) run_tile(j, std::false_type{});
  }
#pragma unroll 1
  for (; j < tiles; ++j) run_tile(j, std::true_type{});
  hw::wgmma_wait<0>();
  fence_operands(rdQ);  // (no release of the last tile: nothing is loaded after it)

  // dQ·scale → T for rows row0, row0 + 8 × columns 8c + 2t, +1; rows past n not stored.
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = row0 + 8 * half;
    if (i >= n) continue;
    T* gdQ = a.dq + ((int64_t(bi) * n + i) * f.h + hi) * kD + 2 * t;
#pragma unroll
    for (int c = 0; c < kQAcc / 4; ++c)
      *reinterpret_cast<uint32_t*>(gdQ + 8 * c) = pack2<T>(rdQ[4 * c + 2 * half] * f.scale, rdQ[4 * c + 2 * half + 1] * f.scale);
  }
}

// ---- host side ----------------------------------------------------------------------------------

template <class T, int kD, Scores kScores>
LaunchInfo dq_plan(const AttnBwdArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&flash_dq_wgmma_kernel<T, kD, kScores>);
  p.grid_blocks = blocks_for(a.f.n, kRowsPerCta) * a.f.h * a.f.b;
  p.block_threads = kCtaThreads;
  p.dynamic_smem_bytes = DqGeometry<kD>::kBytes;
  opt_in_dynamic_smem(p.func, p.dynamic_smem_bytes);
  return p;
}

template <class T, int kD, Scores kScores>
void dq_launch(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  using G = DqGeometry<kD>;
  const AttnArgs<T>& f = a.f;
  for (const void* p : {static_cast<const void*>(f.q), static_cast<const void*>(f.k), static_cast<const void*>(f.v),
                        static_cast<const void*>(a.dout)})
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
      bad_input("deterministic dQ (wgmma): Q, K, V and dO must start on 16-byte boundaries (TMA)", "use v02_flash_bwd_8warp");
  const CUtensorMap mapQ = cached_map(f.q, f.b, f.n, f.h * kD, kRowsPerCta);
  const CUtensorMap mapdO = cached_map(a.dout, f.b, f.n, f.h * kD, kRowsPerCta);
  const CUtensorMap mapK = cached_map(f.k, f.b, f.nk, f.hkv * kD, G::kKeys);
  const CUtensorMap mapV = cached_map(f.v, f.b, f.nk, f.hkv * kD, G::kKeys);
  const LaunchInfo plan = dq_plan<T, kD, kScores>(a);
  const dim3 grid(unsigned(blocks_for(f.n, kRowsPerCta)), unsigned(f.h), unsigned(f.b));
  flash_dq_wgmma_kernel<T, kD, kScores>
      <<<grid, unsigned(plan.block_threads), size_t(plan.dynamic_smem_bytes), stream>>>(mapQ, mapK, mapV, mapdO, a);
  SOL_LAUNCH_CHECK();
}

// f.template operator()<kD, kScores>() for the instantiation that serves a: its d, the form of its
// scores (scores_of).
template <class T, class F>
decltype(auto) with_instance(const AttnBwdArgs<T>& a, F&& f) {
  const auto by_scores = [&]<int kD>() -> decltype(auto) {
    switch (scores_of(a.f)) {
      case Scores::Plain: return f.template operator()<kD, Scores::Plain>();
      case Scores::Windowed: return f.template operator()<kD, Scores::Windowed>();
      default: return f.template operator()<kD, Scores::Capped>();
    }
  };
  return a.f.d == 64 ? by_scores.template operator()<64>() : by_scores.template operator()<128>();
}

}  // namespace

template <class T>
void flash_backward_dq_wgmma(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  if (a.f.d != 64 && a.f.d != 128)
    bad_input("deterministic dQ (wgmma): head dimension " + std::to_string(a.f.d) + " is not built", "use d=64 or d=128");
  with_instance(a, [&]<int kD, Scores kScores>() { dq_launch<T, kD, kScores>(a, stream); });
}

template <class T>
LaunchInfo flash_backward_dq_wgmma_plan(const AttnBwdArgs<T>& a) {
  return with_instance(a, [&]<int kD, Scores kScores>() { return dq_plan<T, kD, kScores>(a); });
}

template void flash_backward_dq_wgmma<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, cudaStream_t);
template void flash_backward_dq_wgmma<__half>(const AttnBwdArgs<__half>&, cudaStream_t);
template LaunchInfo flash_backward_dq_wgmma_plan<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&);
template LaunchInfo flash_backward_dq_wgmma_plan<__half>(const AttnBwdArgs<__half>&);

}  // namespace sol::kernels::attention

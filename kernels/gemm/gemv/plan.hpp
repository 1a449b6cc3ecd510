#pragma once
// The decode GEMM's geometry, host C++ without CUDA: which rung serves which call, how many
// CTAs and k-splits a launch uses, and the workspace its split-k partials need. The launchers
// (kernels/gemm/gemv/v*.cu), the registry (spec.cpp) and the dispatcher (kernels/api) all read
// it from here, so a launch never needs more workspace than the dispatcher reserved.
//
// Why split k: at M ≤ 64 the work is streaming W (N·K elements) once; a launch reaches the memory
// roof only with enough warps in flight (~132 SMs × 32 warps on an H200). When the N tiles alone
// give fewer CTAs than that, k is split across CTAs; each split writes fp32 partials
// (splits × M × N, mostly in L2) that a second kernel sums in split order: deterministic.
// v12 and v13 split k across the CTAs of a thread-block cluster instead and sum the partials on chip
// (distributed shared memory, rank order): deterministic too, with no workspace and one launch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sol/gemm_rungs.hpp"

namespace sol::kernels::gemm::gemv {

enum class Rung {
  v09_warp_dot,      // SIMT, W n×k: a warp per 2 columns, 16-byte loads along k, shuffle reduction
  v10_mma_swapped,   // tensor cores, W n×k: Cᵀ = W·Aᵀ on mma.sync m16n8k16, fragments straight from global
  v11_n_contiguous,  // SIMT, W k×n: a lane per 8 consecutive columns, warps split k
  v12_cluster_split_k,  // tensor cores, W n×k: tokens staged once a CTA, k split over a cluster, summed on chip
  v13_cluster_prefetch,  // v12 with the next chunk of W loaded before the MMAs of this one
  v14_tma_ring,      // tensor cores, W n×k: W and the tokens streamed by TMA through a ring of shared-memory
                     // stages, ldmatrix + mma.sync, k split over a cluster and summed on chip
};

constexpr Rung kRungs[] = {Rung::v09_warp_dot, Rung::v10_mma_swapped, Rung::v11_n_contiguous,
                           Rung::v12_cluster_split_k, Rung::v13_cluster_prefetch, Rung::v14_tma_ring};

// The registry's name of a rung (family gemm_bf16 or gemm_fp16).
constexpr const char* rung_name(Rung r) {
  switch (r) {
    case Rung::v09_warp_dot: return "v09_warp_dot";
    case Rung::v10_mma_swapped: return "v10_mma_swapped";
    case Rung::v11_n_contiguous: return "v11_n_contiguous";
    case Rung::v12_cluster_split_k: return "v12_cluster_split_k";
    case Rung::v13_cluster_prefetch: return "v13_cluster_prefetch";
    case Rung::v14_tma_ring: return "v14_tma_ring";
  }
  return "";
}

// The rungs that split k over a thread-block cluster and sum the partials in shared memory.
constexpr bool splits_on_chip(Rung r) {
  return r == Rung::v12_cluster_split_k || r == Rung::v13_cluster_prefetch || r == Rung::v14_tma_ring;
}
// The oldest compute capability a rung runs on: a split over a cluster (and TMA) needs sm_90.
constexpr int min_cc(Rung r) { return splits_on_chip(r) ? 90 : 80; }

constexpr int64_t kMaxM = gemm_rungs::kDecodeMaxM;  // the decode regime: FLOP/B ≈ M stays under the ridge
constexpr int64_t kMaxDim = int64_t(1) << 31;  // n, k and pitches index in int64; the grid's x counts N tiles
constexpr int64_t kTargetWarps = 132 * 32;     // an H200's SMs × resident warps that keep HBM busy
constexpr int kMaxSplits = 64;
constexpr int64_t kSliceAlign = 64;            // k-slices start on 64 elements: 16-byte chunks stay aligned

struct Geometry {
  int threads = 0;          // per CTA
  int64_t blocks_n = 0;     // grid.x: tiles of N
  int64_t blocks_m = 1;     // grid.z: passes over M (v11 takes 8 tokens per pass)
  int splits = 1;           // grid.y: k-slices
  int64_t k_slice = 0;      // elements of k per split (a multiple of kSliceAlign, or k)
  int64_t cols_per_cta = 0;
  int64_t k_per_step = 0;   // k a CTA covers per iteration of its loop: a split is never shorter
};

// The tokens one CTA of v11 (and one warp of v09) carries: 1, 4 or 8 (at most 8). Fewer shapes
// than every power of two: a token row past m costs registers only (its loads and FMAs are
// skipped), and each shape is compiled for two types and two architectures.
constexpr int tokens_per_pass(int64_t m) { return m <= 1 ? 1 : m <= 4 ? 4 : 8; }
// v10's 8-token MMA tiles: 1, 4 or 8 (m padded to 8, 32, 64; a tile past m loads nothing).
constexpr int token_tiles(int64_t m) { return m <= 8 ? 1 : m <= 32 ? 4 : 8; }

// The tiling of v12 and v13 at m tokens, the one statement of it (the kernels instantiate exactly
// these): 8-token MMA tiles 1, 2, 4 or 8; each of 8 warps owns w_tiles 16-row tiles of W (2 from
// 17 tokens on, halving the shared-memory reads of A per byte of W); k moves in chunks of `chunk`.
// W's registers are 64 a lane either way: v12 holds one chunk, v13 two chunks of half the size
// (the one it multiplies and the next, in flight).
struct ClusterTiling {
  int token_tiles, w_tiles, chunk;
  bool prefetch;
  constexpr int rows() const { return 8 * 16 * w_tiles; }  // W rows (columns of C) a CTA owns
};
constexpr ClusterTiling cluster_tiling(int64_t m, bool prefetch) {
  const int tt = m <= 8 ? 1 : m <= 16 ? 2 : m <= 32 ? 4 : 8, wt = tt <= 2 ? 1 : 2;
  return ClusterTiling{tt, wt, (wt == 1 ? 256 : 128) / (prefetch ? 2 : 1), prefetch};
}
constexpr int kClusterWarps = 8;
constexpr int kMaxClusterSplits = 8;    // a portable cluster
// One CTA an H200 SM, each with up to 64 KB of W in flight. Measured too few at m ≤ 16 (ncu: 42 %
// of DRAM throughput at 1×4096×4096, bench/results/h200/ncu/gemm_bf16-v12-decode.txt).
constexpr int64_t kClusterTargetCtas = 132;

// The tiling of v14 at m tokens, the one statement of it: token tiles and W tiles as v12's; k moves
// through `stages` shared-memory stages of kRingChunk (one 128-byte swizzle row of 16-bit elements),
// each holding the CTA's W rows and its 8·token_tiles token rows. At m ≤ 16 (one W tile a warp)
// five stages (92 KB) leave room for two CTAs an SM, 160 KB of W in flight; from 17 tokens on four
// stages of 256 rows (160 KB), one CTA, 128 KB of W in flight.
struct RingTiling {
  int token_tiles, w_tiles, stages;
  constexpr int rows() const { return 8 * 16 * w_tiles; }
  constexpr int ctas_per_sm() const { return w_tiles == 1 ? 2 : 1; }
};
constexpr int kRingChunk = 64;
constexpr int kRingWarps = kClusterWarps + 1;  // 8 consumer warps and one producer (TMA) warp
constexpr RingTiling ring_tiling(int64_t m) {
  const ClusterTiling c = cluster_tiling(m, false);
  return RingTiling{c.token_tiles, c.w_tiles, c.w_tiles == 1 ? 5 : 4};
}

inline Geometry geometry(Rung r, int64_t m, int64_t n, int64_t k) {
  Geometry g;
  switch (r) {
    case Rung::v09_warp_dot:  // 8 warps × 2 columns; a warp's step: 32 lanes × 8 elements × 4 loads (2 at m > 4)
      g.threads = 256, g.cols_per_cta = 16, g.k_per_step = tokens_per_pass(m) == 8 ? 512 : 1024;
      break;
    case Rung::v10_mma_swapped:  // 4 warps on 16 (32 at m > 32) rows; a warp's step: 4 (2) k-blocks of 32
      g.threads = 128, g.cols_per_cta = token_tiles(m) == 8 ? 32 : 16;
      g.k_per_step = token_tiles(m) == 8 ? 256 : 512;
      break;
    case Rung::v11_n_contiguous:  // 4 warps × 32 lanes × 8 columns; warps split k, 4–8 rows each
      g.threads = 128, g.cols_per_cta = 256, g.k_per_step = 16;
      g.blocks_m = (m + tokens_per_pass(m) - 1) / tokens_per_pass(m);
      break;
    case Rung::v12_cluster_split_k:
    case Rung::v13_cluster_prefetch: {
      const ClusterTiling t = cluster_tiling(m, r == Rung::v13_cluster_prefetch);
      g.threads = kClusterWarps * 32, g.cols_per_cta = t.rows(), g.k_per_step = t.chunk;
      break;
    }
    case Rung::v14_tma_ring:
      g.threads = kRingWarps * 32, g.cols_per_cta = ring_tiling(m).rows(), g.k_per_step = kRingChunk;
      break;
  }
  g.blocks_n = (n + g.cols_per_cta - 1) / g.cols_per_cta;
  if (splits_on_chip(r)) {
    // The fewest splits that fill every SM (one CTA each; v14: as many as fit), at most a cluster's
    // 8, each at least one chunk; slices in whole chunks. The partials never leave the chip, so
    // their count is not bounded by their traffic as below.
    const int64_t chunks = (k + g.k_per_step - 1) / g.k_per_step;
    const int64_t target = r == Rung::v14_tma_ring ? kClusterTargetCtas * ring_tiling(m).ctas_per_sm() : kClusterTargetCtas;
    const int64_t want = std::min<int64_t>({(target + g.blocks_n - 1) / g.blocks_n, kMaxClusterSplits, chunks});
    const int64_t per_chunks = (chunks + want - 1) / want;
    g.k_slice = per_chunks * g.k_per_step;
    g.splits = int((chunks + per_chunks - 1) / per_chunks);  // no empty split
    return g;
  }
  const int64_t warps = g.blocks_n * g.blocks_m * (g.threads / 32);
  int64_t want = (kTargetWarps + warps - 1) / warps;
  // Each split at least one loop step, and the partials' traffic (written and read: 8·splits·M·N
  // bytes) at most a quarter of W's (2·N·K bytes): splits ≤ K / (16·M).
  want = std::min<int64_t>({want, kMaxSplits, std::max<int64_t>(1, k / g.k_per_step), std::max<int64_t>(1, k / (16 * m))});
  g.splits = int(std::max<int64_t>(want, 1));
  if (g.splits == 1) {
    g.k_slice = k;
  } else {
    const int64_t per = (k + g.splits - 1) / g.splits;
    g.k_slice = (per + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
    g.splits = int((k + g.k_slice - 1) / g.k_slice);  // no empty split
  }
  return g;
}

// Bytes of workspace a launch of r needs (the split-k partials; 0 with one split).
inline size_t workspace_bytes(Rung r, int64_t m, int64_t n, int64_t k) {
  if (splits_on_chip(r)) return 0;  // the partials stay in shared memory
  const Geometry g = geometry(r, m, n, k);
  return g.splits > 1 ? size_t(g.splits) * size_t(m) * size_t(n) * sizeof(float) : 0;
}

// Kernel launches a call of r makes: the rung's, plus the split-k sum where one is needed.
inline int launches(Rung r, int64_t m, int64_t n, int64_t k) { return workspace_bytes(r, m, n, k) > 0 ? 2 : 1; }

// Why r cannot serve a call, or "". w_k_contiguous: W stored n×k (trans_b = T).
inline std::string refusal(Rung r, int64_t m, int64_t n, int64_t k, bool w_k_contiguous) {
  if (m < 1 || n < 1 || k < 1) return "m, n, k must be ≥ 1";
  if (m > kMaxM) return "the decode GEMM takes m ≤ " + std::to_string(kMaxM) + " (m=" + std::to_string(m) + ")";
  if (n > kMaxDim || k > kMaxDim) return "the decode GEMM takes n, k ≤ 2^31";
  if (r == Rung::v09_warp_dot && m > 8) return "v09 keeps m ≤ 8 token rows in registers (m=" + std::to_string(m) + ")";
  if (r == Rung::v11_n_contiguous && w_k_contiguous) return "v11 reads W stored k×n (tb=0, trans_b=N)";
  if (r != Rung::v11_n_contiguous && !w_k_contiguous) return "v09, v10, v12, v13 and v14 read W stored n×k (tb=1, trans_b=T)";
  return {};
}

}  // namespace sol::kernels::gemm::gemv

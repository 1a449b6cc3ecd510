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
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sol::kernels::gemv {

enum class Rung {
  v09_warp_dot,      // SIMT, W n×k: a warp per 2 columns, 16-byte loads along k, shuffle reduction
  v10_mma_swapped,   // tensor cores, W n×k: Cᵀ = W·Aᵀ on mma.sync m16n8k16, fragments straight from global
  v11_n_contiguous,  // SIMT, W k×n: a lane per 8 consecutive columns, warps split k
};

constexpr Rung kRungs[] = {Rung::v09_warp_dot, Rung::v10_mma_swapped, Rung::v11_n_contiguous};

// The registry's name of a rung (family gemm_bf16 or gemm_fp16).
constexpr const char* rung_name(Rung r) {
  return r == Rung::v09_warp_dot ? "v09_warp_dot" : r == Rung::v10_mma_swapped ? "v10_mma_swapped" : "v11_n_contiguous";
}

constexpr int64_t kMaxM = 64;                  // the decode regime: FLOP/B ≈ M stays under the ridge
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
  }
  g.blocks_n = (n + g.cols_per_cta - 1) / g.cols_per_cta;
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
  const Geometry g = geometry(r, m, n, k);
  return g.splits > 1 ? size_t(g.splits) * size_t(m) * size_t(n) * sizeof(float) : 0;
}

// Why r cannot serve a call, or "". w_k_contiguous: W stored n×k (trans_b = T).
inline std::string refusal(Rung r, int64_t m, int64_t n, int64_t k, bool w_k_contiguous) {
  if (m < 1 || n < 1 || k < 1) return "m, n, k must be ≥ 1";
  if (m > kMaxM) return "the decode GEMM takes m ≤ 64 (m=" + std::to_string(m) + ")";
  if (n > kMaxDim || k > kMaxDim) return "the decode GEMM takes n, k ≤ 2^31";
  if (r == Rung::v09_warp_dot && m > 8) return "v09 keeps m ≤ 8 token rows in registers (m=" + std::to_string(m) + ")";
  if (r == Rung::v11_n_contiguous && w_k_contiguous) return "v11 reads W stored k×n (tb=0, trans_b=N)";
  if (r != Rung::v11_n_contiguous && !w_k_contiguous) return "v09 and v10 read W stored n×k (tb=1, trans_b=T)";
  return {};
}

}  // namespace sol::kernels::gemv

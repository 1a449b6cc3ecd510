#pragma once
// The warp-level pieces v01 and v02 share: a 128×128 block tile split over 8 warps as 2 (m) × 4
// (n) warp tiles of 64×32, each 4 × 4 mma.sync m16n8k16 tiles (64 fp32 accumulators per lane),
// fed by ldmatrix.x4 from a shared tile whose 16-byte chunk address the caller computes (padded
// in v01, XOR-swizzled in v02). The plain epilogue writes bf16 pairs straight from registers.
#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/ptx.cuh"
#include "kernels/gemm/tc/problem.cuh"
#include "sol/gemm_rungs.hpp"

namespace sol::kernels::gemm::tc {

// The storage word of an element type (loads and copies move bits only).
template <class T>
using Bits = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;

constexpr int kBlockM = gemm_rungs::kMmaSync.m, kBlockN = gemm_rungs::kMmaSync.n;
constexpr int kRowBytes = gemm_rungs::kMmaSync.k_bytes;  // k depth of a tile in bytes: 32 bf16/fp16, 64 e4m3
constexpr int kThreads = 256;                    // 8 warps
constexpr int kWarpM = 64, kWarpN = 32;          // warp tile
constexpr int kFragM = kWarpM / 16, kFragN = kWarpN / 8;  // 4 × 4 mma tiles per warp
constexpr int kChunks = kRowBytes / 16;          // 16-byte chunks per tile row (4)
constexpr int kSteps = kRowBytes / 32;           // mma k steps per tile (32 bytes of k each)
// Elements of T in a 16-byte chunk and in a tile's k depth.
template <class T>
constexpr int kChunkElems = 16 / int(sizeof(T));
template <class T>
constexpr int kBlockK = kRowBytes / int(sizeof(T));
// Blocks per SM the register budget is sized for: 2 (≤ 128 registers) for 16-bit types; e4m3
// needs a few more registers (60 bytes spilled at 128), so it gets 1 block per SM.
template <class T>
constexpr int kMinBlocks = gemm_rungs::kMmaSync.ctas_per_sm(int(sizeof(T)));

struct WarpTile {
  int row0, col0;  // the warp tile's first row and column inside the block tile
};
__device__ __forceinline__ WarpTile warp_tile(int warp) { return {(warp % 2) * kWarpM, (warp / 2) * kWarpN}; }

// One 32-byte k step of a warp (k16 for 16-bit types, k32 for e4m3): A rows (16-byte chunks
// 2·step, 2·step+1) and B rows through ldmatrix, then 16 mma.sync. chunk_addr(base, row, chunk) gives the shared address of a 16-byte chunk.
template <class T, class Addr>
__device__ __forceinline__ void warp_kstep(float (&acc)[kFragM][kFragN][4], uint32_t sA, uint32_t sB, int step,
                                         const WarpTile& w, int lane, const Addr& chunk_addr) {
  uint32_t a[kFragM][4], b[kFragN][2];
#pragma unroll
  for (int mi = 0; mi < kFragM; ++mi)  // lane → row lane%16, k-half lane/16
    ldmatrix_x4(a[mi], chunk_addr(sA, w.row0 + mi * 16 + lane % 16, 2 * step + lane / 16));
#pragma unroll
  for (int nj = 0; nj < kFragN / 2; ++nj) {  // matrices: (n0-7,k lo) (n0-7,k hi) (n8-15,k lo) (n8-15,k hi)
    uint32_t r[4];
    ldmatrix_x4(r, chunk_addr(sB, w.col0 + nj * 16 + lane % 8 + (lane / 16) * 8, 2 * step + (lane / 8) % 2));
    b[2 * nj][0] = r[0];
    b[2 * nj][1] = r[1];
    b[2 * nj + 1][0] = r[2];
    b[2 * nj + 1][1] = r[3];
  }
#pragma unroll
  for (int mi = 0; mi < kFragM; ++mi)
#pragma unroll
    for (int ni = 0; ni < kFragN; ++ni) mma_k32bytes<T>(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
}

// Visits a warp's accumulators as output pairs: f(row, col, v0, v1) with (row, col) inside the
// block tile and v0, v1 = alpha·acc at columns col, col+1. A lane holds column pairs (2t, 2t+1)
// of rows g and g+8 of each 16×8 tile.
template <class F>
__device__ __forceinline__ void for_each_pair(const float (&acc)[kFragM][kFragN][4], float alpha, const WarpTile& w,
                                              int lane, const F& f) {
#pragma unroll
  for (int mi = 0; mi < kFragM; ++mi)
#pragma unroll
    for (int ni = 0; ni < kFragN; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        f(w.row0 + mi * 16 + lane / 4 + 8 * h, w.col0 + ni * 8 + 2 * (lane % 4), alpha * acc[mi][ni][2 * h],
          alpha * acc[mi][ni][2 * h + 1]);
}

// C = alpha·acc straight from registers; a pair is one 4-byte store when it lies inside C and
// is 4-byte aligned, else guarded element stores.
__device__ __forceinline__ void store_pairs(const Problem& p, const float (&acc)[kFragM][kFragN][4], int64_t m0,
                                            int64_t n0, const WarpTile& w, int lane) {
  auto* gC = static_cast<__nv_bfloat16*>(p.C);
  const bool pairs = p.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(p.C) % 4 == 0;
  for_each_pair(acc, p.alpha, w, lane, [&](int row, int col, float v0, float v1) {
    const int64_t r = m0 + row, c = n0 + col;
    if (r >= p.m) return;
    __nv_bfloat16* dst = gC + r * p.ldc + c;
    if (pairs && c + 1 < p.n) {
      *reinterpret_cast<uint32_t*>(dst) = pack2<__nv_bfloat16>(v0, v1);
    } else {
      if (c < p.n) dst[0] = __float2bfloat16_rn(v0);
      if (c + 1 < p.n) dst[1] = __float2bfloat16_rn(v1);
    }
  });
}

}  // namespace sol::kernels::gemm::tc

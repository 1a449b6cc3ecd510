// v05_regblock_2d: 2-D register blocking. A block of 256 threads owns a 128×128 tile of C, k in
// steps of 8; each thread computes an 8×8 micro-tile as an outer product: per k-step it loads 8
// values of A and 8 of B from shared memory into registers and does 64 FMAs with them (16 loads
// per 64 FMAs, 8× fewer than v03). Tiled model: T = 128, 4.4 GB at 4096³ (A and B re-read 32
// times each, mostly from L2).
// Expected bottleneck: the scalar shared loads (16 LDS.32 per 64 FFMA; sB reads 2-way bank
// conflicted across the 16 column threads) and the global→shared copy, which still goes through
// scalar loads and stalls the block at each __syncthreads. Expect ~30–35 TFLOP/s, ~60–70 % of
// cuBLAS. Edges: guarded scalar loads store 0 outside the matrix.
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr int kTileM = 128, kTileN = 128, kTileK = 8, kMicro = 8;
constexpr int kThreads = (kTileM / kMicro) * (kTileN / kMicro);  // 256
constexpr int kCopies = kTileM * kTileK / kThreads;              // 4 elements of A and of B per thread

__global__ void __launch_bounds__(kThreads) regblock_2d_kernel(GemmArgs g) {
  __shared__ float sA[kTileM][kTileK];
  __shared__ float sB[kTileK][kTileN];
  const TileOrigin tile = tile_origin(g, kTileM, kTileN);
  const int row0 = tile.row0, col0 = tile.col0;
  const int tid = int(threadIdx.x);
  const int t_row = tid / (kTileN / kMicro), t_col = tid % (kTileN / kMicro);
  float rAcc[kMicro][kMicro] = {};
  float rA[kMicro], rB[kMicro];
  for (int k0 = 0; k0 < g.k; k0 += kTileK) {
#pragma unroll
    for (int j = 0; j < kCopies; ++j) {
      const int idx = tid + j * kThreads;
      sA[idx / kTileK][idx % kTileK] = load1(g.a, g.m, g.k, row0 + idx / kTileK, k0 + idx % kTileK);
      sB[idx / kTileN][idx % kTileN] = load1(g.b, g.k, g.n, k0 + idx / kTileN, col0 + idx % kTileN);
    }
    __syncthreads();
#pragma unroll
    for (int d = 0; d < kTileK; ++d) {
#pragma unroll
      for (int i = 0; i < kMicro; ++i) rA[i] = sA[t_row * kMicro + i][d];
#pragma unroll
      for (int j = 0; j < kMicro; ++j) rB[j] = sB[d][t_col * kMicro + j];
      outer_product_8x8(rAcc, rA, rB);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kMicro; ++i) {
    const int row = row0 + t_row * kMicro + i;
    if (row >= g.m) continue;
#pragma unroll
    for (int j = 0; j < kMicro; ++j) {
      const int col = col0 + t_col * kMicro + j;
      if (col < g.n) store_c(g, int64_t(row) * g.n + col, rAcc[i][j]);
    }
  }
}

}  // namespace

LaunchInfo v05_regblock_2d_plan(const GemmArgs& g) {
  return tile_plan(reinterpret_cast<const void*>(regblock_2d_kernel), g, kTileM, kTileN, kThreads);
}

}  // namespace sol::kernels::gemm::fp32

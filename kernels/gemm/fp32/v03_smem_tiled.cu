// v03_smem_tiled: the lecture's tiled kernel (§10), T = 32. A block of 32×32 threads owns a 32×32
// tile of C and walks k in steps of 32: it copies a 32×32 tile of A and of B into shared memory
// (one coalesced element per thread each), __syncthreads() so that the tiles are complete, does
// 32 multiply-adds per thread from shared memory, and __syncthreads() again before the next copy
// overwrites tiles that slower warps may still read. Each element loaded from global memory is
// now used 32 times: the tiled model reads A ⌈n/32⌉ and B ⌈m/32⌉ times (at 4096³: 17.2 GB instead
// of the naive 550 GB). Edges: out-of-range elements are stored as 0 and add nothing.
// Expected bottleneck: shared-memory bandwidth. Each FMA needs two shared loads (sA broadcast,
// sB one word per lane), each a full wavefront: an SM serves 1 wavefront (32 words) per clock but
// issues 4 FFMA instructions (128 FMAs) per clock, so FMAs run at ≤ 1/8 of the FP32 peak
// (~67 TFLOP/s): expect ~6–8 TFLOP/s, ~12–15 % of cuBLAS.
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr int kTile = 32, kThreads = kTile * kTile;

__global__ void __launch_bounds__(kThreads) smem_tiled_kernel(GemmArgs g) {
  __shared__ float sA[kTile][kTile];
  __shared__ float sB[kTile][kTile];
  const TileOrigin t = tile_origin(g, kTile, kTile);
  const int ty = int(threadIdx.x / kTile), tx = int(threadIdx.x % kTile);
  const int row = t.row0 + ty;
  const int col = t.col0 + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < g.k; k0 += kTile) {
    sA[ty][tx] = load1(g.a, g.m, g.k, row, k0 + tx);  // a row of A: coalesced along k
    sB[ty][tx] = load1(g.b, g.k, g.n, k0 + ty, col);  // a row of B: coalesced along n
    __syncthreads();  // the tiles are complete
    for (int i = 0; i < kTile; ++i) acc += sA[ty][i] * sB[i][tx];  // sA: broadcast; sB: one bank per lane
    __syncthreads();  // everyone is done reading before the next copy overwrites
  }
  if (row < g.m && col < g.n) store_c(g, int64_t(row) * g.n + col, acc);
}

}  // namespace

LaunchInfo v03_smem_tiled_plan(const GemmArgs& g) {
  return tile_plan(reinterpret_cast<const void*>(smem_tiled_kernel), g, kTile, kTile, kThreads);
}

}  // namespace sol::kernels::gemm::fp32

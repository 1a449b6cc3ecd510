// v01_naive: the lecture's first matmul (§9) with its uncoalesced indexing: one thread per output,
// threadIdx walks ROWS, so the 32 lanes of a warp read A[row·k + i] from 32 rows k·4 bytes apart
// (32 sectors per request instead of 4) and write C down a column, n·4 bytes apart.
// Expected bottleneck: memory requests, not FLOPs. Every multiply-add loads A and B (8 bytes per
// 2 FLOPs); the B load is one broadcast word per warp, the A load 32 separate sectors. At 4096³
// the Naive model's 550 GB of operand traffic mostly hits L1/L2, but the 32-sector A requests cap
// the kernel near the L1/LSU request rate: expect ~1–2 TFLOP/s, ~2–4 % of cuBLAS's ~51.
// Block: 256 threads = a 32-row × 8-column tile of C.
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr int kTileM = 32, kTileN = 8, kThreads = kTileM * kTileN;

__global__ void __launch_bounds__(kThreads) naive_kernel(GemmArgs g) {
  const TileOrigin t = tile_origin(g, kTileM, kTileN);
  const int row = t.row0 + int(threadIdx.x % kTileM);  // lanes → rows
  const int col = t.col0 + int(threadIdx.x / kTileM);
  if (row >= g.m || col >= g.n) return;
  store_c(g, int64_t(row) * g.n + col, dot_from_global(g, row, col));
}

}  // namespace

LaunchInfo v01_naive_plan(const GemmArgs& g) {
  return tile_plan(reinterpret_cast<const void*>(naive_kernel), g, kTileM, kTileN, kThreads);
}

}  // namespace sol::kernels::gemm::fp32

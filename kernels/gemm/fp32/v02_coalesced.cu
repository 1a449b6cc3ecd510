// v02_coalesced: v01 with the thread index swapped (§9): threadIdx walks COLUMNS, so a warp reads
// 32 consecutive words of B's row i (one 128-byte line) and writes 128 contiguous bytes of C,
// while A[row·k + i] is one broadcast word per warp.
// Expected bottleneck: L1/L2 bandwidth. Still no reuse on chip beyond the caches: every
// multiply-add issues a load of A and of B (Naive model: 2·m·n·k·4 bytes = 550 GB at 4096³,
// served by L1 at ~30 TB/s aggregate and L2 at ~10 TB/s) → expect ~3–6 TFLOP/s, ~6–12 % of cuBLAS.
// Block: 256 threads = an 8-row × 32-column tile of C.
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr int kTileM = 8, kTileN = 32, kThreads = kTileM * kTileN;

__global__ void __launch_bounds__(kThreads) coalesced_kernel(GemmArgs g) {
  const TileOrigin t = tile_origin(g, kTileM, kTileN);
  const int row = t.row0 + int(threadIdx.x / kTileN);
  const int col = t.col0 + int(threadIdx.x % kTileN);  // lanes → columns
  if (row >= g.m || col >= g.n) return;
  store_c(g, int64_t(row) * g.n + col, dot_from_global(g, row, col));
}

}  // namespace

LaunchInfo v02_coalesced_plan(const GemmArgs& g) {
  return tile_plan(reinterpret_cast<const void*>(coalesced_kernel), g, kTileM, kTileN, kThreads);
}

}  // namespace sol::kernels::gemm::fp32

// v05 — persistent tiles: one CTA per SM walks the tile list (tile t, t + #SMs, …) in groups of
// 16 row tiles per column of B so that the CTAs running together share operand tiles in L2. The
// producer starts loading the next tile while the consumers still write the previous one, so the
// epilogue hides behind the loads, and no CTA launch or barrier setup repeats per tile.
// Expected: the closest rung to the tensor-core roof; ≥ 95 % of cuBLAS at 4096³ is the target.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc::hopper {

template <InType kIn>
__global__ void __launch_bounds__(384, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                      const __grid_constant__ CUtensorMap mapC, bool c_by_tma, __nv_bfloat16* gC, int64_t m, int64_t n,
                      int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  constexpr int kN = kHopperWide.n;
  const Smem<kN> smem = shared_stages<kN>();
  const int consumer = int(threadIdx.x / 128) - 1;  // −1: the producer warpgroup
  if (threadIdx.x == 0) init_barriers(smem, 2);
  __syncthreads();

  // As many CTAs as fit at once (one per SM); CTA b takes tiles b, b + gridDim.x, … in TileGrid's
  // order. The stages run on from tile to tile: the producer loads the next tile's first k-tiles
  // while the consumers finish and store this one.
  const int first = blockIdx.x, stride = gridDim.x;
  if (consumer < 0) {
    if (threadIdx.x == 0) produce_tiles<kIn, kN>(&mapA, &mapB, smem, grid, k_tiles, first, stride);
    return;
  }

  float rAcc[TileN<kN>::kAcc];
  int it = 0;
  for (int u = first; u < grid.count(); u += stride) {
    int tm, tn;
    grid.at(u, tm, tn);
    consume_tile<kIn>(rAcc, smem, k_tiles, it, consumer);
    store_tile(rAcc, gC, ldc, m, n, int64_t(tm) * kBlockM + consumer * 64, int64_t(tn) * kN, alpha);
  }
}

}  // namespace sol::kernels::gemm::tc::hopper

namespace sol::kernels::gemm::tc {

void launch_v05_persistent(const Problem& p, Workspace& ws, cudaStream_t stream) {
  using namespace hopper;
  with_input(p.in, [&](auto in) {
    launch<persistent_kernel<in>, kHopperWide.n>({.threads = 384, .cluster = 1, .persistent = true}, p, ws, stream);
  });
}

}  // namespace sol::kernels::gemm::tc

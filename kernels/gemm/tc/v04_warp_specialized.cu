// v04 — warp specialization: a third warpgroup does nothing but issue TMA (one thread waits on
// each stage's "empty" barrier, then refills it), while the two consumer warpgroups keep one
// wgmma group in flight and release a stage as soon as the group before it retires. No
// __syncthreads in the main loop: loads and math overlap completely.
// Expected: the per-k-tile bubble of v03 gone; the epilogue (registers → HBM) still stalls each
// CTA once per tile, and the last wave is partial (4096²: 512 tiles on 132 SMs = 3.88 waves).
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc::hopper {

template <InType kIn>
__global__ void __launch_bounds__(384, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                            const __grid_constant__ CUtensorMap mapC, bool c_by_tma, __nv_bfloat16* gC, int64_t m,
                            int64_t n, int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  constexpr int kN = kHopperWide.n;
  const Smem<kN> smem = shared_stages<kN>();
  const int consumer = int(threadIdx.x / 128) - 1;  // −1: the producer warpgroup
  if (threadIdx.x == 0) init_barriers(smem, 2);     // a stage is empty once both consumers release it
  __syncthreads();

  // One CTA per tile: CTA b takes tile b, and its walk over the tiles ends there.
  const int first = blockIdx.x, stride = grid.count();
  if (consumer < 0) {  // the producer: its thread 0 issues every load; the other 127 threads idle
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

void launch_v04_warp_specialized(const Problem& p, Workspace& ws, cudaStream_t stream) {
  using namespace hopper;
  with_input(p.in, [&](auto in) {
    launch<warp_specialized_kernel<in>, kHopperWide.n>({.threads = 384, .cluster = 1, .persistent = false}, p, ws,
                                                       stream);
  });
}

}  // namespace sol::kernels::gemm::tc

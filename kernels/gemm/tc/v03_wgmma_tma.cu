// v03 — Hopper's data path, one CTA per tile: TMA copies 128×128 B boxes of A and 256×128 B of
// B into 128B-swizzled shared memory, four stages deep, and two warpgroups each issue wgmma
// m64n256 (64×256×16 per instruction: 524 288 FLOPs, against 4 096 for one mma.sync m16n8k16).
// Still synchronous at the top: after each k-tile every warp waits for its wgmmas and a
// __syncthreads lets thread 0 refill the stage, so the tensor cores idle once per k-tile.
// Expected: tensor-core bound in the steady state but with a bubble per k-tile; ~60–75 % of cuBLAS.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc::hopper {

template <InType kIn>
__global__ void __launch_bounds__(256, 1)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                     const __grid_constant__ CUtensorMap mapC, bool c_by_tma, __nv_bfloat16* gC, int64_t m, int64_t n,
                     int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  constexpr int kN = kHopperWide.n, kStages = TileN<kN>::kStages;
  const Smem<kN> smem = shared_stages<kN>();
  const int consumer = threadIdx.x / 128;  // two warpgroups, 64 rows of the tile each
  if (threadIdx.x == 0) init_barriers(smem, 2);
  __syncthreads();

  float rAcc[TileN<kN>::kAcc];
  int it = 0;  // k-tiles consumed so far: picks stage and parity
  // One CTA per tile: CTA b takes tile b, and its walk over the tiles ends there.
  const int first = blockIdx.x, stride = grid.count();
  for (int u = first; u < grid.count(); u += stride) {
    int tm, tn;
    grid.at(u, tm, tn);
    // Prologue: the first kStages − 1 k-tiles in flight before any math.
    if (threadIdx.x == 0)
      for (int kt = 0; kt < min(k_tiles, kStages - 1); ++kt) load_stage<kIn>(&mapA, &mapB, smem, it + kt, tm, tn, kt);
#pragma unroll
    for (int i = 0; i < TileN<kN>::kAcc; ++i) rAcc[i] = 0.f;
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int s = it % kStages;
      mbar_wait(&smem.full[s], (it / kStages) & 1);  // TMA's bytes for stage s have landed
      mma_stage<kIn>(rAcc, smem, s, consumer);
      wgmma_wait<0>();
      __syncthreads();  // both consumers are done with stage s: thread 0 refills it, kStages − 1 k-tiles ahead
      if (threadIdx.x == 0 && kt + kStages - 1 < k_tiles)
        load_stage<kIn>(&mapA, &mapB, smem, it + kStages - 1, tm, tn, kt + kStages - 1);
    }
    store_tile(rAcc, gC, ldc, m, n, int64_t(tm) * kBlockM + consumer * 64, int64_t(tn) * kN, alpha);
  }
}

}  // namespace sol::kernels::gemm::tc::hopper

namespace sol::kernels::gemm::tc {

void launch_v03_wgmma_tma(const Problem& p, Workspace& ws, cudaStream_t stream) {
  using namespace hopper;
  with_input(p.in, [&](auto in) {
    launch<wgmma_tma_kernel<in>, kHopperWide.n>({.threads = 256, .cluster = 1, .persistent = false}, p, ws, stream);
  });
}

}  // namespace sol::kernels::gemm::tc

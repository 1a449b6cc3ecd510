// v06 — clusters of two CTAs stacked along m share one B tile: each loads half of it and TMA
// multicasts the half into both CTAs' shared memory. Per k-tile a CTA then pulls 16 KiB of A and
// 16 KiB of B from L2 instead of 16 + 32. v05 at 4096³ moves 512 tiles × 64 k-tiles × 48 KiB
// = 1.6 GB through L2 at 8.3 TB/s (ncu), about the L2 bandwidth `sol probe` measures; v06 moves
// 5.4 TB/s. A stage may be refilled only when the consumers of both CTAs are done with it (its B
// half lives in both), so each "empty" barrier counts four arrivals, two of them remote.
// Expected: a gain where L2 is the limit (long k: 8192³), little at 4096³, where the epilogue
// and the 3.88-wave tail cost more than L2 does.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc::hopper {

template <InType kIn>
__global__ void __launch_bounds__(384, 1)
    cluster_multicast_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                             const __grid_constant__ CUtensorMap mapC, bool c_by_tma, __nv_bfloat16* gC, int64_t m,
                             int64_t n, int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  constexpr int kN = kHopperWide.n;
  const Smem<kN> smem = shared_stages<kN>();
  const int consumer = int(threadIdx.x / 128) - 1;  // −1: the producer warpgroup
  const uint32_t rank = cluster_rank();              // 0: the upper tile of the pair, 1: the lower
  if (threadIdx.x == 0) init_barriers(smem, 2 * 2);  // both consumers of both CTAs read a stage's B
  cluster_sync();  // the peer's barriers exist before anything is multicast into them

  // A work unit is a pair of vertically adjacent tiles, one per CTA of the cluster; the clusters
  // walk the units as v05's CTAs walk tiles. The producer loads A for its own tile and its half
  // of B into both CTAs (load_stage<…, 2>); consumers release a stage in both (release_stage<2>).
  const int first = blockIdx.x / 2, stride = gridDim.x / 2;
  if (consumer < 0) {
    if (threadIdx.x == 0) produce_tiles<kIn, kN, 2>(&mapA, &mapB, smem, grid, k_tiles, first, stride, rank);
    cluster_sync();  // stay resident while the peer may still signal us
    return;
  }

  float rAcc[TileN<kN>::kAcc];
  int it = 0;
  for (int u = first; u < grid.count(); u += stride) {
    int um, tn;
    grid.at(u, um, tn);
    const int tm = um * 2 + rank;
    consume_tile<kIn, kN, 2>(rAcc, smem, k_tiles, it, consumer);
    store_tile(rAcc, gC, ldc, m, n, int64_t(tm) * kBlockM + consumer * 64, int64_t(tn) * kN, alpha);
  }
  cluster_sync();
}

}  // namespace sol::kernels::gemm::tc::hopper

namespace sol::kernels::gemm::tc {

void launch_v06_cluster_multicast(const Problem& p, Workspace& ws, cudaStream_t stream) {
  using namespace hopper;
  with_input(p.in, [&](auto in) {
    launch<cluster_multicast_kernel<in>, kHopperWide.n>({.threads = 384, .cluster = 2, .persistent = true}, p, ws,
                                                        stream);
  });
}

}  // namespace sol::kernels::gemm::tc

#pragma once
// v07 — the epilogue leaves the critical path: each consumer converts its 64×256 tile to bf16 in
// two 16 KiB halves of shared memory (128B-swizzled, bank-conflict free) and TMA stores them
// while its next tile's wgmmas already run. v04–v06 store registers straight to HBM: every CTA
// writes its tile at the same moment and the consumers wait for the write queue. With the stores
// removed v05 ran 805 TFLOP/s at 4096³ against 710 with them (H200): 13 % of the time was the
// epilogue. Where TMA cannot store C (its base or ldc · 2 bytes not a multiple of 16, or n · 2
// bytes not either: a TMA store writes whole 16-byte chunks, past the row's end into a wider
// pitch) the staged halves leave by rows, one warp instruction per 32 or 64 consecutive elements
// (store_tile_staged), not as v06's fragments that write each 32-byte sector in pieces.
// Everything before the epilogue is v06. The kernel takes the tile's n (256 here; v08 launches
// it with 128 too), so it lives in this header, which v07_tma_store.cu and v08_tile_choice.cu
// include.
// Expected: most of that 13 % back at 4096³, about half as much at 8192³.
#include "kernels/gemm/tc/hopper.cuh"

namespace sol::kernels::gemm::tc::hopper {

template <InType kIn, int kN>
__global__ void __launch_bounds__(384, 1)
    tma_store_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                     const __grid_constant__ CUtensorMap mapC, bool c_by_tma, __nv_bfloat16* gC, int64_t m, int64_t n,
                     int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  const Smem<kN> smem = shared_stages<kN>();
  const int consumer = int(threadIdx.x / 128) - 1;  // −1: the producer warpgroup
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) init_barriers(smem, 2 * 2);
  cluster_sync();

  const int first = blockIdx.x / 2, stride = gridDim.x / 2;
  if (consumer < 0) {
    if (threadIdx.x == 0) produce_tiles<kIn, kN, 2>(&mapA, &mapB, smem, grid, k_tiles, first, stride, rank);
    cluster_sync();
    return;
  }

  float rAcc[TileN<kN>::kAcc];
  int it = 0;
  for (int u = first; u < grid.count(); u += stride) {
    int um, tn;
    grid.at(u, um, tn);
    const int tm = um * 2 + rank;
    consume_tile<kIn, kN, 2>(rAcc, smem, k_tiles, it, consumer);
    const int64_t row0 = int64_t(tm) * kBlockM + consumer * 64, col0 = int64_t(tn) * kN;
    if (c_by_tma)  // through this consumer's staging buffer; the stores drain during the next tile
      store_tile_tma(rAcc, smem.sC(consumer), &mapC, consumer, row0, col0, alpha);
    else
      store_tile_staged(rAcc, smem.sC(consumer), gC, ldc, m, n, consumer, row0, col0, alpha);
  }
  if (c_by_tma && threadIdx.x % 128 == 0) bulk_wait_read();  // sC stays valid until TMA has read it
  cluster_sync();
}

// v07's launch, for a tile of 128 × kN.
template <int kN>
void launch_tma_store(const Problem& p, Workspace& ws, cudaStream_t stream) {
  with_input(p.in, [&](auto in) {
    launch<tma_store_kernel<in, kN>, kN>({.threads = 384, .cluster = 2, .persistent = true, .tma_store = true}, p, ws,
                                          stream);
  });
}

}  // namespace sol::kernels::gemm::tc::hopper

// v04 — warp specialization: a third warpgroup does nothing but issue TMA (one thread waits on
// each stage's "empty" barrier, then refills it), while the two consumer warpgroups keep one
// wgmma group in flight and release a stage as soon as the group before it retires. No
// __syncthreads in the main loop: loads and math overlap completely.
// Expected: the per-k-tile bubble of v03 gone; the epilogue (registers → HBM) still stalls each
// CTA once per tile, and the last wave is partial (4096²: 512 tiles on 132 SMs = 3.88 waves).
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc {

void launch_v04_warp_specialized(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_any</*producer=*/true, /*persistent=*/false>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc

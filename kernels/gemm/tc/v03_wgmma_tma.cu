// v03 — Hopper's data path, one CTA per tile: TMA copies 128×128 B boxes of A and 256×128 B of
// B into 128B-swizzled shared memory, four stages deep, and two warpgroups each issue wgmma
// m64n256 (64×256×16 per instruction: 524 288 FLOPs, against 4 096 for one mma.sync m16n8k16).
// Still synchronous at the top: after each k-tile every warp waits for its wgmmas and a
// __syncthreads lets thread 0 refill the stage, so the tensor cores idle once per k-tile.
// Expected: tensor-core bound in the steady state but with a bubble per k-tile; ~60–75 % of cuBLAS.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc {

void launch_v03_wgmma_tma(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_any</*producer=*/false, /*persistent=*/false>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc

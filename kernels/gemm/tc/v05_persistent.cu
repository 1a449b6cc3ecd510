// v05 — persistent tiles: one CTA per SM walks the tile list (tile t, t + #SMs, …) in groups of
// 16 row tiles per column of B so that the CTAs running together share operand tiles in L2. The
// producer starts loading the next tile while the consumers still write the previous one, so the
// epilogue hides behind the loads, and no CTA launch or barrier setup repeats per tile.
// Expected: the closest rung to the tensor-core roof; ≥ 95 % of cuBLAS at 4096³ is the target.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc {

void launch_v05_persistent(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_any</*producer=*/true, /*persistent=*/true>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc

// v07 — the TMA-store epilogue: C leaves through swizzled shared memory and TMA stores that
// overlap the next tile's wgmmas. The idea and the kernel: kernels/gemm/tc/v07_tma_store.cuh
// (a header because v08 launches the same kernel with a second tile shape).
#include "kernels/gemm/tc/hopper.cuh"  // names the file Hopper-only (cmake/sol_hopper.cmake)
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/gemm/tc/v07_tma_store.cuh"

namespace sol::kernels::gemm::tc {

void launch_v07_tma_store(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_tma_store<gemm_rungs::kHopperWide.n>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc

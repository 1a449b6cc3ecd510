// v07 — the epilogue leaves the critical path: each consumer converts its 64×256 tile to bf16 in
// two 16 KiB halves of shared memory (128B-swizzled, bank-conflict free) and TMA stores them
// while its next tile's wgmmas already run. v04–v06 store registers straight to HBM: every CTA
// writes its tile at the same moment and the consumers wait for the write queue. With the stores
// removed v05 ran 805 TFLOP/s at 4096³ against 710 with them (H200): 13 % of the time was the
// epilogue. Row pitches TMA cannot address (ldc · 2 bytes not a multiple of 16) keep v06's stores.
// Expected: most of that 13 % back at 4096³, about half as much at 8192³.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm::tc {

void launch_v07_tma_store(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_any</*producer=*/true, /*persistent=*/true, /*cluster=*/2, /*tma store=*/true>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc

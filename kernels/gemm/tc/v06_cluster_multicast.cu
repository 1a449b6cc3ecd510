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

namespace sol::kernels::gemm::tc {

void launch_v06_cluster_multicast(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_any</*producer=*/true, /*persistent=*/true, /*cluster=*/2>(p, ws, stream);
}

}  // namespace sol::kernels::gemm::tc

// v06 — clusters of two CTAs stacked along m share one B tile: each loads half of it and TMA
// multicasts the half into both CTAs' shared memory. Per k-tile a CTA then pulls 16 KiB of A and
// 16 KiB of B from L2 instead of 16 + 32. Why it matters: v05 at 4096³ moves 512 tiles × 64
// k-tiles × 48 KiB = 1.6 GB through L2 in ~0.2 ms, ≈ 8 TB/s — the L2 bandwidth `sol probe`
// measures. A consumer of the pair may release a stage only when both CTAs' consumers are done
// with it (its B half lives in both), so the "empty" barrier counts four arrivals.
// Expected: off the L2 ceiling (5.4 TB/s at the same rate), tensor-core bound.
// measured: pending H200 run
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm_tc {

void launch_v06_cluster_multicast(const Problem& p, Workspace& ws, cudaStream_t stream) {
  hopper::launch_any</*producer=*/true, /*persistent=*/true, /*cluster=*/2>(p, ws, stream);
}

}  // namespace sol::kernels::gemm_tc

// mx v02 — rowwise at the memory roof: the 32-row tile kernel (quantize_tile.cuh) writing the
// 1×32 blocks only. What changed from v01: 8-byte coalesced loads (a warp reads 256 contiguous
// bytes per instruction, 32 such loads in flight per thread), the block amax on bf16x2 pairs
// shared by 8 lanes through three shuffles, one hardware cvt.rn.satfinite per two elements
// instead of ~30 integer instructions per element, and the scale by the branch-free
// formats::mx_scale_bf16 (the branchy mx_scale, run per row by all 8 lanes, made v02
// issue-bound: see docs/mx.md).
// Expected bottleneck: HBM, 2 B read + 1 B + 1/32 B written per element (3.03 B): ≈ 0.27 ms at
// 16384² on H200 at the copy kernel's ~3.3 TB/s; target ≥ 85 % of the copy bandwidth.
#include "kernels/mx/quantize_tile.cuh"

namespace sol::kernels::mx {

LaunchInfo v02_rowwise_plan(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row) {
  return plan_tile<true, false>(gX, rows, cols, spec, row, Out{});
}

void v02_rowwise(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row, cudaStream_t stream) {
  launch_tile<true, false>(gX, rows, cols, spec, row, Out{}, stream);
}

}  // namespace sol::kernels::mx

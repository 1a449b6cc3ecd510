// mx v03 — columnwise (32×1 blocks down each column), the orientation the backward GEMMs need.
// What changed from v02: the same tile, reduced the other way: a thread's 32 rows × 8 columns
// are eight whole blocks, so the amax needs no shuffle — the tile being 32 rows tall is what
// makes columnwise as cheap as rowwise; a naive thread-per-column kernel would read 2-byte
// elements cols·2 bytes apart. Scales: one 8-byte store per thread per tile.
// Expected bottleneck: HBM, 3.03 B per element as v02; target ≥ 85 % of the copy bandwidth.
#include "kernels/mx/quantize_tile.cuh"

namespace sol::kernels::mx {

LaunchInfo v03_columnwise_plan(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out col) {
  return plan_tile<false, true>(gX, rows, cols, spec, Out{}, col);
}

void v03_columnwise(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out col, cudaStream_t stream) {
  launch_tile<false, true>(gX, rows, cols, spec, Out{}, col, stream);
}

}  // namespace sol::kernels::mx

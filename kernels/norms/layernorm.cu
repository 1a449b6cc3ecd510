// layernorm forward, v01–v03.
// v01: mean (read x) | center and variance (read x, write xc) | normalize (read xc, write y) |
//      affine (read y, write y): 4 reads + 3 writes = 14 B/element in bf16 (lecture §8).
// v02: one kernel; shifted sums Σ(x−x₀), Σ(x−x₀)² in one read, a second read to normalize.
// v03: one read: the row in registers (warp per row to 1024 bf16 columns, blocks of 128 / 512 /
//      1024 threads beyond), exact two-pass mean and variance over the registers: 4 B/element.
// Saves mean and rstd (fp32) per row for backward.
#include "kernels/norms/forward.cuh"
#include "kernels/norms/ops.cuh"

namespace sol::kernels::rows {

template <class T>
void layernorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream) {
  if (impl != Impl::Eager) return fused_run<LayerNormOp>(impl, a, stream);
  RowArgs<T> p = a;
  eager_pass<MeanPass>(p, stream);
  p.y = gTemp;  // packed scratch
  p.ldy = a.cols;
  eager_pass<CenterVarPass>(p, stream);
  p.x = gTemp;
  p.ldx = a.cols;
  p.y = a.y;
  p.ldy = a.ldy;
  eager_pass<ScalePass>(p, stream);
  p.x = a.y;
  p.ldx = a.ldy;
  eager_pass<AffinePass>(p, stream);
}

template <class T>
LaunchPlan layernorm_plan(Impl impl, const RowArgs<T>& a) {
  return fused_plan<LayerNormOp>(impl, a);
}

template void layernorm_forward<float>(Impl, const RowArgs<float>&, float*, cudaStream_t);
template void layernorm_forward<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&, __nv_bfloat16*, cudaStream_t);
template LaunchPlan layernorm_plan<float>(Impl, const RowArgs<float>&);
template LaunchPlan layernorm_plan<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&);
template void layernorm_forward<__half>(Impl, const RowArgs<__half>&, __half*, cudaStream_t);
template LaunchPlan layernorm_plan<__half>(Impl, const RowArgs<__half>&);

}  // namespace sol::kernels::rows

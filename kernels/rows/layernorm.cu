// LayerNorm forward on each rung (v01_eager.cuh … v03_registers.cuh; LayerNormOp of ops.cuh on
// the fused ones).
// v01: mean (read x) | center and variance (read x, write xc) | normalize (read xc, write y) |
//      affine (read y, write y): 4 reads + 3 writes = 14 B/element in bf16 (lecture §8).
// v02: one kernel; shifted sums Σ(x−x₀), Σ(x−x₀)² in one read, a second read to normalize.
// v03: one read: the row in registers (register_config), exact two-pass mean and variance over
//      the registers: 4 B/element.
// Saves mean and rstd (fp32) per row for backward. With a residual (RowArgs::res), every rung
// normalizes s = x + res and writes s: v01 in a pass of its own first, v02 and v03 in their reads.
#include "kernels/rows/forward.cuh"
#include "kernels/rows/ops.cuh"

namespace sol::kernels::rows {

template <class T>
void layernorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream) {
  if (impl != Impl::Eager) return norm_run<LayerNormOp>(impl, a, stream);  // v02, v03
  // v01: the passes, xc through gTemp.
  const RowArgs<T> in = eager_input(a, stream);
  RowArgs<T> p = in;
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
LaunchInfo layernorm_plan(Impl impl, const RowArgs<T>& a) {
  return norm_plan<LayerNormOp>(impl, a);
}

template void layernorm_forward<float>(Impl, const RowArgs<float>&, float*, cudaStream_t);
template void layernorm_forward<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&, __nv_bfloat16*, cudaStream_t);
template LaunchInfo layernorm_plan<float>(Impl, const RowArgs<float>&);
template LaunchInfo layernorm_plan<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&);
template void layernorm_forward<__half>(Impl, const RowArgs<__half>&, __half*, cudaStream_t);
template LaunchInfo layernorm_plan<__half>(Impl, const RowArgs<__half>&);

}  // namespace sol::kernels::rows

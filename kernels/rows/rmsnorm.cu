// RMSNorm forward on each rung (v01_eager.cuh … v03_registers.cuh; RMSNormOp of ops.cuh on the
// fused ones).
// v01: t = x² (read x, write t) | rstd from mean(t) (read t) | y = x·rstd (read x, write y) |
//      y·γ (read y, write y): 4 reads + 3 writes.
// v02: one kernel; Σx² in one read, a second read to scale.
// v03: one read: the row in registers, as layernorm v03. Saves rstd (fp32) per row.
// With a residual (RowArgs::res), every rung normalizes s = x + res and writes s: v01 in a pass
// of its own first (read x and res, write s), v02 and v03 in their reads of x.
#include "kernels/rows/forward.cuh"
#include "kernels/rows/ops.cuh"

namespace sol::kernels::rows {

template <class T>
void rmsnorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream) {
  if (impl != Impl::Eager) return norm_run<RMSNormOp>(impl, a, stream);  // v02, v03
  // v01: the passes, t through gTemp.
  const RowArgs<T> in = eager_input(a, stream);
  RowArgs<T> p = in;
  p.y = gTemp;  // packed scratch
  p.ldy = a.cols;
  eager_pass<SquarePass>(p, stream);
  p.x = gTemp;
  p.ldx = a.cols;
  eager_pass<RmsPass>(p, stream);
  p.x = in.x;
  p.ldx = in.ldx;
  p.y = a.y;
  p.ldy = a.ldy;
  eager_pass<ScalePass>(p, stream);
  p.x = a.y;
  p.ldx = a.ldy;
  eager_pass<AffinePass>(p, stream);
}

template <class T>
LaunchInfo rmsnorm_plan(Impl impl, const RowArgs<T>& a) {
  return norm_plan<RMSNormOp>(impl, a);
}

template void rmsnorm_forward<float>(Impl, const RowArgs<float>&, float*, cudaStream_t);
template void rmsnorm_forward<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&, __nv_bfloat16*, cudaStream_t);
template LaunchInfo rmsnorm_plan<float>(Impl, const RowArgs<float>&);
template LaunchInfo rmsnorm_plan<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&);
template void rmsnorm_forward<__half>(Impl, const RowArgs<__half>&, __half*, cudaStream_t);
template LaunchInfo rmsnorm_plan<__half>(Impl, const RowArgs<__half>&);

}  // namespace sol::kernels::rows

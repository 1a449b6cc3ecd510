// softmax forward over the last dimension, v01–v03.
// v01: max (read x) | e = exp(x − max) (read x, write e) | 1/Σe (read e) | y = e/Σe (read e,
//      write y): 4 reads + 2 writes.
// v02: online softmax: running max and rescaled sum in one read; a second read writes y.
// v03: single pass for rows that fit on chip: the row in registers, max then Σexp over them.
// −inf inputs give 0; a fully masked row gives zeros (max −inf, 1/sum 0 saved), never NaN.
#include "kernels/norms/forward.cuh"
#include "kernels/norms/ops.cuh"

namespace sol::kernels::rows {

template <class T>
void softmax_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream) {
  if (impl != Impl::Eager) return fused_run<SoftmaxOp>(impl, a, stream);
  RowArgs<T> p = a;
  eager_pass<MaxPass>(p, stream);
  p.y = gTemp;  // packed scratch
  p.ldy = a.cols;
  eager_pass<ExpPass>(p, stream);
  p.x = gTemp;
  p.ldx = a.cols;
  eager_pass<InvSumPass>(p, stream);
  p.y = a.y;
  p.ldy = a.ldy;
  eager_pass<ScalePass>(p, stream);
}

template <class T>
LaunchPlan softmax_plan(Impl impl, const RowArgs<T>& a) {
  return fused_plan<SoftmaxOp>(impl, a);
}

template void softmax_forward<float>(Impl, const RowArgs<float>&, float*, cudaStream_t);
template void softmax_forward<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&, __nv_bfloat16*, cudaStream_t);
template LaunchPlan softmax_plan<float>(Impl, const RowArgs<float>&);
template LaunchPlan softmax_plan<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&);
template void softmax_forward<__half>(Impl, const RowArgs<__half>&, __half*, cudaStream_t);
template LaunchPlan softmax_plan<__half>(Impl, const RowArgs<__half>&);

}  // namespace sol::kernels::rows

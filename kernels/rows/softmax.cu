// Softmax forward over the last dimension on each rung (v01_eager.cuh … v05_cluster.cuh;
// SoftmaxOp of ops.cuh on the fused ones, SoftmaxClusterOp on the cluster).
// v01: max (read x) | e = exp(x − max) (read x, write e) | 1/Σe (read e) | y = e/Σe (read e,
//      write y): 4 reads + 2 writes.
// v02: online softmax: running max and rescaled sum in one read; a second read writes y.
// v03: single pass for rows that fit on chip: the row in registers, max then Σexp over them.
// v05: v03 for rows of up to 64 KiB that fit the registers; longer rows (vocabulary
//      logits) and unaligned rows split over a thread-block cluster, each CTA's slice held in
//      shared memory while the (max, Σ) pairs go round the cluster through DSMEM: one read and
//      one write at any length the cluster holds, in 16-byte packs at any row offset; the looped
//      kernel beyond (softmax_route).
// −inf inputs give 0; a fully masked row gives zeros (max −inf, 1/sum 0 saved), never NaN.
#include "kernels/api/entry_util.hpp"
#include "kernels/rows/forward.cuh"
#include "kernels/rows/ops.cuh"
#include "kernels/rows/v05_cluster.cuh"

namespace sol::kernels::rows {

template <class T>
SoftmaxRoute softmax_route(const RowArgs<T>& a, int cc) {
  const bool registers = fits_registers(a);
  if (registers && a.cols * int64_t(sizeof(T)) <= kRegisterRouteMaxBytes) return SoftmaxRoute::Registers;
  if (a.cols <= kClusterMinCols) return SoftmaxRoute::Looped;
  if (cluster_layout<T>(a.x, a.y, a.cols, a.ldx, a.ldy, cc).split.slices > 0) return SoftmaxRoute::Cluster;
  return registers ? SoftmaxRoute::Registers : SoftmaxRoute::Looped;
}

namespace {
template <class T>
ClusterPlan cluster_plan(const RowArgs<T>& a) {
  const int cc = api::current_device().cc;
  if (softmax_route(a, cc) != SoftmaxRoute::Cluster) return {};
  return plan_cluster_rows<SoftmaxClusterOp, T>(a, cluster_layout<T>(a.x, a.y, a.cols, a.ldx, a.ldy, cc));
}
}  // namespace

template <class T>
void softmax_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream) {
  if (impl == Impl::Cluster) {  // v05
    const ClusterPlan p = cluster_plan(a);
    if (!p.main.func) return fused_run<SoftmaxOp>(fits_registers(a) ? Impl::Registers : Impl::Looped, a, stream);
    require_pitches(a);
    return launch_cluster_rows(p, a, stream);
  }
  if (impl != Impl::Eager) return fused_run<SoftmaxOp>(impl, a, stream);  // v02, v03
  // v01: the passes, e through gTemp.
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
LaunchInfo softmax_plan(Impl impl, const RowArgs<T>& a) {
  if (impl == Impl::Cluster) {
    const ClusterPlan p = cluster_plan(a);
    if (p.main.func) {
      opt_in_dynamic_smem(p.main.func, p.main.dynamic_smem_bytes);  // so that an occupancy query counts it resident
      return p.main;
    }
    return fused_plan<SoftmaxOp>(fits_registers(a) ? Impl::Registers : Impl::Looped, a);
  }
  return fused_plan<SoftmaxOp>(impl, a);
}

template void softmax_forward<float>(Impl, const RowArgs<float>&, float*, cudaStream_t);
template void softmax_forward<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&, __nv_bfloat16*, cudaStream_t);
template LaunchInfo softmax_plan<float>(Impl, const RowArgs<float>&);
template LaunchInfo softmax_plan<__nv_bfloat16>(Impl, const RowArgs<__nv_bfloat16>&);
template void softmax_forward<__half>(Impl, const RowArgs<__half>&, __half*, cudaStream_t);
template LaunchInfo softmax_plan<__half>(Impl, const RowArgs<__half>&);
template SoftmaxRoute softmax_route<float>(const RowArgs<float>&, int);
template SoftmaxRoute softmax_route<__nv_bfloat16>(const RowArgs<__nv_bfloat16>&, int);
template SoftmaxRoute softmax_route<__half>(const RowArgs<__half>&, int);

}  // namespace sol::kernels::rows

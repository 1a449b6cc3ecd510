#pragma once
// Forward entry points of the row families (layernorm, rmsnorm, softmax), one per Impl, for
// fp32, bf16 and fp16. x, y: rows × cols, rows ldx / ldy apart; γ, β: cols (nullptr where the op has none);
// stat0/stat1: rows of fp32 saved for backward (see RowArgs). gTemp: rows × cols scratch, used
// only by the eager passes.
#include "kernels/rows/case.hpp"  // Kind, Impl
#include "kernels/rows/v01_eager.cuh"
#include "kernels/rows/v02_looped.cuh"
#include "kernels/rows/v03_registers.cuh"

namespace sol::kernels::rows {

template <class T>
void layernorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream);
template <class T>
LaunchInfo layernorm_plan(Impl impl, const RowArgs<T>& a);
template <class T>
void rmsnorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream);
template <class T>
LaunchInfo rmsnorm_plan(Impl impl, const RowArgs<T>& a);
template <class T>
void softmax_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream);
template <class T>
LaunchInfo softmax_plan(Impl impl, const RowArgs<T>& a);

// Where softmax v05 (Impl::Cluster) sends a row on a GPU of compute capability cc: the register
// kernel where the row fits it and kRegisterRouteMaxBytes (64 KiB: the register kernel's 1024-thread
// block holds such a row alone per SM); a cluster split
// (kernels/rows/v05_cluster.cuh) for longer or unaligned rows of more than kClusterMinCols columns
// that fit the cluster's shared memory; the looped kernel otherwise (short unaligned rows: a warp
// per row, the second read from L1).
enum class SoftmaxRoute { Registers, Cluster, Looped };
inline constexpr int64_t kClusterMinCols = 1024;
inline constexpr int64_t kRegisterRouteMaxBytes = int64_t(64) << 10;
template <class T>
SoftmaxRoute softmax_route(const RowArgs<T>& a, int cc);

// The launch an Impl makes for one fused Op (eager: nothing to describe, an empty plan; the op
// files chain the eager passes themselves).
template <class Op, class T>
LaunchInfo fused_plan(Impl impl, const RowArgs<T>& a) {
  switch (impl) {
    case Impl::Eager: return {};
    case Impl::Looped: return plan_looped<Op, T>(a);
    case Impl::Registers:
    case Impl::Cluster: return plan_fused<Op, T>(a);  // Cluster: softmax's own plan (softmax.cu)
  }
  return {};
}
template <class Op, class T>
void fused_run(Impl impl, const RowArgs<T>& a, cudaStream_t stream) {
  launch_row(fused_plan<Op, T>(impl, a), stream, a);
}

// The norms: Op, or Residual<Op> where a.res is given (the eager rungs add in a pass of their own
// first and normalize the sum: eager_input); Codes<…> of either where a.y8 is given (the fused
// rungs only: the eager passes write no codes).
template <class Op, class T>
LaunchInfo norm_plan(Impl impl, const RowArgs<T>& a) {
  if (a.y8) {
    if (impl == Impl::Eager)
      failure("row forward: the eager passes write no e4m3 codes", "take the looped or the register rung");
    return a.res ? fused_plan<Codes<Residual<Op>>, T>(impl, a) : fused_plan<Codes<Op>, T>(impl, a);
  }
  return a.res ? fused_plan<Residual<Op>, T>(impl, a) : fused_plan<Op, T>(impl, a);
}
template <class Op, class T>
void norm_run(Impl impl, const RowArgs<T>& a, cudaStream_t stream) {
  launch_row(norm_plan<Op, T>(impl, a), stream, a);
}

}  // namespace sol::kernels::rows

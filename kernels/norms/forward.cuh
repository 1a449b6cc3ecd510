#pragma once
// Forward entry points of the row families (layernorm, rmsnorm, softmax), one per Impl, for
// fp32, bf16 and fp16. x, y: rows × cols, rows ldx / ldy apart; γ, β: cols (nullptr where the op has none);
// stat0/stat1: rows of fp32 saved for backward (see RowArgs). gTemp: rows × cols scratch, used
// only by the eager passes.
#include "kernels/norms/case.hpp"  // Kind, Impl
#include "kernels/norms/rows.cuh"

namespace sol::kernels::rows {


template <class T>
void layernorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream);
template <class T>
LaunchPlan layernorm_plan(Impl impl, const RowArgs<T>& a);
template <class T>
void rmsnorm_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream);
template <class T>
LaunchPlan rmsnorm_plan(Impl impl, const RowArgs<T>& a);
template <class T>
void softmax_forward(Impl impl, const RowArgs<T>& a, T* gTemp, cudaStream_t stream);
template <class T>
LaunchPlan softmax_plan(Impl impl, const RowArgs<T>& a);

// The launch an Impl makes for one fused Op (eager: nothing to describe, an empty plan).
template <class Op, class T>
LaunchPlan fused_plan(Impl impl, const RowArgs<T>& a) {
  switch (impl) {
    case Impl::Eager: return {};
    case Impl::Looped: return plan_looped<Op, T>(a);
    case Impl::Registers: return plan_fused<Op, T>(a);
  }
  return {};
}
template <class Op, class T>
void fused_run(Impl impl, const RowArgs<T>& a, cudaStream_t stream) {
  launch_row(fused_plan<Op, T>(impl, a), stream, a);
}

}  // namespace sol::kernels::rows

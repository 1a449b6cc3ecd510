// rmsnorm backward.
// v01: eager ops: g = dy·γ | x̂ = x·rstd | t = g·x̂ | mean(t) | dx = rstd·(g − x̂·mean(t)) |
//      u = dy·x̂ | dγ = Σ_rows u: 10 reads + 5 writes = 30 B/element in bf16.
// v02: one read, as layernorm's (kernels/rows/backward.cuh) with one row sum and one
//      parameter gradient: 6 B/element. Bottleneck: HBM, ≥ 187 µs at 32768×4096 bf16.
#include "kernels/rows/backward.cuh"

namespace sol::kernels::rows {

template <class T>
BwdPlan rmsnorm_bwd_plan(const BwdArgs<T>& a) {
  return plan_backward<RMSNormBwdOp>(a, rows_aligned(a));
}

template <class T>
void rmsnorm_bwd(bool eager, const BwdArgs<T>& a, const BwdPlan& p, const BwdTemps<T>& tmp, cudaStream_t stream) {
  if (!eager) return run_backward<RMSNormBwdOp>(p, a, stream);
  const int64_t R = a.rows, C = a.cols;
  T *g = tmp.t0, *xh = tmp.t1, *t = tmp.t2;
  eager_map<MulGammaFn>(a.dy, (const T*)nullptr, a.gamma, {}, g, R, C, stream);
  eager_map<XhatFn>(a.a, (const T*)nullptr, (const T*)nullptr, {nullptr, a.rstd}, xh, R, C, stream);
  eager_map<MulFn>(g, xh, (const T*)nullptr, {}, t, R, C, stream);
  eager_row_reduce<MeanPass>(t, tmp.r1, R, C, stream);
  eager_map<NormDxFn>(g, xh, (const T*)nullptr, {nullptr, a.rstd, nullptr, tmp.r1}, a.dx, R, C, stream);
  eager_map<MulFn>(a.dy, xh, (const T*)nullptr, {}, t, R, C, stream);  // u = dy·x̂
  column_sums(t, R, 1, C, a.dgamma, (T*)nullptr, stream);
}

SOL_ROW_BWD_INSTANTIATE(rmsnorm_bwd)

}  // namespace sol::kernels::rows

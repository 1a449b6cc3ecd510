// layernorm backward (lecture §8: the backward is memory-bound too; count its passes).
// v01: the backward formulas as eager ops, one kernel each: g = dy·γ | x̂ = (x−μ)·rstd | t = g·x̂ |
//      mean(g) | mean(t) | dx = rstd·(g − mean(g) − x̂·mean(t)) | u = dy·x̂ | dγ = Σ_rows u |
//      dβ = Σ_rows dy: 12 reads + 5 writes of the tensor = 34 B/element in bf16.
// v02: one read (kernels/rows/backward.cuh): x and dy into registers, both row sums in one
//      sweep (μ and rstd are saved), dx written; dγ/dβ as per-block column partials in shared
//      memory, a workspace and a fixed-order column sum: 6 B/element in bf16 (x, dy read; dx
//      written). Bottleneck: HBM — at 4.3 TB/s copy, 32768×4096 bf16 (805 MB) takes ≥ 187 µs;
//      the workspace adds parts × 2 × cols × 4 B twice (≈ 3 MB at 4096 cols: < 1 %).
#include "kernels/rows/backward.cuh"

namespace sol::kernels::rows {

template <class T>
BwdPlan layernorm_bwd_plan(const BwdArgs<T>& a) {
  return plan_backward<LayerNormBwdOp>(a, rows_aligned(a));
}

template <class T>
void layernorm_bwd(bool eager, const BwdArgs<T>& a, const BwdPlan& p, const BwdTemps<T>& tmp, cudaStream_t stream) {
  if (!eager) return run_backward<LayerNormBwdOp>(p, a, stream);
  const int64_t R = a.rows, C = a.cols;
  T *g = tmp.t0, *xh = tmp.t1, *t = tmp.t2;
  eager_map<MulGammaFn>(a.dy, (const T*)nullptr, a.gamma, {}, g, R, C, stream);
  eager_map<XhatFn>(a.a, (const T*)nullptr, (const T*)nullptr, {a.mean, a.rstd}, xh, R, C, stream);
  eager_map<MulFn>(g, xh, (const T*)nullptr, {}, t, R, C, stream);
  eager_row_reduce<MeanPass>(g, tmp.r0, R, C, stream);
  eager_row_reduce<MeanPass>(t, tmp.r1, R, C, stream);
  eager_map<NormDxFn>(g, xh, (const T*)nullptr, {nullptr, a.rstd, tmp.r0, tmp.r1}, a.dx, R, C, stream);
  eager_map<MulFn>(a.dy, xh, (const T*)nullptr, {}, t, R, C, stream);  // u = dy·x̂ (t is free again)
  column_sums(t, R, 1, C, a.dgamma, (T*)nullptr, stream);
  column_sums(a.dy, R, 1, C, a.dbeta, (T*)nullptr, stream);
}

SOL_ROW_BWD_INSTANTIATE(layernorm_bwd)

}  // namespace sol::kernels::rows

#pragma once
// v01, the eager rung (Impl::Eager): the lecture's formulas, one op per kernel. A pass reads its
// input row by row (a warp per row to kWarpRowMaxCols columns, a block of kLongRowThreads beyond)
// and writes an element for each it reads, reduces the row to one fp32 statistic that it stores,
// or both. An op is a chain of passes through a scratch tensor (layernorm.cu, rmsnorm.cu,
// softmax.cu), each pass reading the statistics the earlier ones stored in stat0/stat1; the norms'
// residual add is a pass of its own first (eager_input).
#include "kernels/rows/ops.cuh"

namespace sol::kernels::rows {

// ---- the pass kernel -------------------------------------------------------------------------
// Pass::map(x, row statistics, γ, β) → written element (when Pass::kWrites);
// Pass::term(x, row statistics) reduced with Pass::kReduce into Pass::finish(…) (when Pass::kReduces).
template <class Pass, class T, int kThreads>
__global__ void __launch_bounds__(kBlockThreads<kThreads>) eager_pass_kernel(RowArgs<T> a) {
  __shared__ float sRed[32];
  const int t = threadIdx.x % kThreads;
  const int64_t row = group_row<kThreads>();
  if (row >= a.rows) return;  // only when kThreads ≤ 32: whole warps leave together
  const T* gX = a.x + row * a.ldx;
  const Stats in{a.stat0 ? a.stat0[row] : 0.f, a.stat1 ? a.stat1[row] : 0.f};
  float acc = identity<Pass::kReduce>();
  for (int64_t c = t; c < a.cols; c += kThreads) {
    const float x = to_f32(gX[c]);
    if constexpr (Pass::kWrites) a.y[row * a.ldy + c] = from_f32<T>(Pass::map(x, in, param(a.gamma, c, 1.f), param(a.beta, c, 0.f)));
    if constexpr (Pass::kReduces) acc = combine<Pass::kReduce>(acc, Pass::term(x, in));
  }
  if constexpr (Pass::kReduces) {
    acc = group_reduce<Pass::kReduce, kThreads>(acc, sRed);
    if (t == 0) Pass::finish(a, row, acc);
  }
}

// The eager rungs' residual pass: s = x + res, rounded to T (rows of any pitch).
template <class T>
__global__ void __launch_bounds__(kEagerMapThreads) residual_add_kernel(RowArgs<T> a) {
  const int64_t n = a.rows * a.cols, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t r = i / a.cols, c = i % a.cols;
    a.sum[r * a.lds + c] = add_rounded(a.x[r * a.ldx + c], a.res[r * a.ldr + c]);
  }
}

// ---- the passes the ops chain -----------------------------------------------------------------
struct PassBase {
  static constexpr bool kWrites = false, kReduces = false;
  static constexpr Reduce kReduce = Reduce::Sum;
  __device__ static float map(float x, const Stats&, float, float) { return x; }
  __device__ static float term(float x, const Stats&) { return x; }
  template <class T>
  __device__ static void finish(const RowArgs<T>&, int64_t, float) {}
};
// mean = Σx / n → stat0
struct MeanPass : PassBase {
  static constexpr bool kReduces = true;
  template <class T>
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float sum) { a.stat0[row] = sum / float(a.cols); }
};
// xc = x − mean written; rstd from Σxc² → stat1
struct CenterVarPass : PassBase {
  static constexpr bool kWrites = true, kReduces = true;
  __device__ static float map(float x, const Stats& s, float, float) { return x - s.a; }
  __device__ static float term(float x, const Stats& s) { return (x - s.a) * (x - s.a); }
  template <class T>
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float m2) { a.stat1[row] = rsqrtf(m2 / float(a.cols) + a.eps); }
};
// y = x · stat1 (normalize by rstd; softmax: multiply by 1/sum)
struct ScalePass : PassBase {
  static constexpr bool kWrites = true;
  __device__ static float map(float x, const Stats& s, float, float) { return x * s.b; }
};
// y = y · γ (+ β)
struct AffinePass : PassBase {
  static constexpr bool kWrites = true;
  __device__ static float map(float x, const Stats&, float g, float b) { return fmaf(x, g, b); }
};
// t = x²
struct SquarePass : PassBase {
  static constexpr bool kWrites = true;
  __device__ static float map(float x, const Stats&, float, float) { return x * x; }
};
// rstd = (Σt / n + eps)^−½ → stat1
struct RmsPass : PassBase {
  static constexpr bool kReduces = true;
  template <class T>
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float sum) { a.stat1[row] = rsqrtf(sum / float(a.cols) + a.eps); }
};
// max → stat0
struct MaxPass : PassBase {
  static constexpr bool kReduces = true;
  static constexpr Reduce kReduce = Reduce::Max;
  template <class T>
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float max) { a.stat0[row] = max; }
};
// e = exp(x − max)
struct ExpPass : PassBase {
  static constexpr bool kWrites = true;
  __device__ static float map(float x, const Stats& s, float, float) { return exp_shifted(x, s.a); }
};
// 1/Σe → stat1 (0 for a fully masked row)
struct InvSumPass : PassBase {
  static constexpr bool kReduces = true;
  template <class T>
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float sum) { a.stat1[row] = sum > 0.f ? 1.f / sum : 0.f; }
};


// ---- launches ---------------------------------------------------------------------------------
template <class Pass, class T>
void eager_pass(const RowArgs<T>& a, cudaStream_t stream) {
  if (a.cols <= kWarpRowMaxCols) launch_row(row_plan<32>(eager_pass_kernel<Pass, T, 32>, a.rows), stream, a);
  else launch_row(row_plan<kLongRowThreads>(eager_pass_kernel<Pass, T, kLongRowThreads>, a.rows), stream, a);
}

// The eager rungs' residual pass into a.sum.
template <class T>
void residual_add(const RowArgs<T>& a, cudaStream_t stream) {
  require_pitches(a);
  const int64_t blocks = std::min<int64_t>(blocks_for(a.rows * a.cols, kEagerMapThreads), kEagerMapMaxBlocks);
  if (blocks == 0) return;
  residual_add_kernel<T><<<unsigned(blocks), kEagerMapThreads, 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
}

// The eager rungs' input: x, or with the residual s = x + res written to sum by its own pass.
template <class T>
RowArgs<T> eager_input(const RowArgs<T>& a, cudaStream_t stream) {
  if (!a.res) return a;
  residual_add(a, stream);
  RowArgs<T> p = a;
  p.x = a.sum;
  p.ldx = a.lds;
  p.res = nullptr;
  p.sum = nullptr;
  return p;
}

}  // namespace sol::kernels::rows

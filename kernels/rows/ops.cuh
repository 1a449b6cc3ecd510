#pragma once
// The Ops of the fused rungs: what LayerNorm, RMSNorm and softmax reduce and produce, for the
// register kernel (first/center/second/stats, v03_registers.cuh), the looped kernel (push/rescale/
// stats_shifted, v02_looped.cuh) and the out step both share (rows.cuh). The eager rung's passes
// are in v01_eager.cuh.
// Softmax conventions: a −inf element gives 0; a fully masked row (all −inf) gives zeros, max
// −inf and 1/sum = 0 — never NaN.
#include "kernels/rows/rows.cuh"

namespace sol::kernels::rows {

struct LayerNormOp {
  static constexpr Reduce kFirst = Reduce::Sum;
  static constexpr bool kSecond = true;
  static constexpr bool kShift = true;
  __device__ static float first(float x) { return x; }
  __device__ static float center(float sum, int64_t cols) { return sum / float(cols); }
  __device__ static float second(float x, float mean) { return (x - mean) * (x - mean); }
  __device__ static Stats stats(float sum, float m2, int64_t cols, float eps) {
    return {sum / float(cols), rsqrtf(m2 / float(cols) + eps)};
  }
  // Shifted sums: d = x − shift, acc0 = Σd, acc1 = Σd²; var = Σd²/n − (Σd/n)².
  template <int N>
  __device__ static void push(float& acc0, float& acc1, const float (&d)[N]) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      acc0 += d[j];
      acc1 = fmaf(d[j], d[j], acc1);
    }
  }
  __device__ static float rescale(float acc1, float, float) { return acc1; }
  __device__ static Stats stats_shifted(float s1, float s2, int64_t cols, float shift, float eps) {
    const float m = s1 / float(cols);
    const float var = fmaxf(s2 / float(cols) - m * m, 0.f);
    return {shift + m, rsqrtf(var + eps)};
  }
  __device__ static float out(float x, const Stats& s, float g, float b) { return fmaf((x - s.a) * s.b, g, b); }
};

struct RMSNormOp {
  static constexpr Reduce kFirst = Reduce::Sum;
  static constexpr bool kSecond = false;
  static constexpr bool kShift = false;
  __device__ static float first(float x) { return x * x; }
  __device__ static float center(float, int64_t) { return 0.f; }
  __device__ static float second(float, float) { return 0.f; }
  __device__ static Stats stats(float sumsq, float, int64_t cols, float eps) {
    return {0.f, rsqrtf(sumsq / float(cols) + eps)};
  }
  template <int N>
  __device__ static void push(float& acc0, float&, const float (&x)[N]) {
#pragma unroll
    for (int j = 0; j < N; ++j) acc0 = fmaf(x[j], x[j], acc0);
  }
  __device__ static float rescale(float acc1, float, float) { return acc1; }
  __device__ static Stats stats_shifted(float sumsq, float, int64_t cols, float, float eps) {
    return stats(sumsq, 0.f, cols, eps);
  }
  __device__ static float out(float x, const Stats& s, float g, float) { return x * s.b * g; }
};

// exp(x − m) as 2^((x − m)·log2 e) on the MUFU: FADD, FMUL, MUFU.EX2 — three instructions where
// expf() takes ~10 plus a branch for x = −inf (the bf16 one-pass kernel was issue-bound on that:
// docs/fusion-notes.md). ex2.approx.ftz: ≤ 2 ulp; a result below 2^−126 flushes to 0 (|error|
// < 1.2e−38, far inside every tolerance). x − m is exact near the max (Sterbenz), so the terms
// that dominate the sum carry only the ex2 error. Needs m finite or x = −inf: exp(−inf − m) = 0.
inline constexpr float kLog2e = 1.4426950408889634f;
__device__ inline float exp_diff(float x, float m) {
  float y;
  // volatile: the out step recomputes the exp of the Σ step rather than keeping one fp32 per
  // element live (the 1024×8 bf16 register kernel would spill under its 64-register cap).
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"((x - m) * kLog2e));
  return y;
}
// The max to subtract: a fully masked row (max −inf) subtracts 0, so its −inf elements give 0, not
// NaN. Row-uniform: computed once per row, not per element.
__device__ inline float finite_max(float max) { return max == -INFINITY ? 0.f : max; }
// exp(x − max) that is 0 for x = −inf (including a fully masked row, where max = −inf too).
__device__ inline float exp_shifted(float x, float max) { return exp_diff(x, finite_max(max)); }

struct SoftmaxOp {
  static constexpr Reduce kFirst = Reduce::Max;
  static constexpr bool kSecond = true;
  static constexpr bool kShift = false;
  __device__ static float first(float x) { return x; }
  __device__ static float center(float max, int64_t) { return finite_max(max); }
  __device__ static float second(float x, float max) { return exp_diff(x, max); }
  __device__ static Stats stats(float max, float sum, int64_t, float) { return {max, sum > 0.f ? 1.f / sum : 0.f}; }
  // Online softmax: a running max and the sum of exp(x − running max), rescaled when the max grows.
  // N elements at a time: one max over them and at most one rescale, then N independent exps —
  // no per-element branch and no exp on the max's dependency chain.
  template <int N>
  __device__ static void push(float& max, float& sum, const float (&x)[N]) {
    float m = max;
#pragma unroll
    for (int j = 0; j < N; ++j) m = fmaxf(m, x[j]);
    if (m == -INFINITY) return;  // all masked so far
    if (m > max) {
      sum *= exp_diff(max, m);  // 0 while max is still −inf
      max = m;
    }
#pragma unroll
    for (int j = 0; j < N; ++j) sum += exp_diff(x[j], max);
  }
  __device__ static float rescale(float sum, float local_max, float row_max) { return sum * exp_shifted(local_max, row_max); }
  __device__ static Stats stats_shifted(float max, float sum, int64_t cols, float, float eps) {
    return stats(max, sum, cols, eps);
  }
  __device__ static float out(float x, const Stats& s, float, float) { return exp_shifted(x, s.a) * s.b; }
};

}  // namespace sol::kernels::rows

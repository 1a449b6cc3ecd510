#pragma once
// The Ops of kernels/norms/rows.cuh: what LayerNorm, RMSNorm and softmax reduce and produce,
// for the register kernel (first/center/second/stats), the looped kernel (push/rescale/
// stats_shifted) and the out step both share; and the eager passes of the lecture's formulas.
// Softmax conventions: a −inf element gives 0; a fully masked row (all −inf) gives zeros, max
// −inf and 1/sum = 0 — never NaN.
#include "kernels/norms/rows.cuh"

namespace sol::kernels::rows {

inline constexpr float kNormEps = 1e-5f;  // PyTorch's default for layer_norm

struct LayerNormOp {
  static constexpr Reduce kFirst = Reduce::Sum;
  static constexpr bool kSecond = true;
  static constexpr bool kShift = true;
  __device__ static float first(float x) { return x; }
  __device__ static float center(float sum, int64_t cols) { return sum / float(cols); }
  __device__ static float second(float x, float mean) { return (x - mean) * (x - mean); }
  __device__ static Stats stats(float sum, float m2, int64_t cols) {
    return {sum / float(cols), rsqrtf(m2 / float(cols) + kNormEps)};
  }
  // Shifted sums: d = x − shift, acc0 = Σd, acc1 = Σd²; var = Σd²/n − (Σd/n)².
  __device__ static void push(float& acc0, float& acc1, float d) {
    acc0 += d;
    acc1 = fmaf(d, d, acc1);
  }
  __device__ static float rescale(float acc1, float, float) { return acc1; }
  __device__ static Stats stats_shifted(float s1, float s2, int64_t cols, float shift) {
    const float m = s1 / float(cols);
    const float var = fmaxf(s2 / float(cols) - m * m, 0.f);
    return {shift + m, rsqrtf(var + kNormEps)};
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
  __device__ static Stats stats(float sumsq, float, int64_t cols) { return {0.f, rsqrtf(sumsq / float(cols) + kNormEps)}; }
  __device__ static void push(float& acc0, float&, float x) { acc0 = fmaf(x, x, acc0); }
  __device__ static float rescale(float acc1, float, float) { return acc1; }
  __device__ static Stats stats_shifted(float sumsq, float, int64_t cols, float) { return stats(sumsq, 0.f, cols); }
  __device__ static float out(float x, const Stats& s, float g, float) { return x * s.b * g; }
};

// exp(x − max) that is 0 for x = −inf (including a fully masked row, where max = −inf too).
__device__ inline float exp_shifted(float x, float max) { return x == -INFINITY ? 0.f : expf(x - max); }

struct SoftmaxOp {
  static constexpr Reduce kFirst = Reduce::Max;
  static constexpr bool kSecond = true;
  static constexpr bool kShift = false;
  __device__ static float first(float x) { return x; }
  __device__ static float center(float max, int64_t) { return max; }
  __device__ static float second(float x, float max) { return exp_shifted(x, max); }
  __device__ static Stats stats(float max, float sum, int64_t) { return {max, sum > 0.f ? 1.f / sum : 0.f}; }
  // Online softmax: a running max and the sum of exp(x − running max), rescaled when the max grows.
  __device__ static void push(float& max, float& sum, float x) {
    if (x == -INFINITY) return;
    if (x > max) {
      sum = fmaf(sum, exp_shifted(max, x), 1.f);
      max = x;
    } else {
      sum += expf(x - max);
    }
  }
  __device__ static float rescale(float sum, float local_max, float row_max) { return sum * exp_shifted(local_max, row_max); }
  __device__ static Stats stats_shifted(float max, float sum, int64_t cols, float) { return stats(max, sum, cols); }
  __device__ static float out(float x, const Stats& s, float, float) { return exp_shifted(x, s.a) * s.b; }
};

// ---- eager passes (v01): one kernel per op of the naive formula -------------------------------
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
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float m2) { a.stat1[row] = rsqrtf(m2 / float(a.cols) + kNormEps); }
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
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float sum) { a.stat1[row] = rsqrtf(sum / float(a.cols) + kNormEps); }
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

}  // namespace sol::kernels::rows

#pragma once
// The online softmax's per-tile step on an mma.sync S fragment (kernels/attention/mma.cuh's
// ownership: a thread holds columns 2t, 2t+1 of rows g and g + 8 in each 8-key block).
#include <cmath>

#include "kernels/attention/mma.cuh"

namespace sol::kernels::attention {

// One step for accumulator row half (0: row g, 1: row g + 8) of an S fragment of kBlocks 8-key
// blocks: the row's running max m (log2 units: raw scores × scale_log2) takes the new scores' max
// over the quad, the scores become P = exp2(s·scale_log2 − m), this thread's running sum l is
// rescaled and extended, and the factor exp2(m_old − m_new) is returned for rescaling O. Masked
// scores are −∞; a row with no visible score yet keeps m = −∞ and every exp2 finite.
template <int kBlocks>
__device__ __forceinline__ float online_softmax_step(float (&s)[kBlocks][4], int half, float& m, float& l,
                                                     float scale_log2) {
  float mx = -INFINITY;
  #pragma unroll
  for (int nb = 0; nb < kBlocks; ++nb) mx = fmaxf(mx, fmaxf(s[nb][2 * half], s[nb][2 * half + 1]));
  mx = quad_max(mx) * scale_log2;
  const float m_new = fmaxf(m, mx);
  const float m_use = m_new == -INFINITY ? 0.f : m_new;
  const float alpha = exp2f(m - m_use);
  m = m_new;
  float sum = 0.f;
  #pragma unroll
  for (int nb = 0; nb < kBlocks; ++nb)
    #pragma unroll
    for (int e = 2 * half; e < 2 * half + 2; ++e) {
      s[nb][e] = exp2f(fmaf(s[nb][e], scale_log2, -m_use));
      sum += s[nb][e];
    }
  l = l * alpha + sum;
  return alpha;
}

}  // namespace sol::kernels::attention

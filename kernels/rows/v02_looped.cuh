#pragma once
// v02, the looped rung (Impl::Looped): one kernel for any cols and any alignment, a row group (a
// warp per row to kWarpRowMaxCols columns, a block of kLongRowThreads beyond) reading its row
// twice. The first read keeps mergeable per-thread accumulators (Op::push: shifted sums, or the
// online softmax's running max and rescaled sum) that the group merges; the second read (mostly
// from L1/L2) writes. Two reads of x from the SM's view, one kernel instead of v01's chain.
#include "kernels/rows/rows.cuh"

namespace sol::kernels::rows {

// Per-thread accumulator (acc0, acc1): acc0 reduces with Op::kFirst; acc1 is a sum that
// Op::rescale adapts to the row-wide acc0 before it is summed (online softmax).
// Rows that are 16-byte aligned (x, y, γ, β aligned, cols and the pitches multiples of 16 bytes) go by 16-byte
// vectors, kLoopUnroll of them loaded before any is used: a scalar loop has one 2–4-byte load in
// flight per thread, far short of what HBM needs (Little's law, docs/fusion-notes.md). Other
// rows: scalar coalesced loads.
inline constexpr int kLoopUnroll = 4;

template <class Op, class T, int kThreads>
__global__ void __launch_bounds__(kBlockThreads<kThreads>) row_looped_kernel(RowArgs<T> a) {
  constexpr int kPerVec = 16 / int(sizeof(T));
  __shared__ float sRed[32];
  const int t = threadIdx.x % kThreads;
  const int64_t row = group_row<kThreads>();
  if (row >= a.rows) return;  // only when kThreads ≤ 32: whole warps leave together
  constexpr bool kRes = has_residual<Op>();
  const T* gX = a.x + row * a.ldx;
  const T* gR = kRes ? a.res + row * a.ldr : nullptr;
  // Element c of the normalized row: x, or s = x + res.
  auto elem = [&](int64_t c) { return kRes ? add_rounded(gX[c], gR[c]) : gX[c]; };
  const float shift = Op::kShift ? to_f32(elem(0)) : 0.f;  // a value of the row: shifted sums stay small
  float acc0 = identity<Op::kFirst>(), acc1 = 0.f;
  uintptr_t bases = reinterpret_cast<uintptr_t>(a.x) | reinterpret_cast<uintptr_t>(a.y) |
                    reinterpret_cast<uintptr_t>(a.gamma) | reinterpret_cast<uintptr_t>(a.beta);
  int64_t pitches = a.cols | a.ldx | a.ldy;
  if constexpr (has_codes<Op>()) {
    bases |= reinterpret_cast<uintptr_t>(a.y8);
    pitches |= a.ldy8;
  }
  if constexpr (kRes) {
    bases |= reinterpret_cast<uintptr_t>(a.res) | reinterpret_cast<uintptr_t>(a.sum);
    pitches |= a.ldr | a.lds;
  }
  const bool vectors = pitches % kPerVec == 0 && bases % 16 == 0 &&
                       a.cols / kPerVec <= INT32_MAX / 2;  // v0 + 3·kThreads stays in int
  const int nvec = vectors ? int(a.cols / kPerVec) : 0;
  const uint4* gX16 = reinterpret_cast<const uint4*>(gX);
  const uint4* gR16 = reinterpret_cast<const uint4*>(gR);
  // fn(v, rX) over this thread's vectors (of s with the residual), kLoopUnroll loads in flight
  // (half as many vectors of x and as many of res with the residual)
  constexpr int kUnroll = kRes ? kLoopUnroll / 2 : kLoopUnroll;
  auto each_vector = [&](auto&& fn) {
    for (int v0 = t; v0 < nvec; v0 += kUnroll * kThreads) {
      uint4 rX[kUnroll];
      [[maybe_unused]] uint4 rR[kRes ? kUnroll : 1];  // the residual's vectors (kRes only)
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        if (v0 + k * kThreads < nvec) {
          rX[k] = gX16[v0 + k * kThreads];
          if constexpr (kRes) rR[k] = gR16[v0 + k * kThreads];
        }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        if (v0 + k * kThreads < nvec) {
          if constexpr (kRes) rX[k] = add_vectors<T>(rX[k], rR[k]);
          fn(v0 + k * kThreads, rX[k]);
        }
    }
  };
  each_vector([&](int, const uint4& rX) {
    T e[kPerVec];
    memcpy(e, &rX, 16);
    float d[kPerVec];
#pragma unroll
    for (int j = 0; j < kPerVec; ++j) d[j] = to_f32(e[j]) - shift;
    Op::push(acc0, acc1, d);
  });
  for (int64_t c = int64_t(nvec) * kPerVec + t; c < a.cols; c += kThreads) {
    const float d[1] = {to_f32(elem(c)) - shift};
    Op::push(acc0, acc1, d);
  }
  const float row0 = group_reduce<Op::kFirst, kThreads>(acc0, sRed);
  const float row1 = group_reduce<Reduce::Sum, kThreads>(Op::rescale(acc1, acc0, row0), sRed);
  const Stats s = Op::stats_shifted(row0, row1, a.cols, shift, a.eps);
  if (t == 0) save_stats<Op>(a, row, s);
  // The second read; with the residual, s is written here (sum may be x or res: each element is
  // read and written by the one thread, after the whole row's first read).
  T* gS = kRes ? a.sum + row * a.lds : nullptr;
  each_vector([&](int v, const uint4& rX) {
    if constexpr (kRes) reinterpret_cast<uint4*>(gS)[v] = rX;
    write_vector<Op>(a, row, v, rX, s);
  });
  for (int64_t c = int64_t(nvec) * kPerVec + t; c < a.cols; c += kThreads) {
    const T e = elem(c);
    if constexpr (kRes) gS[c] = e;
    write_element<Op>(a, row, c, from_f32<T>(Op::out(to_f32(e), s, param(a.gamma, c, 1.f), param(a.beta, c, 0.f))));
  }
}

template <class Op, class T>
LaunchInfo plan_looped(const RowArgs<T>& a) {
  if (a.cols <= kWarpRowMaxCols) return row_plan<32>(row_looped_kernel<Op, T, 32>, a.rows);
  return row_plan<kLongRowThreads>(row_looped_kernel<Op, T, kLongRowThreads>, a.rows);
}

}  // namespace sol::kernels::rows

#pragma once
// The launch shapes of the row and column sums (v01, v02) in a header without CUDA: the kernels
// use them, and so does the spec's declaration of how they wait on memory (spec.cpp).
namespace sol::kernels::coalescing {

// Threads per block of both sums: one thread per row (v01) or column (v02).
inline constexpr int kSumThreads = 128;
// Both sums unroll their k loop this far (independent loads in flight; one accumulator, so the
// fp32 rounding is the lecture's sequential sum).
inline constexpr int kSumUnroll = 16;

}  // namespace sol::kernels::coalescing

#pragma once
// Fusion of elementwise chains: out[i] = f(in0[i], in1[i], …) for any C++ functor or device
// lambda f taking and returning float, over kIn input tensors of one element type T. The whole
// chain is one kernel: each input read once, the output written once, intermediates in
// registers — where eager execution launches one kernel per op and round-trips every
// intermediate through HBM (lecture §8: a k-op chain moves k× the bytes).
// I/O is 16-byte vectors (4 fp32 or 8 bf16 per load), kUnroll vectors of every input in flight
// per thread before any store; the body is a grid-stride loop over a capped grid, so any n
// (64-bit) runs with a bounded launch. Pointers of any element alignment: when they share their
// offset within 16 bytes the head and tail go element by element around a vector body
// (kernels/common/vec16_map.cuh's split); when they do not, every element goes one by one.
// Arithmetic is fp32 whatever T is (bf16 converted on load, rounded once on store).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/common/launch.cuh"
#include "kernels/common/vec16_map.cuh"

namespace sol::kernels::elementwise {

// fp32 ↔ storage type.
__device__ inline float to_f32(float x) { return x; }
__device__ inline float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float to_f32(__half x) { return __half2float(x); }
template <class T>
__device__ inline T from_f32(float x) {
  if constexpr (std::is_same_v<T, float>) return x;
  else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(x);
  else return __float2bfloat16_rn(x);
}

template <class T, int kIn>
struct ChainArgs {
  std::array<const T*, kIn> in{};
  T* out = nullptr;
  Vec16Split split;
};

inline constexpr int kChainThreads = 256;
inline constexpr int64_t kChainMaxBlocks = 132 * 32;  // a few waves' worth; the loops stride beyond

template <class T, int kIn, class F, size_t... I>
__device__ inline T chain_one(const ChainArgs<T, kIn>& a, const F& f, int64_t i, std::index_sequence<I...>) {
  return from_f32<T>(f(to_f32(a.in[I][i])...));
}

template <class T, int kIn, class F, size_t... I>
__device__ inline uint4 chain_vec(const uint4 (&raw)[kIn], const F& f, std::index_sequence<I...>) {
  constexpr int kPerVec = 16 / int(sizeof(T));
  T e[kIn][kPerVec];
#pragma unroll
  for (int k = 0; k < kIn; ++k) memcpy(e[k], &raw[k], 16);
  T o[kPerVec];
#pragma unroll
  for (int j = 0; j < kPerVec; ++j) o[j] = from_f32<T>(f(to_f32(e[I][j])...));
  uint4 r;
  memcpy(&r, o, 16);
  return r;
}

template <class T, int kIn, int kUnroll, class F>
__global__ void __launch_bounds__(kChainThreads) chain_kernel(ChainArgs<T, kIn> a, F f) {
  using Seq = std::make_index_sequence<kIn>;
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nthreads = int64_t(gridDim.x) * blockDim.x;
  const Vec16Split& s = a.split;
  for (int64_t i = tid; i < s.head; i += nthreads) a.out[i] = chain_one(a, f, i, Seq{});
  for (int64_t i = s.tail_begin + tid; i < s.n; i += nthreads) a.out[i] = chain_one(a, f, i, Seq{});

  // Body: step over chunks of kUnroll·blockDim vectors; within a chunk consecutive threads take
  // consecutive vectors (coalesced). All inputs' loads of a chunk are issued before the stores.
  uint4* gOut16 = reinterpret_cast<uint4*>(a.out + s.head);
  const int64_t chunk = int64_t(kUnroll) * blockDim.x;
  for (int64_t base = int64_t(blockIdx.x) * chunk; base < s.vectors; base += int64_t(gridDim.x) * chunk) {
    uint4 rIn[kUnroll][kIn];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = base + int64_t(u) * blockDim.x + threadIdx.x;
#pragma unroll
      for (int k = 0; k < kIn; ++k)
        if (v < s.vectors) rIn[u][k] = reinterpret_cast<const uint4*>(a.in[k] + s.head)[v];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = base + int64_t(u) * blockDim.x + threadIdx.x;
      if (v < s.vectors) gOut16[v] = chain_vec<T, kIn>(rIn[u], f, Seq{});
    }
  }
}

// The 16-byte split shared by every pointer, or all-scalar when their offsets within 16 bytes differ.
template <class T, int kIn>
Vec16Split chain_split(const ChainArgs<T, kIn>& a, int64_t n) {
  for (int k = 0; k < kIn; ++k)
    if (reinterpret_cast<uintptr_t>(a.in[k]) % 16 != reinterpret_cast<uintptr_t>(a.out) % 16) return {n, n, 0, n};
  return split_vec16<T>(a.in[0], a.out, n);
}

template <class T, int kIn, int kUnroll, class F>
LaunchInfo plan_chain(const ChainArgs<T, kIn>& a, int64_t n) {
  require_count(n, "element count");
  const Vec16Split s = chain_split(a, n);
  const int64_t edge = blocks_for(s.head + (n - s.tail_begin), kChainThreads);
  const int64_t body = blocks_for(s.vectors, int64_t(kUnroll) * kChainThreads);
  return plan_1d(chain_kernel<T, kIn, kUnroll, F>, std::min(std::max(edge, body), kChainMaxBlocks), 1, kChainThreads);
}

// One kernel for the whole chain: out[i] = f(in[0][i], …, in[kIn−1][i]) for i < n.
template <class T, int kIn, int kUnroll = 2, class F>
void run_chain(std::array<const T*, kIn> in, T* out, int64_t n, F f, cudaStream_t stream) {
  ChainArgs<T, kIn> a{in, out, {}};
  a.split = chain_split(a, n);
  launch_1d(plan_chain<T, kIn, kUnroll, F>(a, n), chain_kernel<T, kIn, kUnroll, F>, stream, a, f);
}

template <class T, int kIn, int kUnroll = 2, class F>
LaunchInfo chain_plan(std::array<const T*, kIn> in, const T* out, int64_t n) {
  return plan_chain<T, kIn, kUnroll, F>(ChainArgs<T, kIn>{in, const_cast<T*>(out), {}}, n);
}

}  // namespace sol::kernels::elementwise

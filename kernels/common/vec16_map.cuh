#pragma once
// out[i] = op(in[i]) with 16-byte loads and stores: one ld.global.v4 moves 4 fp32, 8 bf16 or
// 16 fp8 elements, so a warp request is 512 contiguous bytes = 16 sectors, whatever the type.
// kUnroll vectors per thread are loaded before any is stored, keeping kUnroll·16 bytes in
// flight per thread. Any size and alignment: elements before the first 16-byte boundary (the
// head) and after the last whole vector (the tail) go one by one; if in and out are misaligned
// differently no common boundary exists and every element goes one by one. in == out (in place)
// is allowed: each element is read and written by the same thread.
#include <cuda_runtime.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>

#include "kernels/common/launch.cuh"

namespace sol::kernels {

// Where the 16-byte body of an n-element array starts and ends.
struct Vec16Split {
  int64_t n = 0;
  int64_t head = 0;        // elements before the body
  int64_t vectors = 0;     // 16-byte vectors in the body
  int64_t tail_begin = 0;  // first element after the body
};

template <class T>
Vec16Split split_vec16(const void* in, const void* out, int64_t n) {
  constexpr int64_t kPerVec = 16 / int64_t(sizeof(T));
  const auto a = reinterpret_cast<uintptr_t>(in), b = reinterpret_cast<uintptr_t>(out);
  // No common 16-byte boundary (or pointers not even element-aligned): element by element.
  if (a % 16 != b % 16 || a % sizeof(T) != 0) return {n, n, 0, n};
  const int64_t head = std::min<int64_t>(n, int64_t((16 - a % 16) % 16) / int64_t(sizeof(T)));
  const int64_t vectors = (n - head) / kPerVec;
  return {n, head, vectors, head + vectors * kPerVec};
}

// Applies op to the elements packed in a 16-byte register vector: through op.pack(uint4) when
// the op has one (to use paired instructions such as bf16x2 max or e4m3x2 conversions), else
// element by element.
template <class T, class Op>
__device__ inline uint4 map_pack(uint4 raw, const Op& op) {
  if constexpr (requires { { op.pack(raw) } -> std::same_as<uint4>; }) {
    return op.pack(raw);
  } else {
    constexpr int kPerVec = 16 / int(sizeof(T));
    struct alignas(16) Pack {
      T e[kPerVec];
    } p;
    static_assert(sizeof(Pack) == sizeof(uint4), "a pack is one 16-byte vector");
    memcpy(&p, &raw, 16);
#pragma unroll
    for (int k = 0; k < kPerVec; ++k) p.e[k] = op(p.e[k]);
    memcpy(&raw, &p, 16);
    return raw;
  }
}

// Applies f to each of the 16 / sizeof(Pair) pairs in a 16-byte vector (bf16x2, e4m3x2, ...).
template <class Pair, class F>
__device__ inline uint4 map_pairs(uint4 raw, const F& f) {
  constexpr int kPairs = 16 / int(sizeof(Pair));
  Pair p[kPairs];
  memcpy(p, &raw, 16);
#pragma unroll
  for (int k = 0; k < kPairs; ++k) p[k] = f(p[k]);
  memcpy(&raw, p, 16);
  return raw;
}

inline constexpr int kMapThreads = 256;

// The op of a plain copy.
struct Identity {
  template <class T>
  __device__ T operator()(T x) const {
    return x;
  }
};

template <class T, class Op, int kUnroll>
__global__ void __launch_bounds__(kMapThreads) map_vec16_kernel(const T* __restrict__ gIn, T* __restrict__ gOut,
                                                                 Vec16Split split, Op op) {
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nthreads = int64_t(gridDim.x) * blockDim.x;
  // Head and tail (< 16 elements each unless misaligned): grid-stride, one element at a time.
  for (int64_t i = tid; i < split.head; i += nthreads) gOut[i] = op(gIn[i]);
  for (int64_t i = split.tail_begin + tid; i < split.n; i += nthreads) gOut[i] = op(gIn[i]);

  // Body: block b owns vectors [b·kUnroll·blockDim, (b+1)·kUnroll·blockDim); within a step u
  // consecutive threads take consecutive vectors (coalesced). All loads first, then all stores.
  const uint4* gIn16 = reinterpret_cast<const uint4*>(gIn + split.head);
  uint4* gOut16 = reinterpret_cast<uint4*>(gOut + split.head);
  const int64_t first = int64_t(blockIdx.x) * kUnroll * blockDim.x + threadIdx.x;
  uint4 rIn[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t v = first + int64_t(u) * blockDim.x;
    if (v < split.vectors) rIn[u] = gIn16[v];
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t v = first + int64_t(u) * blockDim.x;
    if (v < split.vectors) gOut16[v] = map_pack<T>(rIn[u], op);
  }
}

// Grid for the body, or for the element-by-element path (capped: that loop is grid-stride).
template <class T, class Op, int kUnroll>
LaunchInfo plan_map_vec16(const T* in, const T* out, int64_t n) {
  require_count(n, "element count");
  const Vec16Split s = split_vec16<T>(in, out, n);
  constexpr int64_t kMaxEdgeBlocks = 65536;
  const int64_t edge_blocks = std::min(blocks_for(s.head + (n - s.tail_begin), kMapThreads), kMaxEdgeBlocks);
  const int64_t body_blocks = blocks_for(s.vectors, int64_t(kUnroll) * kMapThreads);
  // Whichever needs more blocks sets the grid (work = blocks, one per "item").
  return plan_1d(map_vec16_kernel<T, Op, kUnroll>, std::max(edge_blocks, body_blocks), 1, kMapThreads);
}

template <class T, class Op, int kUnroll>
void map_vec16(const T* in, T* out, int64_t n, Op op, cudaStream_t stream) {
  launch_1d(plan_map_vec16<T, Op, kUnroll>(in, out, n), map_vec16_kernel<T, Op, kUnroll>, stream, in, out,
            split_vec16<T>(in, out, n), op);
}

}  // namespace sol::kernels

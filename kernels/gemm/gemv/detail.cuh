#pragma once
// What the decode GEMM's rungs share: 16-byte loads with a guarded element fallback, the
// 16-bit → fp32 unpacking, the fixed-order CTA reduction, and the epilogue (alpha, beta, C's type)
// or, with split k, the fp32 partial that reduce_splits_kernel (launch.cu) sums in split order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/ptx.cuh"
#include "kernels/gemm/gemv/problem.cuh"

namespace sol::kernels::gemm::gemv {

// 8 consecutive 16-bit elements from p, of which `len` lie inside the matrix (≤ 0: none); zeros
// past the end. One 16-byte load when vec (p 16-byte aligned) and all 8 are inside, else element
// loads. kStream: W's bytes are read once, so they bypass L1 (ld.global.cs), where A stays.
template <bool kStream>
__device__ __forceinline__ uint4 load8(const uint16_t* p, int64_t len, bool vec) {
  if (vec && len >= 8) {
    const auto* q = reinterpret_cast<const uint4*>(p);
    return kStream ? __ldcs(q) : __ldg(q);
  }
  uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint32_t lo = 2 * i < len ? p[2 * i] : 0u, hi = 2 * i + 1 < len ? p[2 * i + 1] : 0u;
    w[i] = lo | (hi << 16);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// The two MMAs of one 32-k block of the swapped product (v10, v12, v13): a 16-row W tile (w0: this
// lane's row g, w1: row g + 8, each 16 bytes at the lane's 8 consecutive k) against an 8-token
// tile (a: token g, the same k). The MMA's k positions 2t, 2t+1, 2t+8, 2t+9 take elements 0–3 in
// one k16 step and 4–7 in the next: the same permutation of k on both operands.
template <class T>
__device__ __forceinline__ void mma_k32(float* d, const uint4& w0, const uint4& w1, const uint4& a) {
  const uint32_t lo[4] = {w0.x, w1.x, w0.y, w1.y};  // elements 0–3
  const uint32_t hi[4] = {w0.z, w1.z, w0.w, w1.w};  // elements 4–7
  float(&c)[4] = *reinterpret_cast<float(*)[4]>(d);
  mma_k32bytes<T>(c, lo, a.x, a.y);
  mma_k32bytes<T>(c, hi, a.z, a.w);
}

// A 16-byte chunk's base may be used only when base pointer and pitch keep every chunk aligned.
__host__ __device__ inline bool vec_ok(const void* base, int64_t pitch) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && pitch % 8 == 0;
}

// One lane's rows of kTN 16-row W tiles (W n×k) from row0: tile i, half h is row
// row0 + 16i + g + 8h (g = lane / 4); a row past n points at row 0 and loads nothing.
template <int kTN>
struct WTileRows {
  const uint16_t* row[kTN][2];
  bool live[kTN][2];
  __device__ WTileRows(const Problem& p, int64_t row0, int g) {
#pragma unroll
    for (int i = 0; i < kTN; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = row0 + 16 * i + g + 8 * h;
        live[i][h] = r < p.n;
        row[i][h] = static_cast<const uint16_t*>(p.W) + (live[i][h] ? r : 0) * p.ldw;
      }
  }
  // The 16 bytes at k = kk … kk + 7 of every row (streamed past L1; zeros past ke).
  __device__ __forceinline__ void load(uint4 (&w)[kTN][2], int64_t kk, int64_t ke, bool vec) const {
#pragma unroll
    for (int i = 0; i < kTN; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) w[i][h] = load8<true>(row[i][h] + kk, live[i][h] ? ke - kk : 0, vec);
  }
};

// Two packed 16-bit values of type T (__nv_bfloat16 or __half) as floats.
template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t w) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xFFFF0000u));
  } else {
    return make_float2(__half2float(__ushort_as_half(uint16_t(w))), __half2float(__ushort_as_half(uint16_t(w >> 16))));
  }
}

template <class T>
__device__ __forceinline__ void unpack8(const uint4& v, float (&f)[8]) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 x = unpack2<T>(w[i]);
    f[2 * i] = x.x, f[2 * i + 1] = x.y;
  }
}

template <class T>
__device__ __forceinline__ float to_float(uint16_t bits) {
  return unpack2<T>(uint32_t(bits)).x;
}

__device__ __forceinline__ float load_out(const void* C, DType out, int64_t i) {
  if (out == DType::f32) return static_cast<const float*>(C)[i];
  if (out == DType::f16) return __half2float(static_cast<const __half*>(C)[i]);
  return __bfloat162float(static_cast<const __nv_bfloat16*>(C)[i]);
}

__device__ __forceinline__ void store_out(void* C, DType out, int64_t i, float v) {
  if (out == DType::f32) static_cast<float*>(C)[i] = v;
  else if (out == DType::f16) static_cast<__half*>(C)[i] = __float2half_rn(v);
  else static_cast<__nv_bfloat16*>(C)[i] = __float2bfloat16_rn(v);
}

// C[row, col] = alpha·acc + beta·C[row, col], rounded once into C's type.
__device__ __forceinline__ void write_c(const Problem& p, int64_t row, int64_t col, float acc) {
  const int64_t i = row * p.ldc + col;
  float v = p.alpha * acc;
  if (p.beta != 0.f) v = fmaf(p.beta, load_out(p.C, p.out, i), v);
  store_out(p.C, p.out, i, v);
}

// One output's fp32 sum over this CTA's k-slice: the epilogue with one split, else the partial
// partial[split][row][col].
__device__ __forceinline__ void finish(const Problem& p, int splits, float* partial, int64_t row, int64_t col,
                                       float acc) {
  if (splits > 1) partial[(int64_t(blockIdx.y) * p.m + row) * p.n + col] = acc;
  else write_c(p, row, col, acc);
}

// The sum over a CTA's 4 warps of each lane's kRegs accumulators, in warp order (deterministic),
// left in warp 0. sRed holds 3 × kRegs × 32 floats (lane-minor: no bank conflicts).
template <int kRegs>
__device__ __forceinline__ void reduce_warps4(float (&acc)[kRegs], float* sRed, int warp, int lane) {
  if (warp > 0) {
#pragma unroll
    for (int r = 0; r < kRegs; ++r) sRed[((warp - 1) * kRegs + r) * 32 + lane] = acc[r];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int w = 0; w < 3; ++w)
#pragma unroll
      for (int r = 0; r < kRegs; ++r) acc[r] += sRed[(w * kRegs + r) * 32 + lane];
  }
}

// The rungs' launchers (one file each); partial is nullptr with one split.
void launch_v09_warp_dot(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream);
void launch_v10_mma_swapped(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream);
void launch_v11_n_contiguous(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream);
// v12 (prefetch false) and v13 (true): one file, the splits summed on chip.
void launch_cluster_split_k(const Problem& p, const Geometry& g, bool prefetch, cudaStream_t stream);
// v14: TMA through a ring of stages, the splits summed on chip (v12 where A or W defeats TMA's alignment).
void launch_v14_tma_ring(const Problem& p, const Geometry& g, cudaStream_t stream);

}  // namespace sol::kernels::gemm::gemv

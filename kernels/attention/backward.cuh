#pragma once
// Pieces both FlashAttention backward rungs share (kernels/attention/backward.cu, v01, and
// backward_v02.cu): the D = rowsum(dO∘O) pre-pass (which also zeroes the fp32 dQ accumulator),
// the accumulator → bf16/fp16 conversion, and the deterministic dQ kernel (det=1: a CTA per
// 64-row query tile walks the key tiles in order, recomputing S and dP, no atomics).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/attention/forward.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/common/check.cuh"

namespace sol::kernels::attention::bwd {
// Internal linkage on purpose: each including .cu file gets its own copies of these __global__
// templates (and of the opt-in flag in launch_dq), as when they were file-local to backward.cu;
// without -rdc, one host stub shared by two modules would be registered twice.
namespace {

constexpr int kDqBlock = 64;     // query rows per dQ CTA and keys per streamed tile
constexpr int kDqThreads = 128;  // 4 warps × 16 query rows
constexpr int kRowThreads = 256;
constexpr float kLog2e = 1.4426950408889634f;

template <class T>
__device__ __forceinline__ float to_f32(T x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(x);
  else return __half2float(x);
}
template <class T>
__device__ __forceinline__ T from_f32(float x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(x);
  else return __float2half_rn(x);
}

// One warp per query row r = (bi·n + i)·h + hi: D = Σ dO∘O, and the row's dQ accumulator = 0.
template <class T>
__global__ void delta_kernel(AttnBwdArgs<T> a, int64_t rows) {
  const int64_t r = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (r >= rows) return;
  const int64_t d = a.f.d;
  float sum = 0.f;
  for (int64_t c = lane; c < d; c += 32) {
    sum += to_f32(a.dout[r * d + c]) * to_f32(a.f.o[r * d + c]);
    a.dq_accum[r * d + c] = 0.f;
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const int64_t hi = r % a.f.h, i = (r / a.f.h) % a.f.n, bi = r / (a.f.h * a.f.n);
  if (lane == 0) a.delta[(bi * a.f.h + hi) * a.f.n + i] = sum;
}

template <class T>
__global__ void convert_kernel(const float* gIn, T* gOut, int64_t count) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += stride) gOut[e] = from_f32<T>(gIn[e]);
}

// acc += A·Bᵀ for rows row0 … row0+15 of the [64 × kD] tile A against all 64 rows of B
// (contraction over kD): Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ in the key-tile kernel, S = Q·Kᵀ and
// dP = dO·Vᵀ in the dQ kernel.
template <class T, int kD>
__device__ __forceinline__ void product(float (&acc)[kDqBlock / 8][4], const T* sA, const T* sB, int row0, int lane) {
  for (int kk = 0; kk < kD / 16; ++kk) {
    uint32_t ra[4];
    load_a<kD>(ra, sA, row0, kk, lane);
    for (int np = 0; np < kDqBlock / 16; ++np) {
      uint32_t b[4];
      load_b_nk<kD>(b, sB, np * 16, kk, lane);
      mma_pair<T>(acc[2 * np], acc[2 * np + 1], ra, b);
    }
  }
}

// Deterministic dQ: a CTA owns 64 query rows of one head (4 warps × 16 rows) and walks the key
// tiles in order, as the forward does: S = Q·Kᵀ, dP = dO·Vᵀ, P = exp(S·scale − L),
// dS = P∘(dP − D), dQ += dS·K — no atomics, the same sum order every run; S and dP are
// recomputed (2 of the backward's 5 GEMMs again).
template <int kD>
constexpr int dq_smem_bytes() {
  return 4 * kDqBlock * kD * 2;  // Q, dO, K, V
}

template <class T, int kD>
__global__ void __launch_bounds__(kDqThreads, 2) dq_kernel(AttnBwdArgs<T> a) {
  constexpr int kNBlocks = kDqBlock / 8;
  constexpr int kOBlocks = kD / 8;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sdO = sQ + kDqBlock * kD;
  T* sK = sdO + kDqBlock * kD;
  T* sV = sK + kDqBlock * kD;

  const AttnArgs<T>& f = a.f;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t m0 = int64_t(gridDim.x - 1 - blockIdx.x) * kDqBlock, hq = blockIdx.y, bi = blockIdx.z;
  const int64_t hk = hq / (f.h / f.hkv), ldq = f.h * kD, ldk = f.hkv * kD, shift = f.nk - f.n;
  const float scale_log2 = f.scale * kLog2e;
  const int64_t q_off = ((bi * f.n + m0) * f.h + hq) * kD;
  load_tile<kDqBlock, kD, kDqThreads>(sQ, f.q + q_off, ldq, f.n - m0);
  load_tile<kDqBlock, kD, kDqThreads>(sdO, a.dout + q_off, ldq, f.n - m0);
  cp_async_commit();

  const int64_t row0 = m0 + warp * 16 + g;  // this thread's rows: row0, row0 + 8
  float rL[2], rD[2];
  for (int e2 = 0; e2 < 2; ++e2) {
    const int64_t i = row0 + 8 * e2, at = (bi * f.h + hq) * f.n + i;
    rL[e2] = i < f.n ? f.lse[at] * kLog2e : INFINITY;
    rD[e2] = i < f.n ? a.delta[at] : 0.f;
  }
  const int64_t last_row = (m0 + kDqBlock < f.n ? m0 + kDqBlock : f.n) - 1;
  int64_t kv_end = f.nk;
  if (f.causal && last_row + shift + 1 < kv_end) kv_end = last_row + shift + 1;

  float rdQ[kOBlocks][4] = {};
  for (int64_t n0 = 0; n0 < kv_end; n0 += kDqBlock) {
    const int64_t k_off = ((bi * f.nk + n0) * f.hkv + hk) * kD;
    load_tile<kDqBlock, kD, kDqThreads>(sK, f.k + k_off, ldk, f.nk - n0);
    load_tile<kDqBlock, kD, kDqThreads>(sV, f.v + k_off, ldk, f.nk - n0);
    cp_async_commit();
    cp_async_wait_all();
    __syncthreads();

    float rS[kNBlocks][4] = {}, rdP[kNBlocks][4] = {};
    product<T, kD>(rS, sQ, sK, warp * 16, lane);
    product<T, kD>(rdP, sdO, sV, warp * 16, lane);
    const bool edge = m0 + kDqBlock > f.n || n0 + kDqBlock > f.nk || (f.causal && n0 + kDqBlock - 1 > m0 + shift);
    for (int nb = 0; nb < kNBlocks; ++nb)
      for (int e = 0; e < 4; ++e) {
        const int64_t i = row0 + 8 * (e >> 1), j = n0 + nb * 8 + 2 * t + (e & 1);
        const bool hide = edge && (i >= f.n || j >= f.nk || (f.causal && j > i + shift));
        const float p = hide ? 0.f : exp2f(fmaf(rS[nb][e], scale_log2, -rL[e >> 1]));
        rdP[nb][e] = p * (rdP[nb][e] - rD[e >> 1]);
      }
    for (int kk = 0; kk < kDqBlock / 16; ++kk) {
      uint32_t da[4];
      pack_a<T>(da, rdP, kk);
      for (int dp = 0; dp < kD / 16; ++dp) {
        uint32_t b[4];
        load_b_kn<kD>(b, sK, kk * 16, dp, lane);
        mma_pair<T>(rdQ[2 * dp], rdQ[2 * dp + 1], da, b);
      }
    }
    __syncthreads();  // the next key tile overwrites sK, sV
  }
  cp_async_wait_all();  // Q/dO copies of a CTA with no key tile must land before it exits

  for (int e2 = 0; e2 < 2; ++e2) {
    const int64_t i = row0 + 8 * e2;
    if (i >= f.n) continue;
    T* gdQ = a.dq + ((bi * f.n + i) * f.h + hq) * kD;
    for (int ob = 0; ob < kOBlocks; ++ob)
      *reinterpret_cast<uint32_t*>(gdQ + ob * 8 + 2 * t) = pack2<T>(rdQ[ob][2 * e2] * f.scale, rdQ[ob][2 * e2 + 1] * f.scale);
  }
}

// D pre-pass (and dQ accumulator zeroing) over all b·n·h query rows.
template <class T>
void launch_delta(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  const int64_t rows = a.f.b * a.f.n * a.f.h;
  delta_kernel<T><<<unsigned(blocks_for(rows, kRowThreads / 32)), kRowThreads, 0, stream>>>(a, rows);
  SOL_LAUNCH_CHECK();
}

// det=1: dQ by dq_kernel (after the key-tile kernel, which then skips dQ).
template <class T, int kD>
void launch_dq(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  const auto dq = &dq_kernel<T, kD>;
  opt_in_dynamic_smem(dq, dq_smem_bytes<kD>());
  const dim3 dq_grid(unsigned(blocks_for(a.f.n, kDqBlock)), unsigned(a.f.h), unsigned(a.f.b));
  dq<<<dq_grid, kDqThreads, dq_smem_bytes<kD>(), stream>>>(a);
  SOL_LAUNCH_CHECK();
}

// det=0: the fp32 dQ accumulator → dQ.
template <class T>
void launch_convert(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  const int64_t count = a.f.b * a.f.n * a.f.h * a.f.d;
  convert_kernel<T><<<unsigned(std::min<int64_t>(blocks_for(count, 256), 65536)), 256, 0, stream>>>(a.dq_accum, a.dq, count);
  SOL_LAUNCH_CHECK();
}

}  // namespace
}  // namespace sol::kernels::attention::bwd

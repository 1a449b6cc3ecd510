// v01_standard: attention as the textbook writes it (lecture §11.1), three kernels with the
// N×N intermediates in HBM: S = Q·Kᵀ·scale (fp32, −∞ where masked) | row softmax → P (bf16 or
// fp16) and the logsumexp L | O = P·V. The GEMMs are plain 16×16 shared-memory tiles on the
// FP32 pipes (no tensor cores), so this rung is slow twice over: S and P cost 4+4+2+2 bytes per
// score through HBM (b=4,h=16,n=4096: 12.9 GB, ≈ 2.7 ms at 4.8 TB/s) and its SIMT GEMMs run at a
// few TFLOP/s, not the tensor cores' hundreds. Memory: b·h·n·nk·6 bytes of S and P (6.4 GB at
// the headline shape) against the flash version's 0. The causal mask is applied but the full
// N×N matrices are still computed and stored.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/forward.cuh"

namespace sol::kernels::attention {
namespace {

constexpr int kTile = 16;

template <class T>
__device__ __forceinline__ float load_f32(const T* p) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(*p);
  else return __half2float(*p);
}
template <class T>
__device__ __forceinline__ T store_t(float v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return __float2half_rn(v);
}

// S[bh, i, j] = scale · q_i·k_j, or −∞ where the causal mask hides key j from query i.
template <class T>
__global__ void scores_kernel(AttnArgs<T> a, float* gS) {
  __shared__ float sQ[kTile][kTile + 1], sK[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t bh = blockIdx.z, bi = bh / a.h, hi = bh % a.h, hk = hi / (a.h / a.hkv);
  const int64_t i = int64_t(blockIdx.y) * kTile + ty, j = int64_t(blockIdx.x) * kTile + tx;
  const int64_t jload = int64_t(blockIdx.x) * kTile + ty;  // the K row this thread stages
  float acc = 0.f;
  for (int c0 = 0; c0 < a.d; c0 += kTile) {
    sQ[ty][tx] = i < a.n ? load_f32(a.q + ((bi * a.n + i) * a.h + hi) * a.d + c0 + tx) : 0.f;
    sK[ty][tx] = jload < a.nk ? load_f32(a.k + ((bi * a.nk + jload) * a.hkv + hk) * a.d + c0 + tx) : 0.f;
    __syncthreads();
    for (int c = 0; c < kTile; ++c) acc = fmaf(sQ[ty][c], sK[tx][c], acc);
    __syncthreads();
  }
  if (i >= a.n || j >= a.nk) return;
  const bool hidden = a.causal && j > i + (a.nk - a.n);
  gS[(bh * a.n + i) * a.nk + j] = hidden ? -INFINITY : acc * a.scale;
}

// One warp per row of S: max, Σ exp, then P = exp(s − max) / Σ and L = max + ln Σ.
template <class T>
__global__ void softmax_kernel(AttnArgs<T> a, const float* gS, T* gP, int64_t rows) {
  const int64_t row = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* s = gS + row * a.nk;
  T* p = gP + row * a.nk;
  float m = -INFINITY;
  for (int64_t j = lane; j < a.nk; j += 32) m = fmaxf(m, s[j]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const float m_use = m == -INFINITY ? 0.f : m;
  float l = 0.f;
  for (int64_t j = lane; j < a.nk; j += 32) l += __expf(s[j] - m_use);
  for (int o = 16; o > 0; o /= 2) l += __shfl_xor_sync(0xffffffffu, l, o);
  const float inv = l > 0.f ? 1.f / l : 0.f;
  for (int64_t j = lane; j < a.nk; j += 32) p[j] = store_t<T>(__expf(s[j] - m_use) * inv);
  if (lane == 0) a.lse[row] = l > 0.f ? m + logf(l) : -INFINITY;  // row = (bi·h + hi)·n + i
}

// O[i, c] = Σ_j P[i, j] · V[j, c].
template <class T>
__global__ void pv_kernel(AttnArgs<T> a, const T* gP) {
  __shared__ float sP[kTile][kTile + 1], sV[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t bh = blockIdx.z, bi = bh / a.h, hi = bh % a.h, hk = hi / (a.h / a.hkv);
  const int64_t i = int64_t(blockIdx.y) * kTile + ty;
  const int c = blockIdx.x * kTile + tx;
  float acc = 0.f;
  for (int64_t j0 = 0; j0 < a.nk; j0 += kTile) {
    sP[ty][tx] = i < a.n && j0 + tx < a.nk ? load_f32(gP + (bh * a.n + i) * a.nk + j0 + tx) : 0.f;
    sV[ty][tx] = j0 + ty < a.nk ? load_f32(a.v + ((bi * a.nk + j0 + ty) * a.hkv + hk) * a.d + c) : 0.f;
    __syncthreads();
    for (int jj = 0; jj < kTile; ++jj) acc = fmaf(sP[ty][jj], sV[jj][tx], acc);
    __syncthreads();
  }
  if (i < a.n) a.o[((bi * a.n + i) * a.h + hi) * a.d + c] = store_t<T>(acc);
}

constexpr int kSoftmaxThreads = 256;

}  // namespace

template <class T>
void standard_forward(const AttnArgs<T>& a, float* gS, T* gP, cudaStream_t stream) {
  refuse_scores(a, "attention/v01_standard");
  const dim3 block(kTile, kTile);
  const unsigned bh = unsigned(a.b * a.h);
  scores_kernel<T><<<dim3(unsigned(blocks_for(a.nk, kTile)), unsigned(blocks_for(a.n, kTile)), bh), block, 0, stream>>>(a, gS);
  SOL_LAUNCH_CHECK();
  const int64_t rows = a.b * a.h * a.n;
  softmax_kernel<T><<<unsigned(blocks_for(rows, kSoftmaxThreads / 32)), kSoftmaxThreads, 0, stream>>>(a, gS, gP, rows);
  SOL_LAUNCH_CHECK();
  pv_kernel<T><<<dim3(unsigned(a.d / kTile), unsigned(blocks_for(a.n, kTile)), bh), block, 0, stream>>>(a, gP);
  SOL_LAUNCH_CHECK();
}

template <class T>
LaunchInfo standard_plan(const AttnArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&scores_kernel<T>);
  p.grid_blocks = blocks_for(a.nk, kTile) * blocks_for(a.n, kTile) * a.b * a.h;
  p.block_threads = kTile * kTile;
  return p;
}

template void standard_forward<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, float*, __nv_bfloat16*, cudaStream_t);
template void standard_forward<__half>(const AttnArgs<__half>&, float*, __half*, cudaStream_t);
template LaunchInfo standard_plan<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&);
template LaunchInfo standard_plan<__half>(const AttnArgs<__half>&);

}  // namespace sol::kernels::attention

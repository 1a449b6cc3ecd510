// v01_flash_bwd: FlashAttention-2's backward (lecture §11.6: recomputation) on mma.sync.
// 1. D = rowsum(dO∘O) per query row (one warp per row), which also zeroes the fp32 dQ accumulator.
// 2. A CTA owns 64 keys of one K/V head (its 4 warps 16 keys each) and keeps K, V in shared memory
//    and dK, dV in registers while every query tile of every query head of its group streams
//    past: Sᵀ = K·Qᵀ, Pᵀ = exp(Sᵀ·scale − L) (recomputed from the saved logsumexp, no online
//    softmax), dV += Pᵀ·dO, dPᵀ = V·dOᵀ, dSᵀ = Pᵀ∘(dPᵀ − D), dK += dSᵀ·Q; dS goes through shared
//    memory (transposed) so that each warp can form dQ = dS·K for 16 query rows, added with fp32
//    atomics into the accumulator. P and dS reach the tensor cores straight from the accumulator
//    registers (the forward's trick). Causal: query tiles wholly before the key tile are skipped.
// 3. dQ accumulator → bf16/fp16.
// Deterministic mode (det=1): step 2 skips dQ and a separate kernel per query tile forms dQ by
// walking the key tiles in order (dq_kernel, kernels/attention/backward.cuh), so every run gives the same bits.
// Expected bottleneck: tensor cores (five GEMMs, 2.5× the forward's FLOPs) plus the dQ atomics
// (b·h·n·d·nk/64 fp32 adds: 2.1 G at the headline shape, through L2), whose order varies
// between runs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/backward.cuh"
#include "kernels/attention/forward.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/attention/residency.hpp"

namespace sol::kernels::attention {
namespace {

constexpr int kBlock = 64;  // keys per CTA and query rows per streamed tile
constexpr int kWarps = 4;   // each owns 16 keys
constexpr int kThreads = 32 * kWarps;
constexpr float kLog2e = 1.4426950408889634f;

template <int kD>
constexpr int smem_bytes() {
  return 4 * kBlock * kD * 2 + kBlock * kBlock * 2 + 2 * kBlock * 4;  // K, V, Q, dO; dS; L, D
}

// Element e (0…3) of accumulator block nb, read back from its packed A fragment (pack_a).
template <class T>
__device__ __forceinline__ float unpacked(const uint32_t (&a)[kBlock / 16][4], int nb, int e) {
  const uint32_t r = a[nb / 2][(nb & 1) * 2 + (e >> 1)];
  const uint16_t bits = uint16_t((e & 1) ? r >> 16 : r & 0xFFFFu);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __uint_as_float(uint32_t(bits) << 16);
  else return __half2float(__ushort_as_half(bits));
}

// Fragments as kernels/attention/mma.cuh describes; in the Sᵀ accumulators rows are keys
// (warp·16 + g, + 8) and columns query rows of the tile (8·nb + 2t, + 1).
template <class T, int kD>
__global__ void __launch_bounds__(kThreads, kMmaSyncCtasPerSm) flash_backward_kernel(AttnBwdArgs<T> a) {
  constexpr int kQBlocks = kBlock / 8;  // 8-query column blocks of Sᵀ
  constexpr int kOBlocks = kD / 8;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sK = reinterpret_cast<T*>(smem_raw);
  T* sV = sK + kBlock * kD;
  T* sQ = sV + kBlock * kD;
  T* sdO = sQ + kBlock * kD;
  T* sdS = sdO + kBlock * kD;  // [query][key], a [64 × 64] swizzled tile
  float* sL = reinterpret_cast<float*>(sdS + kBlock * kBlock);
  float* sD = sL + kBlock;

  const AttnArgs<T>& f = a.f;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t n0 = int64_t(blockIdx.x) * kBlock, hk = blockIdx.y, bi = blockIdx.z;
  const int64_t group = f.h / f.hkv, ldq = f.h * kD, ldk = f.hkv * kD;
  const int64_t shift = f.nk - f.n;  // query i sees keys j ≤ i + shift when causal
  const float scale_log2 = f.scale * kLog2e;

  load_tile<kBlock, kD, kThreads>(sK, f.k + ((bi * f.nk + n0) * f.hkv + hk) * kD, ldk, f.nk - n0);
  load_tile<kBlock, kD, kThreads>(sV, f.v + ((bi * f.nk + n0) * f.hkv + hk) * kD, ldk, f.nk - n0);
  cp_async_commit();

  // Causal: the first query that sees key n0 is n0 − shift; earlier query tiles are skipped.
  int64_t m_begin = 0;
  if (f.causal && n0 - shift > 0) m_begin = (n0 - shift) / kBlock * kBlock;

  float rdK[kOBlocks][4] = {}, rdV[kOBlocks][4] = {};
  for (int64_t hq = hk * group; hq < (hk + 1) * group; ++hq) {
    for (int64_t m0 = m_begin; m0 < f.n; m0 += kBlock) {
      const int64_t q_off = ((bi * f.n + m0) * f.h + hq) * kD;
      load_tile<kBlock, kD, kThreads>(sQ, f.q + q_off, ldq, f.n - m0);
      load_tile<kBlock, kD, kThreads>(sdO, a.dout + q_off, ldq, f.n - m0);
      cp_async_commit();
      if (threadIdx.x < kBlock) {  // rows past the end: L = +∞ makes their P exactly 0
        const int64_t i = m0 + threadIdx.x, at = (bi * f.h + hq) * f.n + i;
        sL[threadIdx.x] = i < f.n ? f.lse[at] * kLog2e : INFINITY;
        sD[threadIdx.x] = i < f.n ? a.delta[at] : 0.f;
      }
      cp_async_wait_all();
      __syncthreads();

      // Sᵀ = K·Qᵀ for this warp's 16 keys × 64 queries; Pᵀ = exp2(Sᵀ·scale·log2e − L·log2e), 0 where hidden.
      float rS[kQBlocks][4] = {};
      bwd::product<T, kD>(rS, sK, sQ, warp * 16, lane);
      const bool edge = m0 + kBlock > f.n || n0 + kBlock > f.nk || (f.causal && n0 + kBlock - 1 > m0 + shift);
      for (int nb = 0; nb < kQBlocks; ++nb)
        for (int e = 0; e < 4; ++e) {
          const int qi = nb * 8 + 2 * t + (e & 1);
          const int64_t i = m0 + qi, j = n0 + warp * 16 + g + 8 * (e >> 1);
          const bool hide = edge && (i >= f.n || j >= f.nk || (f.causal && j > i + shift));
          rS[nb][e] = hide ? 0.f : exp2f(fmaf(rS[nb][e], scale_log2, -sL[qi]));
        }

      // dV += Pᵀ·dO first, so that only the 16-bit Pᵀ (16 registers, not 32) stays live while
      // dPᵀ is formed: dK, dV, Pᵀ and dPᵀ together would not fit 255 registers at d = 128.
      uint32_t rP[kQBlocks / 2][4];
      for (int kk = 0; kk < kQBlocks / 2; ++kk) {
        pack_a<T>(rP[kk], rS, kk);
        for (int dp = 0; dp < kD / 16; ++dp) {
          uint32_t b[4];
          load_b_kn<kD>(b, sdO, kk * 16, dp, lane);
          mma_pair<T>(rdV[2 * dp], rdV[2 * dp + 1], rP[kk], b);
        }
      }

      // dPᵀ = V·dOᵀ; dSᵀ = Pᵀ∘(dPᵀ − D) (Pᵀ as rounded for its GEMM); dK += dSᵀ·Q (scale at the end).
      float rdP[kQBlocks][4] = {};
      bwd::product<T, kD>(rdP, sV, sdO, warp * 16, lane);
      for (int nb = 0; nb < kQBlocks; ++nb)
        for (int e = 0; e < 4; ++e) rdP[nb][e] = unpacked<T>(rP, nb, e) * (rdP[nb][e] - sD[nb * 8 + 2 * t + (e & 1)]);
      for (int kk = 0; kk < kQBlocks / 2; ++kk) {
        uint32_t da[4];
        pack_a<T>(da, rdP, kk);
        for (int dp = 0; dp < kD / 16; ++dp) {
          uint32_t b[4];
          load_b_kn<kD>(b, sQ, kk * 16, dp, lane);
          mma_pair<T>(rdK[2 * dp], rdK[2 * dp + 1], da, b);
        }
      }

      if (a.deterministic) {  // dQ comes from dq_kernel; uniform across the CTA
        __syncthreads();      // the next tile overwrites sQ, sdO, sL, sD
        continue;
      }

      // dS to shared memory as [query][key] for dQ = dS·K.
      for (int nb = 0; nb < kQBlocks; ++nb)
        for (int e = 0; e < 4; ++e) {
          const int qi = nb * 8 + 2 * t + (e & 1), kj = warp * 16 + g + 8 * (e >> 1);
          sdS[swizzled<kBlock>(qi, kj / 8) + kj % 8] = bwd::from_f32<T>(rdP[nb][e]);
        }
      __syncthreads();

      // dQ rows warp·16 … +15 of this tile, 32 columns at a time (16 accumulator registers beside
      // dK and dV), added into the fp32 accumulator.
      constexpr int kPart = 32;
      for (int part = 0; part < kD / kPart; ++part) {
        float rdQ[kPart / 8][4] = {};
        for (int kk = 0; kk < kBlock / 16; ++kk) {
          uint32_t da[4];
          load_a<kBlock>(da, sdS, warp * 16, kk, lane);
          for (int np = 0; np < kPart / 16; ++np) {
            uint32_t b[4];
            load_b_kn<kD>(b, sK, kk * 16, part * (kPart / 16) + np, lane);
            mma_pair<T>(rdQ[2 * np], rdQ[2 * np + 1], da, b);
          }
        }
        for (int e2 = 0; e2 < 2; ++e2) {
          const int64_t i = m0 + warp * 16 + g + 8 * e2;
          if (i >= f.n) continue;
          float* gdQ = a.dq_accum + ((bi * f.n + i) * f.h + hq) * kD + part * kPart;
          for (int nb = 0; nb < kPart / 8; ++nb) {
            atomicAdd(gdQ + nb * 8 + 2 * t, rdQ[nb][2 * e2] * f.scale);
            atomicAdd(gdQ + nb * 8 + 2 * t + 1, rdQ[nb][2 * e2 + 1] * f.scale);
          }
        }
      }
      __syncthreads();  // the next tile overwrites sQ, sdO, sdS, sL, sD
    }
  }
  cp_async_wait_all();  // K/V copies of a CTA with no query tile must land before it exits

  for (int e2 = 0; e2 < 2; ++e2) {
    const int64_t j = n0 + warp * 16 + g + 8 * e2;
    if (j >= f.nk) continue;
    const int64_t off = ((bi * f.nk + j) * f.hkv + hk) * kD;
    for (int ob = 0; ob < kOBlocks; ++ob) {
      *reinterpret_cast<uint32_t*>(a.dk + off + ob * 8 + 2 * t) =
          pack2<T>(rdK[ob][2 * e2] * f.scale, rdK[ob][2 * e2 + 1] * f.scale);
      *reinterpret_cast<uint32_t*>(a.dv + off + ob * 8 + 2 * t) = pack2<T>(rdV[ob][2 * e2], rdV[ob][2 * e2 + 1]);
    }
  }
}

template <class T, int kD>
LaunchInfo plan_for(const AttnBwdArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&flash_backward_kernel<T, kD>);
  p.grid_blocks = blocks_for(a.f.nk, kBlock) * a.f.hkv * a.f.b;
  p.block_threads = kThreads;
  p.dynamic_smem_bytes = smem_bytes<kD>();
  opt_in_dynamic_smem(p.func, p.dynamic_smem_bytes);
  return p;
}

template <class T, int kD>
void launch(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  const LaunchInfo plan = plan_for<T, kD>(a);
  const dim3 grid(unsigned(blocks_for(a.f.nk, kBlock)), unsigned(a.f.hkv), unsigned(a.f.b));
  flash_backward_kernel<T, kD><<<grid, unsigned(plan.block_threads), size_t(plan.dynamic_smem_bytes), stream>>>(a);
  SOL_LAUNCH_CHECK();
  if (a.deterministic) bwd::launch_dq<T, kD>(a, stream);
}

}  // namespace

template <class T>
void flash_backward(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  refuse_scores(a.f, "attention_bwd/v01_flash_bwd");
  if (a.f.d != 64 && a.f.d != 128)
    bad_input("flash attention backward: head dimension " + std::to_string(a.f.d) + " is not built", "use d=64 or d=128");
  bwd::launch_delta(a, stream);
  if (a.f.d == 64) launch<T, 64>(a, stream);
  else launch<T, 128>(a, stream);
  if (!a.deterministic) bwd::launch_convert(a, stream);
}

template <class T>
LaunchInfo flash_backward_plan(const AttnBwdArgs<T>& a) {
  return a.f.d == 64 ? plan_for<T, 64>(a) : plan_for<T, 128>(a);
}

template void flash_backward<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, cudaStream_t);
template void flash_backward<__half>(const AttnBwdArgs<__half>&, cudaStream_t);
template LaunchInfo flash_backward_plan<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&);
template LaunchInfo flash_backward_plan<__half>(const AttnBwdArgs<__half>&);

}  // namespace sol::kernels::attention

// v02_flash_mma / v03_flash_mma_128: FlashAttention-2's forward (lecture §11.3–§11.5) on mma.sync.
// A CTA owns 64 (v02) or 128 (v03) query rows of one (batch, head) with 4 warps; a warp owns 16
// rows per 64-row slice (v03: two slices, 32 rows), so a row's whole softmax state lives in one
// quad of one warp and no shared-memory reduction is needed. K and V stream through shared memory
// in tiles of 64 keys, double-buffered with cp.async (the next tile loads while this one is
// used). Per tile: S = Q·Kᵀ (m16n8k16, fragments by ldmatrix from XOR-swizzled shared memory),
// online softmax in registers on log2e-prescaled scores (exp2f), then O += P·V with P re-packed
// from S's accumulator registers straight into the A operand — S and P never reach shared or
// global memory. O is divided by the row sum once, at the end. Causal: key tiles wholly above the
// diagonal are never loaded; only edge tiles are masked; the longest Q tiles are scheduled first.
// v03's point: each K/V fragment read from shared memory feeds two slices' MMAs, halving the
// shared-memory traffic per FLOP (Q fragments are re-read from shared memory instead of held in
// registers, which two slices' O and S accumulators leave no room for).
// Expected bottleneck: the tensor cores and the softmax's exp/FMA issue between the two GEMMs;
// for v02 also shared-memory bandwidth (every warp reads the whole K and V tile for 16 rows).
// At b=4,h=16,n=4096,d=128: 4·b·h·n²·d = 275 GFLOP against 989 TFLOP/s dense bf16 → 0.28 ms
// floor; HBM traffic ~0.07 GB (K/V re-read per Q tile mostly from L2) → far from memory.
// mma.sync tops out near 60–70 % of the wgmma peak on H100-class parts (FA2 reaches ~350 TFLOP/s).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/forward.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/attention/residency.hpp"

namespace sol::kernels::attention {
namespace {

constexpr int kSliceM = 64;    // query rows per slice: 4 warps × 16
constexpr int kBlockN = 64;    // keys per streamed tile
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

template <int kD, int kSlices>
constexpr int smem_bytes() {
  return (kSlices * kSliceM + 4 * kBlockN) * kD * 2;  // Q, two K buffers, two V buffers; 2-byte elements
}

// Fragments as kernels/attention/mma.cuh describes: rS[s][nb][0..1] is row g of slice s's 16 rows
// of this warp, rS[s][nb][2..3] row g + 8.
template <class T, int kD, int kSlices>
__global__ void __launch_bounds__(kThreads, kMmaSyncCtasPerSm) flash_forward_kernel(AttnArgs<T> a) {
  constexpr int kBlockM = kSlices * kSliceM;
  constexpr int kDSteps = kD / 16;       // k-steps of Q·Kᵀ
  constexpr int kNBlocks = kBlockN / 8;  // 8-key column blocks of S
  constexpr int kOBlocks = kD / 8;       // 8-wide column blocks of O
  constexpr bool kQInRegisters = kSlices == 1;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + kBlockM * kD;  // two buffers
  T* sV = sK + 2 * kBlockN * kD;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t m0 = int64_t(gridDim.x - 1 - blockIdx.x) * kBlockM;  // long causal tiles first
  const int64_t hi = blockIdx.y, bi = blockIdx.z;
  const int64_t hk = hi / (a.h / a.hkv);
  const Bshd qs = packed_or(a.qs, a.n, a.h, kD), ks = packed_or(a.ks, a.nk, a.hkv, kD),
             vs = packed_or(a.vs, a.nk, a.hkv, kD);
  const int64_t ldq = qs.seq, ldk = ks.seq, ldv = vs.seq;
  const T* gQ = a.q + bi * qs.batch + m0 * ldq + hi * qs.head;
  const T* gK = a.k + bi * ks.batch + hk * ks.head;
  const T* gV = a.v + bi * vs.batch + hk * vs.head;
  const int64_t shift = a.nk - a.n;  // query i sees keys j ≤ i + shift when causal

  // Keys this tile can see: all, or (causal) up to its last real row's diagonal.
  const int64_t last_row = (m0 + kBlockM < a.n ? m0 + kBlockM : a.n) - 1;
  int64_t kv_end = a.nk;
  if (a.causal && last_row + shift + 1 < kv_end) kv_end = last_row + shift + 1;
  const int tiles = kv_end > 0 ? int((kv_end + kBlockN - 1) / kBlockN) : 0;

  load_tile<kBlockM, kD, kThreads>(sQ, gQ, ldq, a.n - m0);
  if (tiles > 0) {
    load_tile<kBlockN, kD, kThreads>(sK, gK, ldk, a.nk);
    load_tile<kBlockN, kD, kThreads>(sV, gV, ldv, a.nk);
  }
  cp_async_commit();

  float rO[kSlices][kOBlocks][4] = {};
  float row_max[kSlices][2], row_sum[kSlices][2];  // log2 units; row sums are this thread's part
  #pragma unroll
  for (int s = 0; s < kSlices; ++s)
    #pragma unroll
    for (int half = 0; half < 2; ++half) {
      row_max[s][half] = -INFINITY;
      row_sum[s][half] = 0.f;
    }
  uint32_t rQ[kQInRegisters ? kDSteps : 1][4];
  const float scale_log2 = a.scale * kLog2e;

  for (int tile = 0; tile < tiles; ++tile) {
    cp_async_wait_all();
    __syncthreads();  // tile `tile` visible to all; every warp is done with tile − 1's buffers
    if (kQInRegisters && tile == 0) {
      #pragma unroll
      for (int kk = 0; kk < kDSteps; ++kk) load_a<kD>(rQ[kQInRegisters ? kk : 0], sQ, warp * 16, kk, lane);
    }
    if (tile + 1 < tiles) {
      const int64_t n1 = int64_t(tile + 1) * kBlockN;
      const int buf = (tile + 1) & 1;
      load_tile<kBlockN, kD, kThreads>(sK + buf * kBlockN * kD, gK + n1 * ldk, ldk, a.nk - n1);
      load_tile<kBlockN, kD, kThreads>(sV + buf * kBlockN * kD, gV + n1 * ldv, ldv, a.nk - n1);
      cp_async_commit();
    }
    const T* sKt = sK + (tile & 1) * kBlockN * kD;
    const T* sVt = sV + (tile & 1) * kBlockN * kD;
    const int64_t n0 = int64_t(tile) * kBlockN;

    // S = Q·Kᵀ for this warp's 16 rows of each slice × 64 keys; one K fragment serves every slice.
    float rS[kSlices][kNBlocks][4] = {};
    #pragma unroll
    for (int kk = 0; kk < kDSteps; ++kk) {
      uint32_t qa[kSlices][4];
      #pragma unroll
      for (int s = 0; s < kSlices; ++s) {
        if constexpr (kQInRegisters) {
          #pragma unroll
          for (int r = 0; r < 4; ++r) qa[s][r] = rQ[kk][r];
        } else {
          load_a<kD>(qa[s], sQ, s * kSliceM + warp * 16, kk, lane);
        }
      }
      #pragma unroll
      for (int np = 0; np < kNBlocks / 2; ++np) {
        uint32_t b[4];
        load_b_nk<kD>(b, sKt, np * 16, kk, lane);
        #pragma unroll
        for (int s = 0; s < kSlices; ++s) mma_pair<T>(rS[s][2 * np], rS[s][2 * np + 1], qa[s], b);
      }
    }

    const bool edge = n0 + kBlockN > a.nk || (a.causal && n0 + kBlockN - 1 > m0 + shift);
    #pragma unroll
    for (int s = 0; s < kSlices; ++s) {
      const int64_t row0 = m0 + s * kSliceM + warp * 16 + g;  // this thread's rows: row0, row0 + 8
      // Mask keys past the end and (causal) above the diagonal; only edge tiles need it.
      if (edge) {
        #pragma unroll
        for (int nb = 0; nb < kNBlocks; ++nb)
          #pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t j = n0 + nb * 8 + 2 * t + (e & 1);
            const int64_t i = row0 + (e >> 1) * 8;
            if (j >= a.nk || (a.causal && j > i + shift)) rS[s][nb][e] = -INFINITY;
          }
      }
      // Online softmax: new running max, rescale the old state by exp2(m_old − m_new).
      #pragma unroll
      for (int half = 0; half < 2; ++half) {
        float mx = -INFINITY;
        #pragma unroll
        for (int nb = 0; nb < kNBlocks; ++nb) mx = fmaxf(mx, fmaxf(rS[s][nb][2 * half], rS[s][nb][2 * half + 1]));
        mx = quad_max(mx) * scale_log2;
        const float m_new = fmaxf(row_max[s][half], mx);
        const float m_use = m_new == -INFINITY ? 0.f : m_new;  // all masked so far: keep exp2 finite
        const float alpha = exp2f(row_max[s][half] - m_use);
        row_max[s][half] = m_new;
        float sum = 0.f;
        #pragma unroll
        for (int nb = 0; nb < kNBlocks; ++nb)
          #pragma unroll
          for (int e = 2 * half; e < 2 * half + 2; ++e) {
            rS[s][nb][e] = exp2f(fmaf(rS[s][nb][e], scale_log2, -m_use));
            sum += rS[s][nb][e];
          }
        row_sum[s][half] = row_sum[s][half] * alpha + sum;
        #pragma unroll
        for (int ob = 0; ob < kOBlocks; ++ob) {
          rO[s][ob][2 * half] *= alpha;
          rO[s][ob][2 * half + 1] *= alpha;
        }
      }
    }

    // O += P·V: S's accumulators for keys 16·kk … 16·kk + 15 are exactly the A fragment; one V
    // fragment serves every slice.
    #pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      uint32_t rP[kSlices][4];
      #pragma unroll
      for (int s = 0; s < kSlices; ++s) pack_a<T>(rP[s], rS[s], kk);
      #pragma unroll
      for (int dp = 0; dp < kD / 16; ++dp) {
        uint32_t b[4];
        load_b_kn<kD>(b, sVt, kk * 16, dp, lane);
        #pragma unroll
        for (int s = 0; s < kSlices; ++s) mma_pair<T>(rO[s][2 * dp], rO[s][2 * dp + 1], rP[s], b);
      }
    }
  }
  cp_async_wait_all();  // no copy may still target shared memory when the CTA exits

  // The one rescale: O /= l; L = m·ln2 + ln l (natural log); no visible key → O = 0, L = −∞.
  const Bshd os = packed_or(a.os, a.n, a.h, kD);
  #pragma unroll
  for (int s = 0; s < kSlices; ++s)
    #pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t i = m0 + s * kSliceM + warp * 16 + g + half * 8;
      const float l = quad_sum(row_sum[s][half]);
      const float inv = l > 0.f ? 1.f / l : 0.f;
      if (i >= a.n) continue;
      T* gO = a.o + bi * os.batch + i * os.seq + hi * os.head;
      #pragma unroll
      for (int ob = 0; ob < kOBlocks; ++ob)
        *reinterpret_cast<uint32_t*>(gO + ob * 8 + 2 * t) =
            pack2<T>(rO[s][ob][2 * half] * inv, rO[s][ob][2 * half + 1] * inv);
      if (t == 0) a.lse[(bi * a.h + hi) * a.n + i] = l > 0.f ? row_max[s][half] * kLn2 + logf(l) : -INFINITY;
    }
}

template <class T, int kD, int kSlices>
LaunchInfo plan_for(const AttnArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&flash_forward_kernel<T, kD, kSlices>);
  p.grid_blocks = blocks_for(a.n, kSlices * kSliceM) * a.h * a.b;
  p.block_threads = kThreads;
  p.dynamic_smem_bytes = smem_bytes<kD, kSlices>();
  opt_in_dynamic_smem(p.func, p.dynamic_smem_bytes);
  return p;
}

template <class T, int kD, int kSlices>
void launch(const AttnArgs<T>& a, cudaStream_t stream) {
  const LaunchInfo plan = plan_for<T, kD, kSlices>(a);
  const dim3 grid(unsigned(blocks_for(a.n, kSlices * kSliceM)), unsigned(a.h), unsigned(a.b));
  flash_forward_kernel<T, kD, kSlices><<<grid, unsigned(plan.block_threads), size_t(plan.dynamic_smem_bytes), stream>>>(a);
  SOL_LAUNCH_CHECK();
}

}  // namespace

template <class T>
void flash_forward(const AttnArgs<T>& a, cudaStream_t stream, int slices) {
  refuse_scores(a, slices == 2 ? "attention/v03_flash_mma_128" : "attention/v02_flash_mma");
  if (a.d != 64 && a.d != 128)
    bad_input("flash attention: head dimension " + std::to_string(a.d) + " is not built", "use d=64 or d=128");
  if (slices == 2) return a.d == 64 ? launch<T, 64, 2>(a, stream) : launch<T, 128, 2>(a, stream);
  return a.d == 64 ? launch<T, 64, 1>(a, stream) : launch<T, 128, 1>(a, stream);
}

template <class T>
LaunchInfo flash_plan(const AttnArgs<T>& a, int slices) {
  if (slices == 2) return a.d == 64 ? plan_for<T, 64, 2>(a) : plan_for<T, 128, 2>(a);
  return a.d == 64 ? plan_for<T, 64, 1>(a) : plan_for<T, 128, 1>(a);
}

template void flash_forward<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, cudaStream_t, int);
template void flash_forward<__half>(const AttnArgs<__half>&, cudaStream_t, int);
template LaunchInfo flash_plan<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, int);
template LaunchInfo flash_plan<__half>(const AttnArgs<__half>&, int);

}  // namespace sol::kernels::attention

// v02_flash_mma: FlashAttention-2's forward (lecture §11.3–§11.5) on mma.sync tensor cores.
// A CTA owns 64 query rows of one (batch, head); its 4 warps own 16 rows each, so a row's whole
// softmax state lives in one quad of one warp and no shared-memory reduction is needed. K and V
// stream through shared memory in tiles of 64 keys, double-buffered with cp.async (the next
// tile loads while this one is used). Per tile: S = Q·Kᵀ (m16n8k16, fragments by ldmatrix from
// XOR-swizzled shared memory), online softmax in registers on log2e-prescaled scores (exp2f),
// then O += P·V with P re-packed from S's accumulator registers straight into the A operand —
// S and P never reach shared or global memory. O is divided by the row sum once, at the end.
// Causal: key tiles wholly above the diagonal are never loaded; only edge tiles are masked.
// Expected bottleneck: the tensor cores and the softmax's exp/FMA issue between the two GEMMs.
// At b=4,h=16,n=4096,d=128: 4·b·h·n²·d = 275 GFLOP against 989 TFLOP/s dense bf16 → 0.28 ms
// floor; HBM traffic ~0.07 GB (K/V re-read per 64-row tile mostly from L2) → far from memory.
// mma.sync tops out near 60–70 % of the wgmma peak on H100-class parts (FA2 reaches ~350 TFLOP/s).
// measured: pending H200 run
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/forward.cuh"
#include "kernels/attention/mma.cuh"

namespace sol::kernels::attention {
namespace {

constexpr int kBlockM = 64;    // query rows per CTA
constexpr int kBlockN = 64;    // keys per streamed tile
constexpr int kWarps = 4;      // each owns 16 query rows
constexpr int kThreads = 32 * kWarps;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

template <int kD>
constexpr int smem_bytes() {
  return (kBlockM + 4 * kBlockN) * kD * 2;  // Q, two K buffers, two V buffers; 2-byte elements
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Fragments as kernels/attention/mma.cuh describes: rS[nb][0..1] is row g, rS[nb][2..3] row g + 8.
template <class T, int kD>
__global__ void __launch_bounds__(kThreads, 2) flash_forward_kernel(AttnArgs<T> a) {
  constexpr int kDSteps = kD / 16;       // k-steps of Q·Kᵀ
  constexpr int kNBlocks = kBlockN / 8;  // 8-key column blocks of S
  constexpr int kOBlocks = kD / 8;       // 8-wide column blocks of O
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + kBlockM * kD;  // two buffers
  T* sV = sK + 2 * kBlockN * kD;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t m0 = int64_t(gridDim.x - 1 - blockIdx.x) * kBlockM;  // long causal tiles first
  const int64_t hi = blockIdx.y, bi = blockIdx.z;
  const int64_t hk = hi / (a.h / a.hkv);
  const int64_t ldq = a.h * kD, ldk = a.hkv * kD;
  const T* gQ = a.q + ((bi * a.n + m0) * a.h + hi) * kD;
  const T* gK = a.k + (bi * a.nk * a.hkv + hk) * kD;
  const T* gV = a.v + (bi * a.nk * a.hkv + hk) * kD;
  const int64_t shift = a.nk - a.n;  // query i sees keys j ≤ i + shift when causal

  // Keys this tile can see: all, or (causal) up to its last real row's diagonal.
  const int64_t last_row = (m0 + kBlockM < a.n ? m0 + kBlockM : a.n) - 1;
  int64_t kv_end = a.nk;
  if (a.causal && last_row + shift + 1 < kv_end) kv_end = last_row + shift + 1;
  const int tiles = kv_end > 0 ? int((kv_end + kBlockN - 1) / kBlockN) : 0;

  load_tile<kBlockM, kD, kThreads>(sQ, gQ, ldq, a.n - m0);
  if (tiles > 0) {
    load_tile<kBlockN, kD, kThreads>(sK, gK, ldk, a.nk);
    load_tile<kBlockN, kD, kThreads>(sV, gV, ldk, a.nk);
  }
  cp_async_commit();

  float rO[kOBlocks][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY};  // log2 units: max of score·scale·log2e
  float row_sum[2] = {0.f, 0.f};              // this thread's part; quad-reduced at the end
  uint32_t rQ[kDSteps][4];
  const float scale_log2 = a.scale * kLog2e;
  const int64_t row0 = m0 + warp * 16 + g;  // this thread's rows: row0 and row0 + 8

  for (int tile = 0; tile < tiles; ++tile) {
    cp_async_wait_all();
    __syncthreads();  // tile `tile` visible to all; every warp is done with tile − 1's buffers
    if (tile == 0) {
      for (int kk = 0; kk < kDSteps; ++kk) load_a<kD>(rQ[kk], sQ, warp * 16, kk, lane);
    }
    if (tile + 1 < tiles) {
      const int64_t n1 = int64_t(tile + 1) * kBlockN;
      const int buf = (tile + 1) & 1;
      load_tile<kBlockN, kD, kThreads>(sK + buf * kBlockN * kD, gK + n1 * ldk, ldk, a.nk - n1);
      load_tile<kBlockN, kD, kThreads>(sV + buf * kBlockN * kD, gV + n1 * ldk, ldk, a.nk - n1);
      cp_async_commit();
    }
    const T* sKt = sK + (tile & 1) * kBlockN * kD;
    const T* sVt = sV + (tile & 1) * kBlockN * kD;
    const int64_t n0 = int64_t(tile) * kBlockN;

    // S = Q·Kᵀ for this warp's 16 rows × 64 keys.
    float rS[kNBlocks][4] = {};
    for (int kk = 0; kk < kDSteps; ++kk) {
      for (int np = 0; np < kNBlocks / 2; ++np) {
        uint32_t b[4];
        load_b_nk<kD>(b, sKt, np * 16, kk, lane);
        mma_pair<T>(rS[2 * np], rS[2 * np + 1], rQ[kk], b);
      }
    }

    // Mask keys past the end and (causal) above the diagonal; only edge tiles need it.
    const bool edge = n0 + kBlockN > a.nk || (a.causal && n0 + kBlockN - 1 > m0 + shift);
    if (edge) {
      for (int nb = 0; nb < kNBlocks; ++nb)
        for (int e = 0; e < 4; ++e) {
          const int64_t j = n0 + nb * 8 + 2 * t + (e & 1);
          const int64_t i = row0 + (e >> 1) * 8;
          if (j >= a.nk || (a.causal && j > i + shift)) rS[nb][e] = -INFINITY;
        }
    }

    // Online softmax: new running max, rescale the old state by exp2(m_old − m_new).
    for (int half = 0; half < 2; ++half) {
      float mx = -INFINITY;
      for (int nb = 0; nb < kNBlocks; ++nb) mx = fmaxf(mx, fmaxf(rS[nb][2 * half], rS[nb][2 * half + 1]));
      mx = quad_max(mx) * scale_log2;
      const float m_new = fmaxf(row_max[half], mx);
      const float m_use = m_new == -INFINITY ? 0.f : m_new;  // all masked so far: keep exp2 finite
      const float alpha = exp2f(row_max[half] - m_use);
      row_max[half] = m_new;
      float sum = 0.f;
      for (int nb = 0; nb < kNBlocks; ++nb)
        for (int e = 2 * half; e < 2 * half + 2; ++e) {
          rS[nb][e] = exp2f(fmaf(rS[nb][e], scale_log2, -m_use));
          sum += rS[nb][e];
        }
      row_sum[half] = row_sum[half] * alpha + sum;
      for (int ob = 0; ob < kOBlocks; ++ob) {
        rO[ob][2 * half] *= alpha;
        rO[ob][2 * half + 1] *= alpha;
      }
    }

    // O += P·V: S's accumulators for keys 16·kk … 16·kk + 15 are exactly the A fragment.
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      uint32_t rP[4];
      pack_a<T>(rP, rS, kk);
      for (int dp = 0; dp < kD / 16; ++dp) {
        uint32_t b[4];
        load_b_kn<kD>(b, sVt, kk * 16, dp, lane);
        mma_pair<T>(rO[2 * dp], rO[2 * dp + 1], rP, b);
      }
    }
  }
  cp_async_wait_all();  // no copy may still target shared memory when the CTA exits

  // The one rescale: O /= l; L = m·ln2 + ln l (natural log); no visible key → O = 0, L = −∞.
  for (int half = 0; half < 2; ++half) {
    const int64_t i = row0 + half * 8;
    const float l = quad_sum(row_sum[half]);
    const float inv = l > 0.f ? 1.f / l : 0.f;
    if (i >= a.n) continue;
    T* gO = a.o + ((bi * a.n + i) * a.h + hi) * kD;
    for (int ob = 0; ob < kOBlocks; ++ob)
      *reinterpret_cast<uint32_t*>(gO + ob * 8 + 2 * t) = pack2<T>(rO[ob][2 * half] * inv, rO[ob][2 * half + 1] * inv);
    if (t == 0) a.lse[(bi * a.h + hi) * a.n + i] = l > 0.f ? row_max[half] * kLn2 + logf(l) : -INFINITY;
  }
}

template <class T, int kD>
LaunchPlan plan_for(const AttnArgs<T>& a) {
  LaunchPlan p;
  p.func = reinterpret_cast<const void*>(&flash_forward_kernel<T, kD>);
  p.grid = blocks_for(a.n, kBlockM) * a.h * a.b;
  p.block = kThreads;
  p.smem = smem_bytes<kD>();
  return p;
}

template <class T, int kD>
void launch(const AttnArgs<T>& a, cudaStream_t stream) {
  const auto kernel = &flash_forward_kernel<T, kD>;
  static bool opted_in = false;  // > 48 KiB of dynamic shared memory needs the opt-in once
  if (!opted_in) {
    SOL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<kD>()));
    opted_in = true;
  }
  const dim3 grid(unsigned(blocks_for(a.n, kBlockM)), unsigned(a.h), unsigned(a.b));
  kernel<<<grid, kThreads, smem_bytes<kD>(), stream>>>(a);
  SOL_LAUNCH_CHECK();
}

}  // namespace

template <class T>
void flash_forward(const AttnArgs<T>& a, cudaStream_t stream) {
  if (a.d == 64) return launch<T, 64>(a, stream);
  if (a.d == 128) return launch<T, 128>(a, stream);
  bad_input("flash attention: head dimension " + std::to_string(a.d) + " is not built", "use d=64 or d=128");
}

template <class T>
LaunchPlan flash_plan(const AttnArgs<T>& a) {
  return a.d == 64 ? plan_for<T, 64>(a) : plan_for<T, 128>(a);
}

template void flash_forward<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, cudaStream_t);
template void flash_forward<__half>(const AttnArgs<__half>&, cudaStream_t);
template LaunchPlan flash_plan<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&);
template LaunchPlan flash_plan<__half>(const AttnArgs<__half>&);

}  // namespace sol::kernels::attention

// v02_flash_bwd_8warp: FlashAttention-2's backward (lecture §11.6: recomputation) with 8 warps per
// CTA and P, dS staged through shared memory, so that no warp holds more than a quarter of d.
// v01 gave each of 4 warps 16 keys × all d of dK and dV (128 fp32 registers at d = 128) plus the
// Sᵀ/dPᵀ fragments: 255 registers with spills, 8 warps per SM, 23 % of cycles issuing. Here a CTA
// still owns 64 keys of one K/V head (K, V in shared memory) and streams 64-row Q/dO tiles of
// every query head of its GQA group, but each step is split over 8 warps in 32 × 32 blocks:
//   phase 1  warps 0–3 form Sᵀ = K·Qᵀ, warps 4–7 dPᵀ = V·dOᵀ, each for 32 keys × 32 queries
//            (32 accumulators); the first write Pᵀ = exp2(Sᵀ·scale·log2e − L·log2e) (16-bit,
//            [key][query]) to shared memory, and after a barrier the others read it back and
//            write dSᵀ = Pᵀ∘(dPᵀ − D) beside it;
//   phase 2  (after a second barrier) warp w accumulates dV += Pᵀ·dO and dK += dSᵀ·Q for keys
//            32·(w & 1) … +31 × columns (w >> 1)·d/4 … +d/4 (32 + 32 registers at d = 128, kept
//            across tiles) and forms dQ = dS·K for query rows 32·(w & 1) … × the same columns,
//            16 rows per pass at d = 128 (dS read transposed by ldmatrix.trans), added to the fp32
//            accumulator with one 16-byte atomicAdd (float4, sm_90) per 4 columns.
// 32 × 32 warp blocks: each ldmatrix.x4 fragment feeds 4 MMAs in phase 1, dV and dK (2 in dQ):
// 704 ldmatrix.x4 per 1280 MMAs of a d = 128 tile, 0.55 per MMA (v01: 0.6).
// Why 64 keys × 8 warps and not 128 keys: at d = 128 the dK/dV accumulators of 128 keys over 8
// warps would be 128 registers again; 64 keys keep them at 64, the kernel at ≤ 128 registers with
// no spills and 2 CTAs (16 warps) per SM (shared memory 113 KiB per CTA at d = 128, 65 KiB at 64).
// The next Q/dO tile is fetched (cp.async, second buffer) during the current one, its L and D
// during phase 2. Causal: query tiles wholly before the key tile are skipped, edge tiles masked.
// Deterministic mode (det=1): phase 2 skips dQ and v01's dq_kernel (backward.cuh) forms it.
// Expected bottleneck: shared-memory bandwidth (≈ 800 × 512 bytes per d = 128 tile with the Q/dO
// copies and the P/dS stores: ≈ 3200 cycles at 128 B/cycle against 1280 MMA issue cycles, a
// ceiling near 370 TFLOP/s at 1.75 GHz) and the three barriers per tile; the dQ atomics
// (b·h·n·d·nk/64 fp32 adds, 4 per instruction) through L2.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/attention/backward.cuh"
#include "kernels/attention/forward.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/attention/residency.hpp"

namespace sol::kernels::attention {
namespace {

constexpr int kKeys = 64;  // keys per CTA
constexpr int kRows = 64;  // query rows per streamed tile
constexpr int kWarps = 8;  // 4 key slices × 2 halves
constexpr int kThreads = 32 * kWarps;

template <int kD>
constexpr int smem_bytes() {
  // K, V; Q and dO double-buffered; Pᵀ and dSᵀ (16-bit); L and D of the current tile (fp32).
  // d = 128: 113 KiB, so that two CTAs and their 1 KiB reserves fit the SM's 228 KiB.
  return (2 * kKeys * kD + 4 * kRows * kD + 2 * kKeys * kRows) * 2 + 2 * kRows * 4;
}

// 4 bytes global → shared (cp.async.ca; the 16-byte .cg form of kernels/common/ptx.cuh needs
// 16-byte aligned rows, and L, D rows start anywhere); bytes past src_bytes are zero-filled.
__device__ __forceinline__ void cp_async_4(void* sDst, const void* gSrc, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(sDst)), "l"(gSrc), "r"(src_bytes) : "memory");
}

// The inverse of pack2: two 16-bit T of one register → floats (lo: the lower column).
template <class T>
__device__ __forceinline__ void unpack2(uint32_t r, float& lo, float& hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    lo = __uint_as_float(r << 16);
    hi = __uint_as_float(r & 0xFFFF0000u);
  } else {
    lo = __half2float(__ushort_as_half(uint16_t(r & 0xFFFFu)));
    hi = __half2float(__ushort_as_half(uint16_t(r >> 16)));
  }
}

// A (16×16) at rows m0…m0+15, k columns 16·kk…16·kk+15 of the TRANSPOSE of a swizzled tile stored
// [k][m] with kCols columns (dS for dQ = dS·K, from dSᵀ stored [key][query]). ldmatrix.trans hands
// lane (g, t) the transposed block's (row g, columns 2t, 2t+1), so a[0] = block (k 0–7, m 0–7),
// a[1] = (k 0–7, m 8–15), a[2] = (k 8–15, m 0–7), a[3] = (k 8–15, m 8–15).
template <int kCols, class T>
__device__ __forceinline__ void load_a_trans(uint32_t (&a)[4], const T* sTile, int m0, int kk, int lane) {
  const int mat = lane / 8;
  ldmatrix_x4_trans(a, sTile + swizzled<kCols>(16 * kk + (mat >> 1) * 8 + lane % 8, m0 / 8 + (mat & 1)));
}

// A warp's 32 × 32 block of Sᵀ = K·Qᵀ or dPᵀ = V·dOᵀ (contraction over kD): rows a0…a0+31 of
// the [64 × kD] tile sA, rows b0…b0+31 of sB, both stored [row][kD]. acc[s][nb]: rows a0 + 16·s
// (m16 slice s), columns b0 + 8·nb. Each fragment loaded feeds 4 MMAs.
template <class T, int kD>
__device__ __forceinline__ void product_nk(float (&acc)[2][4][4], const T* sA, int a0, const T* sB, int b0, int lane) {
#pragma unroll 2  // fully unrolled, the hoisted fragment addresses would not fit 128 registers
  for (int kk = 0; kk < kD / 16; ++kk) {
    uint32_t ra0[4], ra1[4];
    load_a<kD>(ra0, sA, a0, kk, lane);
    load_a<kD>(ra1, sA, a0 + 16, kk, lane);
    for (int np = 0; np < 2; ++np) {
      uint32_t b[4];
      load_b_nk<kD>(b, sB, b0 + 16 * np, kk, lane);
      mma_pair<T>(acc[0][2 * np], acc[0][2 * np + 1], ra0, b);
      mma_pair<T>(acc[1][2 * np], acc[1][2 * np + 1], ra1, b);
    }
  }
}

// acc += A·B over the 64 rows of a staged [64 × 64] tile, for kSlices·16 rows × kD/4 columns:
// A = rows a0 … of sA ([m][k], or the transpose of a [k][m] tile when kTransA), B = columns
// 16·np0 … 16·np0 + kD/4 − 1 of the [64 × kD] tile sB stored [k][n]. acc[s][nb]: rows a0 + 16·s,
// columns 16·np0 + 8·nb. dV += Pᵀ·dO, dK += dSᵀ·Q, dQ = dS·K.
template <class T, int kD, int kSlices, bool kTransA>
__device__ __forceinline__ void product_kn(float (&acc)[kSlices][kD / 32][4], const T* sA, int a0, const T* sB, int np0,
                                           int lane) {
#pragma unroll 1  // (as product_nk)
  for (int kk = 0; kk < kRows / 16; ++kk) {
    uint32_t ra[kSlices][4];
    for (int s = 0; s < kSlices; ++s) {
      if constexpr (kTransA) load_a_trans<kRows>(ra[s], sA, a0 + 16 * s, kk, lane);
      else load_a<kRows>(ra[s], sA, a0 + 16 * s, kk, lane);
    }
    for (int np = 0; np < kD / 64; ++np) {
      uint32_t b[4];
      load_b_kn<kD>(b, sB, 16 * kk, np0 + np, lane);
      for (int s = 0; s < kSlices; ++s) mma_pair<T>(acc[s][2 * np], acc[s][2 * np + 1], ra[s], b);
    }
  }
}

// Fragments as kernels/attention/mma.cuh describes (lane = 4·g + t).
template <class T, int kD>
__global__ void __launch_bounds__(kThreads, kMmaSyncCtasPerSm) flash_backward_v02_kernel(AttnBwdArgs<T> a) {
  constexpr int kTile = kRows * kD;
  constexpr int kColBlocks = kD / 32;  // 8-column blocks in a warp's quarter of d
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sK = reinterpret_cast<T*>(smem_raw);
  T* sV = sK + kKeys * kD;
  T* sQ = sV + kKeys * kD;    // [2][kRows × kD]
  T* sdO = sQ + 2 * kTile;    // [2][kRows × kD]
  T* sP = sdO + 2 * kTile;    // Pᵀ, [key][query] swizzled [64 × 64]
  T* sdS = sP + kKeys * kRows;  // dSᵀ, the same layout
  float* sL = reinterpret_cast<float*>(sdS + kKeys * kRows);  // L (natural log) of the tile's rows
  float* sD = sL + kRows;                                      // D of the tile's rows

  const AttnArgs<T>& f = a.f;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  // Phase 1: warps 0–3 form Sᵀ (then Pᵀ), warps 4–7 dPᵀ (then dSᵀ), each a 32 × 32 block:
  // keys 32·(w & 1) …, queries 32·((w >> 1) & 1) …. Phase 2: rows 32·(w & 1) … (keys for dK and
  // dV, queries for dQ) × columns (w >> 1)·d/4 … +d/4.
  const bool dp_warp = warp >= 4;
  const int rows32 = 32 * (warp & 1), q32 = 32 * ((warp >> 1) & 1), quarter = warp >> 1;
  // Rows and keys fit 32 bits (n, nk ≤ 2^24 by the shape rules); global offsets are 64-bit.
  const int n = int(f.n), nk = int(f.nk), n0 = int(blockIdx.x) * kKeys;
  const int hk = int(blockIdx.y), group = int(f.h / f.hkv);  // heads ≤ 65535
  const int64_t bi = blockIdx.z, ldq = f.h * kD, ldk = f.hkv * kD;
  const int shift = nk - n;  // query i sees keys j ≤ i + shift when causal
  const float scale_log2 = f.scale * bwd::kLog2e;

  load_tile<kKeys, kD, kThreads>(sK, f.k + ((bi * nk + n0) * f.hkv + hk) * kD, ldk, nk - n0);
  load_tile<kKeys, kD, kThreads>(sV, f.v + ((bi * nk + n0) * f.hkv + hk) * kD, ldk, nk - n0);
  cp_async_commit();

  // Causal: the first query that sees key n0 is n0 − shift; earlier query tiles are skipped.
  // The tiles walk the group's query heads hq, each over rows m0 = m_begin, m_begin + 64, … < n.
  const int m_begin = f.causal && n0 - shift > 0 ? (n0 - shift) / kRows * kRows : 0;
  const int hq_end = (hk + 1) * group;
  const auto fetch = [&](int m0, int hq, int buf) {  // Q, dO rows past n are zero-filled
    const int64_t off = ((bi * n + m0) * f.h + hq) * kD;
    load_tile<kRows, kD, kThreads>(sQ + buf * kTile, f.q + off, ldq, n - m0);
    load_tile<kRows, kD, kThreads>(sdO + buf * kTile, a.dout + off, ldq, n - m0);
    cp_async_commit();
  };
  // L and D of the tile's rows into sL, sD by 4-byte cp.async (threads 0…63: L of row
  // m0 + threadIdx.x, 64…127: its D; rows past n read as 0, and their P is masked to 0).
  const auto fetch_stat = [&](int m0, int hq) {
    if (threadIdx.x < 2 * kRows) {  // warps 0–3: uniform per warp
      const int i = m0 + int(threadIdx.x) % kRows;
      const float* gRow = threadIdx.x < kRows ? f.lse : a.delta;
      cp_async_4(sL + threadIdx.x, i < n ? gRow + (bi * f.h + hq) * n + i : gRow, i < n ? 4 : 0);
    }
    cp_async_commit();
  };
  // The tile after (m0, hq): the next 64 rows, or the next query head from m_begin on.
  const auto advance = [&](int& m0, int& hq) {
    m0 += kRows;
    if (m0 >= n) {
      m0 = m_begin;
      ++hq;
    }
  };

  int hq = hk * group;
  int m0 = m_begin, buf = 0;  // the current tile and its Q/dO buffer
  if (m_begin < n) {          // always true (n0 < nk), kept as the loop's own guard
    fetch(m0, hq, buf);
    fetch_stat(m0, hq);
  } else {
    hq = hq_end;
  }

  float rdK[2][kColBlocks][4] = {}, rdV[2][kColBlocks][4] = {};
  while (hq < hq_end) {
    cp_async_wait_all();
    // Tile (m0, hq) (and K, V) landed and is visible, as are its L and D; every warp has left
    // the previous tile, so sP, sdS and buffer buf ^ 1 of Q and dO are free.
    __syncthreads();
    {
      int m0_next = m0;
      int hq_next = hq;
      advance(m0_next, hq_next);
      if (hq_next < hq_end) fetch(m0_next, hq_next, buf ^ 1);
    }
    const T* sQb = sQ + buf * kTile;
    const T* sdOb = sdO + buf * kTile;

    // Phase 1: Sᵀ = K·Qᵀ (warps 0–3) or dPᵀ = V·dOᵀ (warps 4–7) for keys rows32 … +31 ×
    // queries q32 … +31; element (s, nb, 2·e2 + c) is key rows32 + 16·s + g + 8·e2, query
    // q32 + 8·nb + 2t + c.
    float rX[2][4][4] = {};
    product_nk<T, kD>(rX, dp_warp ? sV : sK, rows32, dp_warp ? sdOb : sQb, q32, lane);
    const bool edge = m0 + kRows > n || n0 + kKeys > nk || (f.causal && n0 + kKeys - 1 > m0 + shift);
    if (!dp_warp) {  // Pᵀ = exp2(Sᵀ·scale·log2e − L·log2e), 0 where hidden, to sP
      for (int s = 0; s < 2; ++s)
        for (int nb = 0; nb < 4; ++nb)
          for (int e2 = 0; e2 < 2; ++e2) {
            const int kj = rows32 + 16 * s + g + 8 * e2, qi = q32 + nb * 8 + 2 * t;
            float p[2];
            for (int c = 0; c < 2; ++c) {
              const int i = m0 + qi + c, j = n0 + kj;
              const bool hide = edge && (i >= n || j >= nk || (f.causal && j > i + shift));
              p[c] = hide ? 0.f : exp2f(fmaf(rX[s][nb][2 * e2 + c], scale_log2, -sL[qi + c] * bwd::kLog2e));
            }
            *reinterpret_cast<uint32_t*>(sP + swizzled<kRows>(kj, qi / 8) + qi % 8) = pack2<T>(p[0], p[1]);
          }
    }
    __syncthreads();
    if (dp_warp) {  // dSᵀ = Pᵀ∘(dPᵀ − D), Pᵀ as rounded for dV (the same elements, from sP), to sdS
      for (int s = 0; s < 2; ++s)
        for (int nb = 0; nb < 4; ++nb)
          for (int e2 = 0; e2 < 2; ++e2) {
            const int kj = rows32 + 16 * s + g + 8 * e2, qi = q32 + nb * 8 + 2 * t;
            const int at = swizzled<kRows>(kj, qi / 8) + qi % 8;
            float p0, p1;
            unpack2<T>(*reinterpret_cast<const uint32_t*>(sP + at), p0, p1);
            *reinterpret_cast<uint32_t*>(sdS + at) =
                pack2<T>(p0 * (rX[s][nb][2 * e2] - sD[qi]), p1 * (rX[s][nb][2 * e2 + 1] - sD[qi + 1]));
          }
    }
    __syncthreads();
    // Every warp is past the readers of sL and sD: the next tile's L and D may land there
    // during phase 2 (waited for with its Q and dO at the top).
    {
      int m0_next = m0;
      int hq_next = hq;
      advance(m0_next, hq_next);
      if (hq_next < hq_end) fetch_stat(m0_next, hq_next);
    }

    // Phase 2: dV += Pᵀ·dO, dK += dSᵀ·Q (scale at the end) for keys rows32 … +31 × columns
    // quarter·d/4 … +d/4.
    product_kn<T, kD, 2, false>(rdV, sP, rows32, sdOb, quarter * (kD / 64), lane);
    product_kn<T, kD, 2, false>(rdK, sdS, rows32, sQb, quarter * (kD / 64), lane);

    if (!a.deterministic) {  // uniform across the CTA
      // dQ = dS·K for query rows rows32 … +31 × the same columns (at d = 128 16 rows per pass:
      // 16 accumulators beside dK and dV, not 32), added to the fp32 accumulator with one float4
      // atomicAdd (sm_90) per 4 columns: even t adds (row g, columns 2t … 2t+3), odd t (row g+8,
      // columns 2t−2 … 2t+1), each lane sending its partner t^1 the pair the partner lacks.
      constexpr int kDqSlices = kD == 128 ? 1 : 2;  // 16-row slices per pass
      const bool odd = (t & 1) != 0;
      const auto dq_pass = [&](int row0) {  // query rows row0 … row0 + 16·kDqSlices − 1
        float rdQ[kDqSlices][kColBlocks][4] = {};
        product_kn<T, kD, kDqSlices, true>(rdQ, sdS, row0, sK, quarter * (kD / 64), lane);
        for (int s = 0; s < kDqSlices; ++s) {
          const int i = m0 + row0 + 16 * s + g + (odd ? 8 : 0);  // the row this lane adds to
          float* gdQ = a.dq_accum + ((bi * n + i) * f.h + hq) * kD + quarter * (kD / 4) + 2 * (t & ~1);
          for (int nb = 0; nb < kColBlocks; ++nb) {
            const float* c = rdQ[s][nb];
            const float s0 = odd ? c[0] : c[2], s1 = odd ? c[1] : c[3];
            const float r0 = __shfl_xor_sync(0xffffffffu, s0, 1), r1 = __shfl_xor_sync(0xffffffffu, s1, 1);
            const float4 v = odd ? make_float4(r0 * f.scale, r1 * f.scale, c[2] * f.scale, c[3] * f.scale)
                                 : make_float4(c[0] * f.scale, c[1] * f.scale, r0 * f.scale, r1 * f.scale);
#if __CUDA_ARCH__ >= 900
            if (i < n) atomicAdd(reinterpret_cast<float4*>(gdQ + nb * 8), v);
#else
            __trap();  // float4 atomics are sm_90+: the rung's min_cc keeps it off older GPUs
#endif
          }
        }
      };
      if constexpr (kDqSlices == 1) {
#pragma unroll 1
        for (int pass = 0; pass < 2; ++pass) dq_pass(rows32 + 16 * pass);
      } else {
        dq_pass(rows32);
      }
    }
    advance(m0, hq);
    buf ^= 1;
  }
  cp_async_wait_all();  // K/V copies of a CTA with no query tile must land before it exits

  for (int s = 0; s < 2; ++s)
    for (int e2 = 0; e2 < 2; ++e2) {
      const int j = n0 + rows32 + 16 * s + g + 8 * e2;
      if (j >= nk) continue;
      const int64_t off = ((bi * nk + j) * f.hkv + hk) * kD + quarter * (kD / 4);
      for (int ob = 0; ob < kColBlocks; ++ob) {
        *reinterpret_cast<uint32_t*>(a.dk + off + ob * 8 + 2 * t) =
            pack2<T>(rdK[s][ob][2 * e2] * f.scale, rdK[s][ob][2 * e2 + 1] * f.scale);
        *reinterpret_cast<uint32_t*>(a.dv + off + ob * 8 + 2 * t) = pack2<T>(rdV[s][ob][2 * e2], rdV[s][ob][2 * e2 + 1]);
      }
    }
}

template <class T, int kD>
LaunchInfo plan_for(const AttnBwdArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&flash_backward_v02_kernel<T, kD>);
  p.grid_blocks = blocks_for(a.f.nk, kKeys) * a.f.hkv * a.f.b;
  p.block_threads = kThreads;
  p.dynamic_smem_bytes = smem_bytes<kD>();
  opt_in_dynamic_smem(p.func, p.dynamic_smem_bytes, true);  // two 113 KiB CTAs per SM at d = 128: the whole carve-out
  return p;
}

template <class T, int kD>
void launch(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  const LaunchInfo plan = plan_for<T, kD>(a);
  const dim3 grid(unsigned(blocks_for(a.f.nk, kKeys)), unsigned(a.f.hkv), unsigned(a.f.b));
  flash_backward_v02_kernel<T, kD><<<grid, unsigned(plan.block_threads), size_t(plan.dynamic_smem_bytes), stream>>>(a);
  SOL_LAUNCH_CHECK();
  if (a.deterministic) bwd::launch_dq<T, kD>(a, stream);
}

}  // namespace

template <class T>
void flash_backward_v02(const AttnBwdArgs<T>& a, cudaStream_t stream) {
  refuse_scores(a.f, "attention_bwd/v02_flash_bwd_8warp");
  if (a.f.d != 64 && a.f.d != 128)
    bad_input("flash attention backward (v02): head dimension " + std::to_string(a.f.d) + " is not built", "use d=64 or d=128");
  bwd::launch_delta(a, stream);
  if (a.f.d == 64) launch<T, 64>(a, stream);
  else launch<T, 128>(a, stream);
  if (!a.deterministic) bwd::launch_convert(a, stream);
}

template <class T>
LaunchInfo flash_backward_v02_plan(const AttnBwdArgs<T>& a) {
  return a.f.d == 64 ? plan_for<T, 64>(a) : plan_for<T, 128>(a);
}

template void flash_backward_v02<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&, cudaStream_t);
template void flash_backward_v02<__half>(const AttnBwdArgs<__half>&, cudaStream_t);
template LaunchInfo flash_backward_v02_plan<__nv_bfloat16>(const AttnBwdArgs<__nv_bfloat16>&);
template LaunchInfo flash_backward_v02_plan<__half>(const AttnBwdArgs<__half>&);

}  // namespace sol::kernels::attention

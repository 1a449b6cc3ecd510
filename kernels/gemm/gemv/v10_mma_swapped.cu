// v10_mma_swapped — decode GEMM on the tensor cores, W stored n×k. mma.sync m16n8k16 multiplies a
// 16×16 tile by a 16×8 one; with m ≤ 64 tokens the natural C = A·Wᵀ would pad m to 16 rows. The
// swapped product Cᵀ = W·Aᵀ puts N on the MMA's 16-row side and the tokens on its 8-wide side
// (m padded to 8, 32 or 64): the bytes are still W's, once (FLOP/B ≈ m: memory-bound up to the
// ridge), and the tensor cores retire the FMAs that cap v09 as m grows.
// The fragments come straight from global memory, no shared-memory staging: a dot product may
// sum its k in any order, so lane (g = lane/4, t = lane%4) loads the 16 bytes k = 8t … 8t+7 of
// W rows g and g+8 and of token g, and the MMA's k positions 2t, 2t+1, 2t+8, 2t+9 take elements
// 0–3 in one k-step and 4–7 in the next — the same permutation on both operands. A warp covers 32
// k per block and issues 4 blocks (2 at m > 32) of loads before the first MMA: 128 bytes of W per
// lane in flight. A CTA's 4 warps share its 16 rows (32 at m > 32) and split its k; their fp32
// accumulators are summed in warp order through shared memory, then as in v09 (split k, edges).
#include "kernels/common/check.cuh"
#include "kernels/gemm/gemv/detail.cuh"

namespace sol::kernels::gemv {
namespace {

constexpr int kWarps = 4;

template <class T>
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// kNT token tiles of 8, kTN W tiles of 16 rows per CTA, kUnroll k-blocks of 32 per warp step.
template <class T, int kNT, int kTN, int kUnroll>
__global__ void __launch_bounds__(kWarps * 32) mma_swapped_kernel(Problem p, int splits, int64_t k_slice,
                                                                  float* partial) {
  constexpr int kRegs = kTN * kNT * 4;
  __shared__ float sRed[3 * kRegs * 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t n0 = int64_t(blockIdx.x) * (16 * kTN);
  const int64_t kb = int64_t(blockIdx.y) * k_slice, ke = min(p.k, kb + k_slice);
  const auto* gA = static_cast<const uint16_t*>(p.A);
  const auto* gW = static_cast<const uint16_t*>(p.W);
  const bool vecA = vec_ok(p.A, p.lda), vecW = vec_ok(p.W, p.ldw);
  // This lane's W rows (tile i, half h: row n0 + 16i + g + 8h) and token rows (tile j: 8j + g).
  const uint16_t* rW[kTN][2];
  bool liveW[kTN][2];
#pragma unroll
  for (int i = 0; i < kTN; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t row = n0 + 16 * i + g + 8 * h;
      liveW[i][h] = row < p.n;
      rW[i][h] = gW + (liveW[i][h] ? row : 0) * p.ldw;
    }
  float acc[kRegs] = {};  // [tile i][tile j][4]
  constexpr int64_t kStep = int64_t(kWarps) * kUnroll * 32;
  for (int64_t kblk = kb + int64_t(warp) * kUnroll * 32; kblk < ke; kblk += kStep) {
    uint4 w[kUnroll][kTN][2];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int i = 0; i < kTN; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t kk = kblk + u * 32 + 8 * t;
          w[u][i][h] = load8<true>(rW[i][h] + kk, liveW[i][h] ? ke - kk : 0, vecW);
        }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t kk = kblk + u * 32 + 8 * t;
      uint4 a[kNT];
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
        const int64_t tok = 8 * j + g;
        a[j] = load8<false>(gA + (tok < p.m ? tok : 0) * p.lda + kk, tok < p.m ? ke - kk : 0, vecA);
      }
#pragma unroll
      for (int i = 0; i < kTN; ++i) {
        const uint32_t lo[4] = {w[u][i][0].x, w[u][i][1].x, w[u][i][0].y, w[u][i][1].y};  // elements 0–3
        const uint32_t hi[4] = {w[u][i][0].z, w[u][i][1].z, w[u][i][0].w, w[u][i][1].w};  // elements 4–7
#pragma unroll
        for (int j = 0; j < kNT; ++j) {
          float(&c)[4] = *reinterpret_cast<float(*)[4]>(&acc[(i * kNT + j) * 4]);
          mma_16816<T>(c, lo, a[j].x, a[j].y);
          mma_16816<T>(c, hi, a[j].z, a[j].w);
        }
      }
    }
  }
  reduce_warps4<kRegs>(acc, sRed, warp, lane);
  if (warp != 0) return;
  // c0, c1: W row g, tokens 2t, 2t+1; c2, c3: row g+8 (of tile i, token tile j).
#pragma unroll
  for (int i = 0; i < kTN; ++i)
#pragma unroll
    for (int j = 0; j < kNT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t col = n0 + 16 * i + g + 8 * (e / 2), tok = 8 * j + 2 * t + e % 2;
        if (col < p.n && tok < p.m) finish(p, splits, partial, tok, col, acc[(i * kNT + j) * 4 + e]);
      }
}

template <class T, int kNT, int kTN, int kUnroll>
void launch_shape(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  mma_swapped_kernel<T, kNT, kTN, kUnroll>
      <<<dim3(unsigned(g.blocks_n), unsigned(g.splits)), kWarps * 32, 0, stream>>>(p, g.splits, g.k_slice, partial);
}

template <class T>
void launch_typed(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  // plan.hpp's v10 geometry: 16 rows and 512 k per step, or 32 rows and 256 k at 8 token tiles.
  static_assert(kWarps * 4 * 32 == 512 && kWarps * 2 * 32 == 256);
  switch (token_tiles(p.m)) {
    case 1: launch_shape<T, 1, 1, 4>(p, g, partial, stream); break;
    case 4: launch_shape<T, 4, 1, 4>(p, g, partial, stream); break;
    default: launch_shape<T, 8, 2, 2>(p, g, partial, stream); break;
  }
  SOL_LAUNCH_CHECK();
}

}  // namespace

void launch_v10_mma_swapped(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  if (p.in == DType::f16) launch_typed<__half>(p, g, partial, stream);
  else launch_typed<__nv_bfloat16>(p, g, partial, stream);
}

}  // namespace sol::kernels::gemv

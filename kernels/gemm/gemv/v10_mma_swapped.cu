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

namespace sol::kernels::gemm::gemv {
namespace {

constexpr int kWarps = 4;

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
  const bool vecA = vec_ok(p.A, p.lda), vecW = vec_ok(p.W, p.ldw);
  const WTileRows<kTN> rowsW(p, n0, g);  // this lane's W rows; its token rows are 8j + g
  float acc[kRegs] = {};  // [tile i][tile j][4]
  constexpr int64_t kStep = int64_t(kWarps) * kUnroll * 32;
  for (int64_t kblk = kb + int64_t(warp) * kUnroll * 32; kblk < ke; kblk += kStep) {
    uint4 w[kUnroll][kTN][2];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) rowsW.load(w[u], kblk + u * 32 + 8 * t, ke, vecW);
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
      for (int i = 0; i < kTN; ++i)
#pragma unroll
        for (int j = 0; j < kNT; ++j) mma_k32<T>(&acc[(i * kNT + j) * 4], w[u][i][0], w[u][i][1], a[j]);
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

}  // namespace sol::kernels::gemm::gemv

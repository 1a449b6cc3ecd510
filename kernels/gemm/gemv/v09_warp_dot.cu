// v09_warp_dot — decode GEMM on the CUDA cores, W stored n×k (nn.Linear's weight). At m tokens a
// GEMV does 2·m FLOPs per 2-byte weight: FLOP/B ≈ m, far under an H200's ridge (~200 FLOP/B for
// bf16 tensor cores, ~14 for fp32 FMA), so the time is N·K·2 bytes over the memory bandwidth and
// the kernel's only job is to stream W once with enough bytes in flight.
// A warp owns 2 columns (2 rows of W): each lane reads 16 bytes of each row per load, 4 loads per
// row before the first use (128 bytes per lane outstanding; 2 at 8 tokens), 1024 k per warp step.
// The m ≤ 8 token rows of A are re-read from L1 for every chunk (W bypasses L1, A stays there):
// one A chunk serves both columns. A butterfly of shuffles sums the 32 lanes; with split k each
// CTA covers one k-slice and writes fp32 partials that launch.cu sums in split order.
// Any k, pitch or alignment: a chunk not 16-byte aligned or past the end is loaded element-wise.
#include "kernels/common/check.cuh"
#include "kernels/gemm/gemv/detail.cuh"

namespace sol::kernels::gemm::gemv {
namespace {

constexpr int kWarps = 8, kCols = 2;
// Loads per row in flight: 4 (2 at 8 tokens, whose 16 accumulators and A chunks need the registers).
template <int kM>
constexpr int kUnroll = kM == 8 ? 2 : 4;

template <class T, int kM>
__global__ void __launch_bounds__(kWarps * 32, 2) warp_dot_kernel(Problem p, int splits, int64_t k_slice, float* partial) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t col0 = (int64_t(blockIdx.x) * kWarps + warp) * kCols;
  if (col0 >= p.n) return;  // no shared memory, no barrier: whole warps may leave
  const int64_t kb = int64_t(blockIdx.y) * k_slice, ke = min(p.k, kb + k_slice);
  const auto* gA = static_cast<const uint16_t*>(p.A);
  const auto* gW = static_cast<const uint16_t*>(p.W);
  const bool vecA = vec_ok(p.A, p.lda), vecW = vec_ok(p.W, p.ldw);
  const uint16_t* rW[kCols];
  bool live[kCols];
#pragma unroll
  for (int c = 0; c < kCols; ++c) {
    live[c] = col0 + c < p.n;
    rW[c] = gW + (live[c] ? col0 + c : col0) * p.ldw;
  }
  float acc[kM][kCols] = {};
  for (int64_t k0 = kb + lane * 8; k0 < ke; k0 += 32 * 8 * kUnroll<kM>) {
    uint4 w[kUnroll<kM>][kCols];
#pragma unroll
    for (int u = 0; u < kUnroll<kM>; ++u)
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int64_t kk = k0 + u * 256;
        w[u][c] = load8<true>(rW[c] + kk, live[c] ? ke - kk : 0, vecW);
      }
#pragma unroll
    for (int u = 0; u < kUnroll<kM>; ++u) {
      const int64_t kk = k0 + u * 256;
      if (kk >= ke) break;
      float fw[kCols][8];
#pragma unroll
      for (int c = 0; c < kCols; ++c) unpack8<T>(w[u][c], fw[c]);
#pragma unroll
      for (int r = 0; r < kM; ++r) {
        if (r >= p.m) break;
        float fa[8];
        unpack8<T>(load8<false>(gA + r * p.lda + kk, ke - kk, vecA), fa);
#pragma unroll
        for (int c = 0; c < kCols; ++c)
#pragma unroll
          for (int e = 0; e < 8; ++e) acc[r][c] = fmaf(fa[e], fw[c][e], acc[r][c]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kM; ++r)
#pragma unroll
    for (int c = 0; c < kCols; ++c)
#pragma unroll
      for (int s = 16; s > 0; s /= 2) acc[r][c] += __shfl_xor_sync(0xFFFFFFFFu, acc[r][c], s);
  if (lane != 0) return;
#pragma unroll
  for (int r = 0; r < kM; ++r)
#pragma unroll
    for (int c = 0; c < kCols; ++c)
      if (r < p.m && live[c]) finish(p, splits, partial, r, col0 + c, acc[r][c]);
}

template <class T>
void launch_typed(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  static_assert(kWarps * kCols == 16 && 32 * 8 * kUnroll<1> == 1024 && 32 * 8 * kUnroll<8> == 512, "plan.hpp's v09 geometry");
  const dim3 grid(unsigned(g.blocks_n), unsigned(g.splits));
  const int threads = kWarps * 32;
  switch (tokens_per_pass(p.m)) {
    case 1: warp_dot_kernel<T, 1><<<grid, threads, 0, stream>>>(p, g.splits, g.k_slice, partial); break;
    case 4: warp_dot_kernel<T, 4><<<grid, threads, 0, stream>>>(p, g.splits, g.k_slice, partial); break;
    default: warp_dot_kernel<T, 8><<<grid, threads, 0, stream>>>(p, g.splits, g.k_slice, partial); break;
  }
  SOL_LAUNCH_CHECK();
}

}  // namespace

void launch_v09_warp_dot(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  if (p.in == DType::f16) launch_typed<__half>(p, g, partial, stream);
  else launch_typed<__nv_bfloat16>(p, g, partial, stream);
}

}  // namespace sol::kernels::gemm::gemv

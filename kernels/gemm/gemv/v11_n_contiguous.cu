// v11_n_contiguous — decode GEMM with W stored k×n (trans_b = N: a weight kept as in·out). Each
// row of W is a row of k, contiguous in n, so the stream runs along n: lane l of a CTA owns the 8
// consecutive columns 8l … 8l+7 (one 16-byte load per row of k) and walks down k; the CTA's 4
// warps take interleaved rows of k (warp w: rows w, w+4, …, 4–8 rows per lane in flight) and sum
// their accumulators in warp order through shared memory. Each token's A[t, k] is one broadcast
// load shared by the warp. A CTA carries up to 8 tokens (8 × 8 fp32 accumulators per lane); more
// tokens take more passes over W (grid.z), which mostly hit in L2 when they run side by side.
// Split k, the fp32 partials and the edges (any n, pitch, alignment) as in v09.
#include "kernels/common/check.cuh"
#include "kernels/gemm/gemv/detail.cuh"

namespace sol::kernels::gemm::gemv {
namespace {

constexpr int kWarps = 4, kColsPerLane = 8;

template <class T, int kM, int kUnroll>
__global__ void __launch_bounds__(kWarps * 32) n_contiguous_kernel(Problem p, int splits, int64_t k_slice,
                                                                   float* partial) {
  constexpr int kRegs = kM * kColsPerLane;
  __shared__ float sRed[3 * kRegs * 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t col0 = int64_t(blockIdx.x) * (32 * kColsPerLane) + lane * kColsPerLane;
  const int64_t tok0 = int64_t(blockIdx.z) * kM;
  const int64_t kb = int64_t(blockIdx.y) * k_slice, ke = min(p.k, kb + k_slice);
  const auto* gA = static_cast<const uint16_t*>(p.A);
  const auto* gW = static_cast<const uint16_t*>(p.W);
  const bool vecW = vec_ok(p.W, p.ldw);
  const int64_t cols = col0 < p.n ? p.n - col0 : 0;  // columns of this lane inside W
  float acc[kRegs] = {};                              // [token][column]
  for (int64_t k0 = kb + int64_t(warp) * kUnroll; k0 < ke; k0 += int64_t(kWarps) * kUnroll) {
    uint4 w[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t kr = k0 + u;
      w[u] = load8<true>(gW + (kr < ke ? kr : kb) * p.ldw + (cols > 0 ? col0 : 0), kr < ke ? cols : 0, vecW);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t kr = k0 + u;
      if (kr >= ke) break;
      float fw[8];
      unpack8<T>(w[u], fw);
#pragma unroll
      for (int r = 0; r < kM; ++r) {
        if (tok0 + r >= p.m) break;
        const float a = to_float<T>(__ldg(gA + (tok0 + r) * p.lda + kr));
#pragma unroll
        for (int e = 0; e < kColsPerLane; ++e) acc[r * kColsPerLane + e] = fmaf(a, fw[e], acc[r * kColsPerLane + e]);
      }
    }
  }
  reduce_warps4<kRegs>(acc, sRed, warp, lane);
  if (warp != 0) return;
#pragma unroll
  for (int r = 0; r < kM; ++r)
#pragma unroll
    for (int e = 0; e < kColsPerLane; ++e)
      if (tok0 + r < p.m && e < cols) finish(p, splits, partial, tok0 + r, col0 + e, acc[r * kColsPerLane + e]);
}

template <class T, int kM, int kUnroll>
void launch_shape(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  const dim3 grid(unsigned(g.blocks_n), unsigned(g.splits), unsigned(g.blocks_m));
  n_contiguous_kernel<T, kM, kUnroll><<<grid, kWarps * 32, 0, stream>>>(p, g.splits, g.k_slice, partial);
}

template <class T>
void launch_typed(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  // plan.hpp's v11 geometry: 256 columns per CTA, at least 4 warps × 4 rows of k per step.
  static_assert(32 * kColsPerLane == 256 && kWarps * 4 == 16);
  switch (tokens_per_pass(p.m)) {
    case 1: launch_shape<T, 1, 8>(p, g, partial, stream); break;
    case 4: launch_shape<T, 4, 8>(p, g, partial, stream); break;
    default: launch_shape<T, 8, 4>(p, g, partial, stream); break;
  }
  SOL_LAUNCH_CHECK();
}

}  // namespace

void launch_v11_n_contiguous(const Problem& p, const Geometry& g, float* partial, cudaStream_t stream) {
  if (p.in == DType::f16) launch_typed<__half>(p, g, partial, stream);
  else launch_typed<__nv_bfloat16>(p, g, partial, stream);
}

}  // namespace sol::kernels::gemm::gemv

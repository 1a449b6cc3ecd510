// v06_vectorized: v05 with 16-byte memory operations. Global loads are float4 (one per thread for
// A's 128×8 tile and one for B's 8×128 tile, instead of 4 + 4 scalar loads), and A's tile is
// stored TRANSPOSED in shared memory (sA[k][m]) so that a thread's 8 values of A for one k are
// contiguous: the micro-tile's operands come in as 2 + 2 LDS.128 per k-step instead of 16 LDS.32.
// The C tile is written with float4 stores. Rows must be 16-byte aligned for float4: where a row
// pitch is not a multiple of 4 floats or a vector crosses the matrix edge, load4/store_c4 fall
// back to guarded scalar accesses, so every shape stays valid (k = 1023 takes the scalar path for
// A everywhere).
// Expected bottleneck: FMA issue starts to dominate (4 LDS.128 per 64 FFMA), but the block still
// stalls on global latency at each of its two __syncthreads per k-step (no prefetch), the
// transposed stores are 2-way bank conflicted and sB's float4 reads 2-way conflicted. Expect
// ~38–44 TFLOP/s, ~75–85 % of cuBLAS.
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr int kTileM = 128, kTileN = 128, kTileK = 8, kMicro = 8;
constexpr int kThreads = (kTileM / kMicro) * (kTileN / kMicro);  // 256
static_assert(kTileM * kTileK / 4 == kThreads && kTileK * kTileN / 4 == kThreads, "one float4 of A and of B per thread");

__global__ void __launch_bounds__(kThreads) vectorized_kernel(GemmArgs g) {
  __shared__ __align__(16) float sA[kTileK][kTileM];  // transposed: sA[k][m]
  __shared__ __align__(16) float sB[kTileK][kTileN];
  const TileOrigin tile = tile_origin(g, kTileM, kTileN);
  const int row0 = tile.row0, col0 = tile.col0;
  const int tid = int(threadIdx.x);
  const int t_row = tid / (kTileN / kMicro), t_col = tid % (kTileN / kMicro);
  const int a_row = tid / (kTileK / 4), a_col = tid % (kTileK / 4) * 4;  // 2 threads per A row
  const int b_row = tid / (kTileN / 4), b_col = tid % (kTileN / 4) * 4;  // 32 threads per B row
  float rAcc[kMicro][kMicro] = {};
  for (int k0 = 0; k0 < g.k; k0 += kTileK) {
    const float4 rAv = load4(g.a, g.m, g.k, row0 + a_row, k0 + a_col);
    sA[a_col + 0][a_row] = rAv.x;
    sA[a_col + 1][a_row] = rAv.y;
    sA[a_col + 2][a_row] = rAv.z;
    sA[a_col + 3][a_row] = rAv.w;
    *reinterpret_cast<float4*>(&sB[b_row][b_col]) = load4(g.b, g.k, g.n, k0 + b_row, col0 + b_col);
    __syncthreads();
#pragma unroll
    for (int d = 0; d < kTileK; ++d) {
      float rA[kMicro], rB[kMicro];
      *reinterpret_cast<float4*>(&rA[0]) = *reinterpret_cast<const float4*>(&sA[d][t_row * kMicro]);
      *reinterpret_cast<float4*>(&rA[4]) = *reinterpret_cast<const float4*>(&sA[d][t_row * kMicro + 4]);
      *reinterpret_cast<float4*>(&rB[0]) = *reinterpret_cast<const float4*>(&sB[d][t_col * kMicro]);
      *reinterpret_cast<float4*>(&rB[4]) = *reinterpret_cast<const float4*>(&sB[d][t_col * kMicro + 4]);
      outer_product_8x8(rAcc, rA, rB);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kMicro; ++i) {
    const int row = row0 + t_row * kMicro + i, col = col0 + t_col * kMicro;
    store_c4(g, row, col, make_float4(rAcc[i][0], rAcc[i][1], rAcc[i][2], rAcc[i][3]));
    store_c4(g, row, col + 4, make_float4(rAcc[i][4], rAcc[i][5], rAcc[i][6], rAcc[i][7]));
  }
}

}  // namespace

LaunchInfo v06_vectorized_plan(const GemmArgs& g) {
  return tile_plan(reinterpret_cast<const void*>(vectorized_kernel), g, kTileM, kTileN, kThreads);
}

}  // namespace sol::kernels::gemm::fp32

#pragma once
// The fp32 GEMM ladder's contract, shared by every rung (v01…v08), the Case and the cuBLAS peers:
//   C[m×n] = alpha · A[m×k] · B[k×n] + beta · C[m×n]
// all row-major and contiguous (lda = k, ldb = n, ldc = n), fp32 in, fp32 accumulate, fp32 out.
// beta = 0 means C is not read (BLAS semantics: NaN poison in C must not leak into the result).
// Every kernel takes GemmArgs by value and is launched on a 1-D grid of output tiles, tile
// index = tile_row · tiles_n + tile_col (consecutive blocks share A's row panel in L2), so the
// grid has no 65535 limit in y. Offsets into A, B, C are 64-bit: m·k can exceed 2^31; row and
// column indices are int (the Case caps m, n, k at 2^30). a, b, c are 16-byte aligned (cudaMalloc).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"
#include "sol/gemm_rungs.hpp"

namespace sol::kernels::gemm::fp32 {

struct GemmArgs {
  const float* a = nullptr;  // m × k
  const float* b = nullptr;  // k × n
  float* c = nullptr;        // m × n
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
};

// The first row and column of this block's tile of C (tile index = blockIdx.x, row-major over tiles).
struct TileOrigin {
  int row0, col0;
};
__device__ __forceinline__ TileOrigin tile_origin(const GemmArgs& g, int tile_m, int tile_n) {
  const int tiles_n = (g.n - 1) / tile_n + 1;
  return {int(blockIdx.x / tiles_n) * tile_m, int(blockIdx.x % tiles_n) * tile_n};
}

// v01/v02: one output as a k-loop straight from global memory (no reuse on chip).
__device__ __forceinline__ float dot_from_global(const GemmArgs& g, int row, int col) {
  const float* gArow = g.a + int64_t(row) * g.k;
  float acc = 0.f;
  for (int i = 0; i < g.k; ++i) acc += gArow[i] * g.b[int64_t(i) * g.n + col];
  return acc;
}

// v05–v07: the register outer product of an 8×8 micro-tile, rAcc[i][j] += rA[i]·rB[j].
__device__ __forceinline__ void outer_product_8x8(float (&rAcc)[8][8], const float (&rA)[8], const float (&rB)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) rAcc[i][j] += rA[i] * rB[j];
}

// The epilogue every rung shares: one output element from its accumulated dot product.
__device__ __forceinline__ void store_c(const GemmArgs& g, int64_t at, float acc) {
  g.c[at] = g.beta == 0.f ? g.alpha * acc : g.alpha * acc + g.beta * g.c[at];
}

// A row of 4 outputs starting at (row, col): one 16-byte store where the row is whole and
// aligned (n % 4 == 0 puts every row start on 16 bytes), else guarded scalar stores.
__device__ __forceinline__ void store_c4(const GemmArgs& g, int row, int col, float4 acc) {
  if (row >= g.m) return;
  const int64_t at = int64_t(row) * g.n + col;
  if ((g.n & 3) == 0 && col + 3 < g.n) {
    float4 out = make_float4(g.alpha * acc.x, g.alpha * acc.y, g.alpha * acc.z, g.alpha * acc.w);
    if (g.beta != 0.f) {
      const float4 old = *reinterpret_cast<const float4*>(g.c + at);
      out.x += g.beta * old.x, out.y += g.beta * old.y, out.z += g.beta * old.z, out.w += g.beta * old.w;
    }
    *reinterpret_cast<float4*>(g.c + at) = out;
    return;
  }
  const float v[4] = {acc.x, acc.y, acc.z, acc.w};
  for (int j = 0; j < 4; ++j)
    if (col + j < g.n) store_c(g, at + j, v[j]);
}

// Four consecutive elements of a row-major matrix (rows × cols) from (row, col), zeros outside:
// one 16-byte load where the four lie inside and rows are 16-byte aligned (cols % 4 == 0),
// else guarded scalar loads. This is how the vectorized rungs keep any shape valid.
__device__ __forceinline__ float4 load4(const float* gX, int rows, int cols, int row, int col) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (row >= rows) return v;
  const float* p = gX + int64_t(row) * cols + col;
  if ((cols & 3) == 0 && col + 3 < cols) return *reinterpret_cast<const float4*>(p);
  if (col < cols) v.x = p[0];
  if (col + 1 < cols) v.y = p[1];
  if (col + 2 < cols) v.z = p[2];
  if (col + 3 < cols) v.w = p[3];
  return v;
}

// Element (row, col) of a row-major rows × cols matrix, 0 outside (scalar edge loads).
__device__ __forceinline__ float load1(const float* gX, int rows, int cols, int row, int col) {
  return row < rows && col < cols ? gX[int64_t(row) * cols + col] : 0.f;
}

// Tiles of kTileM × kTileN outputs over C, one block each.
inline LaunchInfo tile_plan(const void* kernel, const GemmArgs& g, int tile_m, int tile_n, int threads) {
  LaunchInfo p;
  const int64_t tiles_m = (int64_t(g.m) + tile_m - 1) / tile_m, tiles_n = (int64_t(g.n) + tile_n - 1) / tile_n;
  p.grid_blocks = blocks_for(tiles_m * tiles_n, 1);
  p.block_threads = threads;
  p.func = p.grid_blocks ? kernel : nullptr;
  return p;
}

// Launches a planned rung: every kernel has the signature __global__ void(GemmArgs).
inline void launch_gemm(const LaunchInfo& p, GemmArgs g, cudaStream_t stream) {
  if (p.grid_blocks == 0) return;
  void* params[] = {&g};
  SOL_CUDA_CHECK(cudaLaunchKernel(p.func, dim3(unsigned(p.grid_blocks)), dim3(unsigned(p.block_threads)), params,
                                  size_t(p.dynamic_smem_bytes), stream));
}

// One plan function per rung of SOL_GEMM_FP32_RUNGS (sol/gemm_rungs.hpp): <name>_plan, defined in
// kernels/gemm/fp32/<name>.cu (the two v08 tiles share one kernel, v08_warptile.cuh).
#define SOL_GEMM_FP32_PLAN(name, ...) LaunchInfo name##_plan(const GemmArgs& g);
SOL_GEMM_FP32_RUNGS(SOL_GEMM_FP32_PLAN)
#undef SOL_GEMM_FP32_PLAN

}  // namespace sol::kernels::gemm::fp32

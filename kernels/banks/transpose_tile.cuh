#pragma once
// The transpose all banks versions share; only Layout — where element (r, c) of the 32×32
// tile lives in shared memory — differs. A block of 32×8 threads moves one tile: each thread
// loads 4 elements of the tile's rows (coalesced along threadIdx.x), then, after a barrier,
// stores 4 elements of the tile's columns (coalesced along threadIdx.x in the output).
// Bank of shared word w is w % 32; the column read at(threadIdx.x, k) is where layouts differ.
#include "kernels/banks/banks.cuh"
#include "kernels/common/check.cuh"

namespace sol::kernels::banks {

inline constexpr int kTile = 32;
inline constexpr int kBlockRows = 8;  // threadIdx.y; each thread handles kTile / kBlockRows elements
static_assert(kTile % kBlockRows == 0, "rows per thread must be whole");

template <class Layout>
__global__ void __launch_bounds__(kTile* kBlockRows) transpose_kernel(const float* __restrict__ gIn,
                                                                       float* __restrict__ gOut, int64_t rows,
                                                                       int64_t cols, int64_t tiles_across) {
  __shared__ float sTile[Layout::kWords];
  const int64_t r0 = int64_t(blockIdx.x) / tiles_across * kTile;  // first input row of this tile
  const int64_t c0 = int64_t(blockIdx.x) % tiles_across * kTile;  // first input column
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
#pragma unroll
  for (int j = 0; j < kTile / kBlockRows; ++j) {
    const int k = ty + j * kBlockRows;
    const int64_t r = r0 + k, c = c0 + tx;
    if (r < rows && c < cols) sTile[Layout::at(k, tx)] = gIn[r * cols + c];
  }
  __syncthreads();
  // Output row c0 + k is input column c0 + k; output column r0 + tx is input row r0 + tx.
#pragma unroll
  for (int j = 0; j < kTile / kBlockRows; ++j) {
    const int k = ty + j * kBlockRows;
    const int64_t out_row = c0 + k, out_col = r0 + tx;
    if (out_row < cols && out_col < rows) gOut[out_row * rows + out_col] = sTile[Layout::at(tx, k)];
  }
}

template <class Layout>
LaunchInfo plan_transpose(int64_t rows, int64_t cols) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  LaunchInfo p;
  if (rows == 0 || cols == 0) return p;
  p.grid_blocks = blocks_for(((rows - 1) / kTile + 1) * ((cols - 1) / kTile + 1), 1);
  p.block_threads = kTile * kBlockRows;
  p.func = reinterpret_cast<const void*>(&transpose_kernel<Layout>);
  return p;
}

template <class Layout>
void transpose(const float* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream) {
  const LaunchInfo p = plan_transpose<Layout>(rows, cols);
  if (p.grid_blocks == 0) return;
  const int64_t tiles_across = (cols - 1) / kTile + 1;
  transpose_kernel<Layout><<<unsigned(p.grid_blocks), dim3(kTile, kBlockRows), 0, stream>>>(gIn, gOut, rows, cols, tiles_across);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::banks

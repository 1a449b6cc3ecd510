#pragma once
// bf16 transpose out[c, r] = in[r, c] with row pitches, for the backward GEMMs: the tensor-core
// GEMM is TN only (C = A·Bᵀ, k contiguous in both), so dX = dY·W needs Wᵀ and dW = dYᵀ·X needs
// dYᵀ and Xᵀ as operands. NN / NT GEMM layouts would read these straight from the forward's
// tensors and remove every call of this kernel (lecture §7: a layout that fits the consumer).
// A block of 32×8 threads moves one 32×32 tile through shared memory (kernels/banks' idea):
// loads coalesced along the input row, stores coalesced along the output row. The tile's row
// pitch is 34 bf16 = 17 words: the column read at(tx, k) hits word tx·17 + k/2, 32 distinct banks
// (17 is odd), where an unpadded 32-element row (16 words) would put 16 lanes on one bank pair.
// Expected bottleneck: HBM, 2 bytes read + 2 written per element (8 MiB at T=2048, d=1024:
// ~2.5 µs at 3.4 TB/s) — noticeable beside a 1024-wide GEMM of ~10 µs.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"

namespace sol::kernels::transformer {

inline constexpr int kTransposeTile = 32;
inline constexpr int kTransposeRows = 8;  // threadIdx.y; a thread moves 4 elements each way
inline constexpr int kTransposePitch = kTransposeTile + 2;

// in: rows × cols with pitch ld_in; out: cols × rows with pitch ld_out (elements). A template (on
// the 2-byte element type) so that the header may be included by more than one .cu file.
template <class T>
__global__ void __launch_bounds__(kTransposeTile* kTransposeRows)
    transpose_bf16_kernel(const T* __restrict__ gIn, int64_t ld_in, T* __restrict__ gOut, int64_t ld_out, int64_t rows,
                          int64_t cols, int64_t tiles_across) {
  static_assert(sizeof(T) == 2, "the tile's padding is chosen for 2-byte elements");
  __shared__ T sTile[kTransposeTile][kTransposePitch];
  const int64_t r0 = int64_t(blockIdx.x) / tiles_across * kTransposeTile;
  const int64_t c0 = int64_t(blockIdx.x) % tiles_across * kTransposeTile;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
#pragma unroll
  for (int j = 0; j < kTransposeTile / kTransposeRows; ++j) {
    const int k = ty + j * kTransposeRows;
    const int64_t r = r0 + k, c = c0 + tx;
    if (r < rows && c < cols) sTile[k][tx] = gIn[r * ld_in + c];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kTransposeTile / kTransposeRows; ++j) {
    const int k = ty + j * kTransposeRows;
    const int64_t out_row = c0 + k, out_col = r0 + tx;  // output (c, r) = input (r, c)
    if (out_row < cols && out_col < rows) gOut[out_row * ld_out + out_col] = sTile[tx][k];
  }
}

inline void transpose_bf16(const __nv_bfloat16* gIn, int64_t ld_in, __nv_bfloat16* gOut, int64_t ld_out, int64_t rows,
                           int64_t cols, cudaStream_t stream) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  if (rows == 0 || cols == 0) return;
  const int64_t tiles_across = (cols - 1) / kTransposeTile + 1;
  const int64_t blocks = blocks_for(((rows - 1) / kTransposeTile + 1) * tiles_across, 1);
  transpose_bf16_kernel<__nv_bfloat16><<<unsigned(blocks), dim3(kTransposeTile, kTransposeRows), 0, stream>>>(gIn, ld_in, gOut, ld_out,
                                                                                              rows, cols, tiles_across);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::transformer

// coalescing v01 — row per thread (the lecture's "wrong" indexing): thread r sums row r, so at
// step k the 32 lanes of a warp read A[r·cols + k] for 32 consecutive r: addresses cols·4 bytes
// apart, 32 different sectors per warp request, 4 useful bytes in each 32-byte sector.
// Expected bottleneck: the memory pipeline, not HBM bytes: each request costs 32 sector
// lookups instead of 4 (8×); whether HBM traffic also grows 8× depends on L1 keeping each
// row's sector for the next 7 values of k. HBM bytes at best = the whole of A once (4 B/element).
// With one thread per row there are only `rows` threads (16384: ~4 warps per SM), so latency
// also shows. Compare with v02 at the same shape.
#include "kernels/coalescing/coalescing.cuh"

namespace sol::kernels::coalescing {
namespace {

constexpr int kThreads = kSumThreads;  // 128 rather than 256: twice the blocks for the same few threads

__global__ void __launch_bounds__(kThreads) row_sum_kernel(const float* __restrict__ gA, float* __restrict__ gOut,
                                                           int64_t rows, int64_t cols) {
  const int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* gRow = gA + row * cols;
  float acc = 0.0f;
#pragma unroll kSumUnroll
  for (int64_t k = 0; k < cols; ++k) acc += gRow[k];
  gOut[row] = acc;
}

}  // namespace

LaunchInfo v01_row_per_thread_plan(int64_t rows, int64_t cols) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  return plan_1d(row_sum_kernel, rows, kThreads, kThreads);
}

void v01_row_per_thread(const float* gA, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_1d(v01_row_per_thread_plan(rows, cols), row_sum_kernel, stream, gA, gOut, rows, cols);
}

}  // namespace sol::kernels::coalescing

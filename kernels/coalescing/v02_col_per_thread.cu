// coalescing v02 — column per thread (the lecture's "right" indexing): thread c sums column c,
// so at step k the 32 lanes read A[k·cols + c] for 32 consecutive c: 128 contiguous bytes,
// 4 fully used sectors per warp request.
// What changed: only which index threadIdx.x maps to (and so which axis is summed; the
// reference follows). Same FLOPs, same bytes, same number of threads as v01.
// Expected bottleneck: HBM at 4 B/element read, but only `cols` threads each with kSumUnroll
// loads in flight (16384 columns: 16384 × 16 × 4 B = 1 MiB, near the ≈ 1.4 MB Little's law asks
// for on H200) — expect well above v01, below the copy ceiling.
#include "kernels/coalescing/coalescing.cuh"

namespace sol::kernels::coalescing {
namespace {

constexpr int kThreads = kSumThreads;  // as v01, so that the two differ only in the access order

__global__ void __launch_bounds__(kThreads) col_sum_kernel(const float* __restrict__ gA, float* __restrict__ gOut,
                                                           int64_t rows, int64_t cols) {
  const int64_t col = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float acc = 0.0f;
#pragma unroll kSumUnroll
  for (int64_t k = 0; k < rows; ++k) acc += gA[k * cols + col];
  gOut[col] = acc;
}

}  // namespace

LaunchInfo v02_col_per_thread_plan(int64_t rows, int64_t cols) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  return plan_1d(col_sum_kernel, cols, kThreads, kThreads);
}

void v02_col_per_thread(const float* gA, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_1d(v02_col_per_thread_plan(rows, cols), col_sum_kernel, stream, gA, gOut, rows, cols);
}

}  // namespace sol::kernels::coalescing

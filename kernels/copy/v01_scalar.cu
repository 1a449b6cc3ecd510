// copy v01 — scalar: thread i copies element i with one 4-byte load and one 4-byte store.
// What changed: nothing yet; the baseline.
// Expected bottleneck: HBM at 8 B/element (4 read + 4 written), coalesced (a warp request is
// 32 × 4 B = 128 B = 4 fully used sectors), but each thread has only 4 B in flight: at most
// 2048 threads × 4 B = 8 KiB of loads per SM, while Little's law asks for ≈ 2.4 TB/s of reads ×
// ~600 ns ≈ 1.4 MB ≈ 11 KiB per SM on H200. Expect ~70–85 % of the copy ceiling, short of v03.
#include "kernels/copy/case.hpp"
#include "kernels/copy/copy.cuh"

namespace sol::kernels::copy {
namespace {

constexpr int kThreads = kScalarThreads;

__global__ void __launch_bounds__(kThreads) copy_scalar_kernel(const float* __restrict__ gIn, float* __restrict__ gOut,
                                                               int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) gOut[i] = gIn[i];
}

}  // namespace

LaunchInfo v01_scalar_plan(const float*, const float*, int64_t n) {
  require_count(n, "copy size n");
  return plan_1d(copy_scalar_kernel, n, kThreads, kThreads);
}

void v01_scalar(const float* gIn, float* gOut, int64_t n, cudaStream_t stream) {
  launch_1d(v01_scalar_plan(gIn, gOut, n), copy_scalar_kernel, stream, gIn, gOut, n);
}

}  // namespace sol::kernels::copy

// coalescing v03 — a strided read: out[i] = in[i·stride], fp32 (§12's sectors per request).
// A warp request covers 32 × stride × 4 bytes: stride 1 → 128 B = 4 sectors (all bytes used),
// stride 2 → 8, stride 4 → 16, stride ≥ 8 → 32 sectors with 4 useful bytes in each. DRAM moves
// whole sectors, so the time per useful element should grow with the sectors touched until
// stride 8 and then stay flat (the registry's cost counts those sectors).
// Each thread keeps 4 loads in flight (fixed elements per thread, like copy v03), so that the
// stride, not latency, sets the time. Writes are contiguous at every stride.
#include "kernels/coalescing/coalescing.cuh"

namespace sol::kernels::coalescing {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;

__global__ void __launch_bounds__(kThreads) strided_kernel(const float* __restrict__ gIn, float* __restrict__ gOut,
                                                           int64_t n, int64_t stride) {
  const int64_t first = int64_t(blockIdx.x) * kPerThread * blockDim.x + threadIdx.x;
  float rIn[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int64_t i = first + int64_t(u) * blockDim.x;
    if (i < n) rIn[u] = gIn[i * stride];
  }
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int64_t i = first + int64_t(u) * blockDim.x;
    if (i < n) gOut[i] = rIn[u];
  }
}

}  // namespace

LaunchInfo v03_strided_plan(int64_t n, int64_t stride) {
  require_count(n, "n");
  if (stride < 1) bad_input("stride = " + std::to_string(stride) + " must be ≥ 1");
  return plan_1d(strided_kernel, n, int64_t(kThreads) * kPerThread, kThreads);
}

void v03_strided(const float* gIn, float* gOut, int64_t n, int64_t stride, cudaStream_t stream) {
  launch_1d(v03_strided_plan(n, stride), strided_kernel, stream, gIn, gOut, n, stride);
}

}  // namespace sol::kernels::coalescing

// divergence v01 — a warp split `ways` ways: lane l takes path l % ways; each path is the same
// chain of kChainFmas fp32 FMAs (with its own constant), so every thread does the same useful
// work at every ways. SIMT runs the paths one after another with the other lanes masked:
// expected time ≈ ways × the ways = 1 time, i.e. useful FLOP/s falls to 1/ways of the
// fp32 vector peak (the lecture's worst case: 32 ways, 1/32).
// The paths are written as a loop over p with a guard `path == p`: exactly what the hardware
// does for a k-way branch. (A switch with k literal cases would let the compiler merge the
// identical bodies into one — the divergence would vanish from the machine code.)
// Expected bottleneck: the FP32 pipe; memory is 8 B per thread, negligible.
#include "kernels/divergence/divergence.cuh"

namespace sol::kernels::divergence {
namespace {

__global__ void __launch_bounds__(kThreadsPerBlock) warp_split_kernel(const float* __restrict__ gX,
                                                                      float* __restrict__ gY, int64_t threads,
                                                                      int ways, float a, float c0) {
  const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const int path = int(threadIdx.x % 32) % ways;
  float x = gX[t];
  for (int p = 0; p < ways; ++p) {
    if (path == p) {
      const float c = c0 + float(p);
#pragma unroll 16
      for (int i = 0; i < kChainFmas; ++i) x = fmaf(x, a, c);
    }
  }
  gY[t] = x;
}

}  // namespace

LaunchInfo v01_warp_split_plan(int64_t threads) {
  require_count(threads, "threads");
  return plan_1d(warp_split_kernel, threads, kThreadsPerBlock, kThreadsPerBlock);
}

void v01_warp_split(const float* gX, float* gY, int64_t threads, int ways, cudaStream_t stream) {
  if (ways < 1 || ways > 32) bad_input("ways = " + std::to_string(ways) + " is out of range", "use 1 ≤ ways ≤ 32");
  // a = 1 and c0 = 1 travel as kernel arguments so that the compiler cannot fold the chain.
  launch_1d(v01_warp_split_plan(threads), warp_split_kernel, stream, gX, gY, threads, ways, 1.0f, 1.0f);
}

}  // namespace sol::kernels::divergence

#pragma once
// The loop of divergence v02/v03: thread t runs base + rank(t)·spread FMAs x ← x·a + c. Only
// rank differs between the versions: the lane index (lanes of a warp disagree) or the warp
// index (they agree). A warp retires when its longest lane does.
#include "kernels/common/launch.cuh"
#include "kernels/divergence/divergence.cuh"

namespace sol::kernels::divergence {

template <class Rank>
__global__ void __launch_bounds__(kThreadsPerBlock) trip_loop_kernel(const float* __restrict__ gX,
                                                                     float* __restrict__ gY, int64_t threads,
                                                                     int64_t base, int64_t spread, float a, float c) {
  const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const int64_t trips = base + Rank{}(t) * spread;
  float x = gX[t];
#pragma unroll 4
  for (int64_t i = 0; i < trips; ++i) x = fmaf(x, a, c);
  gY[t] = x;
}

template <class Rank>
LaunchInfo plan_trip_loop(int64_t threads) {
  require_count(threads, "threads");
  return plan_1d(trip_loop_kernel<Rank>, threads, kThreadsPerBlock, kThreadsPerBlock);
}

template <class Rank>
void trip_loop(const float* gX, float* gY, int64_t threads, int64_t base, int64_t spread, cudaStream_t stream) {
  if (base < 0 || spread < 0) bad_input("base and spread must be ≥ 0");
  // a = 1, c = 1 as kernel arguments: the compiler cannot fold the chain into x + trips.
  launch_1d(plan_trip_loop<Rank>(threads), trip_loop_kernel<Rank>, stream, gX, gY, threads, base, spread, 1.0f, 1.0f);
}

}  // namespace sol::kernels::divergence

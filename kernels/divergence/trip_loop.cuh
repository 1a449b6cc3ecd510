#pragma once
// The loop of divergence v02/v03: thread t runs base + rank(t)·spread FMAs x ← x·a + c. Only
// rank differs between the versions: the lane index (lanes of a warp disagree) or the warp
// index (they agree). A warp retires when its longest lane does.
#include "kernels/common/check.cuh"
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
LaunchPlan plan_trip_loop(int64_t threads) {
  require_count(threads, "threads");
  LaunchPlan p;
  p.grid = blocks_for(threads, kThreadsPerBlock);
  p.block = kThreadsPerBlock;
  p.func = p.grid ? reinterpret_cast<const void*>(&trip_loop_kernel<Rank>) : nullptr;
  return p;
}

template <class Rank>
void trip_loop(const float* gX, float* gY, int64_t threads, int64_t base, int64_t spread, cudaStream_t stream) {
  if (base < 0 || spread < 0) bad_input("base and spread must be ≥ 0");
  const LaunchPlan p = plan_trip_loop<Rank>(threads);
  if (p.grid == 0) return;
  // a = 1, c = 1 as kernel arguments: the compiler cannot fold the chain into x + trips.
  trip_loop_kernel<Rank><<<unsigned(p.grid), p.block, 0, stream>>>(gX, gY, threads, base, spread, 1.0f, 1.0f);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::divergence

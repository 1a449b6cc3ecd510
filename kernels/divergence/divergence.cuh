#pragma once
// divergence (§7.1): the one pitfall that is not about memory. A warp's 32 lanes share an
// instruction stream; lanes that take different paths are run one path at a time, the others
// masked off. Both kernels do useful work as an fp32 FMA chain x ← x·a + c with a = 1 and
// integer c, so every result is an exact integer (below 2^24) and can be checked bit for bit.
// Device pointers; x and y hold `threads` elements; asynchronous on `stream`.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"
#include "kernels/divergence/case.hpp"  // kChainFmas

namespace sol::kernels::divergence {

inline constexpr int kThreadsPerBlock = 256;  // a multiple of 32: lane = threadIdx.x % 32

// v01: lane l of every warp takes path p = l % ways (1 ≤ ways ≤ 32) and runs kChainFmas FMAs
// with c = 1 + p:  y[t] = x[t] + kChainFmas·(1 + (t % 32) % ways).
void v01_warp_split(const float* gX, float* gY, int64_t threads, int ways, cudaStream_t stream);
LaunchInfo v01_warp_split_plan(int64_t threads);

// v02: thread t runs base + (t % 32)·spread FMAs with c = 1: the lanes of a warp disagree, the warp
// runs as long as its longest lane.  y[t] = x[t] + trips(t).
void v02_loop_varied(const float* gX, float* gY, int64_t threads, int64_t base, int64_t spread, cudaStream_t stream);
// v03: thread t runs base + ((t / 32) % 32)·spread FMAs: the same trip counts (for threads a
// multiple of 1024) dealt out so that a warp's lanes agree.
void v03_loop_sorted(const float* gX, float* gY, int64_t threads, int64_t base, int64_t spread, cudaStream_t stream);
LaunchInfo v02_loop_varied_plan(int64_t threads);
LaunchInfo v03_loop_sorted_plan(int64_t threads);

}  // namespace sol::kernels::divergence

#pragma once
// Planning and launching a kernel from its LaunchInfo (include/sol/core/launch.hpp): the launcher
// uses the plan it returns, so the doctor (through Case::launch) sees exactly the grid that runs.
// Grids are computed in 64 bits and checked against the hardware limit instead of wrapping.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "kernels/common/check.cuh"
#include "sol/core/error.hpp"
#include "sol/core/launch.hpp"

namespace sol::kernels {

// ceil(work / per_block) blocks; throws sol::Error (BadInput) past gridDim.x's limit (2^31 − 1).
inline int64_t blocks_for(int64_t work, int64_t per_block) {
  if (work <= 0) return 0;
  const int64_t blocks = (work - 1) / per_block + 1;
  if (blocks > std::numeric_limits<int32_t>::max())
    bad_input(std::to_string(work) + " work items need " + std::to_string(blocks) + " blocks, more than gridDim.x allows",
              "split the problem");
  return blocks;
}

// Sizes are signed so that a negative count from a caller is caught, not wrapped.
inline void require_count(int64_t n, const char* what) {
  if (n < 0) bad_input(std::string(what) + " = " + std::to_string(n) + " is negative", "give a size ≥ 0");
}

// A 1-D grid over `work` items, `per_block` of them per block of `threads` threads.
template <class... Params>
LaunchInfo plan_1d(void (*kernel)(Params...), int64_t work, int64_t per_block, int threads) {
  LaunchInfo p;
  p.grid_blocks = blocks_for(work, per_block);
  p.block_threads = threads;
  p.func = p.grid_blocks ? reinterpret_cast<const void*>(kernel) : nullptr;
  return p;
}

// The current device's SM count, asked of the runtime once per device (the first 64 ids) and read
// without a lock after that: the launchers that size persistent grids and splits ask on every launch.
int sm_count();

// Past 48 KiB of dynamic shared memory a kernel needs an opt-in (cudaFuncSetAttribute) before the
// runtime launches it or counts it resident: without it the occupancy query says 0 blocks. A plan
// and its launcher both call this, so a LaunchInfo read before the first launch (the doctor, the
// occupancy test) describes the kernel as it will run. `max_carveout` also asks for the largest
// shared-memory carve-out, `nonportable_cluster` clusters of more than 8 CTAs. Sets the
// attributes once per function and device (they belong to the device's context: a process that
// launches on a second GPU sets them there again), thread-safe.
void opt_in_dynamic_smem(const void* func, int64_t bytes, bool max_carveout = false, bool nonportable_cluster = false);
template <class... Params>
void opt_in_dynamic_smem(void (*kernel)(Params...), int64_t bytes, bool max_carveout = false,
                         bool nonportable_cluster = false) {
  opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes, max_carveout, nonportable_cluster);
}

// Launches `kernel` as planned (nothing for an empty grid) and checks the launch.
template <class... Params, class... Args>
void launch_1d(const LaunchInfo& p, void (*kernel)(Params...), cudaStream_t stream, Args&&... args) {
  if (p.grid_blocks == 0) return;
  kernel<<<unsigned(p.grid_blocks), unsigned(p.block_threads), size_t(p.dynamic_smem_bytes), stream>>>(
      std::forward<Args>(args)...);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels

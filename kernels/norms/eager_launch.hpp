#pragma once
// The launch shapes of the row kernels' eager passes (kernels/norms/rows.cuh, backward.cuh), in a
// header without CUDA: the launchers use them, and so do the specs' declarations of how many loads
// those launches keep in flight (spec.cpp, spec_bwd.cpp; sol/predict.hpp's Little's-law term).
#include <cstdint>

namespace sol::kernels::rows {

// Row groups share blocks of at least this many threads (small groups: several rows to a block).
inline constexpr int kRowMinBlockThreads = 128;
// eager_pass_kernel: a warp per row up to this many columns, a block of kEagerLongThreads beyond.
inline constexpr int64_t kEagerWarpMaxCols = 1024;
inline constexpr int kEagerLongThreads = 512;
// eager_map_kernel: blocks of this many threads in a grid-stride loop over at most
// kEagerMapMaxBlocks of them (a few waves of an H200: 132 SMs × 16).
inline constexpr int kEagerMapThreads = 256;
inline constexpr int64_t kEagerMapMaxBlocks = 132 * 16;
// column_sum_kernel: warps per block; a block adds 32 columns.
inline constexpr int kSumWarps = 32;

}  // namespace sol::kernels::rows

#pragma once
// The launch shapes of the row kernels (kernels/norms/rows.cuh, backward.cuh) in a header without
// CUDA: the launchers use them, and so do the specs' declarations of how those launches wait on
// memory (spec.cpp, spec_bwd.cpp: model::LoadStream, model::Reread; sol/predict.hpp).
#include <cstdint>

namespace sol::kernels::rows {

// Row groups share blocks of at least this many threads (small groups: several rows to a block).
inline constexpr int kRowMinBlockThreads = 128;
// The looped kernel and the eager passes: a warp per row up to this many columns, a block of
// kLongRowThreads per row beyond.
inline constexpr int64_t kWarpRowMaxCols = 1024;
inline constexpr int kLongRowThreads = 512;
// The register kernel's longest row: 1024 threads × 8 vectors of 16 bytes; longer rows, or rows
// whose bytes are not a multiple of 16, go to the looped kernel.
constexpr int64_t register_max_cols(int64_t elem_bytes) { return int64_t(1024) * 8 * (16 / elem_bytes); }
// eager_map_kernel: blocks of this many threads in a grid-stride loop over at most
// kEagerMapMaxBlocks of them (a few waves of an H200: 132 SMs × 16).
inline constexpr int kEagerMapThreads = 256;
inline constexpr int64_t kEagerMapMaxBlocks = 132 * 16;
// column_sum_kernel: warps per block; a block adds 32 columns.
inline constexpr int kSumWarps = 32;

}  // namespace sol::kernels::rows

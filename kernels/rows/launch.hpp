#pragma once
// The launch shapes of the row kernels (kernels/rows/v0*.cuh, backward.cuh) in a header without
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
// With the residual add a thread holds x's and res's vectors at once: rows to 1024 threads × 4
// vectors (32768 bf16 columns; 8 of each would spill under the 1024-thread block's 64 registers).
constexpr int64_t residual_register_max_cols(int64_t elem_bytes) { return int64_t(1024) * 4 * (16 / elem_bytes); }

// How the register kernel spreads a row of nvec 16-byte vectors: every thread holds up to
// kRegisterVecs of them, so that each keeps that many loads in flight whatever the row's length
// (a power-of-two block leaves most threads one or two: 5120 bf16 columns are 640 vectors, one or
// two a thread of 512, four a thread of 160).
//   nvec ≤ 32·kRegisterVecs: a group of `group` lanes, the power of two ≥ nvec / kRegisterVecs
//     (1 … 32), 32 / group rows to a warp (qk-norm's 128 bf16 columns: 16 vectors, 4 lanes);
//   longer: a block per row of `threads` = the whole warps that hold the row at kRegisterVecs a
//     thread, up to 1024; past that 1024 threads at most at 2·kRegisterVecs (register_max_cols).
inline constexpr int kRegisterVecs = 4;
inline constexpr int kWholeBlock = 0;  // RegisterConfig::group of a block per row
struct RegisterConfig {
  int group = kWholeBlock;  // lanes per row (1 … 32), or kWholeBlock
  int threads = 0;          // the block's threads
  int vecs = kRegisterVecs; // vectors a thread holds at most
};
constexpr RegisterConfig register_config(int64_t nvec) {
  RegisterConfig c;
  if (nvec <= 32 * kRegisterVecs) {
    c.group = 1;
    while (int64_t(c.group) * kRegisterVecs < nvec) c.group *= 2;
    c.threads = c.group < kRowMinBlockThreads ? kRowMinBlockThreads : c.group;
    return c;
  }
  const auto warps = [](int64_t vecs, int64_t per) { return (vecs + 32 * per - 1) / (32 * per); };
  if (warps(nvec, kRegisterVecs) <= 32) {
    c.threads = int(32 * warps(nvec, kRegisterVecs));
    return c;
  }
  c.vecs = 2 * kRegisterVecs;
  c.threads = int(32 * warps(nvec, c.vecs));
  return c;
}
// eager_map_kernel: blocks of this many threads in a grid-stride loop over at most
// kEagerMapMaxBlocks of them (a few waves of an H200: 132 SMs × 16).
inline constexpr int kEagerMapThreads = 256;
inline constexpr int64_t kEagerMapMaxBlocks = 132 * 16;
// column_sum_kernel: warps per block; a block adds 32 columns.
inline constexpr int kSumWarps = 32;

}  // namespace sol::kernels::rows

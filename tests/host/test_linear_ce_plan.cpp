// sol::linear_cross_entropy's host half (kernels/api/linear_ce_plan.hpp): the chunk rule on the
// database's H100 and H200, and the workspace layout's arithmetic, without a GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/api/linear_ce_plan.hpp"
#include "kernels/gemm/tc/lt_workspace.hpp"
#include "sol/core/dtype.hpp"
#include "sol/hw/spec.hpp"

namespace {

using namespace sol::kernels::api;
using sol::kernels::gemm::tc::kLtWorkspaceBytes;

ChunkRule rule_on(const char* gpu, const LceShape& s, int64_t requested = 0) {
  const sol::hw::HwSpec& g = sol::hw::find(gpu);
  return lce_chunk_rule(s, requested, g.peak(sol::DType::bf16, sol::hw::Unit::Matrix).flops_per_s, g.hbm_bytes_per_s);
}

TEST(LinearCePlan, TheRidgeChunkIsFourTimesTheFlopPerByteRoundedUpTo128) {
  const LceShape s{.rows = 16384, .hidden = 4096, .vocab = 128256};
  // H100 SXM: 989 TFLOP/s over 3.35 TB/s = 295 FLOP/B → 1181 rows → 1280; H200: 4.8 TB/s → 825 → 896.
  EXPECT_EQ(rule_on("h100", s).ridge, 1280);
  EXPECT_EQ(rule_on("h200", s).ridge, 896);
  EXPECT_EQ(lce_chunk_rule(s, 0, 0, 0).ridge, 128);  // no figures: the smallest tile
}

TEST(LinearCePlan, AtTheHeadlineTheMemoryBoundChoosesWithinOneEighth) {
  for (const char* gpu : {"h100", "h200"}) {
    SCOPED_TRACE(gpu);
    const LceShape s{.rows = 16384, .hidden = 4096, .vocab = 128256};
    const ChunkRule r = rule_on(gpu, s);
    const size_t budget = lce_unfused_bytes(s, kLtWorkspaceBytes) / 8;
    // The most rows within the budget: 1920 fit, 2048 do not (2048 × 128256 × 2 B alone is 1/8 of the logits).
    EXPECT_EQ(r.memory, 1920);
    EXPECT_LE(lce_layout(s, r.memory, kLtWorkspaceBytes).total, budget);
    EXPECT_GT(lce_layout(s, r.memory + kLceChunkAlign, kLtWorkspaceBytes).total, budget);
    EXPECT_EQ(r.chunk, 1920);  // above either ridge; 9 chunks of ⌈16384 / 9⌉ = 1821 → 1920 rows
    EXPECT_EQ(r.chunks, 9);
    EXPECT_FALSE(r.requested);
    // What the call holds against what the unfused path holds: under 1/8.
    EXPECT_LT(double(lce_layout(s, r.chunk, kLtWorkspaceBytes).total) / double(lce_unfused_bytes(s, kLtWorkspaceBytes)),
              0.125);
  }
}

TEST(LinearCePlan, FewRowsTakeTheRidgeSpreadEvenly) {
  // 4096 rows: 1/8 of the unfused memory holds fewer rows than the ridge; the H100's 1280 rows make
  // 4 chunks, spread as 4 × 1024.
  const LceShape s{.rows = 4096, .hidden = 4096, .vocab = 128256};
  ChunkRule r = rule_on("h100", s);
  EXPECT_LT(r.memory, r.ridge);
  EXPECT_EQ(r.chunk, 1024);
  EXPECT_EQ(r.chunks, 4);
  // Fewer rows than the ridge: one chunk of all of them; a few more: two even chunks.
  r = rule_on("h200", {.rows = 800, .hidden = 64, .vocab = 32000});
  EXPECT_EQ(r.chunk, 800);
  EXPECT_EQ(r.chunks, 1);
  r = rule_on("h200", {.rows = 1000, .hidden = 64, .vocab = 32000});
  EXPECT_EQ(r.chunk, 512);
  EXPECT_EQ(r.chunks, 2);
  r = rule_on("h200", {.rows = 1, .hidden = 64, .vocab = 1});
  EXPECT_EQ(r.chunk, 1);
  EXPECT_EQ(r.chunks, 1);
  EXPECT_EQ(r.memory, 0);  // the GEMM workspace alone is over 1/8 of one logit
}

TEST(LinearCePlan, ManyRowsGrowTheChunkWithTheMemoryBound) {
  const LceShape s{.rows = 131072, .hidden = 8192, .vocab = 128256};
  const ChunkRule r = rule_on("h200", s);
  EXPECT_GT(r.memory, 8 * r.ridge);
  EXPECT_LE(r.chunk, r.memory);
  EXPECT_EQ(r.chunk % kLceChunkAlign, 0);
  EXPECT_EQ(r.chunks, (s.rows + r.chunk - 1) / r.chunk);
  EXPECT_LE(lce_layout(s, r.chunk, kLtWorkspaceBytes).total, lce_unfused_bytes(s, kLtWorkspaceBytes) / 8);
}

TEST(LinearCePlan, TheCallersChunkIsTakenAsGivenUpToTheRows) {
  const LceShape s{.rows = 1000, .hidden = 520, .vocab = 50257};
  ChunkRule r = rule_on("h100", s, 1);
  EXPECT_TRUE(r.requested);
  EXPECT_EQ(r.chunk, 1);
  EXPECT_EQ(r.chunks, 1000);
  r = rule_on("h100", s, 300);
  EXPECT_EQ(r.chunk, 300);
  EXPECT_EQ(r.chunks, 4);
  r = rule_on("h100", s, 5000);
  EXPECT_EQ(r.chunk, 1000);
  EXPECT_EQ(r.chunks, 1);
}

TEST(LinearCePlan, TheLayoutIsAlignedPiecesInOrder) {
  const LceShape s{.rows = 17, .hidden = 520, .vocab = 50257};
  const LceLayout l = lce_layout(s, 7, 1000);
  EXPECT_EQ(l.pitch, 50304);  // 50257 rounded up to 64
  EXPECT_EQ(l.count, 0u);
  EXPECT_EQ(l.loss, 256u);
  EXPECT_EQ(l.row_max, 512u);  // 17 losses: one 256-byte piece
  EXPECT_EQ(l.row_sum, 768u);
  EXPECT_EQ(l.logits, 1024u);
  EXPECT_EQ(l.gemm, 1024u + (7u * 50304u * 2u + 255u) / 256u * 256u);
  EXPECT_EQ(l.total, l.gemm + 1024u);  // 1000 bytes of GEMM workspace, rounded up
  for (size_t off : {l.count, l.loss, l.row_max, l.row_sum, l.logits, l.gemm, l.total}) EXPECT_EQ(off % 256, 0u);
  // The caller keeps the losses: no piece for them.
  const LceLayout kept = lce_layout({.rows = 17, .hidden = 520, .vocab = 50257, .loss_rows_kept = true}, 7, 1000);
  EXPECT_EQ(kept.row_max, 256u);
  EXPECT_EQ(kept.total, l.total - 256u);
  EXPECT_EQ(lce_layout(s, 1, 0).pitch, 50304);
  EXPECT_EQ(lce_layout({.rows = 1, .hidden = 1, .vocab = 1}, 1, 0).pitch, 64);
  EXPECT_EQ(lce_unfused_bytes(s, 1000), 17u * 50257u * 2u + 1000u);
}

}  // namespace

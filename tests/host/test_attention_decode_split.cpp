// The split-KV decode kernel's launch rule (kernels/attention/decode_plan.hpp), without a GPU:
// when it splits the cache and how far, the row blocks of grouped-query heads, the workspace of
// the partials and its device-independent bound, and the keys a window leaves to the splits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/attention/decode_plan.hpp"
#include "sol/core/attention_window.hpp"

using namespace sol::kernels::attention;

namespace {

constexpr int kH200Sms = 132;

std::string text(const DecodeShape& s, int sms) {
  return "b=" + std::to_string(s.b) + ",h=" + std::to_string(s.h) + ",hkv=" + std::to_string(s.hkv) +
         ",n=" + std::to_string(s.n) + ",nk=" + std::to_string(s.nk) + ",d=" + std::to_string(s.d) + " on " +
         std::to_string(sms) + " SMs";
}

int64_t tiles(const DecodeShape& s) { return std::max<int64_t>(1, (s.nk + kDecodeTileKeys - 1) / kDecodeTileKeys); }

}  // namespace

TEST(AttentionDecodeSplit, ResourcesFitTheSm) {
  for (int d : {64, 128})
    for (int slices : {1, 2}) {
      EXPECT_LE(decode_smem_bytes(d, slices), 227 * 1024) << d << " " << slices;
      EXPECT_GE(decode_ctas_per_sm(d, slices), 1);
    }
  EXPECT_EQ(decode_ctas_per_sm(128, 1), 2);  // 100 KiB of stages and Q: two CTAs in 228 KiB
  EXPECT_EQ(decode_ctas_per_sm(128, 2), 2);
  EXPECT_EQ(decode_ctas_per_sm(64, 2), 2);   // the launch bound, not shared memory, limits d = 64
  EXPECT_EQ(decode_row_tile(1), 16);
  EXPECT_EQ(decode_row_tile(2), 32);
}

// The shapes of the measured problems: the split count is what one wave of the H200 holds.
TEST(AttentionDecodeSplit, FillsOneWaveOfTheH200) {
  // b=2, h=16, 4096 keys: 32 CTAs unsplit, 264 slots → 8 splits of 512 keys.
  DecodeSplit p = decode_split({2, 16, 16, 1, 4096, 128}, kH200Sms);
  EXPECT_EQ(p.rows, 1);
  EXPECT_EQ(p.slices, 1);
  EXPECT_EQ(p.row_blocks, 1);
  EXPECT_EQ(p.splits, 8);
  EXPECT_EQ(p.keys_per_split, 512);
  // Llama-3-8B decode (b=8, 32 query heads on 8 KV heads, 32k cache): 4 query heads share each KV
  // head's rows; 64 CTAs × 4 splits = 256 ≤ 264, where 5 splits would need a second wave.
  p = decode_split({8, 32, 8, 1, 32768, 128}, kH200Sms);
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.row_blocks, 1);
  EXPECT_EQ(p.splits, 4);
  EXPECT_EQ(p.keys_per_split, 8192);
  // 16 speculative tokens × 4 heads = 64 rows: two blocks of 32 rows.
  p = decode_split({8, 32, 8, 16, 32768, 128}, kH200Sms);
  EXPECT_EQ(p.rows, 64);
  EXPECT_EQ(p.slices, 2);
  EXPECT_EQ(p.row_blocks, 2);
  EXPECT_EQ(p.splits, 2);
}

TEST(AttentionDecodeSplit, NoSplitWhenTheBatchFillsTheGpu) {
  const DecodeShape s{64, 32, 8, 1, 8192, 128};  // 512 CTAs unsplit
  const DecodeSplit p = decode_split(s, kH200Sms);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.keys_per_split, 8192);
  EXPECT_EQ(decode_workspace_bytes(s, p), 0u);  // one split writes O and LSE itself
  // One key: one tile, never split, whatever the GPU.
  EXPECT_EQ(decode_split({1, 1, 1, 1, 1, 64}, kH200Sms).splits, 1);
  EXPECT_EQ(decode_workspace_bound({1, 1, 1, 1, 1, 64}), 0u);
}

TEST(AttentionDecodeSplit, WorkspaceHoldsThePartials) {
  const DecodeShape s{2, 16, 16, 1, 4096, 128};
  const DecodeSplit p = decode_split(s, kH200Sms);
  // 8 splits × 32 rows × 128 fp32 = 131072 bytes of O, then 8 × 32 fp32 = 1024 of LSE.
  EXPECT_EQ(decode_partial_lse_offset(s, p), 131072u);
  EXPECT_EQ(decode_workspace_bytes(s, p), 131072u + 1024u);
  const DecodeShape odd{1, 3, 1, 5, 1000, 64};  // 15 rows × 64: not a multiple of 256 bytes
  const DecodeSplit q = decode_split(odd, kH200Sms);
  ASSERT_GT(q.splits, 1);
  const size_t rows = size_t(q.splits) * 15;
  EXPECT_EQ(decode_partial_lse_offset(odd, q), (rows * 64 * 4 + 255) / 256 * 256);
  EXPECT_EQ(decode_workspace_bytes(odd, q), decode_partial_lse_offset(odd, q) + (rows * 4 + 255) / 256 * 256);
}

// Over many shapes and SM counts: every split non-empty and within the cache, whole tiles, one
// wave at most (unless the unsplit grid is larger), more SMs never fewer splits, and the bound the
// workspace query returns covers every device.
TEST(AttentionDecodeSplit, RuleInvariants) {
  const DecodeShape shapes[] = {{1, 1, 1, 1, 1, 64},         {1, 8, 1, 1, 4097, 128},   {2, 8, 2, 7, 1000, 64},
                                {1, 8, 1, 16, 4097, 128},    {3, 32, 4, 16, 333, 64},   {1, 2, 2, 16, 5, 128},
                                {1, 32, 8, 1, 131072, 128},  {8, 32, 8, 8, 32768, 128}, {64, 32, 8, 1, 1024, 128},
                                {1, 64, 1, 16, 65, 64},      {5, 28, 4, 3, 8191, 128},  {1, 1, 1, 1, 64, 128}};
  for (const DecodeShape& s : shapes) {
    const size_t bound = decode_workspace_bound(s);
    int64_t last_splits = 0;
    for (int sms : {1, 2, 7, 46, 80, 108, 132, 144, 256, 1000}) {
      SCOPED_TRACE(text(s, sms));
      const DecodeSplit p = decode_split(s, sms);
      EXPECT_EQ(p.rows, s.n * (s.h / s.hkv));
      EXPECT_EQ(p.slices, p.rows <= 16 ? 1 : 2);
      EXPECT_EQ(p.row_blocks, (p.rows + decode_row_tile(p.slices) - 1) / decode_row_tile(p.slices));
      EXPECT_GE(p.splits, 1);
      EXPECT_LE(p.splits, tiles(s));
      EXPECT_EQ(p.keys_per_split % kDecodeTileKeys, 0);
      EXPECT_GE(p.splits * p.keys_per_split, s.nk);              // every key in a split
      EXPECT_LT((p.splits - 1) * p.keys_per_split, std::max<int64_t>(s.nk, 1));  // no empty split
      const int64_t base = s.b * s.hkv * p.row_blocks;
      const int64_t wave = int64_t(std::clamp(sms, 1, kDecodeMaxSms)) * decode_ctas_per_sm(s.d, p.slices);
      EXPECT_LE(base * p.splits, std::max(base, wave));
      EXPECT_GE(p.splits, last_splits);
      last_splits = p.splits;
      EXPECT_LE(decode_workspace_bytes(s, p), bound);
    }
  }
}

// Under a window the splits cover decode_keys(n, nk, left, right) keys from the sequence's first
// visible key (row 0's first, sol/core/attention_window.hpp): every key any row of a sequence of
// any length ≤ nk sees lies in that range, and the bound is the window's whole span when it binds.
TEST(AttentionDecodeSplit, WindowKeysHoldEveryVisibleKey) {
  for (int64_t n = 1; n <= 16; n += 3)
    for (int64_t nk = 1; nk <= 40; nk += 3)
      for (int64_t left = -1; left <= 12; ++left)
        for (int64_t right = -1; right <= 4; ++right) {
          const int64_t keys = decode_keys(n, nk, left, right);
          EXPECT_LE(keys, nk);
          if (left >= 0 && right >= 0) {
            EXPECT_EQ(keys, std::min(nk, n + left + right));
          } else {
            EXPECT_EQ(keys, nk);
          }
          for (int64_t len = 0; len <= nk; ++len) {
            const sol::KeyWindow<int64_t> w = sol::key_window<int64_t>(n, len, left, right);
            const int64_t first = std::max<int64_t>(0, w.first(0));
            for (int64_t i = 0; i < n; ++i)
              for (int64_t j = 0; j < len; ++j) {
                if (!w.sees(i, j)) continue;
                ASSERT_TRUE(j >= first && j < first + keys)
                    << "n=" << n << " nk=" << nk << " len=" << len << " window (" << left << ", " << right << ") row "
                    << i << " key " << j;
              }
          }
        }
}

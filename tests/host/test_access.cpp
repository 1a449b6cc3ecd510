// The access-pattern models on the lecture's figures (§9, §12: 4 sectors for contiguous fp32, 32
// fully scattered; §7.1: k paths cost k×) and on cases counted by hand; then each prediction beside
// the committed H200 measurements of the memory-lesson kernels.
#include <gtest/gtest.h>

#include <string>

#include "sol/core/error.hpp"
#include "sol/model/access.hpp"
#include "sol/report/access.hpp"
#include "sol/results.hpp"

using namespace sol;
using namespace sol::model;
using sol::report::against_markdown;
using sol::report::predict_against;

TEST(Coalescing, LectureSectorsPerRequest) {
  const Coalescing contiguous = coalescing(4, 1);  // 32 × 4 B = 128 B = 4 sectors, all used
  EXPECT_EQ(contiguous.sectors, 4);
  EXPECT_EQ(contiguous.lines, 1);
  EXPECT_DOUBLE_EQ(contiguous.efficiency, 1.0);
  const Coalescing scattered = coalescing(4, 1024);  // one sector per lane, 4 of its 32 B used
  EXPECT_EQ(scattered.sectors, 32);
  EXPECT_EQ(scattered.lines, 32);
  EXPECT_DOUBLE_EQ(scattered.efficiency, 4.0 / 32);
  // Stride 2 spans 256 B = 8 sectors, half used; stride 8 already reaches one sector per lane.
  EXPECT_EQ(coalescing(4, 2).sectors, 8);
  EXPECT_DOUBLE_EQ(coalescing(4, 2).efficiency, 0.5);
  EXPECT_EQ(coalescing(4, 4).sectors, 16);
  EXPECT_EQ(coalescing(4, 8).sectors, 32);
}

TEST(Coalescing, ElementSizeOffsetAndGranule) {
  EXPECT_EQ(coalescing(8, 1).sectors, 8);     // 256 B
  EXPECT_EQ(coalescing(16, 1).sectors, 16);   // 512 B
  EXPECT_EQ(coalescing(2, 1).sectors, 2);     // 64 B
  EXPECT_EQ(coalescing(4, 1, 32, 4).sectors, 5);  // 4 bytes off: 128 B straddle 5 sectors
  EXPECT_EQ(coalescing(4, 1, 32, 4).lines, 2);
  EXPECT_EQ(coalescing(4, 1, 16).sectors, 2);     // half a warp
  EXPECT_EQ(coalescing(4, 0).sectors, 1);         // every lane on one word
  EXPECT_EQ(coalescing(4, 0).useful_bytes, 4);
  // DRAM in 64-byte granules: stride 16 puts each lane in its own granule (32 × 64 B), stride 8 pairs them.
  EXPECT_EQ(coalescing(4, 16).dram_bytes, 32 * 64);
  EXPECT_EQ(coalescing(4, 8).dram_bytes, 16 * 64);
  EXPECT_EQ(coalescing(4, 8, 32, 0, 32).dram_bytes, 32 * 32);
  // Explicit addresses: lanes 0..31 reversed are still 4 sectors.
  std::vector<int64_t> reversed;
  for (int i = 31; i >= 0; --i) reversed.push_back(4 * i);
  EXPECT_EQ(coalescing_addresses(reversed, 4).sectors, 4);
  EXPECT_THROW(coalescing(3, 1), Error);
  EXPECT_THROW(coalescing(4, -1), Error);
  EXPECT_THROW(coalescing(4, 1, 33), Error);
  EXPECT_THROW(coalescing(4, 1, 32, 0, 48), Error);
  EXPECT_THROW(coalescing_addresses({}, 4), Error);
  EXPECT_THROW(coalescing_addresses({-4}, 4), Error);
}

TEST(Banks, StridesAndBroadcast) {
  auto degree = [](int64_t elem, int64_t stride) { return bank_conflicts({elem, stride, 0, 0, false, 32}).degree; };
  EXPECT_EQ(degree(4, 1), 1);
  EXPECT_EQ(degree(4, 2), 2);    // lanes i and i+16 share a bank
  EXPECT_EQ(degree(4, 4), 4);
  EXPECT_EQ(degree(4, 32), 32);  // every lane in bank 0
  EXPECT_EQ(degree(4, 33), 1);   // odd strides are conflict-free
  EXPECT_EQ(degree(4, 3), 1);
  const BankConflict b = bank_conflicts({4, 0, 0, 0, false, 32});  // all lanes, one word
  EXPECT_EQ(b.degree, 1);
  EXPECT_TRUE(b.broadcast);
  // 2-byte elements: two lanes per word, one wavefront; 8-byte: two phases of 16 lanes, each clean.
  EXPECT_EQ(degree(2, 1), 1);
  EXPECT_EQ(degree(2, 2), 1);
  EXPECT_EQ(degree(2, 64), 32);
  const BankConflict f64 = bank_conflicts({8, 1, 0, 0, false, 32});
  EXPECT_EQ(f64.phases, 2);
  EXPECT_EQ(f64.degree, 1);
  EXPECT_EQ(degree(8, 2), 2);    // 16 lanes 16 B apart: words 4i, 4i+1 → banks repeat every 8 lanes
  EXPECT_EQ(bank_conflicts({16, 1, 0, 0, false, 32}).phases, 4);
  EXPECT_EQ(degree(16, 1), 1);
  // Two lanes on the same word and others elsewhere in the bank: the shared word is one wavefront.
  std::vector<int64_t> a(32);
  for (int i = 0; i < 32; ++i) a[i] = 4 * i;
  a[1] = 0;       // lane 1 joins lane 0's word: a broadcast, no conflict
  a[2] = 128;     // lane 2 moves to bank 0, a different word: 2-way
  EXPECT_EQ(bank_conflicts_addresses(a, 4).degree, 2);
}

TEST(Banks, TileColumnReadPaddingAndSwizzle) {
  // Reading a column of float tile[32][32]: lane i at i·32 words → all bank 0.
  EXPECT_EQ(bank_conflicts({4, 32, 32, 0, false, 32}).degree, 32);
  // tile[32][33]: lane i at i·33 words → bank i.
  EXPECT_EQ(bank_conflicts({4, 32, 32, 1, false, 32}).degree, 1);
  // Column XOR row: lane i at i·32 + i → bank i.
  EXPECT_EQ(bank_conflicts({4, 32, 32, 0, true, 32}).degree, 1);
  // Row reads stay clean with either fix.
  EXPECT_EQ(bank_conflicts({4, 1, 32, 1, false, 32}).degree, 1);
  EXPECT_EQ(bank_conflicts({4, 1, 32, 0, true, 32}).degree, 1);
  // A bf16 tile[32][64] column: lane i at i·64 halves = i·32 words → 32-way; pad 2 halves → 1.
  EXPECT_EQ(bank_conflicts({2, 64, 64, 0, false, 32}).degree, 32);
  EXPECT_EQ(bank_conflicts({2, 64, 64, 2, false, 32}).degree, 1);
  EXPECT_THROW(bank_conflicts({4, 32, 24, 0, true, 32}), Error);   // swizzle needs 2^k
  EXPECT_THROW(bank_conflicts({4, 32, 0, 1, false, 32}), Error);   // pad without a row
  EXPECT_THROW(bank_conflicts({6, 1, 0, 0, false, 32}), Error);
  EXPECT_THROW(bank_conflicts_addresses({2}, 4), Error);           // misaligned
}

TEST(Divergence, PathsAndLoops) {
  EXPECT_DOUBLE_EQ(divergent_paths(1).efficiency, 1.0);
  EXPECT_DOUBLE_EQ(divergent_paths(2).efficiency, 0.5);
  EXPECT_NEAR(divergent_paths(3).efficiency, 1.0 / 3, 1e-12);  // 11 + 11 + 10 lanes, equal lengths
  EXPECT_DOUBLE_EQ(divergent_paths(32).slowdown, 32.0);
  // 16 lanes on a 10-step path, 16 on a 30-step one: 40 issued, (16·10 + 16·30)/32 = 20 useful.
  const Divergence uneven = divergent_paths({16, 16}, {10, 30});
  EXPECT_DOUBLE_EQ(uneven.issued, 40);
  EXPECT_DOUBLE_EQ(uneven.efficiency, 0.5);
  // A path no lane takes costs nothing.
  EXPECT_DOUBLE_EQ(divergent_paths({32, 0}, {10, 1000}).efficiency, 1.0);
  // Lane i loops 64 + 32i: max 1056, mean 560.
  const Divergence loop = loop_linear(64, 32);
  EXPECT_DOUBLE_EQ(loop.issued, 1056);
  EXPECT_DOUBLE_EQ(loop.useful, 560);
  EXPECT_DOUBLE_EQ(loop_linear(64, 0).efficiency, 1.0);
  EXPECT_NEAR(loop_linear(0, 1000000).efficiency, 15.5 / 31, 1e-12);  // → ½ when spread ≫ base
  EXPECT_DOUBLE_EQ(loop_trips({1, 3}).efficiency, 2.0 / 3);
  EXPECT_THROW(divergent_paths(0), Error);
  EXPECT_THROW(divergent_paths(33), Error);
  EXPECT_THROW(divergent_paths({16}, {1, 2}), Error);
  EXPECT_THROW(loop_trips({0, 0}), Error);
  EXPECT_THROW(loop_trips({-1, 2}), Error);
  EXPECT_THROW(loop_linear(-1, 2), Error);
}

// ---- the committed H200 measurements ----------------------------------------------------------
namespace {
results::File h200(const std::string& family) {
  return results::read(std::string(SOL_SOURCE_DIR) + "/bench/results/h200/" + family + ".json");
}
}  // namespace

TEST(AccessAgainstH200, StridedReadFollowsTheDramGranule) {
  const auto rows = predict_against(h200("coalescing"));
  int strided = 0, pairs = 0;
  for (const auto& r : rows) {
    if (r.compared.rfind("v03_strided", 0) == 0) {
      ++strided;
      // Counted by hand per warp (read + 128 B write) over stride 1's 128 + 128 B:
      // 32-B sectors: stride 2 → 384/256, 4 → 640/256, ≥8 → 1152/256; 64-B granules: ≥16 → 2176/256.
      EXPECT_GT(r.predicted, 1.0);
      EXPECT_LE(r.predicted, 1152.0 / 256);
      EXPECT_LE(r.predicted_alt, 2176.0 / 256);
      // The DRAM-granule account is within 15 % of the measurement at every stride.
      EXPECT_NEAR(r.measured / r.predicted_alt, 1.0, 0.15) << r.compared;
    } else {
      ++pairs;
      EXPECT_DOUBLE_EQ(r.predicted, 8.0);  // 32 sectors against 4 per request
      EXPECT_DOUBLE_EQ(r.predicted_alt, 1.0);
      // L1 reuse: the measured gap is near the DRAM account, far below the per-request one.
      EXPECT_LT(r.measured, 2.5) << r.compared;
    }
  }
  EXPECT_EQ(strided, 5);
  EXPECT_EQ(pairs, 5);
}

TEST(AccessAgainstH200, BankConflictsAndDivergence) {
  const auto banks = predict_against(h200("banks"));
  EXPECT_EQ(banks.size(), 10u);  // 5 shapes × (padded, swizzled)
  for (const auto& r : banks) {
    EXPECT_GT(r.predicted, 1.5) << r.compared;
    // 16383×16385: rows start off 32-byte boundaries and tiles are partial; the fixed kernels lose
    // time the bank model does not see, so the measured gap is smaller (docs/access.md says so).
    if (r.compared.find("16385") != std::string::npos) {
      EXPECT_LT(r.measured, r.predicted) << r.compared;
      continue;
    }
    EXPECT_NEAR(r.measured / r.predicted, 1.0, 0.15) << r.compared;
  }
  const auto div = predict_against(h200("divergence"));
  int ways = 0;
  for (const auto& r : div) {
    if (r.compared.rfind("v01_warp_split", 0) == 0) ++ways;
    EXPECT_NEAR(r.measured / r.predicted, 1.0, 0.12) << r.compared;
  }
  EXPECT_EQ(ways, 5);
  EXPECT_EQ(div.size(), 8u);  // + 3 spreads > 0
  EXPECT_THROW(predict_against(h200("copy")), Error);
  const std::string md = against_markdown(div);
  EXPECT_NE(md.find("| divergence | v01_warp_split ways=32 vs ways=1 |"), std::string::npos) << md;
}

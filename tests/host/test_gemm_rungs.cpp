// The GEMM ladders' one table (sol/gemm_rungs.hpp): the registry lists exactly its rungs, with its
// names, versions and techniques, and a technique that states a depth or a stage count states
// the table's.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "sol/gemm_rungs.hpp"
#include "sol/registry.hpp"

namespace {

using sol::gemm_rungs::Fp32Rung;
using sol::gemm_rungs::kFp32Rungs;
using sol::gemm_rungs::kHopperWide;
using sol::gemm_rungs::kRungs;
using sol::gemm_rungs::tile_choice;

// Whether `text` states `fact` when it states a fact of that kind at all ("BK=" → "BK=16").
bool states(const std::string& text, const std::string& kind, const std::string& fact) {
  return text.find(kind) == std::string::npos || text.find(fact) != std::string::npos;
}

TEST(GemmRungs, TechniquesStateTheTablesTile) {
  for (const Fp32Rung& r : kFp32Rungs) {
    const std::string t(r.technique), name(r.name);
    EXPECT_TRUE(states(t, "BK=", "BK=" + std::to_string(r.tile_k))) << name << ": " << t;
    EXPECT_TRUE(states(t, "-stage", std::to_string(r.stages) + "-stage")) << name << ": " << t;
  }
  for (const auto& r : kRungs) {
    const std::string t(r.technique), name(r.name);
    EXPECT_TRUE(states(t, "-stage", std::to_string(r.tile.stages) + "-stage")) << name << ": " << t;
  }
}

TEST(GemmRungs, V08SplitsKWhereTheKStepsSavedOutweighTheSplitsCost) {
  using sol::gemm_rungs::decomposition;
  using sol::gemm_rungs::kSplitCostKSteps;
  using sol::gemm_rungs::split_k;
  using sol::gemm_rungs::split_k_steps;
  using sol::gemm_rungs::unsplit_k_steps;
  // 128×4096×14336 bf16 (224 k-tiles): 16 wide tiles; unsplit, 64 narrow CTAs run all 224 k-steps
  // at half the work (charged 10 %): 123.2; 8 ways: 28 + 5.
  EXPECT_DOUBLE_EQ(unsplit_k_steps(128, 4096, 224, 132), 224 * 0.5 * 1.1);
  EXPECT_DOUBLE_EQ(split_k_steps(224, 8), 28 + kSplitCostKSteps);
  EXPECT_EQ(split_k(128, 4096, 224, 132), 8);
  EXPECT_EQ(split_k(512, 768, 48, 132), 8);    // 12 tiles, 6 k-tiles a CTA: 11 against 26.4
  // 1024³ (16 k-tiles): 4 ways would save 4.8 k-steps against the narrow tiles' 8.8 and pay 5.
  EXPECT_EQ(split_k(1024, 1024, 16, 132), 1);
  EXPECT_EQ(split_k(1023, 1023, 24, 132), 4);  // 24 k-tiles: 6 + 5 against 13.2
  EXPECT_EQ(split_k(512, 4096, 125, 132), 2);  // 64 tiles: only 2 fit a wave; 63 + 5 against 68.75
  EXPECT_EQ(split_k(512, 4096, 64, 132), 1);   // … which does not pay at 64 k-tiles
  EXPECT_EQ(split_k(1100, 2048, 1000, 132), 1);  // 72 tiles: 2 ways would need 144 CTAs
  EXPECT_EQ(split_k(64, 256, 7, 132), 1);      // 7 k-tiles: a split would leave fewer than 4 a CTA
  EXPECT_EQ(split_k(1, 1, 1 << 20, 132), 8) << "never more than a portable cluster";
  // max_splits caps S: the cheapest split within the cap, 1 for none.
  EXPECT_EQ(split_k(128, 4096, 224, 132, 4), 4);
  EXPECT_EQ(split_k(128, 4096, 224, 132, 1), 1);
  // The decomposition: split where it splits (the wide tile), else the tile rule as before.
  const auto split = decomposition(1023, 1023, 24, 132);
  EXPECT_EQ(split.splits, 4);
  EXPECT_EQ(split.tile.n, kHopperWide.n);
  const auto whole = decomposition(1024, 1024, 16, 132);
  EXPECT_EQ(whole.splits, 1);
  EXPECT_EQ(whole.tile.n, tile_choice(1024, 1024, 132).n);
  EXPECT_EQ(decomposition(2049, 2049, 33, 132).splits, 1);  // 153 wide tiles: no split fits
}

TEST(GemmRungs, V08RunsAForcedTileUnsplit) {
  using sol::gemm_rungs::decomposition;
  using sol::gemm_rungs::hopper_tile;
  using sol::gemm_rungs::kHopperNarrow;
  using sol::gemm_rungs::kHopperSlim;
  EXPECT_EQ(hopper_tile(64), &kHopperSlim);
  EXPECT_EQ(hopper_tile(128), &kHopperNarrow);
  EXPECT_EQ(hopper_tile(256), &kHopperWide);
  EXPECT_EQ(hopper_tile(96), nullptr);
  EXPECT_EQ(hopper_tile(0), nullptr);
  // The rule alone never takes the 64-wide tile; forced, it runs one CTA a tile where the rule
  // would split (128×4096×14336) or take another width.
  for (int64_t m : {1, 128, 1024, 4096})
    for (int64_t n : {64, 1024, 4096})
      EXPECT_NE(decomposition(m, n, 64, 132).tile.n, kHopperSlim.n) << m << "x" << n;
  const auto slim = decomposition(128, 4096, 224, 132, sol::gemm_rungs::kMaxSplitK, 64);
  EXPECT_EQ(slim.tile.n, 64);
  EXPECT_EQ(slim.splits, 1);
  EXPECT_EQ(decomposition(4096, 4096, 64, 132, sol::gemm_rungs::kMaxSplitK, 128).tile.n, 128);
  EXPECT_EQ(decomposition(1024, 1024, 16, 132, sol::gemm_rungs::kMaxSplitK, 96).tile.n,
            decomposition(1024, 1024, 16, 132).tile.n)
      << "a width that is no tile leaves the rule's choice";
  // Each Hopper tile's stages fit the 227 KiB of shared memory beside the two 16 KiB C buffers
  // (kernels/gemm/tc/hopper.cuh's TileN).
  for (const auto* t : {&kHopperWide, &kHopperNarrow, &kHopperSlim}) {
    const int stage = (t->m + t->n) * t->k_bytes;
    EXPECT_LE(t->stages * stage + 2 * 16384 + 1024 + 256, 227 * 1024) << t->n;
    EXPECT_GT((t->stages + 1) * stage + 2 * 16384 + 1024 + 256, 227 * 1024) << t->n << ": room for another stage";
  }
}

TEST(GemmRungs, TheRegistryListsTheTablesRungs) {
  const auto check = [](const std::string& family, const auto& rungs) {
    std::vector<const sol::Variant*> listed;
    // The ladder's rungs; the decode rungs (kernels/gemm/gemv, versions above the ladder's) are
    // declared with their own family of kernels.
    const int last = std::end(rungs)[-1].version;
    for (const sol::Variant* v : sol::select(family))
      if (!v->is_peer() && !v->is_dispatch() && v->version <= last) listed.push_back(v);
    ASSERT_EQ(listed.size(), std::size(rungs)) << family;
    for (size_t i = 0; i < listed.size(); ++i) {
      EXPECT_EQ(listed[i]->name, rungs[i].name) << family;
      EXPECT_EQ(listed[i]->version, rungs[i].version) << family << "/" << listed[i]->name;
      EXPECT_EQ(listed[i]->technique, rungs[i].technique) << family << "/" << listed[i]->name;
    }
  };
  check("gemm_fp32", kFp32Rungs);
  if (!sol::built_with_cuda()) return;  // the tensor-core families are described only with CUDA
  for (const char* f : {"gemm_bf16", "gemm_fp16", "gemm_fp8"}) {
    check(f, kRungs);
    for (const auto& r : kRungs)
      EXPECT_EQ(sol::select(std::string(f) + "/" + std::string(r.name)).front()->max_cc, r.sm90a ? 90 : 0) << r.name;
  }
}

}  // namespace

// Host-side logic of the tensor-core GEMM families (kernels/gemm/tc): which outputs the Case
// checks (sampling.hpp), and the registry entries' shape rules, costs and tolerance, each held
// against numbers worked out here from the contract (C = A·Bᵀ, TN, bf16 out), not copied from
// the implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>

#include "kernels/gemm/tc/chunk_shift.hpp"
#include "kernels/gemm/tc/sampling.hpp"
#include "sol/registry.hpp"

using sol::kernels::gemm::tc::chunk_at;
using sol::kernels::gemm::tc::Chunk16;
using sol::kernels::gemm::tc::gap_written;
using sol::kernels::gemm::tc::sample_outputs;

namespace {

TEST(GemmTcSampling, SmallProblemsCheckEveryOutput) {
  const auto all = sample_outputs(17, 13, 9, int64_t(1) << 27, 4096);
  ASSERT_EQ(all.size(), size_t(17 * 13));
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], int64_t(i));
  // Fewer outputs than the sample count: all of them, however long k is.
  EXPECT_EQ(sample_outputs(1, 1, int64_t(1) << 40, 1, 4096).size(), 1u);
}

TEST(GemmTcPack, AChunkIsTheSixteenBytesAtItsOffset) {
  // The packer's shift against byte copies: every offset, random bytes (the words are
  // little-endian, as on the GPU and this host).
  std::mt19937 gen(3);
  for (int trial = 0; trial < 200; ++trial) {
    uint8_t bytes[32];
    for (uint8_t& b : bytes) b = uint8_t(gen());
    Chunk16 lo, hi;
    std::memcpy(lo.w, bytes, 16);
    std::memcpy(hi.w, bytes + 16, 16);
    for (int off = 0; off < 16; ++off) {
      const Chunk16 got = chunk_at(lo, hi, off);
      uint8_t want[16];
      std::memcpy(want, bytes + off, 16);
      EXPECT_EQ(std::memcmp(got.w, want, 16), 0) << "offset " << off;
    }
  }
}

TEST(GemmTcSampling, TheGapOfAWiderPitchMustBeKept) {
  // 3 rows of n = 4 in a pitch of 6: the gap is columns 4 and 5 of each row.
  std::vector<int> touched;
  EXPECT_EQ(gap_written(3, 4, 6, [&](int64_t i) { touched.push_back(int(i)); return true; }), "");
  EXPECT_EQ(touched, (std::vector<int>{4, 5, 10, 11, 16, 17}));
  EXPECT_EQ(gap_written(3, 4, 6, [](int64_t i) { return i != 11; }),
            "C[1][5] lies past n=4 in the row pitch ldc=6 and was written");
  EXPECT_EQ(gap_written(3, 4, 4, [](int64_t) { return false; }), "") << "no gap when ldc = n";
}

TEST(GemmTcSampling, LargeProblemsSampleAFixedSpreadSetWithTheCorners) {
  const int64_t m = 4097, n = 4095, k = 4096;
  const auto a = sample_outputs(m, n, k, int64_t(1) << 27, 4096);
  const auto b = sample_outputs(m, n, k, int64_t(1) << 27, 4096);
  EXPECT_EQ(a, b) << "the sample must not change between runs";
  EXPECT_GT(a.size(), 4000u);
  EXPECT_LE(a.size(), 4100u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<int64_t>(a.begin(), a.end()).size(), a.size());
  EXPECT_GE(a.front(), 0);
  EXPECT_LT(a.back(), m * n);
  for (int64_t corner : {int64_t(0), n - 1, (m - 1) * n, m * n - 1})
    EXPECT_TRUE(std::binary_search(a.begin(), a.end(), corner)) << corner;
  // Spread: every one of the 32 row bands of 128 rows and column bands of 128 columns is hit.
  std::set<int64_t> row_bands, col_bands;
  for (int64_t i : a) {
    row_bands.insert(i / n / 128);
    col_bands.insert(i % n / 128);
  }
  EXPECT_EQ(row_bands.size(), size_t((m + 127) / 128));
  EXPECT_EQ(col_bands.size(), size_t((n + 127) / 128));
}

const sol::Variant* find(const std::string& family, const std::string& name) {
  for (const auto& v : sol::registry())
    if (v.family == family && v.name == name) return &v;
  return nullptr;
}

TEST(GemmTcRegistry, FamiliesRungsAndPeers) {
  if (!sol::built_with_cuda()) GTEST_SKIP() << "the GEMM families are described only in a CUDA build";
  for (const char* f : {"gemm_bf16", "gemm_fp16", "gemm_fp8"}) {
    const sol::Variant* peer = find(f, "peer:cublasLt");
    ASSERT_NE(peer, nullptr) << f;
    EXPECT_EQ(peer->bench_shapes.front().str(), "m=4096,n=4096,k=4096");
  }
  for (const char* f : {"gemm_bf16", "gemm_fp16", "gemm_fp8"})
    for (const char* r : {"v01_mma_sync", "v02_multistage", "v03_wgmma_tma", "v04_warp_specialized", "v05_persistent",
                          "v06_cluster_multicast", "v07_tma_store", "v08_tile_choice"}) {
      const sol::Variant* v = find(f, r);
      ASSERT_NE(v, nullptr) << f << "/" << r;
      // Every rung takes every shape: edges by zero fill, awkward pitches by packing.
      for (const auto& s : v->test_shapes) EXPECT_EQ(v->unsupported(s), "") << f << "/" << r << " " << s.str();
      for (const auto& s : v->bench_shapes) EXPECT_EQ(v->unsupported(s), "") << f << "/" << r << " " << s.str();
      // wgmma and TMA are sm_90a: the Hopper rungs say so, the mma.sync rungs run from sm_80/89.
      const bool hopper = std::string(r) >= "v03";
      EXPECT_EQ(v->min_cc >= 90, hopper) << f << "/" << r;
    }
  // cuBLASLt's fp8 refuses k % 16 != 0: its peer is benched only where it runs.
  for (const auto& s : find("gemm_fp8", "peer:cublasLt")->bench_shapes)
    EXPECT_EQ(find("gemm_fp8", "peer:cublasLt")->unsupported(s), "") << s.str();
}

TEST(GemmTcRegistry, ShapeRules) {
  if (!sol::built_with_cuda()) GTEST_SKIP() << "the GEMM families are described only in a CUDA build";
  const sol::Variant* v = find("gemm_bf16", "v02_multistage");
  ASSERT_NE(v, nullptr);
  using sol::Shape;
  EXPECT_EQ(v->unsupported(Shape::parse("m=1793,n=1793,k=1793,lda=1793,ldb=1800,ldc=1793")), "");
  EXPECT_NE(v->unsupported(Shape::parse("m=64,n=64,k=64,lda=63")).find("lda"), std::string::npos);
  EXPECT_NE(v->unsupported(Shape::parse("m=64,n=64,k=64,ldb=8")).find("ldb"), std::string::npos);
  EXPECT_NE(v->unsupported(Shape::parse("m=64,n=64,k=64,ldc=63")).find("ldc"), std::string::npos);
  EXPECT_NE(v->unsupported(Shape::parse("m=0,n=64,k=64")), "");
  EXPECT_NE(v->unsupported(Shape::parse("m=64,n=64")), "");
  EXPECT_NE(v->unsupported(Shape::parse("m=64,n=64,k=64,batch=2")), "");
  // max_splits caps v08's k split (1 to 8) and is refused by the rungs that never split.
  const sol::Variant* v08 = find("gemm_bf16", "v08_tile_choice");
  ASSERT_NE(v08, nullptr);
  EXPECT_EQ(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,max_splits=1")), "");
  EXPECT_EQ(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,max_splits=8")), "");
  EXPECT_NE(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,max_splits=0")).find("max_splits"), std::string::npos);
  EXPECT_NE(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,max_splits=9")).find("max_splits"), std::string::npos);
  EXPECT_NE(find("gemm_bf16", "v07_tma_store")->unsupported(Shape::parse("m=1024,n=1024,k=1024,max_splits=1")).find("max_splits"),
            std::string::npos);
  // tile_n forces one of v08's tile widths (64, 128, 256); the other rungs have one tile.
  for (const char* width : {"64", "128", "256"})
    EXPECT_EQ(v08->unsupported(Shape::parse(std::string("m=1024,n=1024,k=1024,tile_n=") + width)), "") << width;
  EXPECT_NE(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,tile_n=96")).find("64, 128 or 256"), std::string::npos);
  EXPECT_NE(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,tile_n=0")).find("tile_n"), std::string::npos);
  EXPECT_NE(v08->unsupported(Shape::parse("m=1024,n=1024,k=1024,tile_n=512")).find("tile_n"), std::string::npos);
  EXPECT_NE(find("gemm_bf16", "v07_tma_store")->unsupported(Shape::parse("m=1024,n=1024,k=1024,tile_n=64")).find("tile_n"),
            std::string::npos);
  // Every family's v08 tests the forced tiles.
  for (const char* family : {"gemm_bf16", "gemm_fp16", "gemm_fp8"}) {
    int forced = 0;
    for (const Shape& t : find(family, "v08_tile_choice")->test_shapes) forced += t.has("tile_n");
    EXPECT_GE(forced, 8) << family;
  }
  // fp8 through cuBLASLt: TN with 16-byte pitches and k % 16 == 0 (cuBLASLt's fp8 rules).
  const sol::Variant* fp8 = find("gemm_fp8", "peer:cublasLt");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->unsupported(Shape::parse("m=256,n=256,k=256")), "");
  EXPECT_EQ(fp8->unsupported(Shape::parse("m=8193,n=8192,k=8192")), "");
  EXPECT_NE(fp8->unsupported(Shape::parse("m=256,n=256,k=264")), "");
  EXPECT_NE(fp8->unsupported(Shape::parse("m=64,n=64,k=64,lda=72")), "");
}

TEST(GemmTcRegistry, CostCountsTwoMnkFlopsAndEachOperandOnce) {
  if (!sol::built_with_cuda()) GTEST_SKIP() << "the GEMM families are described only in a CUDA build";
  const sol::Shape s = sol::Shape::parse("m=300,n=200,k=100,lda=128");
  const double flops = 2.0 * 300 * 200 * 100;
  const sol::Variant* bf16 = find("gemm_bf16", "peer:cublasLt");
  const sol::Variant* fp8 = find("gemm_fp8", "peer:cublasLt");
  ASSERT_NE(bf16, nullptr);
  ASSERT_NE(fp8, nullptr);
  const auto cb = bf16->cost(s), c8 = fp8->cost(s);
  EXPECT_DOUBLE_EQ(cb.flops, flops);
  EXPECT_DOUBLE_EQ(c8.flops, flops);
  // The row length, not the pitch, is what must move: A 300×100, B 200×100, C 300×200 (bf16).
  EXPECT_DOUBLE_EQ(cb.bytes, 2.0 * (300 * 100 + 200 * 100) + 2.0 * 300 * 200);
  EXPECT_DOUBLE_EQ(c8.bytes, 1.0 * (300 * 100 + 200 * 100) + 2.0 * 300 * 200);
  EXPECT_EQ(cb.unit, sol::hw::Unit::Matrix);
  EXPECT_EQ(c8.dtype, sol::DType::fp8_e4m3);
  // Tolerance: above bf16's worst-case output rounding (2^-9) and well below 1 %.
  EXPECT_GT(bf16->tol.rel_l2, 1.0 / 512);
  EXPECT_LT(bf16->tol.rel_l2, 1e-2);
}

}  // namespace

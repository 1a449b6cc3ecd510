// gemm_fp32's naming scheme against the report's peer pairing in files without a dtype field
// (src/results.cpp best_peer, schema 1): the rungs and the fp32 peers carry no dtype token, the
// TF32 peers carry "tf32", so a rung is compared with the fastest true-fp32 peer and never with a
// TF32 tensor-core one, however fast.
#include <gtest/gtest.h>

#include <string>

#include "sol/model/cost.hpp"
#include "sol/results.hpp"

using namespace sol;

namespace {
results::Record rec(const std::string& variant, const std::string& shape, double median_s) {
  results::Record r;
  r.family = "gemm_fp32";
  r.variant = variant;
  r.shape = shape;
  r.median_s = median_s;
  r.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  r.verified = true;
  return r;
}
}  // namespace

TEST(GemmFp32, RungsPairWithTheFp32PeerNeverTf32) {
  const std::string s = "m=4096,n=4096,k=4096";
  results::File f;
  f.schema_version = 1;  // the names decide where records carry no dtype field
  f.family = "gemm_fp32";
  f.records = {rec("v07_warptile_cp_async", s, 3.0e-3), rec("peer:cublasSgemm", s, 2.7e-3),
               rec("peer:cublas_tf32", s, 0.4e-3),       rec("peer:torch.matmul", s, 2.8e-3),
               rec("peer:torch.matmul_tf32", s, 0.5e-3), rec("v01_naive", s, 0.1)};
  for (int rung : {0, 5}) {
    const results::Record* p = results::best_peer(f, f.records[size_t(rung)]);
    ASSERT_NE(p, nullptr) << f.records[size_t(rung)].variant;
    EXPECT_EQ(p->variant, "peer:cublasSgemm");  // the fastest fp32 peer, although both TF32 peers are faster
  }
  // Without cuBLAS, torch.matmul (TF32 off) is the comparison; still never a TF32 peer.
  f.records.erase(f.records.begin() + 1);
  ASSERT_NE(results::best_peer(f, f.records[0]), nullptr);
  EXPECT_EQ(results::best_peer(f, f.records[0])->variant, "peer:torch.matmul");
  // A peer at another shape is not a comparison.
  results::File g;
  g.schema_version = 1;
  g.records = {rec("v07_warptile_cp_async", s, 3e-3), rec("peer:cublasSgemm", "m=1024,n=1024,k=1024", 1e-4)};
  EXPECT_EQ(results::best_peer(g, g.records[0]), nullptr);
}

// The tiled-traffic model the ladder's headers quote, by hand at 4096³ fp32 (one matrix = 64 MiB):
// naive 2·4096³·4 + C; T = 32: A and B re-read 128 times each; T = 64: 64; T = 128: 32.
TEST(GemmFp32, TiledTrafficAtTheHeadlineShape) {
  const double mat = 4096.0 * 4096.0 * 4;  // 67,108,864 bytes
  model::MatmulOp op{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::f32};
  EXPECT_DOUBLE_EQ(model::matmul(op).bytes, 3 * mat);
  op.impl = model::MatmulImpl::Naive;
  EXPECT_DOUBLE_EQ(model::matmul(op).bytes, 2.0 * 4096 * 4096 * 4096 * 4 + mat);  // ≈ 550 GB
  op.impl = model::MatmulImpl::Tiled;
  for (const auto& [tile, passes] : {std::pair{32, 128}, std::pair{64, 64}, std::pair{128, 32}}) {
    op.tile = tile;
    EXPECT_DOUBLE_EQ(model::matmul(op).bytes, 2.0 * passes * mat + mat) << "T=" << tile;
  }
  // Odd sizes round the passes up: 4097 with T = 128 needs 33 tile columns.
  op = {.m = 4097, .n = 4097, .k = 4097, .dtype = DType::f32, .impl = model::MatmulImpl::Tiled, .tile = 128};
  const double odd = 4097.0 * 4097.0 * 4;
  EXPECT_DOUBLE_EQ(model::matmul(op).bytes, 2.0 * 33 * odd + odd);
}

// A non-square tile: A is re-read ⌈N/Tn⌉ times, B ⌈M/Tm⌉ times; the square tile is the case Tn = Tm.
TEST(GemmFp32, NonSquareTileTraffic) {
  const double a = 300.0 * 64 * 4, b = 64.0 * 500 * 4, c = 300.0 * 500 * 4;
  model::MatmulOp op{.m = 300, .n = 500, .k = 64, .dtype = DType::f32, .impl = model::MatmulImpl::Tiled, .tile = 256,
                     .tile_n = 128};
  EXPECT_DOUBLE_EQ(model::matmul(op).bytes, a * 4 + b * 2 + c);  // ⌈500/128⌉ = 4, ⌈300/256⌉ = 2
  op.tile = 128;
  op.tile_n = 256;
  EXPECT_DOUBLE_EQ(model::matmul(op).bytes, a * 2 + b * 3 + c);  // ⌈500/256⌉ = 2, ⌈300/128⌉ = 3
  op.tile_n = 128;
  EXPECT_DOUBLE_EQ(model::matmul(op).bytes, model::matmul({.m = 300, .n = 500, .k = 64, .dtype = DType::f32,
                                                           .impl = model::MatmulImpl::Tiled, .tile = 128})
                                                .bytes);
}

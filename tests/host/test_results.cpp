#include <gtest/gtest.h>

#include <filesystem>

#include "sol/core/error.hpp"
#include "sol/results.hpp"

using namespace sol;

namespace {
results::File sample() {
  results::File f;
  f.family = "copy";
  f.created = "2026-11-29T00:00:00Z";
  f.device.name = "NVIDIA H200";
  f.device.compute_capability = 90;
  f.ceilings.copy_bytes_per_s = 4.3e12;
  f.ceilings.matrix_flops_per_s["bf16"] = 7.9e14;
  results::Record r;
  r.family = "copy";
  r.variant = "v02_vec16";
  r.shape = "n=268435456";
  r.median_s = 5e-4;
  r.flops = 0;
  r.bytes = 2.0 * 4 * 268435456;
  r.verified = true;
  f.records.push_back(r);
  return f;
}
}  // namespace

TEST(Results, RoundTripKeepsFieldsAndDerivesRates) {
  auto f = sample();
  auto g = results::from_json_text(results::to_json(f), "mem");
  ASSERT_EQ(g.records.size(), 1u);
  EXPECT_EQ(g.family, "copy");
  EXPECT_EQ(g.device.compute_capability, 90);
  EXPECT_DOUBLE_EQ(g.ceilings.matrix_flops_per_s.at("bf16"), 7.9e14);
  EXPECT_EQ(g.records[0].shape, "n=268435456");
  // achieved bandwidth is derived from bytes / median when a file leaves it out
  EXPECT_NEAR(g.records[0].achieved_bytes_per_s, f.records[0].bytes / 5e-4, 1);
}

TEST(Results, RejectsMissingAndMistypedFields) {
  EXPECT_THROW(results::from_json_text("{", "x"), Error);
  EXPECT_THROW(results::from_json_text(R"({"family":"copy","records":[]})", "x"), Error);
  EXPECT_THROW(results::from_json_text(
                   R"({"family":"copy","ceilings":{"copy_bytes_per_s":1},"records":[{"family":"copy"}]})", "x"),
               Error);
  try {
    results::from_json_text(R"({"family":"copy","ceilings":{"copy_bytes_per_s":"fast"},"records":[]})", "f.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("copy_bytes_per_s"), std::string::npos);
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
  }
}

TEST(Results, WriteReadDir) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "sol_results_test";
  fs::remove_all(dir);
  auto f = sample();
  results::write(f, (dir / "copy.json").string());
  f.family = "banks";
  results::write(f, (dir / "banks.json").string());
  auto all = results::read_dir(dir.string());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].family, "banks");
  EXPECT_EQ(all[1].family, "copy");
  fs::remove_all(dir);
  EXPECT_TRUE(results::read_dir(dir.string()).empty());
}

TEST(Results, BestPeerComparesLikeWithLikeByNameInSchema1) {
  results::File f;
  f.schema_version = 1;  // no dtype field: the names' type tokens decide
  f.family = "precision";
  auto rec = [](std::string v, std::string shape, double t) {
    results::Record r;
    r.family = "precision";
    r.variant = std::move(v);
    r.shape = std::move(shape);
    r.median_s = t;
    r.verified = true;
    return r;
  };
  f.records = {rec("v03_relu_fp8_e4m3", "n=8", 1), rec("v02_relu_bf16", "n=8", 2), rec("peer:torch.relu_bf16", "n=8", 3),
               rec("peer:torch.relu_fp32", "n=8", 0.5), rec("peer:torch.compile_relu_bf16", "n=8", 2.5),
               rec("peer:torch.relu_bf16", "n=16", 0.1), rec("v01_plain", "n=8", 1), rec("peer:clone", "n=8", 4)};
  // fp8 has no fp8 peer: a bf16 or fp32 peer is not comparable
  EXPECT_EQ(results::best_peer(f, f.records[0]), nullptr);
  // bf16: the fastest bf16 peer at the same shape (not the fp32 one, not the other shape)
  ASSERT_NE(results::best_peer(f, f.records[1]), nullptr);
  EXPECT_EQ(results::best_peer(f, f.records[1])->variant, "peer:torch.compile_relu_bf16");
  // a variant without a type in its name compares with untyped peers only
  ASSERT_NE(results::best_peer(f, f.records[6]), nullptr);
  EXPECT_EQ(results::best_peer(f, f.records[6])->variant, "peer:clone");
  // a failed peer is never the comparison
  f.records[4].verified = false;
  EXPECT_EQ(results::best_peer(f, f.records[1])->variant, "peer:torch.relu_bf16");
  EXPECT_EQ(results::best_peer(f, f.records[2]), nullptr);  // peers have no peer
}

namespace {
results::Record typed(const std::string& family, const std::string& variant, const std::string& dtype, double t,
                      const std::string& shape = "m=4096,n=4096,k=4096") {
  results::Record r;
  r.family = family;
  r.variant = variant;
  r.dtype = dtype;
  r.shape = shape;
  r.median_s = t;
  r.verified = true;
  return r;
}
}  // namespace

TEST(Results, BestPeerMatchesByTheDtypeField) {
  results::File f;
  f.family = "gemm_fp16";
  // v07's name names no type, nor does cuBLASLt's: by the field, the fastest fp16 peer is torch's.
  f.records = {typed("gemm_fp16", "v07_tma_store", "fp16", 1.0), typed("gemm_fp16", "peer:cublasLt", "fp16", 1.39),
               typed("gemm_fp16", "peer:torch.matmul_fp16", "fp16", 1.11),
               typed("gemm_fp16", "peer:torch.matmul_bf16", "bf16", 0.5)};
  ASSERT_NE(results::best_peer(f, f.records[0]), nullptr);
  EXPECT_EQ(results::best_peer(f, f.records[0])->variant, "peer:torch.matmul_fp16");
  // SGEMM is never compared with TF32, however fast, and the name does not matter.
  results::File g;
  g.family = "gemm_fp32";
  g.records = {typed("gemm_fp32", "v08_warptile", "fp32", 3.0), typed("gemm_fp32", "peer:cublas_tf32", "tf32", 0.4),
               typed("gemm_fp32", "peer:torch.matmul", "fp32", 2.8), typed("gemm_fp32", "peer:fp32_named_tf32", "tf32", 0.1)};
  ASSERT_NE(results::best_peer(g, g.records[0]), nullptr);
  EXPECT_EQ(results::best_peer(g, g.records[0])->variant, "peer:torch.matmul");
  EXPECT_EQ(results::comparison_dtype(g, g.records[3]), "tf32");
}

TEST(Results, Schema1FallsBackToTheFamilysTypeToken) {
  results::File f;
  f.schema_version = 1;
  f.family = "gemm_fp16";
  f.records = {typed("gemm_fp16", "v07_tma_store", "", 1.0), typed("gemm_fp16", "peer:cublasLt", "", 1.39),
               typed("gemm_fp16", "peer:torch.matmul_fp16", "", 1.11)};
  EXPECT_EQ(results::comparison_dtype(f, f.records[0]), "fp16");
  ASSERT_NE(results::best_peer(f, f.records[0]), nullptr);
  EXPECT_EQ(results::best_peer(f, f.records[0])->variant, "peer:torch.matmul_fp16");
  // A schema 1 file read from JSON (no schema_version field) takes the same path.
  const results::File read = results::from_json_text(results::to_json(f), "test");
  EXPECT_EQ(read.schema_version, 1);
  EXPECT_EQ(results::best_peer(read, read.records[0])->variant, "peer:torch.matmul_fp16");
}

TEST(Results, FloorBaseIsStoredOrFoundAmongTheRunsCeilings) {
  results::File f;
  f.ceilings.copy_bytes_per_s = 4e12;
  f.ceilings.fp32_fma_flops_per_s = 60e12;
  f.ceilings.matrix_flops_per_s["bf16"] = 700e12;
  results::Record r;
  r.floor_measured_base = "4 TB/s copy (measured)";
  r.floor_measured_s = 1;
  EXPECT_EQ(results::floor_base(f, r), "4 TB/s copy (measured)");
  // written before the field: the ceiling whose rate gives the floor
  results::Record mem;
  mem.bytes = 8e9;
  mem.flops = 1e9;
  mem.floor_measured_s = 2e-3;  // 8e9 B / 4e12 B/s
  mem.bound = "memory";
  EXPECT_EQ(results::floor_base(f, mem), "4 TB/s copy (measured)");
  results::Record mm;
  mm.bytes = 1e8;
  mm.flops = 1.4e12;
  mm.floor_measured_s = 2e-3;  // 1.4e12 FLOP / 700e12 FLOP/s
  mm.bound = "compute";
  EXPECT_EQ(results::floor_base(f, mm), "700 TFLOP/s bf16 matmul (cuBLASLt, measured)");
  results::Record fma = mm;
  fma.flops = 1.2e11;  // 60e12 × 2e-3
  EXPECT_EQ(results::floor_base(f, fma), "60 TFLOP/s fp32 FMA (measured)");
  results::Record sheet = mm;
  sheet.flops = 1.978e12;  // 989 TFLOP/s: no measured ceiling has that rate
  EXPECT_EQ(results::floor_base(f, sheet), "989 TFLOP/s (datasheet)");
  results::Record none;
  EXPECT_EQ(results::floor_base(f, none), "");
  none.floor_s = 1e-3;
  EXPECT_EQ(results::floor_base(f, none), "the datasheet's ceilings");
}

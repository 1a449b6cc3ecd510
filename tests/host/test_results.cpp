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

TEST(Results, BestPeerComparesLikeWithLike) {
  results::File f;
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

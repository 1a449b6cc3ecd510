// The README headline table and the docs pages (src/report/markdown.cpp): every % of floor names
// its base, "vs peer" is the fastest peer of the same type, and a throttled time is marked.
#include <gtest/gtest.h>

#include <string>

#include "sol/hw/spec.hpp"
#include "sol/report.hpp"
#include "sol/results.hpp"

using namespace sol;

namespace {
results::Record rec(const std::string& variant, const std::string& dtype, double t) {
  results::Record r;
  r.family = "gemm_fp16";
  r.variant = variant;
  r.dtype = dtype;
  r.shape = "m=4096,n=4096,k=4096";
  r.median_s = t;
  r.verified = true;
  r.flops = 2.0 * 4096 * 4096 * 4096;
  r.bound = "compute";
  return r;
}

results::File gemm_file() {
  results::File f;
  f.family = "gemm_fp16";
  f.device.name = "NVIDIA H200";
  f.device.database_row = "h200";
  f.ceilings.copy_bytes_per_s = 4.25e12;
  f.records = {rec("peer:cublasLt", "fp16", 261e-6), rec("v07_tma_store", "fp16", 188e-6),
               rec("peer:torch.matmul_fp16", "fp16", 209e-6), rec("peer:torch.matmul_bf16", "bf16", 100e-6)};
  f.records[1].floor_measured_s = 140e-6;
  f.records[1].floor_measured_base = "989.4 TFLOP/s fp16 matrix (datasheet: not measured)";
  return f;
}
}  // namespace

TEST(Markdown, HeadlineNamesTheBaseAndTheFastestComparablePeer) {
  const std::string t = report::headline_markdown({gemm_file()});
  EXPECT_NE(t.find("| floor base |"), std::string::npos) << t;
  EXPECT_NE(t.find("74.5 % | 989.4 TFLOP/s fp16 matrix (datasheet: not measured) |"), std::string::npos) << t;
  EXPECT_NE(t.find("1.11× torch.matmul_fp16"), std::string::npos) << t;  // not cuBLASLt's 1.39×, not bf16
  EXPECT_EQ(t.find("†"), std::string::npos) << t;                          // nothing throttled
}

TEST(Markdown, ThrottledTimesAreMarkedWithAFootnote) {
  results::File f = gemm_file();
  f.records[1].throttled = true;
  f.records[1].throttle_reasons = "sw power cap";
  const std::string t = report::headline_markdown({f});
  EXPECT_NE(t.find("188 µs †"), std::string::npos) << t;
  EXPECT_NE(t.find("†: timed while the GPU held its clocks down (gemm_fp16 v07_tma_store: sw power cap)"),
            std::string::npos)
      << t;
  const std::string page = report::family_markdown(f, hw::find("h200"));
  EXPECT_NE(page.find("188 µs †"), std::string::npos) << page;
  EXPECT_NE(page.find("v07_tma_store at `m=4096,n=4096,k=4096`: sw power cap"), std::string::npos) << page;
  EXPECT_NE(page.find("| floor base |"), std::string::npos) << page;
  EXPECT_NE(page.find("989.4 TFLOP/s fp16 matrix (datasheet: not measured)"), std::string::npos) << page;
}

TEST(Markdown, PagesSayHowEachTimeWasTaken) {
  results::File f = gemm_file();
  f.records[1].timing = "events";
  f.records[2].timing = "graph";
  f.records[2].eager_median_s = 230e-6;
  const std::string page = report::family_markdown(f, hw::find("h200"));
  EXPECT_NE(page.find("| 188 µs | events |"), std::string::npos) << page;
  EXPECT_NE(page.find("| 209 µs | graph; eager 230 µs |"), std::string::npos) << page;
  // written before records said: the harness used events, the old peer script one eager call per event pair
  f.records[1].timing = f.records[2].timing = "";
  const std::string old = report::family_markdown(f, hw::find("h200"));
  EXPECT_NE(old.find("| 188 µs | events |"), std::string::npos) << old;
  EXPECT_NE(old.find("| 209 µs | events around one eager call; eager 230 µs |"), std::string::npos) << old;
}

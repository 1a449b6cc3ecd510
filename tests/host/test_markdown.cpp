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

TEST(Markdown, ARatioToAPeerTimedWithItsHostDispatchIsMarked) {
  // gemm_file's records carry no timing field: its PyTorch peer was timed around one eager call.
  results::File f = gemm_file();
  const std::string t = report::headline_markdown({f});
  EXPECT_NE(t.find("1.11× torch.matmul_fp16 ‡"), std::string::npos) << t;
  EXPECT_NE(t.find("‡: the peer was timed around one eager call, the GPU idle while Python dispatched it "
                   "(gemm_fp16: torch.matmul_fp16)"),
            std::string::npos)
      << t;
  const std::string page = report::family_markdown(f, hw::find("h200"));
  EXPECT_NE(page.find("1.11× torch.matmul_fp16 ‡"), std::string::npos) << page;
  EXPECT_NE(page.find("‡: the peer was timed"), std::string::npos) << page;
  // A device-timed peer's ratio carries no mark and no footnote.
  f.records[2].timing = "graph";
  const std::string now = report::headline_markdown({f});
  EXPECT_NE(now.find("1.11× torch.matmul_fp16 |"), std::string::npos) << now;
  EXPECT_EQ(now.find("‡"), std::string::npos) << now;
  // The C++ peer, timed by the harness with events, never holds Python's dispatch.
  EXPECT_FALSE(results::host_in_time(f.records[0]));
  EXPECT_EQ(results::timing_of(f.records[0]), "events");
  f.records[2].timing.clear();
  EXPECT_TRUE(results::host_in_time(f.records[2]));
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
  // Only where a sol run (not a peer) was timed from a graph with its stream time kept does the page
  // say how short runs are timed.
  const std::string short_note = "µs is timed from a graph, and its \"eager\" time is one run from the stream";
  EXPECT_EQ(page.find(short_note), std::string::npos) << page;
  results::File g = f;
  g.records[1].timing = "graph", g.records[1].graph = true, g.records[1].eager_median_s = 190e-6;
  const std::string with_short = report::family_markdown(g, hw::find("h200"));
  EXPECT_NE(with_short.find(short_note), std::string::npos) << with_short;
  EXPECT_NE(with_short.find("| 188 µs | graph; eager 190 µs |"), std::string::npos) << with_short;
  // written before records said: the harness used events, the old peer script one eager call per event pair
  f.records[1].timing = f.records[2].timing = "";
  const std::string old = report::family_markdown(f, hw::find("h200"));
  EXPECT_NE(old.find("| 188 µs | events |"), std::string::npos) << old;
  EXPECT_NE(old.find("| 209 µs | events around one eager call; eager 230 µs |"), std::string::npos) << old;
}

TEST(Markdown, ModelShapesPivotsShapesAgainstVariantsAndCountsWins) {
  // Two shapes: at the first sol's fastest rung (v10, 5 µs) beats the peer (10 µs) and the
  // dispatcher ties it; at the second v09 is skipped, v10 failed its check, and the peer wins.
  const auto at = [](const std::string& variant, const std::string& shape, double t) {
    results::Record r = rec(variant, "bf16", t);
    r.shape = shape;
    return r;
  };
  results::File f;
  f.family = "gemm_bf16";
  f.device.name = "NVIDIA H200";
  f.device.sms = 132;
  f.records = {at("v09_warp_dot", "m=1,n=768,k=768", 6e-6), at("v10_mma_swapped", "m=1,n=768,k=768", 5e-6),
               at("dispatch", "m=1,n=768,k=768", 10e-6), at("peer:cublasLt", "m=1,n=768,k=768", 10e-6),
               at("v09_warp_dot", "m=64,n=4096,k=4096", 0), at("v10_mma_swapped", "m=64,n=4096,k=4096", 40e-6),
               at("dispatch", "m=64,n=4096,k=4096", 16e-6), at("peer:cublasLt", "m=64,n=4096,k=4096", 15e-6)};
  f.records[4].skipped = "m ≤ 8";
  f.records[5].verified = false;
  f.records[7].throttled = true, f.records[7].throttle_reasons = "sw power cap";
  const std::string md = report::model_shapes_markdown(f, "bench/results/h200/model-shapes/x.json");
  EXPECT_NE(md.find("from bench/results/h200/model-shapes/x.json"), std::string::npos) << md;
  EXPECT_NE(md.find("| shape | v09_warp_dot | v10_mma_swapped | dispatch | peer:cublasLt |"), std::string::npos) << md;
  EXPECT_NE(md.find("0.50× (v10_mma_swapped vs peer:cublasLt)"), std::string::npos) << md;
  EXPECT_NE(md.find("| — | **failed** |"), std::string::npos) << md;
  // At the second shape sol has no valid rung: no ratio, and the count is over one shape only.
  EXPECT_NE(md.find("sol's fastest rung is faster than the fastest peer at 1 of 1 shapes"), std::string::npos) << md;
  EXPECT_NE(md.find("The dispatcher (what the public API runs) is faster than the fastest peer at 0 of 2 shapes"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("worst 1.07×"), std::string::npos) << md;  // 16 µs over 15 µs
  EXPECT_NE(md.find("peer:cublasLt at 1 of 2 shapes: sw power cap"), std::string::npos) << md;
  // Against what it chooses among (sol's valid rungs and the C++ peer): 10 µs over v10's 5 µs at
  // the first shape, 16 over cuBLASLt's 15 at the second; both under 0.95× the alternative's speed.
  EXPECT_NE(md.find("| dispatch ÷ fastest rung or C++ peer |"), std::string::npos) << md;
  EXPECT_NE(md.find("2.00× (v10_mma_swapped)"), std::string::npos) << md;
  EXPECT_NE(md.find("1.07× (peer:cublasLt)"), std::string::npos) << md;
  EXPECT_NE(md.find("at least 0.95× that of the fastest of sol's rungs and the C++ peers of its element type at 0 of 2 "
                    "shapes; its time ÷ theirs: median 2.00×, worst 2.00×. Under it: `m=64,n=4096,k=4096` 1.07×, "
                    "`m=1,n=768,k=768` 2.00×."),
            std::string::npos)
      << md;
  // A PyTorch peer is no alternative the dispatcher has, and another element type is none either.
  results::Record torch = at("peer:torch.matmul_bf16", "m=1,n=768,k=768", 1e-6), fp32 = at("v11_n_contiguous", "m=1,n=768,k=768", 1e-6);
  fp32.dtype = "fp32";
  f.records.push_back(torch);
  f.records.push_back(fp32);
  const std::string with_torch = report::model_shapes_markdown(f, "x.json");
  EXPECT_NE(with_torch.find("2.00× (v10_mma_swapped)"), std::string::npos) << with_torch;
}

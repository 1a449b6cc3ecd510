#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <tuple>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/report.hpp"
#include "sol_cli.hpp"

using namespace sol;
namespace fs = std::filesystem;

namespace {

results::Record rec(const std::string& variant, int version, const std::string& shape, double median, bool ok = true) {
  results::Record r;
  r.family = "precision";
  r.variant = variant;
  r.version = version;
  r.technique = "t" + std::to_string(version);
  r.shape = shape;
  r.median_s = median;
  r.flops = 1e9;
  r.bytes = 8e9;
  r.achieved_flops_per_s = r.flops / median;
  r.achieved_bytes_per_s = r.bytes / median;
  r.floor_measured_s = 2e-3;
  r.verified = ok;
  return r;
}

results::File measured() {
  results::File f;
  f.family = "precision";
  f.created = "2026-11-29T00:00:00Z";
  f.device.name = "NVIDIA H200";
  f.device.database_row = "h200";
  f.ceilings.copy_bytes_per_s = 4e12;
  f.ceilings.matrix_flops_per_s["bf16"] = 7.9e14;
  f.records = {rec("v01_fp32", 1, "n=1024", 4e-3), rec("v02_bf16", 2, "n=1024", 2e-3, false),
               rec("v01_fp32", 1, "n=2048", 8e-3), rec("peer:torch.relu_fp32", 0, "n=1024", 5e-3)};
  return f;
}

}  // namespace

TEST(Report, ModelOnlyCoversTheLectureOperations) {
  report::Input in;
  in.hw = &hw::find("h100");
  in.model = report::lecture_operations(*in.hw);
  in.measured_note = "no GPU here";
  ASSERT_GE(in.model.size(), 15u);
  std::string html = report::html(in);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("arithmetic intensity"), std::string::npos);
  EXPECT_NE(html.find("log scale"), std::string::npos);
  EXPECT_NE(html.find("Model only"), std::string::npos);
  std::string text = report::text(in);
  // A name wider than its column wraps at spaces: each of its words is there, in a line that fits.
  for (const auto& r : in.model)
    for (const auto& word : wrap(r.name, 1)) EXPECT_NE(text.find(word), std::string::npos) << r.name;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), kTerminalColumns) << line;
  EXPECT_NE(text.find("no GPU here"), std::string::npos);
  // the first row is the lecture's 4096³ matmul: compute-bound on h100
  EXPECT_EQ(in.model.front().est.bound, "compute");
  EXPECT_NE(report::json(in).find("\"fraction_of_peak\""), std::string::npos);
}

TEST(Report, MeasuredFamiliesShowLadderPeerAndSweep) {
  report::Input in;
  in.hw = &hw::find("h100");
  in.model = report::lecture_operations(*in.hw);
  in.measured = {measured()};
  std::string html = report::html(in);
  EXPECT_NE(html.find("id='precision'"), std::string::npos);
  EXPECT_NE(html.find("precision: % of"), std::string::npos);  // the bar chart of % of floor
  EXPECT_NE(html.find("FAILED"), std::string::npos);        // the unverified bf16 record says so
  EXPECT_NE(html.find("across the n sweep"), std::string::npos);  // v01 ran at two sizes
  std::string text = report::text(in);
  EXPECT_NE(text.find("50.0 %"), std::string::npos);  // v01: floor 2 ms / 4 ms
  EXPECT_NE(text.find("1.25×"), std::string::npos);   // peer 5 ms / v01 4 ms
}

TEST(Report, HeadlinePicksTheFastestVerifiedVersion) {
  std::string md = report::headline_markdown({measured()});
  // v02 is faster but failed verification: v01 is the headline
  EXPECT_NE(md.find("v01_fp32"), std::string::npos);
  EXPECT_EQ(md.find("v02_bf16"), std::string::npos);
  EXPECT_NE(md.find("1.25× torch.relu_fp32"), std::string::npos);
}

TEST(Report, ReplaceBlockNeedsItsMarkers) {
  std::string doc = "a\n<!-- sol:BEGIN headline -->\nold\n<!-- sol:END headline -->\nb\n";
  std::string out = report::replace_block(doc, "headline", "new\n");
  EXPECT_NE(out.find("new"), std::string::npos);
  EXPECT_EQ(out.find("old"), std::string::npos);
  EXPECT_EQ(report::replace_block(out, "headline", "new\n"), out);  // idempotent
  EXPECT_THROW(report::replace_block("no markers", "headline", "x"), Error);
}

TEST(Report, MemoryColumnAndRatiosOnlyWhenMeasured) {
  const hw::HwSpec& hw = hw::find("h200");
  results::File f = measured();
  EXPECT_EQ(report::family_markdown(f, hw).find("peak memory"), std::string::npos);  // none measured: no column
  f.records[0].peak_device_bytes = 63.0 * (1 << 20);  // v01_fp32 at n=1024
  f.records[1].peak_device_bytes = 1.0 * (1 << 20);   // v02_bf16 at n=1024
  f.records[2].peak_device_bytes = 5.0 * (1 << 20);   // v01_fp32 at n=2048: alone at its shape, no ratio
  const std::string md = report::family_markdown(f, hw);
  EXPECT_NE(md.find("peak memory"), std::string::npos);
  EXPECT_NE(md.find("63 MiB"), std::string::npos);
  EXPECT_NE(md.find("`n=1024`: v01_fp32 63 MiB ÷ v02_bf16 1 MiB = 63.0×"), std::string::npos) << md;
  EXPECT_EQ(md.find("`n=2048`: "), std::string::npos);
}

TEST(Report, CheckpointMarkdownBecomesAnHtmlTable) {
  report::Input in;
  in.hw = &hw::find("h200");
  in.model = report::lecture_operations(*in.hw);
  in.measured = {measured()};
  in.checkpoint_markdown = "8 layers.\n\n| schedule | layers | gradients identical |\n|---|---|---|\n| √L | `RRR\\|RR` | yes |\n";
  const std::string html = report::html(in);
  EXPECT_NE(html.find("id='checkpoint'"), std::string::npos);
  EXPECT_NE(html.find("<th>schedule</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>RRR|RR</td>"), std::string::npos) << "escaped pipes stay in their cell";
  EXPECT_NE(html.find("<p>8 layers.</p>"), std::string::npos);
  EXPECT_NE(report::text(in).find("activation checkpointing"), std::string::npos);
  in.checkpoint_markdown.clear();
  EXPECT_EQ(report::html(in).find("id='checkpoint'"), std::string::npos);
}

namespace {

// What fuzzing found to loop in the axis code: an empty shape, a record without the swept
// dimension, a dimension that is no number, an absurd time and a zero one.
results::File broken_file() {
  results::File f = measured();
  f.records.clear();
  for (const auto& [variant, shape, median] : std::vector<std::tuple<std::string, std::string, double>>{
           {"v01_relu", "", 1e-3}, {"v01_relu", "n=1024", 1e-3}, {"v01_relu", "n=4096", 2e-3},
           {"v01_relu", "m=7", 3e-3}, {"v01_relu", "n=abc", 3e-3}, {"v02_relu", "n=1024", 1e308},
           {"v02_relu", "n=2048", 1e-3}, {"v02_relu", "n=4096", 0}}) {
    f.records.push_back(rec(variant, variant == "v01_relu" ? 1 : 2, shape, median));
    f.records.back().bound = "memory";
  }
  return f;
}

}  // namespace

TEST(Report, BrokenRecordsRenderInBoundedTimeAndSize) {
  report::Input in;
  in.hw = &hw::find("h200");
  in.model = report::lecture_operations(*in.hw);
  in.measured = {broken_file()};
  const auto t0 = std::chrono::steady_clock::now();
  const std::string html = report::html(in);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_LT(html.size(), 2u << 20);
  EXPECT_EQ(html.find("nan"), std::string::npos);
  EXPECT_EQ(html.find("inf'"), std::string::npos);
  EXPECT_NE(html.find("id='precision'"), std::string::npos);
  EXPECT_LT(report::text(in).size(), 1u << 20);
}

TEST(Report, CliRendersABrokenResultsFolder) {
  const fs::path dir = fs::temp_directory_path() / ("sol-report-broken-" + std::to_string(::getpid()));
  fs::create_directories(dir / "results");
  results::File f = broken_file();
  // A shape that is no name=count list is refused where results are read, in one line.
  results::write(f, (dir / "results" / "precision.json").string());
  const auto refused = sol::test::run_sol("report --results '" + (dir / "results").string() + "' --out '" +
                                          (dir / "out").string() + "'");
  EXPECT_EQ(refused.rc, 2) << refused.all();
  EXPECT_NE(refused.err.find("n=abc"), std::string::npos) << refused.err;
  // Everything else that is broken renders.
  std::erase_if(f.records, [](const results::Record& r) { return r.shape == "n=abc"; });
  results::write(f, (dir / "results" / "precision.json").string());
  const auto r = sol::test::run_sol("report --results '" + (dir / "results").string() + "' --out '" +
                                        (dir / "out").string() + "'",
                                    sol::test::with_env("timeout 60"));
  EXPECT_EQ(r.rc, 0) << r.all();
  ASSERT_TRUE(fs::exists(dir / "out" / "report.html"));
  EXPECT_LT(fs::file_size(dir / "out" / "report.html"), 2u << 20);
  fs::remove_all(dir);
}

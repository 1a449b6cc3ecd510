// `sol compare`: records matched by family, variant and shape; B's speed-up over A judged against
// both runs' spread; what is in one run only or invalid in either is listed, not compared.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/compare.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "tests/host/sol_cli.hpp"

using namespace sol;

namespace {

results::Record rec(const std::string& variant, const std::string& shape, double median_s, double spread,
                    int samples = 50) {
  results::Record r;
  r.family = "copy";
  r.variant = variant;
  r.shape = shape;
  r.median_s = median_s;
  r.spread = spread;
  r.samples = samples;
  r.verified = true;
  return r;
}

results::File file(std::vector<results::Record> records, const std::string& family = "copy") {
  results::File f;
  f.family = family;
  for (auto& r : records) r.family = family;
  f.records = std::move(records);
  return f;
}

const cli::Pair* pair_of(const cli::Comparison& c, const std::string& variant) {
  for (const auto& p : c.pairs)
    if (p.variant == variant) return &p;
  return nullptr;
}

}  // namespace

TEST(Compare, VerdictsAllowForBothRunsNoise) {
  // ±2 % and ±2 % of spread: up to 4 % apart is "same".
  const results::File a = file({rec("v01", "n=1", 1.00e-3, 0.04), rec("v02", "n=1", 1.00e-3, 0.04),
                                rec("v03", "n=1", 1.00e-3, 0.04), rec("v04", "n=1", 1.00e-3, 0.04)});
  const results::File b = file({rec("v01", "n=1", 1.03e-3, 0.04), rec("v02", "n=1", 0.90e-3, 0.04),
                                rec("v03", "n=1", 1.10e-3, 0.04), rec("v04", "n=1", 0.5e-3, 0.0, 1)});
  const cli::Comparison c = cli::compare({a}, {b});
  ASSERT_EQ(c.pairs.size(), 4u);
  EXPECT_EQ(pair_of(c, "v01")->verdict, "same");
  EXPECT_NEAR(pair_of(c, "v01")->noise, 0.04, 1e-12);
  EXPECT_EQ(pair_of(c, "v02")->verdict, "faster");
  EXPECT_NEAR(pair_of(c, "v02")->speedup, 1.0 / 0.9, 1e-12);
  EXPECT_EQ(pair_of(c, "v03")->verdict, "slower");
  EXPECT_EQ(pair_of(c, "v04")->verdict, "unknown");  // one sample: no spread to judge by
  EXPECT_EQ(c.faster, 1);
  EXPECT_EQ(c.slower, 1);
  EXPECT_EQ(c.same, 1);
  EXPECT_EQ(c.unknown, 1);
  EXPECT_NEAR(c.geomean_speedup, std::cbrt((1 / 1.03) * (1 / 0.9) * (1 / 1.1)), 1e-12);
  // The same run against itself: all the same, speed-up 1, even with no spread at all.
  const cli::Comparison self = cli::compare({file({rec("v01", "n=1", 1e-3, 0)})}, {file({rec("v01", "n=1", 1e-3, 0)})});
  EXPECT_EQ(self.pairs.at(0).verdict, "same");
  EXPECT_DOUBLE_EQ(self.geomean_speedup, 1);
}

TEST(Compare, MatchesByFamilyVariantAndShape) {
  results::Record skipped = rec("v02", "n=1", 0, 0);
  skipped.skipped = "needs compute capability 9.0";
  results::Record failed = rec("v03", "n=1", 1e-3, 0.01);
  failed.verified = false;
  const results::File a = file({rec("v01", "n=1", 1e-3, 0.01), rec("v01", "n=2", 1e-3, 0.01), rec("v02", "n=1", 1e-3, 0.01),
                                rec("v03", "n=1", 1e-3, 0.01)});
  const results::File b = file({rec("v01", "n=1", 1e-3, 0.01), rec("v01", "n=3", 1e-3, 0.01), skipped, failed});
  const results::File other = file({rec("v01", "n=1", 1e-3, 0.01)}, "softmax");  // same variant, other family
  const cli::Comparison c = cli::compare({a}, {b, other});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].shape, "n=1");
  EXPECT_EQ(c.only_a, std::vector<std::string>{"copy/v01 n=2"});
  EXPECT_EQ(c.only_b, (std::vector<std::string>{"copy/v01 n=3", "softmax/v01 n=1"}));
  ASSERT_EQ(c.invalid.size(), 2u);
  EXPECT_NE(c.invalid[0].find("B skipped"), std::string::npos) << c.invalid[0];
  EXPECT_NE(c.invalid[1].find("B failed verification"), std::string::npos) << c.invalid[1];
}

TEST(Compare, TextFitsAHundredColumns) {
  const std::string longest(60, 'x');
  const results::File a = file({rec("v05_flash_wgmma_overlap_with_a_long_name_" + longest, "b=4,h=16,n=4096,d=128," + longest,
                                    1e-3, 0.01)});
  results::File b = a;
  b.records[0].median_s = 0.5e-3;
  const cli::Comparison c = cli::compare({a}, {b});
  const std::string text = cli::comparison_text(c, "/a/very/long/path/" + longest + "/A.json", "B.json");
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    EXPECT_LE(display_width(line), 100u) << line;
    start = end == std::string::npos ? text.size() : end + 1;
  }
  EXPECT_NE(text.find("faster"), std::string::npos);
  const auto j = nlohmann::json::parse(cli::comparison_json(c, "A.json", "B.json"));
  EXPECT_EQ(j.at("pairs").at(0).at("verdict"), "faster");
  EXPECT_DOUBLE_EQ(j.at("pairs").at(0).at("speedup").get<double>(), 2.0);
  EXPECT_EQ(j.at("summary").at("faster"), 1);
  EXPECT_EQ(j.at("schema_version"), results::kSchemaVersion);
}

TEST(Compare, ReadsFilesArraysAndFolders) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sol-compare-" + std::to_string(::getpid()));
  fs::create_directories(dir / "runs");
  const results::File a = file({rec("v01", "n=1", 1e-3, 0.01)});
  const results::File s = file({rec("v01", "n=1", 1e-3, 0.01)}, "softmax");
  results::write(a, (dir / "runs" / "copy.json").string());
  results::write(s, (dir / "runs" / "softmax.json").string());
  std::ofstream(dir / "array.json") << "[\n" << results::to_json(a) << ",\n" << results::to_json(s) << "]\n";
  EXPECT_EQ(cli::read_results((dir / "runs" / "copy.json").string()).size(), 1u);
  EXPECT_EQ(cli::read_results((dir / "array.json").string()).size(), 2u);
  EXPECT_EQ(cli::read_results((dir / "runs").string()).size(), 2u);
  std::ofstream(dir / "broken.json") << "[{\"family\": 3}]";
  EXPECT_THROW(cli::read_results((dir / "broken.json").string()), Error);
  EXPECT_THROW(cli::read_results((dir / "missing.json").string()), Error);
  fs::remove_all(dir);
}

TEST(Compare, CliRunsAndRejectsBadInputInOneLine) {
  if (!std::getenv("SOL_BIN")) GTEST_SKIP() << "SOL_BIN is not set (run through ctest)";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sol-compare-cli-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  results::File a = file({rec("v01", "n=1", 1e-3, 0.01)});
  results::File b = a;
  b.records[0].median_s = 2e-3;
  results::write(a, (dir / "a.json").string());
  results::write(b, (dir / "b.json").string());
  results::write(file({rec("v01", "n=1", 1e-3, 0.01)}, "softmax"), (dir / "other.json").string());
  std::ofstream(dir / "overflow.json") << "{\"family\": 1e999}";  // out of double's range
  const auto ok = test::run_sol("compare " + (dir / "a.json").string() + " " + (dir / "b.json").string());
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("slower"), std::string::npos) << ok.out;
  const auto js = test::run_sol("compare --json " + (dir / "a.json").string() + " " + (dir / "b.json").string());
  EXPECT_EQ(js.rc, 0);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(js.out).at("pairs").at(0).at("speedup").get<double>(), 0.5);
  for (const std::string& args : {"compare " + (dir / "a.json").string() + " " + (dir / "nope.json").string(),
                                  "compare " + (dir / "a.json").string() + " " + (dir / "other.json").string(),
                                  "compare " + (dir / "a.json").string(),
                                  "compare " + (dir / "a.json").string() + " " + (dir / "overflow.json").string(),
                                  "compare /dev/zero " + (dir / "a.json").string()}) {
    const auto r = test::run_sol(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << args << ": " << r.err;
  }
  fs::remove_all(dir);
}

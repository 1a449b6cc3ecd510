// What a terminal shows fits 100 columns: each command's typical invocations (README's examples
// and the commands' own help), every line counted in UTF-8 code points.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "sol/core/format.hpp"
#include "sol_cli.hpp"

namespace sol {
namespace {

namespace fs = std::filesystem;

// The lines of `text` wider than kTerminalColumns, each with its width.
std::string too_wide(const std::string& text) {
  std::stringstream in(text);
  std::string bad;
  for (std::string line; std::getline(in, line);)
    if (display_width(line) > kTerminalColumns) bad += "  [" + std::to_string(display_width(line)) + "] " + line + "\n";
  return bad;
}

void expect_fits(const std::string& args, int rc = 0) {
  const test::CliRun r = test::run_sol(args);
  EXPECT_EQ(r.rc, rc) << "sol " << args << "\n" << r.all();
  EXPECT_FALSE(r.all().empty()) << "sol " << args;
  EXPECT_EQ(too_wide(r.all()), "") << "sol " << args;
}

TEST(CliWidth, TooWideCountsCodePointsNotBytes) {
  EXPECT_EQ(too_wide(std::string(100, 'x')), "");
  EXPECT_NE(too_wide(std::string(101, 'x')), "");
  std::string mu;
  for (int i = 0; i < 100; ++i) mu += "µ";  // 200 bytes, 100 columns
  EXPECT_EQ(too_wide(mu), "");
}

TEST(CliWidth, HelpTexts) {
  expect_fits("--help");
  for (const char* cmd : {"hw", "hw show", "hw list", "roofline", "report", "list", "probe", "bench", "doctor", "docs",
                          "cast", "quant", "systolic", "occupancy", "shapes", "access", "checkpoint"})
    expect_fits(std::string(cmd) + " --help");
}

TEST(CliWidth, ReadmeExamples) {
  const fs::path tmp = fs::temp_directory_path() / ("sol-width-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const std::string results = std::string(SOL_SOURCE_DIR) + "/bench/results/h200";
  for (const std::string& args : std::vector<std::string>{
           "roofline matmul --m 4096 --n 4096 --k 4096 --gpu h100 --dtype bf16",
           "roofline attention --seq 4096 --head-dim 64 --impl flash --block-q 128",
           "roofline layernorm --rows 32768 --cols 4096 --gpu h200",
           "roofline matmul --m 1000 --n 1000 --k 1000 --gpu tpu-v5e",
           "hw list",
           "hw show h200",
           "hw show h100",
           "occupancy --gpu h200 --threads 256 --regs 64 --smem 16384 --carveout 50",
           "shapes gemm --m 1793 --n 1793 --k 1793 --gpu h200",
           "shapes gemm --n 4096 --k 4096 --sweep 1024:1280:64 --gpu h200",
           "systolic --array 4x4 --gemm 6x4x4 --picture --cycles 12",
           "quant --fmt mxfp8-e4m3 --rule ceil --dist outliers --shape 256,256",
           "cast --to e4m3 1 0.1 -448 1e9 nan",
           "access coalescing --stride 4",
           "access banks --row 32 --stride 32",
           "access divergence --ways 4",
           "list",
       })
    expect_fits(args);
  fs::remove_all(tmp);
}

TEST(CliWidth, ErrorsSuggest) {
  expect_fits("rooflin", 2);
}

}  // namespace
}  // namespace sol

// What a terminal shows fits 100 columns: each command's typical invocations (README's examples
// and the commands' own help), every line counted in UTF-8 code points.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/measure_all.hpp"
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

TEST(CliWidth, TablesWrapThenSplitToFit) {
  // A wide first column of identifiers and shapes wraps at its punctuation.
  Table t({"variant", "shape", "a", "b", "c"});
  t.align(1, Table::Align::Left);
  t.add_row({"peer:torch.compile_naive_layer_norm_bwd_bf16_with_a_very_long_name_indeed",
             "rows=32768,cols=4096,fp16=1,causal=1,det=1,hkv=4", std::string(20, '1'), std::string(20, '2'), "3"});
  const std::string wrapped = t.str();
  EXPECT_EQ(too_wide(wrapped), "") << wrapped;
  EXPECT_NE(wrapped.find("peer:torch."), std::string::npos) << wrapped;
  EXPECT_NE(wrapped.find(std::string(20, '2')), std::string::npos) << "numbers are never wrapped\n" << wrapped;
  // Right-aligned numbers that cannot fit side by side: groups of columns, each led by the first.
  std::vector<std::string> head = {"row"};
  std::vector<std::string> cells = {"r1"};
  for (int c = 0; c < 12; ++c) {
    head.push_back("column " + std::to_string(c));
    cells.push_back(std::string(12, char('a' + c)));
  }
  Table wide(head);
  wide.add_row(cells);
  const std::string split = wide.str();
  EXPECT_EQ(too_wide(split), "") << split;
  for (const auto& cell : cells) EXPECT_NE(split.find(cell), std::string::npos) << cell << "\n" << split;
  size_t leads = 0;
  for (size_t at = 0; (at = split.find("\nr1 ", at)) != std::string::npos; ++at) ++leads;
  EXPECT_GE(leads + (split.rfind("r1 ", 0) == 0), 2u) << split;
  // A table that fits is left as it is: one line per row.
  Table narrow({"a", "b"});
  narrow.add_row({"x", "1"});
  EXPECT_EQ(narrow.str(), "a  b\n----\nx  1\n");
}

TEST(CliWidth, ReportFromCommittedResults) {
  const fs::path tmp = fs::temp_directory_path() / ("sol-width-report-" + std::to_string(::getpid()));
  const std::string results = std::string(SOL_SOURCE_DIR) + "/bench/results/h200";
  const test::CliRun r = test::run_sol("report --results " + results + " --out-dir " + tmp.string());
  fs::remove_all(tmp);
  ASSERT_EQ(r.rc, 0) << r.all();
  EXPECT_EQ(too_wide(r.all()), "");
  // Every measured family is there, and no Markdown reaches the terminal.
  for (const char* family : {"[copy]", "[gemm_bf16]", "[attention_bwd]", "[sweep: ", "[activation checkpointing"})
    EXPECT_NE(r.out.find(family), std::string::npos) << family;
  EXPECT_EQ(r.out.find("|---"), std::string::npos);
  EXPECT_EQ(r.out.find("**"), std::string::npos);
  EXPECT_EQ(r.out.find("\n|"), std::string::npos);  // no Markdown table row
}

// Without a GPU (as here) the report is the model's, with the reason nothing was measured.
TEST(CliWidth, ModelOnlyReport) {
  const fs::path tmp = fs::temp_directory_path() / ("sol-width-model-report-" + std::to_string(::getpid()));
  const test::CliRun r = test::run_sol("report --out-dir " + tmp.string(), test::with_env("CUDA_VISIBLE_DEVICES="));
  const std::string txt = test::slurp(tmp / "report.txt");
  fs::remove_all(tmp);
  ASSERT_EQ(r.rc, 0) << r.all();
  EXPECT_NE(r.out.find("measured: none"), std::string::npos) << r.out;
  EXPECT_EQ(too_wide(r.all()), "");
  EXPECT_EQ(too_wide(txt), "");
}

TEST(CliWidth, ModelCommandsOnCommittedResultsAndInputs) {
  const std::string src = SOL_SOURCE_DIR;
  for (const std::string& args : std::vector<std::string>{
           "access --against " + src + "/bench/results/h200/coalescing.json",
           "access --against " + src + "/bench/results/h200/banks.json",
           "access --against " + src + "/bench/results/h200/divergence.json",
           "checkpoint --layers 8 --batch 2 --seq 2048 --d-model 1024 --heads 16",
           "checkpoint --layers 48 --batch 8 --seq 4096 --d-model 8192 --heads 64 --attention standard --gpu h100",
           "systolic --gemm 512,512,512 --array 32x32",
           "systolic --config " + src + "/tests/data/scalesim/inputs/P02.cfg --topology " + src +
               "/tests/data/scalesim/inputs/P02.csv",
           "shapes gemm --m 1793 --n 1793 --k 1793 --gpu h200",
           "roofline attention --seq 4096 --head-dim 64 --impl flash --block-q 128 --backward",
           "hw show tpu-v5e",
           "hw show b200",
           "report --model-only --gpu h200 --out-dir " + (fs::temp_directory_path() / "sol-width-model").string(),
       })
    expect_fits(args);
  fs::remove_all(fs::temp_directory_path() / "sol-width-model");
}

TEST(CliWidth, TimeBreakdownSumsGroupsAndNamesTheSlowest) {
  const cli::Phases phases = {{"probe", 9.1},
                              {"environment", 0.4},
                              {"sol kernels: copy", 2},
                              {"sol kernels: gemm_bf16", 12},
                              {"sol kernels: attention", 9},
                              {"PyTorch peers: start and import torch", 4},
                              {"PyTorch peers: attention", 10},
                              {"PyTorch peers: mx", 8},
                              {"rendering the report", 0.3}};
  const std::string t = cli::time_breakdown(phases);
  EXPECT_EQ(t.rfind("where the time went (0:55 in all):\n", 0), 0u) << t;  // 54.8 s
  // Groups in the order they came, summed, their items slowest first.
  EXPECT_NE(t.find("\n  sol kernels               23 s   gemm_bf16 12 s, attention 9 s, copy 2 s\n"), std::string::npos)
      << t;
  EXPECT_NE(t.find("\n  PyTorch peers             22 s   attention 10 s, mx 8 s, start and import torch 4 s\n"),
            std::string::npos)
      << t;
  EXPECT_LT(t.find("  probe                    9.1 s\n"), t.find("sol kernels")) << t;
  std::istringstream lines(t);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), kTerminalColumns) << line;
  // Many items: the line ends in "…" rather than running past the terminal.
  cli::Phases many;
  for (int i = 0; i < 40; ++i) many.push_back({"sol kernels: family_" + std::to_string(i), 1.0 + i});
  const std::string m = cli::time_breakdown(many);
  EXPECT_NE(m.find(", …"), std::string::npos) << m;
  std::istringstream mlines(m);
  for (std::string line; std::getline(mlines, line);) EXPECT_LE(display_width(line), kTerminalColumns) << line;
}

TEST(CliWidth, ErrorsSuggest) {
  expect_fits("rooflin", 2);
}

}  // namespace
}  // namespace sol

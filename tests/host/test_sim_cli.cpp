// `sol systolic` end to end: SCALE-Sim's inputs in, its three reports out (byte for byte for the
// public CALC cases), JSON for machines, and one clear line with exit code 2 for bad input.
#include <gtest/gtest.h>

#include "tests/host/sol_cli.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;

namespace {

// SCALE-Sim's inputs and reports, kept in the repository (tests/data/scalesim/README.md).
fs::path scalesim_dir() { return fs::path(SOL_SOURCE_DIR) / "tests" / "data" / "scalesim"; }

struct Outcome {
  int code;
  std::string out;
};

Outcome run_cli(const std::string& args) {
  const auto r = sol::test::run_sol(args);
  return {r.rc, r.all()};
}

std::string read(const fs::path& p) { return sol::test::slurp(p); }

}  // namespace

TEST(SimCli, WritesScaleSimsReportsByteForByte) {
  const fs::path root = scalesim_dir();
  ASSERT_TRUE(fs::exists(root / "inputs" / "P07.cfg")) << "missing " << root;
  for (const char* id : {"P01", "P07", "P09"}) {
    const fs::path out = fs::temp_directory_path() / (std::string("sol_sim_cli_") + id);
    fs::remove_all(out);
    const Outcome r = run_cli("systolic --config " + (root / "inputs" / (std::string(id) + ".cfg")).string() + " --topology " +
                      (root / "inputs" / (std::string(id) + ".csv")).string() + " --compat scalesim --out-dir " + out.string());
    ASSERT_EQ(r.code, 0) << r.out;
    for (const char* f : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
      EXPECT_EQ(read(out / f), read(root / "reports" / id / f)) << id << " " << f;
    fs::remove_all(out);
  }
}

TEST(SimCli, OneLayerAsJsonBothEngines) {
  const Outcome a = run_cli("systolic --array 8x8 --dataflow os --gemm 20,30,40 --json");
  const Outcome s = run_cli("systolic --array 8x8 --dataflow os --gemm 20,30,40 --json --engine stepped");
  ASSERT_EQ(a.code, 0) << a.out;
  ASSERT_EQ(s.code, 0) << s.out;
  const auto ja = nlohmann::json::parse(a.out), js = nlohmann::json::parse(s.out);
  EXPECT_EQ(ja["layers"][0]["macs"], 20 * 30 * 40);
  EXPECT_EQ(ja["layers"][0]["row_folds"], 3);
  EXPECT_EQ(ja["layers"][0]["col_folds"], 4);
  EXPECT_EQ(ja["layers"][0]["total_cycles"], js["layers"][0]["total_cycles"]);
  EXPECT_EQ(ja["layers"][0]["ifmap"]["sram_words"], js["layers"][0]["ifmap"]["sram_words"]);
  EXPECT_EQ(ja["model"], "sol");
}

TEST(SimCli, TableAndPicture) {
  const Outcome t = run_cli("systolic --array 128x128 --gemm 1000,1000,1000");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("1000×1000×1000"), std::string::npos) << t.out;
  const Outcome p = run_cli("systolic --array 4x4 --gemm 6,4,4 --picture --cycles 10");
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("cycle 9"), std::string::npos);
}

TEST(SimCli, BadInputIsOneLineAndExitTwo) {
  for (const char* args : {"systolic --gemm 0,4,4", "systolic --gemm 4,4", "systolic --array 0x4 --gemm 4,4,4",
                           "systolic --dataflow zz --gemm 4,4,4", "systolic", "systolic --compat foo --gemm 4,4,4",
                           "systolic --array 8x8 --gemm 4,4,4 --picture --cycles 0"}) {
    const Outcome r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("error"), std::string::npos) << args;
    EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
  }
}

TEST(SimCli, RooflineOnATpuReportsTheMxuFolds) {
  const Outcome r = run_cli("roofline matmul --gpu tpu-v5e --m 1000 --n 1000 --k 1000 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("mxu")) << r.out;
  EXPECT_EQ(j["mxu"]["row_folds"], 8);  // ⌈1000/128⌉
  EXPECT_EQ(j["mxu"]["mxus"], 4);
  EXPECT_NEAR(j["mxu"]["mapped_fraction"].get<double>(), 1000.0 * 1000 / (64 * 128 * 128), 1e-12);
  EXPECT_GE(j["mxu"]["estimate_s"].get<double>(), j["floor_s"].get<double>());
  const Outcome g = run_cli("roofline matmul --gpu h100 --m 1000 --n 1000 --k 1000 --json");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_FALSE(nlohmann::json::parse(g.out).contains("mxu"));  // GPUs have no MXU
}

// `sol roofline` as a user runs it: the built binary (SOL_BIN) through popen. JSON output is
// checked against the library's own models on the same inputs and against the lecture's
// headline figures; bad input must give exit code 2 and exactly one line on stderr.
#include <gtest/gtest.h>

#include "tests/host/sol_cli.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"

using namespace sol;
using json = nlohmann::json;

namespace {

using CliRun = sol::test::CliRun;

std::string temp_path(const std::string& stem) {
  return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()))).string();
}

// Runs `env sol args`.
CliRun run_sol(const std::string& args, const std::string& env = "") { return sol::test::run_sol(args, sol::test::with_env(env)); }

json sol_json(const std::string& args, const std::string& env = "") {
  CliRun r = run_sol(args + " --json", env);
  EXPECT_EQ(r.rc, 0) << args << "\n" << r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not JSON: " << e.what() << "\n" << r.out;
    return json::object();
  }
}

using sol::test::count_lines;

}  // namespace

TEST(RooflineCli, MatmulJsonHasTheLectureFigures) {
  json j = sol_json("roofline matmul --m 4096 --n 4096 --k 4096");
  for (const char* key : {"flops", "bytes", "intensity_flops_per_byte", "ridge_flops_per_byte", "bound", "compute_s", "memory_s", "floor_s",
                          "attainable_flops_per_s", "fraction_of_peak", "gpu", "dtype", "op", "notes", "levels"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_FALSE(j.contains("saved_bytes")) << "only attention saves anything for backward";
  EXPECT_EQ(j["gpu"], "h100");  // the lecture's chip is the default
  EXPECT_EQ(j["dtype"], "bf16");
  EXPECT_EQ(j["unit"], "matrix");
  EXPECT_NEAR(j["intensity_flops_per_byte"].get<double>(), 1365.3, 0.1);
  EXPECT_EQ(j["bound"], "compute");
  EXPECT_NEAR(j["floor_s"].get<double>() * 1e3, 0.139, 0.0005);
  EXPECT_EQ(j["levels"].back()["level"], "HBM");
  EXPECT_TRUE(j["notes"].is_array());
  EXPECT_FALSE(j["notes"].empty());
}

TEST(RooflineCli, JsonMatchesTheLibrary) {
  struct Case {
    std::string args;
    model::Cost cost;
  };
  const std::vector<Case> cases = {
      {"roofline matmul --m 1 --n 4096 --k 4096 --dtype fp16", model::matmul({.m = 1, .n = 4096, .k = 4096, .dtype = DType::f16})},
      {"roofline matmul --m 4k --n 2^12 --k 4096 --impl tiled --tile 64",
       model::matmul({.m = 4096, .n = 4096, .k = 4096, .impl = model::MatmulImpl::Tiled, .tile = 64})},
      {"roofline elementwise --n 2^26 --ops 5 --extra-reads 1 --gpu h200",
       model::elementwise({.n = int64_t(1) << 26, .ops = 5, .extra_reads = 1})},
      {"roofline layernorm --rows 32768 --cols 4096", model::row_op({.rows = 32768, .cols = 4096})},
      {"roofline rmsnorm --rows 1000 --cols 999 --impl fused --gpu a100",
       model::row_op({.kind = model::RowKind::RMSNorm, .rows = 1000, .cols = 999, .fused = true})},
      {"roofline softmax --rows 7 --cols 4099 --dtype fp32", model::row_op({.kind = model::RowKind::Softmax, .rows = 7, .cols = 4099, .dtype = DType::f32})},
      {"roofline attention --batch 2 --heads 16 --seq 2048 --head-dim 128 --impl flash --block-q 64 --causal --backward",
       model::attention({.batch = 2, .heads = 16, .seq = 2048, .head_dim = 128, .flash = true, .block_q = 64, .causal = true, .backward = true})},
      {"roofline attention --batch 4 --heads 16 --seq 4096 --head-dim 128 --impl flash --l2-reuse --gpu h200",
       model::attention({.batch = 4, .heads = 16, .seq = 4096, .head_dim = 128, .flash = true, .reuse_in_l2 = true})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    json j = sol_json(c.args);
    EXPECT_DOUBLE_EQ(j["flops"].get<double>(), c.cost.flops);
    EXPECT_DOUBLE_EQ(j["bytes"].get<double>(), c.cost.bytes);
    EXPECT_DOUBLE_EQ(j["intensity_flops_per_byte"].get<double>(), c.cost.flops / c.cost.bytes);
    EXPECT_EQ(j["op"], c.cost.op);
    const double t = j["floor_s"].get<double>();
    EXPECT_DOUBLE_EQ(t, std::max(j["compute_s"].get<double>(), j["memory_s"].get<double>()));
    EXPECT_EQ(j["bound"], j["compute_s"].get<double>() > j["memory_s"].get<double>() ? "compute" : "memory");
    EXPECT_NEAR(j["attainable_flops_per_s"].get<double>() * t, c.cost.flops, 1e-9 * c.cost.flops);
  }
}

TEST(RooflineCli, AttentionReportsSavedBytes) {
  json std_attn = sol_json("roofline attention --heads 32 --seq 4096 --head-dim 64");
  json flash = sol_json("roofline attention --heads 32 --seq 4096 --head-dim 64 --impl flash");
  EXPECT_NEAR(std_attn["saved_bytes"].get<double>() / 1e9, 1.07, 0.005);
  EXPECT_NEAR(flash["saved_bytes"].get<double>() / 1e6, 17.3, 0.05);
  EXPECT_EQ(std_attn["unit"], "matrix");
}

TEST(RooflineCli, ElementwisePeakChoice) {
  // Default: the vector unit's bf16 peak. --unit matrix: the lecture's 0.085 % of 989 TFLOP/s.
  json vec = sol_json("roofline elementwise --n 134217728");
  json mat = sol_json("roofline elementwise --n 134217728 --unit matrix");
  EXPECT_EQ(vec["unit"], "vector");
  EXPECT_EQ(mat["unit"], "matrix");
  EXPECT_NEAR(mat["fraction_of_peak"].get<double>() * 100, 0.085, 0.0005);
  EXPECT_DOUBLE_EQ(vec["floor_s"].get<double>(), mat["floor_s"].get<double>());
  const hw::HwSpec& h100 = hw::find("h100");
  EXPECT_DOUBLE_EQ(vec["peak_flops_per_s"].get<double>(), h100.peak(DType::bf16, hw::Unit::Vector).flops_per_s);
  // fp8 data: no fp8 vector math anywhere, so the fp32 vector peak, said in a note.
  json fp8 = sol_json("roofline elementwise --n 1000 --dtype fp8");
  EXPECT_EQ(fp8["math_dtype"], "fp32");
  EXPECT_DOUBLE_EQ(fp8["peak_flops_per_s"].get<double>(), h100.peak(DType::f32, hw::Unit::Vector).flops_per_s);
  // fp32 matmul on Hopper: no fp32 tensor-core mode, so the vector unit.
  json f32 = sol_json("roofline matmul --m 64 --n 64 --k 64 --dtype fp32");
  EXPECT_EQ(f32["unit"], "vector");
}

TEST(RooflineCli, TextTableHasEveryLine) {
  CliRun r = run_sol("roofline layernorm --rows 32768 --cols 4096 --unit matrix");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.err.empty());
  for (const char* s : {"layernorm over 32768×4096 bf16, naive", "FLOPs", "bytes (HBM)", "intensity", "ridge", "bound",
                        "memory", "compute time", "memory time", "floor", "attainable", "% of peak",
                        "528 tensor cores × 1024 FLOP/clk × 1.83 GHz = 989.4 TFLOP/s", "hierarchical", "L2", "HBM",
                        "slowest level", "notes"})
    EXPECT_NE(r.out.find(s), std::string::npos) << "missing '" << s << "' in\n" << r.out;
  EXPECT_NE(r.out.find("561 µs"), std::string::npos) << "the lecture's 0.56 ms floor\n" << r.out;
}

TEST(RooflineCli, HwFileAndMeasuredProfile) {
  // A row from --hw-file: H100 with its bandwidth doubled halves a memory-bound floor.
  json row = json::parse(hw::to_json(hw::find("h100")));
  row["name"] = "h100-fast-hbm";
  row["hbm_bytes_per_s"] = 6.7e12;
  for (auto& l : row["levels"])
    if (l["name"] == "HBM") l["bytes_per_s"] = 6.7e12;
  const std::string path = temp_path("sol-hw-row") + ".json";
  std::ofstream(path) << row.dump();
  json base = sol_json("roofline elementwise --n 2^28");
  json fast = sol_json("--hw-file '" + path + "' roofline elementwise --n 2^28 --gpu h100-fast-hbm");
  EXPECT_EQ(fast["gpu"], "h100-fast-hbm");
  EXPECT_NEAR(fast["floor_s"].get<double>(), base["floor_s"].get<double>() / 2, 1e-12);
  // The profile `sol probe` writes, found through SOL_PROFILE: ceilings are labelled measured.
  row["name"] = "h100-probed";
  row["measured"] = true;
  const std::string prof = temp_path("sol-profile") + ".json";
  std::ofstream(prof) << row.dump();
  json m = sol_json("roofline matmul --m 4096 --n 4096 --k 4096 --gpu measured", "SOL_PROFILE='" + prof + "'");
  EXPECT_EQ(m["measured"], true);
  EXPECT_NE(m["peak_label"].get<std::string>().find("measured"), std::string::npos);
  std::remove(path.c_str());
  std::remove(prof.c_str());
}

TEST(RooflineCli, BadInputIsOneLineAndExitTwo) {
  const std::vector<std::string> bad = {
      "roofline conv2d --n 4",                                     // unknown op
      "roofline",                                                  // no op
      "roofline matmul --m 0 --n 4 --k 4",                         // zero size
      "roofline matmul --m -3 --n 4 --k 4",                        // negative size
      "roofline matmul --m 4 --n 4",                               // missing size
      "roofline matmul --m 4 --n 4 --k x",                         // not a number
      "roofline matmul --m 4 --n 4 --k 4 --gpu v100",              // unknown GPU
      "roofline matmul --m 4 --n 4 --k 4 --dtype fp12",            // unknown dtype
      "roofline matmul --m 4 --n 4 --k 4 --dtype fp8 --gpu a100",  // dtype the chip lacks
      "roofline matmul --m 4 --n 4 --k 4 --dtype fp32 --unit matrix",
      "roofline matmul --m 2^31 --n 2^31 --k 2^31 --impl naive",   // bytes overflow 64 bits
      "roofline matmul --m 2^40 --n 2^40 --k 8",
      "roofline attention --seq 2^33 --head-dim 64",
      "roofline elementwise --n 2^62 --ops 4",
      "roofline elementwise --n 9999999999999999999999",
      "roofline softmax --rows 4 --cols 4 --m 3",                  // flag of another op
      "roofline elementwise --n 16 --ops 0",
      "roofline elementwise --n 16 --flops-per-op -2",
      "roofline matmul --m 4 --n 4 --k 4 --impl blocked",
      "roofline matmul --m 4 --n 4 --k 4 --impl tiled --tile 0",
      "roofline attention --seq 64 --head-dim 64 --impl flash --block-q -1",
      "roofline attention --seq 64 --head-dim 64 --block-q 64",    // block size without flash
      "roofline attention --seq 64 --head-dim 64 --l2-reuse",      // L2 reuse without flash
      "roofline matmul --m 4 --n 4 --k 4 --l2-reuse",              // flag of another op
      "roofline layernorm --rows 4 --cols 4 --unit tensor",
      "roofline matmul --m 4 --n 4 --k 4 --gpu measured",          // no profile at SOL_PROFILE
  };
  for (const std::string& args : bad) {
    CliRun r = run_sol(args, "SOL_PROFILE=/nonexistent/sol-profile.json");
    EXPECT_EQ(r.rc, 2) << args << "\nstderr: " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind("sol: error: ", 0), 0u) << args << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\nstdout: " << r.out;
  }
}

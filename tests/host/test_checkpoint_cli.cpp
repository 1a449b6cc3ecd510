// `sol checkpoint` as a user runs it (the built binary, SOL_BIN): the table and JSON for the
// example of docs/checkpoint.md, and exit 2 with one line for bad input and for a budget nothing
// fits.
#include <gtest/gtest.h>

#include "tests/host/sol_cli.hpp"
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

using json = nlohmann::json;

namespace {

struct Ran {
  int rc = -1;
  std::string out;  // stdout and stderr together
};

Ran run_sol(const std::string& args) {
  const auto r = sol::test::run_sol(args);
  return {r.rc, r.all()};
}

const std::string kExample = "checkpoint --layers 32 --batch 8 --seq 4096 --d-model 4096 --heads 32 --gpu h200";

int lines(const std::string& s) { return sol::test::count_lines(s); }

}  // namespace

TEST(CheckpointCli, TableAndChosenSchedule) {
  const Ran r = run_sol(kExample + " --budget 40GiB");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* want : {"QKV matmul", "attention (flash)", "GeLU", "none", "every block", "√L segments", "optimal",
                           "chosen", "40 GiB", "In-block choices", "optimal + in-block selection"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
}

TEST(CheckpointCli, JsonChosenFitsAndIsFastest) {
  const double budget = 40.0 * (1ull << 30);
  const Ran r = run_sol(kExample + " --budget 40GiB --attention standard --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["attention"], "standard");
  EXPECT_DOUBLE_EQ(j["budget_bytes"].get<double>(), budget);
  const json& chosen = j["chosen"];
  EXPECT_LE(chosen["peak_bytes"].get<double>(), budget);
  int64_t covered = 0;
  for (const auto& s : chosen["segments"]) covered += s["length"].get<int64_t>();
  EXPECT_EQ(covered, 32);
  for (const auto& p : j["strategies"])
    if (p["peak_bytes"].get<double>() <= budget) {
      EXPECT_LE(chosen["step_s"].get<double>(), p["step_s"].get<double>() * (1 + 1e-12)) << p["strategy"];
    }
  // Standard attention keeps P: 8·32·4096² bf16 = 8 GiB per layer, so keeping all 32 does not fit.
  EXPECT_GT(j["strategies"][0]["peak_bytes"].get<double>(), budget);
  // The block-level optimum recomputes whole layers; the chosen plan (in-block selection) drops what
  // is cheapest to rebuild instead, and is at least as fast.
  const json* block = nullptr;
  for (const auto& p : j["strategies"])
    if (p["strategy"] == "optimal") block = &p;
  ASSERT_NE(block, nullptr);
  EXPECT_GT((*block)["recomputed_layers"].get<int64_t>(), 0);
  EXPECT_EQ(chosen["strategy"], "optimal + in-block selection");
  EXPECT_GT(chosen["extra_s"].get<double>(), 0);
  EXPECT_LE(chosen["step_s"].get<double>(), (*block)["step_s"].get<double>());
}

TEST(CheckpointCli, BadInputIsOneLineExit2) {
  for (const std::string& args :
       {kExample + " --heads 3", kExample + " --attention sparse", kExample + " --budget 40XB",
        kExample + " --layers 0", kExample + " --mlp-ratio 0", std::string("checkpoint --layers 32"),
        kExample + " --gpu nosuchgpu"}) {
    const Ran r = run_sol(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.out;
    EXPECT_EQ(lines(r.out), 1) << args << "\n" << r.out;
  }
}

TEST(CheckpointCli, SvgPicture) {
  const std::string path = ::testing::TempDir() + "sol_checkpoint_test.svg";
  std::remove(path.c_str());
  const Ran r = run_sol(kExample + " --budget 40GiB --svg " + path);
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string svg = sol::test::slurp(path);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 80);
  for (const char* want : {">none<", ">every block<", ">optimal<", ">optimal + in-block selection<", "budget 40 GiB"})
    EXPECT_NE(svg.find(want), std::string::npos) << want;
  std::remove(path.c_str());
  // An unwritable path is one line, exit 2.
  const Ran bad = run_sol(kExample + " --budget 40GiB --svg /nonexistent-dir/x.svg");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_EQ(lines(bad.out), 1) << bad.out;
}

TEST(CheckpointCli, BudgetNothingFits) {
  const Ran r = run_sol(kExample + " --budget 1GiB");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("no checkpointing schedule fits"), std::string::npos) << r.out;
}

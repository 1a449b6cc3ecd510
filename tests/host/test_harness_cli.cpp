// `sol list`, `sol probe`, `sol bench` and `sol doctor` as a user meets them without a GPU (CI):
// the registry listing works; bad input exits 2 with one line; a missing GPU exits 1 with one
// line naming the reason. Runs the built binary (env SOL_BIN).
#include <gtest/gtest.h>

#include "tests/host/sol_cli.hpp"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sol/registry.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace {

struct SolRun {
  int code = -1;
  std::string out;  // stdout or stderr, as asked
};

// Runs `sol ARGS`; keep = "stdout" or "stderr".
SolRun run_sol(const std::string& args, const std::string& keep) {
  const auto r = sol::test::run_sol(args);
  return {r.rc, keep == "stdout" ? r.out : r.err};
}

int lines(const std::string& s) { return sol::test::count_lines(s); }

bool have_gpu() {
#ifdef SOL_WITH_CUDA
  return sol::bench::gpu_available();
#else
  return false;
#endif
}

}  // namespace

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("SOL_BIN")) GTEST_SKIP() << "SOL_BIN is not set (run through ctest)";
  }
};

TEST_F(Cli, ListShowsEveryVariant) {
  const SolRun r = run_sol("list", "stdout");
  EXPECT_EQ(r.code, 0);
  for (const auto& v : sol::registry()) EXPECT_NE(r.out.find(v.name), std::string::npos) << v.name;
  if (!sol::registry().empty()) {
    EXPECT_NE(r.out.find("headline shape"), std::string::npos);
    EXPECT_NE(r.out.find(sol::registry().front().bench_shapes.front().str()), std::string::npos);
  }
}

TEST_F(Cli, ListJson) {
  const SolRun r = run_sol("list --json", "stdout");
  ASSERT_EQ(r.code, 0);
  if (sol::registry().empty()) GTEST_SKIP() << "the registry is empty (built without CUDA)";
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), sol::registry().size());
  EXPECT_EQ(j[0].at("family"), sol::registry()[0].family);
  EXPECT_EQ(j[0].at("tolerance_why"), sol::registry()[0].tol.why);
}

TEST_F(Cli, BadInputExitsTwoWithOneLine) {
  if (!sol::built_with_cuda()) GTEST_SKIP() << "bench and doctor check their arguments only in a CUDA build";
  const std::string family = sol::registry().front().family;
  for (const std::string& args : std::vector<std::string>{"list nosuch", "bench nosuch", "bench " + family + " --cold-l2 --graph",
                                 "bench " + family + " --shape n", "bench " + family + " --budget -1",
                                 "doctor " + family, "doctor nosuch/v01",
                                 "doctor " + family + "/" + sol::registry().front().name + " --shape no_such_dim=4"}) {
    const SolRun r = run_sol(args, "stderr");
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_EQ(lines(r.out), 1) << args << ": " << r.out;
  }
}

TEST_F(Cli, BenchControlsRejectBadValuesBeforeAnyGpuWork) {
  // Checked in every build, GPU or not, before the probe.
  for (const std::string& args : std::vector<std::string>{
           "bench selftest --csv --md", "bench selftest --min-samples 2", "bench selftest --min-samples -5",
           "bench selftest --max-noise 1.5", "bench selftest --max-noise -0.1", "bench selftest --timeout -1",
           "bench selftest --run-once --graph", "bench selftest --run-once --min-samples 20",
           "bench selftest --run-once --timeout 3", "bench selftest --min-samples many",
           "bench selftest --events --graph", "bench selftest --run-once --events", "bench selftest --rest -1",
           "bench selftest --rest 61", "bench selftest --run-once --rest 1", "bench selftest --run-once --full-budget",
           "bench selftest --full-budget --max-noise 0.01"}) {
    const SolRun r = run_sol(args, "stderr");
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_EQ(lines(r.out), 1) << args << ": " << r.out;
  }
}

TEST_F(Cli, NoGpuExitsOneWithTheReason) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present; this checks the message without one";
  for (const std::string& args : std::vector<std::string>{"probe", "bench selftest", "doctor selftest/v01_axpb"}) {
    const SolRun r = run_sol(args, "stderr");
    EXPECT_EQ(r.code, 1) << args;
    const bool says_why = r.out.find("no CUDA device") != std::string::npos || r.out.find("without CUDA") != std::string::npos;
    EXPECT_TRUE(says_why) << args << ": " << r.out;
    EXPECT_EQ(lines(r.out), 1) << args << ": " << r.out;
  }
}

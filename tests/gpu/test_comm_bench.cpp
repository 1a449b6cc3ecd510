// `sol bench comm`'s parts that need neither a GPU nor NCCL (bench/comm/comm_bench.hpp): how a run
// with one process per GPU merges its workers' samples, and where its document goes.
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA  // the harness (bench/) is built with CUDA only
#include <string>
#include <vector>

#include "bench/comm/comm_bench.hpp"
#include "sol/core/error.hpp"

namespace {

using sol::bench::comm::results_path;
using sol::bench::comm::slowest_per_sample;

TEST(CommBenchMerge, EachSampleIsTheSlowestRanks) {
  // Sample i of every rank is the same collective call: the call took as long as its slowest rank.
  EXPECT_EQ(slowest_per_sample({{1e-6, 5e-6, 3e-6}, {2e-6, 4e-6, 3e-6}, {1.5e-6, 1e-6, 7e-6}}),
            (std::vector<double>{2e-6, 5e-6, 7e-6}));
  EXPECT_EQ(slowest_per_sample({{4e-6, 1e-6}}), (std::vector<double>{4e-6, 1e-6}));
  EXPECT_TRUE(slowest_per_sample({}).empty());
  EXPECT_TRUE(slowest_per_sample({{}, {}}).empty());  // a timing that was not taken
  EXPECT_THROW(slowest_per_sample({{1e-6, 2e-6}, {1e-6}}), sol::Error);
}

TEST(CommBenchMerge, APerProcessRunHasItsOwnResultsFile) {
  EXPECT_EQ(results_path("out", R"({"gpu": "h200", "ranks": 2, "launch": "one-process"})"), "out/h200x2/comm.json");
  EXPECT_EQ(results_path("out", R"({"gpu": "h200", "ranks": 8, "launch": "process-per-gpu"})"),
            "out/h200x8/comm-process-per-gpu.json");
  EXPECT_EQ(results_path("out", R"({"gpu": "h100", "ranks": 4})"), "out/h100x4/comm.json");  // written before "launch"
}

}  // namespace

#endif  // SOL_WITH_CUDA

// docs/comm.md from the collective model and from `sol bench comm` documents, and `sol bench comm`
// where it cannot run (no CUDA or NCCL here, or fewer than 2 GPUs): one clear line, non-zero.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "sol/core/error.hpp"
#include "sol/report/comm.hpp"
#include "tests/host/sol_cli.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sol;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("sol-comm-docs-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(CommDocs, WithoutMeasurementsSaysSo) {
  const fs::path root = scratch("none");
  const auto files = report::comm_docs(root.string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].first, "comm.md");
  const std::string& md = files[0].second;
  EXPECT_NE(md.find("The measurement has not been taken"), std::string::npos);
  EXPECT_NE(md.find("| 8 GiB |"), std::string::npos);           // the size table
  EXPECT_NE(md.find("ring/LL → ring/Simple"), std::string::npos);  // a crossover
  EXPECT_NE(md.find("16x16x16"), std::string::npos);             // the torus example
  EXPECT_NE(md.find("NVIDIA/nccl src/graph/tuning.cc"), std::string::npos);
  fs::remove_all(root);
}

TEST(CommDocs, MeasuredAgainstPredicted) {
  const fs::path root = scratch("measured");
  fs::create_directories(root / "h200x2");
  nlohmann::json rec = {{"op", "all-reduce"}, {"bytes", 1 << 20}, {"count", 1 << 18}, {"in_place", false},
                        {"bus_factor", 1.0}, {"verified", true}, {"wrong_elements", 0}, {"stream", nullptr},
                        {"graph", {{"median_s", 2e-5}, {"samples", 5}, {"bus_bw_bytes_per_s", 5.2e10}}},
                        {"model", {{"estimate_s", 1.5e-5}, {"bus_bw_bytes_per_s", 6.9e10}}}};
  nlohmann::json doc = {{"schema_version", 1}, {"kind", "comm-bench"}, {"gpu", "h200"}, {"ranks", 2},
                        {"device", {{"names", {"NVIDIA H200"}}}}, {"nccl_version", 22809},
                        {"time_utc", "2026-12-01T00:00:00Z"}, {"note", "NVLS off"}, {"records", {rec}},
                        {"peers", {{{"missing", "python3 is not installed"}}}}};
  std::ofstream(root / "h200x2" / "comm.json") << doc.dump(2);
  const auto files = report::comm_docs(root.string());
  ASSERT_EQ(files.size(), 2u);
  const std::string& md = files[0].second;
  EXPECT_EQ(md.find("has not been taken"), std::string::npos);
  EXPECT_NE(md.find("### h200x2/comm.json"), std::string::npos);
  EXPECT_NE(md.find("| all-reduce | 1 MiB | out | ok | 20 µs"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.75 |"), std::string::npos);  // model ÷ measured
  EXPECT_NE(md.find("not measured (python3 is not installed)"), std::string::npos);
  EXPECT_EQ(files[1].first, "comm-h200x2.svg");
  EXPECT_NE(files[1].second.find("<svg"), std::string::npos);
  // A comm*.json that is not a sol bench comm document is one clear error.
  std::ofstream(root / "h200x2" / "comm-bad.json") << R"({"kind": "other"})";
  EXPECT_THROW(report::comm_docs(root.string()), Error);
  fs::remove_all(root);
}

TEST(CommDocs, SolDocsWritesThePage) {
  const fs::path out = scratch("out");
  const auto r = test::run_sol(std::string("docs --results ") + SOL_SOURCE_DIR + "/bench/results/h200 --out-dir " +
                               out.string() + " --readme ''");
  ASSERT_EQ(r.rc, 0) << r.all();
  const std::string md = test::slurp(out / "comm.md");
  EXPECT_NE(md.find("# Collectives"), std::string::npos);
  fs::remove_all(out);
}

TEST(CommBench, CannotRunHereSaysWhyInOneLine) {
  // Without CUDA and NCCL (a host build), or with fewer than 2 GPUs: one line, non-zero.
  const auto r = test::run_sol("bench comm --bytes 8:1k --no-peers");
  EXPECT_NE(r.rc, 0) << r.all();
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("2 GPUs"), std::string::npos) << r.err;
  // Bad flags are refused before anything runs.
  for (const char* args : {"bench comm --gpus 1", "bench comm --ops all-sum", "bench comm --bytes 1k:8",
                           "bench comm --placement sideways", "bench comm --no-graph --no-stream"}) {
    const auto e = test::run_sol(args);
    EXPECT_EQ(e.rc, 2) << args << ": " << e.all();
    EXPECT_EQ(test::count_lines(e.err), 1) << args << ": " << e.err;
  }
}

}  // namespace

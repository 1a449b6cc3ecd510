// The checkpointing measurement's host half: its JSON, the Markdown `sol docs` renders from it,
// `sol docs` filling docs/checkpoint.md's measured block, and `sol checkpoint --measure` giving one
// line (or, on a GPU, a bit-identical result) — no GPU needed for any of it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint_measure.hpp"
#include "tests/host/sol_cli.hpp"

using namespace sol;
using json = nlohmann::json;

namespace {

model::CheckpointMeasurement sample() {
  model::CheckpointMeasurement m;
  m.created = "2026-11-30T00:00:00Z";
  m.device = "Test GPU";
  m.gpu_row = "h200";
  m.shape = {4, 1, 256, 256, 4, 4, true, DType::bf16};
  m.layer = model::layer_model(m.shape, hw::find("h200"));
  m.budget_bytes = 123456789;
  m.warmup = 2;
  m.reps = 3;
  model::MeasuredSchedule none, every;
  none.plan = model::no_checkpoints(m.layer, 4);
  none.saved_peak_bytes = none.plan.peak_bytes;        // ratio 1.000
  none.total_peak_bytes = 2 * none.plan.peak_bytes;
  none.step_s = {3e-3, 1e-3, 2e-3};
  none.median_s = model::median(none.step_s);
  none.gradients_identical = true;
  every.plan = model::every_kth(m.layer, 4, 1);
  every.saved_peak_bytes = 0.5 * every.plan.peak_bytes;  // ratio 0.500
  every.step_s = {2.5e-3};
  every.median_s = 2.5e-3;
  every.gradients_identical = false;
  m.schedules = {none, every};
  return m;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(CheckpointMeasure, Median) {
  EXPECT_DOUBLE_EQ(model::median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(model::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(model::median({}), 0);
}

TEST(CheckpointMeasure, JsonHoldsPredictionsBesideMeasurements) {
  const model::CheckpointMeasurement m = sample();
  const json j = json::parse(model::measurement_json(m));
  EXPECT_EQ(j["kind"], "checkpoint-measurement");
  EXPECT_EQ(j["shape"]["layers"], 4);
  ASSERT_EQ(j["schedules"].size(), 2u);
  EXPECT_EQ(j["schedules"][0]["strategy"], "none");
  EXPECT_EQ(j["schedules"][0]["picture"], "KKKK");
  EXPECT_EQ(j["schedules"][1]["picture"], "R|R|R|R");
  EXPECT_DOUBLE_EQ(j["schedules"][1]["predicted"]["peak_bytes"].get<double>(), m.schedules[1].plan.peak_bytes);
  EXPECT_DOUBLE_EQ(j["schedules"][0]["measured"]["median_s"].get<double>(), 2e-3);
  EXPECT_EQ(j["schedules"][0]["measured"]["step_s"].size(), 3u);
  EXPECT_FALSE(j["gradients_identical"].get<bool>());  // one schedule differed
}

TEST(CheckpointMeasure, MarkdownShowsRatiosAndTheVerdict) {
  const std::string md = model::measurement_markdown(model::measurement_json(sample()), "sample");
  EXPECT_NE(md.find("| none | `KKKK` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| every block | `R\\|R\\|R\\|R` |"), std::string::npos) << md;  // pipes escaped in a table
  EXPECT_NE(md.find("| 1.000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.500 |"), std::string::npos) << md;
  EXPECT_NE(md.find("Test GPU"), std::string::npos) << md;
  // "every block" ran 0.5 ms faster than "none" here: the measured recompute is the difference.
  EXPECT_NE(md.find("500 µs"), std::string::npos) << md;
  EXPECT_NE(md.find("(memcmp of dX and every layer's dW, dγ, dβ): **no**"), std::string::npos) << md;
}

TEST(CheckpointMeasure, MarkdownRefusesOtherFiles) {
  EXPECT_THROW(model::measurement_markdown("{", "x"), Error);
  EXPECT_THROW(model::measurement_markdown(R"({"family":"copy"})", "x"), Error);
  json j = json::parse(model::measurement_json(sample()));
  j["schedules"][0].erase("measured");
  EXPECT_THROW(model::measurement_markdown(j.dump(), "x"), Error);
}

TEST(CheckpointMeasure, DocsFillsTheMeasuredBlock) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sol-ckpt-docs-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "results" / "checkpoint");
  fs::create_directories(dir / "docs");
  fs::copy_file(fs::path(SOL_SOURCE_DIR) / "bench/results/h200/copy.json", dir / "results" / "copy.json");
  std::ofstream(dir / "results" / "checkpoint" / "measured.json") << model::measurement_json(sample());
  std::ofstream(dir / "docs" / "checkpoint.md") << "# prose kept\n<!-- sol:BEGIN measured -->\nold\n<!-- sol:END measured -->\ntail\n";
  const auto r = test::run_sol("docs --results " + (dir / "results").string() + " --out " + (dir / "docs").string() +
                               " --readme \"\"");
  ASSERT_EQ(r.rc, 0) << r.all();
  const std::string page = slurp(dir / "docs" / "checkpoint.md");
  EXPECT_NE(page.find("# prose kept"), std::string::npos) << page;
  EXPECT_NE(page.find("| none | `KKKK` |"), std::string::npos) << page;
  EXPECT_EQ(page.find("\nold\n"), std::string::npos) << page;
  EXPECT_NE(page.find("tail"), std::string::npos) << page;
  fs::remove_all(dir);
}

// Without a GPU: exit 1 and one line. With one (a CUDA build on a GPU machine): a tiny stack runs
// and every schedule's gradients are bit-identical (exit 0).
TEST(CheckpointMeasure, CliMeasureRunsOrSaysWhyNot) {
  const auto r = test::run_sol(
      "checkpoint --layers 2 --batch 1 --seq 128 --d-model 128 --heads 2 --measure --warmup 0 --reps 1");
  if (r.rc == 0) {
    EXPECT_NE(r.out.find("gradients identical to the un-checkpointed run"), std::string::npos) << r.all();
    EXPECT_NE(r.out.find("): yes"), std::string::npos) << r.all();
  } else {
    EXPECT_EQ(r.rc, 1) << r.all();
    EXPECT_EQ(test::count_lines(r.all()), 1) << r.all();
    EXPECT_NE(r.all().find("--measure"), std::string::npos) << r.all();
  }
}

TEST(CheckpointMeasure, JsonFileWithoutMeasureIsRefused) {
  const auto r = test::run_sol("checkpoint --layers 2 --batch 1 --seq 128 --d-model 128 --heads 2 --json out.json");
  EXPECT_EQ(r.rc, 2) << r.all();
  EXPECT_EQ(test::count_lines(r.all()), 1) << r.all();
}

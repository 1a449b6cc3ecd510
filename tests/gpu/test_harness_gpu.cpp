// The harness itself on a GPU: the timer gives positive, ordered statistics in every mode; poison
// detection and the tolerance catch deliberately broken variants; the probe measures and saves a
// loadable profile; the occupancy model agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor
// for every kernel the registry launches, before any of them has run; the doctor produces a verdict
// with findings; the stopping rules (noise target, timeout), one-run mode and device selection.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/registry.hpp"
#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cuda_runtime.h>

using namespace sol;

namespace {

const Variant& selftest(const std::string& name) {
  for (const Variant& v : bench::selftest_variants())
    if (v.name == name) return v;
  throw std::runtime_error("no selftest variant " + name);
}

const hw::HwSpec* device_row() {
  const results::Device d = bench::device_info();
  return d.database_row.empty() ? nullptr : &hw::find(d.database_row);
}

// The row to compare against: this GPU's, or h100 for a card the database lacks.
const hw::HwSpec& sheet() {
  const hw::HwSpec* row = device_row();
  return row ? *row : hw::find("h100");
}

bench::ProbeResult quick_probe() {
  bench::ProbeOptions po;
  po.quick = true;
  po.save = false;
  return bench::probe(po);
}

bench::Options quick_timing() {
  bench::Options o;
  o.budget_s = 0.1;
  o.min_samples = 5;
  return o;
}

results::Record time_selftest(const std::string& name, const bench::Options& o, const std::string& shape = "n=2^20") {
  return bench::measure(selftest(name), Shape::parse(shape), o, results::MeasuredCeilings{}, sheet());
}

void expect_sane_timing(const results::Record& r) {
  EXPECT_EQ(r.skipped, "");
  EXPECT_TRUE(r.verified) << r.note;
  EXPECT_GT(r.median_s, 0);
  EXPECT_LE(r.min_s, r.median_s);
  EXPECT_LE(r.median_s, r.max_s);
  EXPECT_GE(r.samples, 3);
  EXPECT_GE(r.spread, 0);
  EXPECT_GT(r.achieved_bytes_per_s, 0);
  EXPECT_GT(r.floor_s, 0);
  EXPECT_FALSE(r.throttle_reasons.empty());  // "none", the reasons, or "unknown"
}

}  // namespace

TEST(HarnessGpu, TimerGivesPositiveOrderedStatistics) {
  SOL_REQUIRE_GPU_OR_SKIP();
  expect_sane_timing(time_selftest("v01_axpb", quick_timing()));
  // A tiny shape rotates many input sets; the timer still works.
  expect_sane_timing(time_selftest("v01_axpb", quick_timing(), "n=1"));
}

TEST(HarnessGpu, ColdL2AndGraphModes) {
  SOL_REQUIRE_GPU_OR_SKIP();
  bench::Options cold = quick_timing();
  cold.cold_l2 = true;
  const results::Record rc = time_selftest("v01_axpb", cold);
  expect_sane_timing(rc);
  EXPECT_TRUE(rc.cold_l2);
  bench::Options graph = quick_timing();
  graph.graph = true;
  const results::Record rg = time_selftest("v01_axpb", graph, "n=4097");
  expect_sane_timing(rg);
  EXPECT_TRUE(rg.graph) << rg.note;
  bench::Options both = quick_timing();
  both.cold_l2 = both.graph = true;
  EXPECT_THROW(time_selftest("v01_axpb", both), Error);
  bench::Options events_and_graph = quick_timing();
  events_and_graph.events = events_and_graph.graph = true;
  EXPECT_THROW(time_selftest("v01_axpb", events_and_graph), Error);
}

// A run far shorter than results::kGraphBelowS is timed from a graph by default, its time from the
// stream kept beside it; --events keeps it on the stream; cold L2 cannot replay a graph, so it stays there.
TEST(HarnessGpu, ShortRunsAreTimedFromAGraphUnlessToldOtherwise) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const results::Record dflt = time_selftest("v01_axpb", quick_timing(), "n=4097");
  expect_sane_timing(dflt);
  ASSERT_LT(dflt.median_s, results::kGraphBelowS);
  EXPECT_TRUE(dflt.graph) << dflt.note;
  EXPECT_EQ(dflt.timing, "graph");
  EXPECT_GT(dflt.eager_median_s, 0) << dflt.note;
  EXPECT_NE(dflt.note.find("from the stream one run took"), std::string::npos) << dflt.note;
  bench::Options events = quick_timing();
  events.events = true;
  const results::Record re = time_selftest("v01_axpb", events, "n=4097");
  expect_sane_timing(re);
  EXPECT_FALSE(re.graph);
  EXPECT_EQ(re.timing, "events");
  EXPECT_EQ(re.eager_median_s, 0);
  bench::Options cold = quick_timing();
  cold.cold_l2 = true;
  const results::Record rc = time_selftest("v01_axpb", cold, "n=4097");
  EXPECT_FALSE(rc.graph);
  EXPECT_EQ(rc.eager_median_s, 0);
}

TEST(HarnessGpu, PoisonDetectionCatchesUnwrittenElements) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const Variant& broken = selftest("broken_tail");
  for (int64_t n : {int64_t(1), int64_t(4097), int64_t(1000003)}) {
    const CheckResult c = bench::verify(broken, Shape::parse("n=" + std::to_string(n)), 7);
    EXPECT_FALSE(c.ok) << n;
    EXPECT_EQ(c.unwritten, n / 8 + 1) << n;  // the kernel skips exactly the last n/8 + 1
  }
  const results::Record r = time_selftest("broken_tail", quick_timing());
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.note.find("not a valid result"), std::string::npos) << r.note;
  EXPECT_FALSE(results::valid(r));
  // The right variant passes the same check.
  EXPECT_TRUE(bench::verify(selftest("v01_axpb"), Shape::parse("n=4097"), 7).ok);
}

TEST(HarnessGpu, ToleranceCatchesWrongValues) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const CheckResult c = bench::verify(selftest("broken_values"), Shape::parse("n=4097"), 11);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.unwritten, 0);
  EXPECT_GT(c.rel_l2, 0.05);  // 2x against 2x + 1 with |x| in [0.25, 4)
}

TEST(HarnessGpu, FreshInputsEveryCheck) {
  SOL_REQUIRE_GPU_OR_SKIP();
  // broken_values' error depends on the inputs: two checks with the same seed draw different ones.
  const Variant& v = selftest("broken_values");
  const double a = bench::verify(v, Shape::parse("n=257"), 5).rel_l2;
  const double b = bench::verify(v, Shape::parse("n=257"), 5).rel_l2;
  EXPECT_NE(a, b);
}

TEST(HarnessGpu, QuickProbe) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const bench::ProbeResult p = quick_probe();
  EXPECT_FALSE(p.device.name.empty());
  EXPECT_GT(p.device.sms, 0);
  EXPECT_GT(p.device.compute_capability, 0);
  EXPECT_GT(p.copy_kernel_bytes_per_s, 0);
  EXPECT_GT(p.memcpy_bytes_per_s, 0);
  EXPECT_EQ(p.ceilings.copy_bytes_per_s, std::max(p.copy_kernel_bytes_per_s, p.memcpy_bytes_per_s));
  EXPECT_GT(p.ceilings.launch_overhead_s, 0);
  EXPECT_TRUE(p.ceilings.matrix_flops_per_s.empty());
  EXPECT_EQ(p.saved_to, "");
}

TEST(HarnessGpu, FullProbeSavesALoadableProfile) {
  SOL_REQUIRE_GPU_OR_SKIP();
  if (!device_row()) GTEST_SKIP() << "this GPU matches no database row: " << bench::device_info().name;
  const auto path = std::filesystem::temp_directory_path() / "sol-test-measured.json";
  bench::ProbeOptions po;
  po.profile_path = path.string();
  const bench::ProbeResult p = bench::probe(po);
  EXPECT_GT(p.ceilings.l2_bytes_per_s, p.ceilings.copy_bytes_per_s);
  EXPECT_GT(p.ceilings.fp32_fma_flops_per_s, 0);
  if (p.device.compute_capability >= 80) {
    EXPECT_GT(p.ceilings.matrix_flops_per_s.count("bf16"), 0u);
    // The rate is the best of the algorithms timed, and its note says which and at what clock.
    const auto note = std::find_if(p.notes.begin(), p.notes.end(),
                                   [](const std::string& n) { return n.rfind("bf16 matrix: ", 0) == 0; });
    ASSERT_NE(note, p.notes.end());
    EXPECT_NE(note->find("the heuristic's algorithm "), std::string::npos) << *note;
    EXPECT_NE(note->find(" timed ("), std::string::npos) << *note;
  }
  ASSERT_EQ(p.saved_to, path.string());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const hw::HwSpec prof = hw::from_json_text(text.str(), path.string());
  EXPECT_TRUE(prof.measured);
  EXPECT_DOUBLE_EQ(prof.hbm_bytes_per_s, p.ceilings.copy_bytes_per_s);
  std::filesystem::remove(path);
}

TEST(HarnessGpu, OccupancyModelMatchesTheRuntime) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const hw::HwSpec* row = device_row();
  if (!row) GTEST_SKIP() << "this GPU matches no database row, so its SM limits are unknown";
  std::vector<const Variant*> all;
  for (const Variant& v : bench::selftest_variants()) all.push_back(&v);
  for (const Variant& v : registry()) all.push_back(&v);
  int compared = 0;
  for (const Variant* v : all) {
    if (v->test_shapes.empty() || !v->cc_refusal(bench::device_info().compute_capability).empty()) continue;
    const Shape& s = v->test_shapes.front();
    if (v->unsupported(s) != "") continue;
    const LaunchInfo li = v->make(s, {})->launch();
    const bench::KernelReport k = bench::inspect_kernel(li);
    if (!k.known) continue;  // a library peer
    const model::Occupancy o = model::occupancy(row->limits, k.resources);
    // A kernel the runtime fits nowhere could not launch: its shared-memory opt-in is missing.
    EXPECT_GE(k.runtime_blocks_per_sm, 1) << v->family << "/" << v->name << ": " << k.resources.dynamic_shared_bytes
                                          << " B of dynamic shared memory";
    EXPECT_EQ(o.blocks_per_sm, k.runtime_blocks_per_sm)
        << v->family << "/" << v->name << ": " << k.resources.registers_per_thread << " registers, "
        << k.resources.static_shared_bytes << "+" << k.resources.dynamic_shared_bytes << " B shared, "
        << k.resources.block_threads << " threads";
    ++compared;
  }
  EXPECT_GE(compared, 2);  // at least the selftest kernels
  // The staged selftest kernel is limited by its 40 KiB of shared memory.
  const bench::KernelReport staged = bench::inspect_kernel(selftest("v02_staged").make(Shape::parse("n=4097"), {})->launch());
  EXPECT_EQ(model::occupancy(row->limits, staged.resources).limiter, model::OccupancyLimiter::SharedMemory);
}

TEST(HarnessGpu, NoiseTargetAndTimeoutStopSampling) {
  SOL_REQUIRE_GPU_OR_SKIP();
  bench::Options o = quick_timing();
  o.max_noise = 0.5;  // ±50 %: met by the first round of samples
  const results::Record loose = time_selftest("v01_axpb", o);
  expect_sane_timing(loose);
  EXPECT_NE(loose.note.find("95 % CI"), std::string::npos) << loose.note;
  EXPECT_EQ(loose.note.find("above the"), std::string::npos) << loose.note;
  // More samples than the timeout allows (a tiny kernel's samples can all be equal, so even a
  // 1e-9 noise target is met at once): cut short by the timeout long before the 4 × budget
  // fallback, with the target reported as unmet.
  o.max_noise = 1e-9;
  o.budget_s = 10;
  o.min_samples = 1000000;
  o.max_samples = 1000000;
  o.timeout_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  const results::Record cut = time_selftest("v01_axpb", o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(wall, 5.0);
  EXPECT_NE(cut.note.find("timeout"), std::string::npos) << cut.note;
  EXPECT_NE(cut.note.find("above the"), std::string::npos) << cut.note;
  EXPECT_GT(cut.samples, 0);
}

TEST(HarnessGpu, RestIdlesTheGpuBeforeARecordAndSaysSo) {
  SOL_REQUIRE_GPU_OR_SKIP();
  bench::Options o = quick_timing();
  o.rest_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const results::Record r = time_selftest("v01_axpb", o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_sane_timing(r);
  EXPECT_GE(wall, 0.3);
  EXPECT_NE(r.note.find("after 0.3 s with the GPU idle"), std::string::npos) << r.note;
  o.rest_s = 0;
  EXPECT_EQ(time_selftest("v01_axpb", o).note.find("GPU idle"), std::string::npos);
}

TEST(HarnessGpu, FullBudgetSamplesPastASettledMedian) {
  SOL_REQUIRE_GPU_OR_SKIP();
  // A tiny kernel settles within the 5 samples quick_timing() asks for; sampled for its whole
  // 0.1-s budget instead, a record of a few-µs kernel holds far more than that.
  bench::Options o = quick_timing();
  o.full_budget = true;
  const results::Record full = time_selftest("v01_axpb", o);
  expect_sane_timing(full);
  EXPECT_NE(full.note.find("whole budget"), std::string::npos) << full.note;
  EXPECT_GT(full.samples, 50) << full.note;
}

TEST(HarnessGpu, RunOnceIsOneVerifiedRun) {
  SOL_REQUIRE_GPU_OR_SKIP();
  bench::Options o;
  o.run_once = true;
  const results::Record r = time_selftest("v01_axpb", o);
  EXPECT_TRUE(r.verified) << r.note;
  EXPECT_EQ(r.samples, 1);
  EXPECT_EQ(r.timing, "once");
  EXPECT_GT(r.median_s, 0);
  EXPECT_NE(r.note.find("NVTX range selftest/v01_axpb/" + Shape::parse("n=2^20").str()), std::string::npos) << r.note;
  // A broken variant is still caught by its one run.
  EXPECT_FALSE(time_selftest("broken_values", o).verified);
}

TEST(HarnessGpu, SelectDeviceValidatesTheOrdinal) {
  SOL_REQUIRE_GPU_OR_SKIP();
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_NO_THROW(bench::select_device(0));
  for (int bad : {-1, n}) {
    try {
      bench::select_device(bad);
      ADD_FAILURE() << "device " << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::BadInput);
      EXPECT_NE(std::string(e.what()).find(std::to_string(n) + " CUDA device"), std::string::npos) << e.what();
    }
  }
}

TEST(HarnessGpu, EnvironmentAndHeadlineFindings) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const bench::ProbeResult p = quick_probe();
  const auto env = bench::run_environment(p.device, false);
  for (const char* k : {"gpu", "cuda_runtime", "cuda_driver_api", "host", "date", "sol"})
    EXPECT_TRUE(env.count(k)) << k;
  EXPECT_FALSE(env.count("torch"));  // not asked
  // The doctor on a record already measured: inputs from the record, the kernel's resources read.
  const Shape s = Shape::parse("n=2^22");
  const results::Record r = bench::measure(selftest("v01_axpb"), s, quick_timing(), p.ceilings, sheet());
  const bench::DoctorInputs in = bench::doctor_inputs(selftest("v01_axpb"), s, r, p, sheet());
  EXPECT_EQ(in.record.median_s, r.median_s);
  EXPECT_TRUE(in.has_kernel);
  EXPECT_GT(in.registers_per_thread, 0);
  const auto lines = bench::finding_lines(bench::diagnose(in));
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.front().rfind("verdict: ", 0), 0u);
}

TEST(HarnessGpu, DoctorGivesAVerdictWithFindings) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const bench::ProbeResult p = quick_probe();
  const bench::Diagnosis d =
      bench::doctor(selftest("v01_axpb"), Shape::parse("n=2^22"), quick_timing(), p, sheet());
  EXPECT_TRUE(d.verdict == "compute" || d.verdict == "memory" || d.verdict == "neither") << d.verdict;
  EXPECT_GT(d.memory_fraction, 0);
  EXPECT_TRUE(d.occupancy.has_value());
  EXPECT_FALSE(d.findings.empty());
  const auto j = nlohmann::json::parse(bench::diagnosis_json(d));
  EXPECT_EQ(j.at("verdict"), d.verdict);
  EXPECT_NE(bench::diagnosis_text(d).find("verdict:"), std::string::npos);
  // A broken variant is diagnosed as invalid, not timed into a verdict.
  const bench::Diagnosis bad =
      bench::doctor(selftest("broken_values"), Shape::parse("n=4097"), quick_timing(), p, sheet());
  EXPECT_EQ(bad.verdict, "invalid");
}

TEST(HarnessGpu, FamilyRunRecordsPeersOrWhyNot) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const bench::ProbeResult p = quick_probe();
  bench::RunOptions ro;
  ro.timing = quick_timing();
  ro.shapes = {Shape::parse("n=4097"), Shape::parse("n=129")};
  std::vector<const Variant*> vs;
  for (const Variant& v : bench::selftest_variants()) vs.push_back(&v);
  const results::File f = bench::run_family("selftest", vs, ro, p, sheet());
  ASSERT_GE(f.records.size(), 2 * vs.size());
  EXPECT_TRUE(results::valid(f.records[0]));
  // Shape by shape: every variant at the first shape, then every variant at the second.
  for (size_t i = 0; i < 2 * vs.size(); ++i) {
    EXPECT_EQ(f.records[i].shape, ro.shapes[i / vs.size()].str()) << "record " << i;
    EXPECT_EQ(f.records[i].variant, vs[i % vs.size()]->name) << "record " << i;
  }
  EXPECT_GT(f.ceilings.copy_bytes_per_s, 0);
  // torch_peers.py has no selftest family: either it says so, or the file records why peers are missing.
  const std::string table = bench::records_table(f);
  EXPECT_NE(table.find("invalid"), std::string::npos);  // the broken variants
  const results::File back = results::from_json_text(results::to_json(f), "round trip");
  EXPECT_EQ(back.records.size(), f.records.size());
}

#else
TEST(HarnessGpu, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif

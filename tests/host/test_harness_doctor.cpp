// The doctor's diagnosis on hand-made measurements: the three-way verdict at the 60 % rule, and
// for "neither" the launch, occupancy, spill, wave and efficiency findings with their prescriptions.
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA
#include <nlohmann/json.hpp>

#include "bench/harness.hpp"

using namespace sol;
using namespace sol::bench;

namespace {

// A memory-bound kernel on an H100-like card: `bytes` moved in `seconds`, copy ceiling 3 TB/s.
DoctorInputs inputs(double bytes, double flops, double seconds, const std::string& bound = "memory") {
  DoctorInputs in;
  in.record.family = "copy";
  in.record.variant = "v01_scalar";
  in.record.shape = "n=268435456";
  in.record.bytes = bytes;
  in.record.flops = flops;
  in.record.median_s = seconds;
  in.record.verified = true;
  in.record.bound = bound;
  in.record.floor_measured_s = std::max(bytes / 3e12, flops / 60e12);
  in.measured.bytes_per_s = 3e12;
  in.measured.bytes_label = "3 TB/s copy (measured)";
  in.measured.flops_per_s = 60e12;
  in.measured.flops_label = "60 TFLOP/s fp32 FMA (measured)";
  in.limits = hw::find("h100").limits;
  in.sms = 132;
  return in;
}

// A kernel with given resources and grid.
void kernel(DoctorInputs& in, int threads, int regs, int64_t grid, int64_t smem = 0, int runtime = -1) {
  in.has_kernel = true;
  in.launch.block_threads = threads;
  in.launch.grid_blocks = grid;
  in.registers_per_thread = regs;
  in.static_shared_bytes = smem;
  in.runtime_blocks_per_sm = runtime;
}

const Finding* find(const Diagnosis& d, const std::string& topic) {
  for (const auto& f : d.findings)
    if (f.topic == topic) return &f;
  return nullptr;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Doctor, NearTheMemoryRoof) {
  // 2 GB in 0.8 ms = 2.5 TB/s = 83 % of 3 TB/s.
  DoctorInputs in = inputs(2e9, 0, 0.8e-3);
  kernel(in, 256, 16, 132 * 8, 0, 8);
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(d.verdict, "memory");
  EXPECT_NEAR(d.memory_fraction, 2.5e12 / 3e12, 1e-12);
  EXPECT_TRUE(has(d.verdict_line, "fewer bytes"));
}

TEST(Doctor, NearTheComputeRoof) {
  // 50 TFLOP in 1 s of fp32 FMA = 83 % of 60 TFLOP/s; 1 GB moved is nothing.
  DoctorInputs in = inputs(1e9, 50e12, 1.0, "compute");
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(d.verdict, "compute");
  EXPECT_NEAR(d.compute_fraction, 50.0 / 60, 1e-12);
}

TEST(Doctor, SixtyPercentIsTheLine) {
  // 59 % and 61 % of the copy ceiling.
  EXPECT_EQ(diagnose(inputs(0.59 * 3e12, 0, 1.0)).verdict, "neither");
  EXPECT_EQ(diagnose(inputs(0.61 * 3e12, 0, 1.0)).verdict, "memory");
}

TEST(Doctor, LaunchOverheadOnAShortKernel) {
  // 4 µs kernel, 2.5 µs per launch; from a graph 2.2 µs.
  DoctorInputs in = inputs(1e6, 0, 4e-6);
  in.launch_overhead_s = 2.5e-6;
  in.graph_median_s = 2.2e-6;
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(d.verdict, "neither");
  const Finding* f = find(d, "launch");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->problem);
  EXPECT_TRUE(has(f->observation, "62.5 %")) << f->observation;  // 2.5 / 4
  EXPECT_TRUE(has(f->observation, "45 % less")) << f->observation;  // (4 − 2.2) / 4
  EXPECT_TRUE(has(f->prescription, "CUDA graph"));
  // A long kernel: the same launch cost is no finding.
  DoctorInputs longer = inputs(1e9, 0, 1e-3);
  longer.launch_overhead_s = 2.5e-6;
  EXPECT_FALSE(find(diagnose(longer), "launch")->problem);
}

TEST(Doctor, FindingLinesForARecord) {
  // What a report stores per headline record: the verdict, then one line per finding, problems
  // with their prescription.
  DoctorInputs in = inputs(1e6, 0, 4e-6);
  in.launch_overhead_s = 2.5e-6;
  const Diagnosis d = diagnose(in);
  const std::vector<std::string> lines = finding_lines(d);
  ASSERT_EQ(lines.size(), d.findings.size() + 1);
  EXPECT_EQ(lines.front(), "verdict: " + d.verdict_line);
  const Finding* launch = find(d, "launch");
  ASSERT_TRUE(launch && launch->problem);
  bool seen = false;
  for (const auto& l : lines) {
    EXPECT_EQ(l.find('\n'), std::string::npos) << l;
    if (l.rfind("[!] launch: ", 0) == 0) {
      seen = true;
      EXPECT_TRUE(has(l, " → " + launch->prescription)) << l;
    }
  }
  EXPECT_TRUE(seen);
}

TEST(Doctor, OccupancyLimitedByRegisters) {
  // 128 registers × 256 threads on H100: 4096 per warp, 4 warps per quarter = 16 warps = 2 blocks
  // = 25 %. Three blocks (24 warps, 6 per quarter) need ≤ 2730 → 2560 per warp = 80 registers.
  DoctorInputs in = inputs(1e9, 0, 1e-3);  // 1 TB/s: neither roof
  kernel(in, 256, 128, 132 * 2 * 10, 0, 2);
  const Diagnosis d = diagnose(in);
  ASSERT_TRUE(d.occupancy.has_value());
  EXPECT_DOUBLE_EQ(d.occupancy->occupancy, 0.25);
  const Finding* f = find(d, "occupancy");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->problem);
  EXPECT_TRUE(has(f->observation, "limited by registers")) << f->observation;
  EXPECT_TRUE(has(f->prescription, "≤ 80 registers")) << f->prescription;
  EXPECT_FALSE(has(f->observation, "disagree"));
}

TEST(Doctor, OccupancyLimitedBySharedMemory) {
  // 100 KiB static: (102400 + 1024) → 2 blocks of 228 KiB; 3 blocks need ≤ 77824 − 1024 = 76800 B = 75 KiB.
  DoctorInputs in = inputs(1e9, 0, 1e-3);
  kernel(in, 128, 32, 132 * 2, 100 * 1024, 2);
  const Diagnosis d = diagnose(in);
  ASSERT_TRUE(d.occupancy.has_value());
  EXPECT_EQ(d.occupancy->limiter, model::OccupancyLimiter::SharedMemory);
  EXPECT_TRUE(has(find(d, "occupancy")->prescription, "75 KiB")) << find(d, "occupancy")->prescription;
}

TEST(Doctor, RuntimeDisagreementIsShown) {
  DoctorInputs in = inputs(1e9, 0, 1e-3);
  kernel(in, 256, 32, 1000, 0, 7);  // the model says 8
  EXPECT_TRUE(has(find(diagnose(in), "occupancy")->observation, "disagree"));
}

TEST(Doctor, WavesUnderOneAndTail) {
  // 66 blocks on 132 SMs × 8 per SM: half of one SM-slot per SM... 66 / 1056 of a wave.
  DoctorInputs small = inputs(1e9, 0, 1e-3);
  kernel(small, 256, 32, 66, 0, 8);
  const Diagnosis ds = diagnose(small);
  ASSERT_TRUE(ds.waves.has_value());
  EXPECT_TRUE(find(ds, "waves")->problem);
  EXPECT_TRUE(has(find(ds, "waves")->prescription, "more blocks"));
  // 1057 blocks: one full wave and one block → 50 % of the slots busy.
  DoctorInputs tail = inputs(1e9, 0, 1e-3);
  kernel(tail, 256, 32, 1057, 0, 8);
  const Diagnosis dt = diagnose(tail);
  EXPECT_TRUE(find(dt, "waves")->problem);
  EXPECT_TRUE(has(find(dt, "waves")->prescription, "multiple of 1056")) << find(dt, "waves")->prescription;
  // Exactly 4 waves: fine.
  DoctorInputs even = inputs(1e9, 0, 1e-3);
  kernel(even, 256, 32, 4 * 1056, 0, 8);
  EXPECT_FALSE(find(diagnose(even), "waves")->problem);
}

TEST(Doctor, SpillsAndLibraryPeers) {
  DoctorInputs in = inputs(1e9, 0, 1e-3);
  kernel(in, 256, 255, 1000);
  in.local_bytes_per_thread = 64;
  const Finding* f = find(diagnose(in), "spills");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->problem);
  DoctorInputs peer = inputs(1e9, 0, 1e-3);  // has_kernel = false: cudaMemcpy
  peer.record.variant = "peer:cudaMemcpy";
  const Diagnosis d = diagnose(peer);
  EXPECT_FALSE(d.occupancy.has_value());
  EXPECT_TRUE(has(find(d, "occupancy")->observation, "library"));
  // sol's own rung without a kernel plan is not called a library.
  EXPECT_FALSE(has(find(diagnose(inputs(1e9, 0, 1e-3)), "occupancy")->observation, "library"));
}

TEST(Doctor, GemmAtOneRowNamesTileQuantization) {
  // gemm_bf16/v08 at m=1, n=4096, k=4096 at 20 % of the memory floor: the tile serves one row.
  DoctorInputs in = inputs(2.0 * (4096 + 4096 * 4096 + 4096), 2.0 * 4096 * 4096, 39.5e-6, "memory");
  in.record.family = "gemm_bf16";
  in.record.variant = "v08_tile_choice";
  in.record.shape = "m=1,n=4096,k=4096";
  in.record.dtype = "bf16";
  results::MeasuredCeilings m;
  m.copy_bytes_per_s = 4.25e12;
  m.launch_overhead_s = 3.6e-6;
  in.model = predict::ceilings_for(m, hw::find("h200"));
  const Diagnosis d = diagnose(in);
  const Finding* f = find(d, "tile quantization");
  ASSERT_TRUE(f) << diagnosis_text(d);
  EXPECT_TRUE(f->problem);
  EXPECT_TRUE(has(f->observation, "serves 1")) << f->observation;
  EXPECT_FALSE(has(find(d, "occupancy")->observation, "library"));
}

TEST(Doctor, MemoryBoundButSlowGetsTheUsualCauses) {
  DoctorInputs in = inputs(1e9, 0, 1e-3);  // 1 TB/s = 33 % of the copy ceiling
  const Finding* f = find(diagnose(in), "memory");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->problem);
  EXPECT_TRUE(has(f->prescription, "16-byte"));
}

TEST(Doctor, FailedVerificationIsInvalid) {
  DoctorInputs in = inputs(1e9, 0, 1e-3);
  in.record.verified = false;
  in.record.rel_l2 = 0.5;
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(d.verdict, "invalid");
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].topic, "correctness");
  EXPECT_TRUE(d.findings[0].problem);
  DoctorInputs skipped = inputs(1e9, 0, 1e-3);
  skipped.record.skipped = "n=0 is out of range";
  EXPECT_EQ(diagnose(skipped).verdict, "invalid");
}

TEST(Doctor, TextAndJson) {
  DoctorInputs in = inputs(1e9, 0, 1e-3);
  kernel(in, 256, 128, 1000, 0, 2);
  const Diagnosis d = diagnose(in);
  const std::string t = diagnosis_text(d);
  EXPECT_TRUE(has(t, "verdict: neither roof"));
  EXPECT_TRUE(has(t, "[!] occupancy"));
  EXPECT_TRUE(has(t, "→ "));
  const auto j = nlohmann::json::parse(diagnosis_json(d));
  EXPECT_EQ(j.at("verdict"), "neither");
  EXPECT_DOUBLE_EQ(j.at("near_roof_threshold").get<double>(), 0.6);
  EXPECT_EQ(j.at("occupancy").at("limiter"), "registers");
  EXPECT_EQ(j.at("findings").size(), d.findings.size());
}

#else
TEST(Doctor, NotBuilt) { GTEST_SKIP() << "the harness is built only with CUDA (nvcc not found)"; }
#endif

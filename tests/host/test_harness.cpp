// The harness's host-side logic without a GPU: statistics, clock reasons, matching a device to its
// database row, the ceilings a cost is measured against, the floors in a record, speed-ups and the
// table, the measured profile `sol probe` saves, and the PyTorch peers' subprocess contract.
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/clocks.hpp"
#include "bench/harness.hpp"
#include "cli/measure_all.hpp"
#include "sol/core/format.hpp"
#include "bench/stats.hpp"
#include "sol/core/error.hpp"

using namespace sol;
using namespace sol::bench;

namespace {

results::Device device(int cc, int sms, double memory_bytes) {
  results::Device d;
  d.name = "test GPU";
  d.compute_capability = cc;
  d.sms = sms;
  d.memory_bytes = memory_bytes;
  return d;
}

model::Cost cost(double flops, double bytes, DType t, hw::Unit u) {
  model::Cost c;
  c.op = "test";
  c.flops = flops;
  c.bytes = bytes;
  c.dtype = t;
  c.unit = u;
  return c;
}

results::Record rec(const std::string& variant, int version, double median_s, bool verified = true) {
  results::Record r;
  r.family = "copy";
  r.variant = variant;
  r.version = version;
  r.shape = "n=1024";
  r.median_s = r.min_s = r.max_s = median_s;
  r.samples = 10;
  r.bytes = 8192;
  r.verified = verified;
  set_achieved(r);
  return r;
}

std::filesystem::path write_script(const std::string& name, const std::string& body) {
  const auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << body;
  return p;
}

bool have_python() { return std::system("command -v python3 >/dev/null 2>&1") == 0; }

}  // namespace

TEST(Stats, MedianQuantilesSpread) {
  const Summary s = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.samples, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);  // 0.1 × 4 = 0.4 of the way from 1 to 2
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.spread, 3.2 / 3);
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 4}).median, 2.5);
  EXPECT_DOUBLE_EQ(summarize({7}).spread, 0);
  EXPECT_THROW(summarize({}), Error);
  EXPECT_THROW(summarize({1, -1}), Error);
  EXPECT_THROW(summarize({1, NAN}), Error);
}

TEST(Stats, MedianConfidenceInterval) {
  // 100 samples 1..100: the 95 % interval of the median runs from the 40th to the 61st value.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.median_ci, (61.0 - 40.0) / (2 * 50.5));
  // Below 6 samples the interval is the whole range.
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3}).median_ci, (3.0 - 1.0) / (2 * 2.0));
  EXPECT_DOUBLE_EQ(summarize({7, 7, 7, 7, 7, 7, 7}).median_ci, 0);
}

TEST(Stats, Settling) {
  EXPECT_TRUE(settled(1.000, 1.004, 0.005));
  EXPECT_FALSE(settled(1.000, 1.010, 0.005));
  EXPECT_FALSE(settled(0, 1.0, 0.5));  // no previous round
}

TEST(Clocks, ReasonNamesAndThrottle) {
  EXPECT_EQ(describe_clock_reasons(0), "none");
  const std::string two = describe_clock_reasons(0x4 | 0x40);
  EXPECT_NE(two.find("sw power cap"), std::string::npos);
  EXPECT_NE(two.find("hw thermal slowdown"), std::string::npos);
  EXPECT_NE(describe_clock_reasons(0x100000).find("other reasons 0x100000"), std::string::npos);
  EXPECT_FALSE(is_throttle(0x1));   // idle
  EXPECT_FALSE(is_throttle(0x10));  // sync boost
  for (uint64_t bit : {0x4ull, 0x8ull, 0x20ull, 0x40ull, 0x80ull}) EXPECT_TRUE(is_throttle(bit)) << bit;
}

TEST(Clocks, WatchSummarizesSamples) {
  ClockWatch unknown;
  unknown.add({false, "libnvidia-ml.so.1 not loadable", 0, 0});
  EXPECT_FALSE(unknown.known());
  EXPECT_FALSE(unknown.throttled());
  EXPECT_EQ(unknown.note(), "clocks unknown: libnvidia-ml.so.1 not loadable");

  ClockWatch w;
  w.add({true, "", 1980e6, 0x1});
  w.add({true, "", 1755e6, 0x4});
  EXPECT_TRUE(w.known());
  EXPECT_TRUE(w.throttled());
  EXPECT_NE(w.note().find("1980–1755 MHz"), std::string::npos) << w.note();
  EXPECT_NE(w.note().find("sw power cap"), std::string::npos);
  EXPECT_EQ(w.note().find("idle"), std::string::npos);  // idle between samples is not news
}

TEST(Clocks, AFallingClockIsThrottlingEvenWithoutAReason) {
  // From an idle clock up to boost: a rise, not throttling.
  ClockWatch rise;
  for (double mhz : {345.0, 1980.0, 1980.0}) rise.add({true, "", mhz * 1e6, 0});
  EXPECT_FALSE(rise.clock_fell());
  EXPECT_FALSE(rise.throttled());
  // 1980 down to 1485 MHz with no reason bit read at any sample: a power cap NVML missed.
  ClockWatch fell;
  for (double mhz : {1980.0, 1965.0, 1485.0, 1500.0}) fell.add({true, "", mhz * 1e6, 0});
  EXPECT_TRUE(fell.clock_fell());
  EXPECT_TRUE(fell.throttled());
  EXPECT_NEAR(fell.fall(), 0.25, 1e-9);
  EXPECT_NE(fell.note().find("fell 25 % while busy"), std::string::npos) << fell.note();
  // A small dip (under kClockFall) is not.
  ClockWatch dip;
  for (double mhz : {1980.0, 1890.0}) dip.add({true, "", mhz * 1e6, 0});
  EXPECT_FALSE(dip.throttled());
}

TEST(Clocks, MissingLibraryIsNotAnError) {
  // Whatever this machine has, reading the clock never throws; unknown clocks say why.
  const ClockSample s = read_clock("0000:00:00.0", 0);
  if (!s.known) { EXPECT_FALSE(s.why_unknown.empty()); }
}

TEST(DeviceRow, MatchesByCapabilitySmsAndMemory) {
  // Memory sizes as the CUDA runtime reports them on real cards.
  EXPECT_EQ(match_database_row(device(90, 132, 150754820096.0)), "h200");  // 143771 MiB
  EXPECT_EQ(match_database_row(device(90, 132, 85520809984.0)), "h100");   // 81559 MiB
  EXPECT_EQ(match_database_row(device(80, 108, 42505273344.0)), "a100");
  EXPECT_EQ(match_database_row(device(80, 108, 85198045184.0)), "a100-80gb");
  std::string why;
  EXPECT_EQ(match_database_row(device(90, 114, 85e9), &why), "");  // an H100 PCIe: 114 SMs, not in the database
  EXPECT_NE(why.find("114 SMs"), std::string::npos) << why;
  EXPECT_EQ(match_database_row(device(90, 132, 20e9), &why), "");  // right chip, memory far off
  EXPECT_NE(why.find("memory"), std::string::npos) << why;
  // The rule itself, in the host library (the kernel API matches its device with it too).
  int candidates = -1;
  const hw::HwSpec* h100 = hw::match_builtin(90, 132, 85520809984.0, &candidates);
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->name, "h100");
  EXPECT_EQ(candidates, 2);  // h100 and h200 share sm_90 and 132 SMs
  EXPECT_EQ(hw::match_builtin(90, 132, 20e9, &candidates), nullptr);
  EXPECT_EQ(candidates, 2);
  EXPECT_EQ(hw::match_builtin(90, 114, 85e9, &candidates), nullptr);
  EXPECT_EQ(candidates, 0);
}

TEST(DeviceRow, DatasheetForOverrideOrError) {
  EXPECT_EQ(datasheet_for(device(90, 132, 150e9)).name, "h200");
  EXPECT_EQ(datasheet_for(device(90, 132, 150e9), "a100").name, "a100");
  try {
    datasheet_for(device(75, 40, 16e9));
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    EXPECT_NE(e.line().find("--gpu"), std::string::npos);
  }
}

TEST(Ceilings, MeasuredWhereMeasuredElseDatasheet) {
  const hw::HwSpec& h200 = hw::find("h200");
  results::MeasuredCeilings m;
  m.copy_bytes_per_s = 3.9e12;
  m.fp32_fma_flops_per_s = 60e12;
  m.matrix_flops_per_s["bf16"] = 780e12;
  const model::Ceilings bf16 = measured_ceilings(cost(1e12, 1e9, DType::bf16, hw::Unit::Matrix), m, h200);
  EXPECT_DOUBLE_EQ(bf16.flops_per_s, 780e12);
  EXPECT_DOUBLE_EQ(bf16.bytes_per_s, 3.9e12);
  EXPECT_NE(bf16.flops_label.find("measured"), std::string::npos);
  EXPECT_DOUBLE_EQ(measured_ceilings(cost(1, 1, DType::f32, hw::Unit::Vector), m, h200).flops_per_s, 60e12);
  // fp16 matrix was not measured: the datasheet's, and the label says so.
  const model::Ceilings fp16 = measured_ceilings(cost(1, 1, DType::f16, hw::Unit::Matrix), m, h200);
  EXPECT_DOUBLE_EQ(fp16.flops_per_s, h200.peak(DType::f16, hw::Unit::Matrix).flops_per_s);
  EXPECT_NE(fp16.flops_label.find("not measured"), std::string::npos);
  // No copy measurement: HBM from the datasheet.
  const model::Ceilings none = measured_ceilings(cost(1, 1, DType::f32, hw::Unit::Vector), {}, h200);
  EXPECT_DOUBLE_EQ(none.bytes_per_s, h200.hbm_bytes_per_s);
  EXPECT_NE(none.bytes_label.find("not measured"), std::string::npos);
  // fp8 data on the vector unit is computed in fp32: the measured fp32 FMA rate bounds it.
  EXPECT_DOUBLE_EQ(measured_ceilings(cost(1, 1, DType::fp8_e4m3, hw::Unit::Vector), m, h200).flops_per_s, 60e12);
  // An fp32 matmul on a chip without an fp32 matrix peak falls back to the vector unit's.
  EXPECT_DOUBLE_EQ(measured_ceilings(cost(1, 1, DType::f32, hw::Unit::Matrix), {}, h200).flops_per_s,
                   h200.peak(DType::f32, hw::Unit::Vector).flops_per_s);
}

TEST(Ceilings, RecordFloors) {
  const hw::HwSpec& h200 = hw::find("h200");
  results::MeasuredCeilings m;
  m.copy_bytes_per_s = 3.84e12;  // 80 % of 4.8 TB/s
  results::Record r;
  apply_model(r, cost(0, 2.4e9, DType::f32, hw::Unit::Vector), m, h200);
  EXPECT_DOUBLE_EQ(r.bytes, 2.4e9);
  EXPECT_NEAR(r.floor_s, 2.4e9 / 4.8e12, 1e-15);
  EXPECT_NEAR(r.floor_measured_s, 2.4e9 / 3.84e12, 1e-15);
  EXPECT_EQ(r.bound, "memory");
  EXPECT_EQ(r.dtype, "fp32");
  EXPECT_EQ(r.floor_measured_base, "3.84 TB/s copy (measured)");  // the ceiling that binds
  // Compute-bound on a matrix rate this run did not measure: the base says the datasheet's.
  results::Record mm;
  apply_model(mm, cost(1e12, 1e6, DType::f16, hw::Unit::Matrix), m, h200);
  EXPECT_EQ(mm.dtype, "fp16");
  EXPECT_NE(mm.floor_measured_base.find("datasheet: not measured"), std::string::npos) << mm.floor_measured_base;
  // fp32 data multiplied in TF32 is compared as tf32, never with SGEMM.
  model::Cost tf32 = cost(1e12, 1e6, DType::f32, hw::Unit::Matrix);
  tf32.math_dtype = DType::tf32;
  results::Record t;
  apply_model(t, tf32, m, h200);
  EXPECT_EQ(t.dtype, "tf32");
  r.median_s = 1e-3;
  set_achieved(r);
  EXPECT_DOUBLE_EQ(r.achieved_bytes_per_s, 2.4e12);
  // A dtype the row lacks: no floor, and the note says why instead of throwing.
  results::Record fp8;
  apply_model(fp8, cost(1e9, 1e9, DType::fp8_e4m3, hw::Unit::Matrix), {}, hw::find("a100"));
  EXPECT_EQ(fp8.floor_s, 0);
  EXPECT_NE(fp8.note.find("no datasheet floor"), std::string::npos) << fp8.note;
}

TEST(Records, SpeedupsValidityAndTable) {
  results::File f;
  f.family = "copy";
  f.device.name = "NVIDIA H200";
  f.ceilings.copy_bytes_per_s = 3.9e12;
  f.records = {rec("v01_scalar", 1, 2e-3), rec("v02_vec16", 2, 1e-3), rec("peer:cudaMemcpy", 0, 1.5e-3),
               rec("v03_vec16_unroll", 3, 0.5e-3, false), rec("v04_future", 4, 0.8e-3)};
  f.records[3].note = "FAILED verification (rel_l2 1): the time is not a valid result";
  f.records.push_back(missing_peer_record("copy", "torch is not installed"));
  f.records[4].throttled = true;
  f.records[4].throttle_reasons = "sw power cap";
  EXPECT_TRUE(results::valid(f.records[1]));
  EXPECT_FALSE(results::valid(f.records[3]));
  EXPECT_FALSE(results::valid(f.records[5]));
  EXPECT_DOUBLE_EQ(speedup_over_previous(f, f.records[1]), 2.0);
  EXPECT_DOUBLE_EQ(speedup_over_peer(f, f.records[1]), 1.5);
  EXPECT_DOUBLE_EQ(speedup_over_previous(f, f.records[0]), 0);  // nothing before v01
  // v04's previous valid version is v02: the unverified v03 does not count.
  EXPECT_DOUBLE_EQ(speedup_over_previous(f, f.records[4]), 1e-3 / 0.8e-3);
  EXPECT_DOUBLE_EQ(speedup_over_previous(f, f.records[3]), 0);
  EXPECT_DOUBLE_EQ(speedup_over_peer(f, f.records[2]), 0);  // a peer against itself
  const std::string t = records_table(f);
  for (const char* s : {"v02_vec16", "invalid", "skipped", "2×", "1.5×", "torch is not installed",
                        "not a valid result", "throttled (sw power cap)", "3.9 TB/s"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  // The invalid record's time is not presented.
  EXPECT_EQ(t.find("500 µs"), std::string::npos) << t;
  // Thirteen columns, a long peer name and a long skip reason still fit a terminal: the reason is a note.
  std::string why;
  for (int i = 0; i < 12; ++i) why += "torch_peers: RuntimeError: no kernel image is available ";
  results::Record skipped = missing_peer_record("copy", why);
  skipped.variant = "peer:torch.compile_naive_layer_norm_bwd_bf16";
  skipped.shape = "rows=32768,cols=4096,fp16=1";
  f.records.push_back(skipped);
  std::istringstream lines(records_table(f));
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), kTerminalColumns) << line;
}

TEST(Profile, MeasuredRatesReplaceThePeaksAndValidate) {
  ProbeResult p;
  p.device.name = "NVIDIA H200";
  p.ceilings.copy_bytes_per_s = 3.9e12;
  p.ceilings.l2_bytes_per_s = 9.5e12;
  p.ceilings.fp32_fma_flops_per_s = 60e12;
  p.ceilings.matrix_flops_per_s = {{"bf16", 780e12}, {"fp8", 1.45e15}, {"fp32", 50e12}};
  const hw::HwSpec& h200 = hw::find("h200");
  const hw::HwSpec prof = measured_profile(p, h200);
  EXPECT_TRUE(prof.measured);
  EXPECT_EQ(prof.name, "measured");
  EXPECT_DOUBLE_EQ(prof.hbm_bytes_per_s, 3.9e12);
  EXPECT_DOUBLE_EQ(prof.levels.back().bytes_per_s, 3.9e12);
  const hw::Peak& bf16 = prof.matrix_peaks.at("bf16");
  EXPECT_DOUBLE_EQ(bf16.flops_per_s, 780e12);
  EXPECT_NEAR(bf16.units * bf16.flops_per_clock_per_unit * bf16.clock_hz, 780e12, 1e3);
  EXPECT_DOUBLE_EQ(prof.vector_peaks.at("fp32").flops_per_s, 60e12);
  // Unmeasured peaks keep the datasheet's; no fp32 matrix peak appears where the chip has none.
  EXPECT_DOUBLE_EQ(prof.matrix_peaks.at("fp16").flops_per_s, h200.matrix_peaks.at("fp16").flops_per_s);
  EXPECT_EQ(prof.matrix_peaks.count("fp32"), h200.matrix_peaks.count("fp32"));
  for (const auto& l : prof.levels)
    if (l.name == "L2") { EXPECT_DOUBLE_EQ(l.bytes_per_s, 9.5e12); }
  // It survives the JSON round trip that `--gpu measured` reads.
  const hw::HwSpec back = hw::from_json_text(hw::to_json(prof), "profile");
  EXPECT_TRUE(back.measured);
  EXPECT_DOUBLE_EQ(back.hbm_bytes_per_s, 3.9e12);
  // An L2 figure that would break the fastest-first order is not used.
  p.ceilings.l2_bytes_per_s = 1e15;
  for (const auto& l : measured_profile(p, h200).levels)
    if (l.name == "L2") { EXPECT_LT(l.bytes_per_s, 1e15); }
}

TEST(Profile, ProbeTable) {
  ProbeResult p;
  p.device.name = "NVIDIA H200";
  p.device.compute_capability = 90;
  p.copy_kernel_bytes_per_s = 3.84e12;
  p.memcpy_bytes_per_s = 3.6e12;
  p.ceilings.copy_bytes_per_s = 3.84e12;
  p.ceilings.matrix_flops_per_s["bf16"] = 791.5e12;
  const std::string t = probe_table(p, &hw::find("h200"));
  for (const char* s : {"3.84 TB/s", "4.8 TB/s", "80 %", "791.5 TFLOP/s", "989.4 TFLOP/s", "not measured",
                        "fp32 matmul (cuBLASLt) (vs the vector peak)"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  EXPECT_NE(probe_table(p, nullptr).find("database row: none"), std::string::npos);
}

TEST(Peers, MissingScriptPythonOrTorchIsAReason) {
  EXPECT_NE(torch_peers("copy", {Shape::parse("n=4")}, 0.5, "/nonexistent/peers.py").missing.find("no peer script"),
            std::string::npos);
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  const auto exit3 = write_script("sol-test-peer-exit3.py", "import sys\nsys.stderr.write('no torch here\\n')\nsys.exit(3)\n");
  EXPECT_EQ(torch_peers("copy", {Shape::parse("n=4")}, 0.5, exit3.string()).missing, "no torch here");
  const auto crash = write_script("sol-test-peer-crash.py", "import sys\nsys.stderr.write('boom\\n')\nsys.exit(1)\n");
  const PeerRun c = torch_peers("copy", {Shape::parse("n=4")}, 0.5, crash.string());
  EXPECT_NE(c.missing.find("exit 1"), std::string::npos) << c.missing;
  EXPECT_NE(c.missing.find("boom"), std::string::npos);
  // The real script: records, or a reason (no torch, no GPU, no peer for the family) — one of the two.
  const PeerRun real = torch_peers("copy", {Shape::parse("n=1024")});
  EXPECT_NE(real.records.empty(), real.missing.empty()) << real.missing;
  const PeerRun none = torch_peers("no_such_family", {Shape::parse("n=1024")});
  EXPECT_TRUE(none.records.empty());
  EXPECT_FALSE(none.missing.empty());
}

// A stand-in for torch_peers.py that answers every family of the request (read from stdin, as the
// harness sends it: --request -) with `records` (Python source of a list of record dicts, given
// `fam` and `shape`); the request is copied to `keep`.
std::filesystem::path answering_script(const std::string& name, const std::string& records, const std::string& keep = "") {
  return write_script(name, R"(import argparse, json, sys
ap = argparse.ArgumentParser()
ap.add_argument('--request'); ap.add_argument('--out')
a = ap.parse_args()
assert a.request == '-'
text = sys.stdin.read()
req = json.loads(text)
)" + (keep.empty() ? "" : "open('" + keep + "', 'w').write(text)\n") +
                                R"(fams = {}
for f in req['families']:
    fam = f['family']
    recs = []
    for s in f['shapes']:
        shape = s['shape']
        recs += )" + records + R"(
    fams[fam] = {'records': recs, 'seconds': 1.5}
json.dump({'torch': '9.9 (CUDA 99.9)', 'import_s': 2.5, 'families': fams}, open(a.out, 'w'))
)");
}

TEST(Peers, RecordsFollowTheContract) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  // The contract: --request - (the request on stdin) --out ANSWER; the answer holds each family's records.
  const auto ok = answering_script("sol-test-peer-ok.py", R"([{'family': fam, 'variant': 'torch.clone', 'shape': shape,
        'median_s': 1e-3, 'flops': 0, 'bytes': 8.0 * int(shape.split('=')[1]), 'verified': True, 'samples': 20,
        'dtype': 'fp32', 'unit': 'vector', 'timing': 'graph', 'eager_median_s': 2e-3, 'spread': 0.02,
        'sm_clock_hz': 1.98e9}]
        if shape == 'n=2048': recs[-1].update(dtype='tf32', unit='matrix', math='tf32'))");
  const PeerRun r = torch_peers("copy", {Shape::parse("n=1024"), Shape::parse("n=2048")}, 0.5, ok.string());
  ASSERT_EQ(r.missing, "");
  ASSERT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.records[0].variant, "peer:torch.clone");  // the peer: prefix is ensured
  EXPECT_EQ(r.records[1].shape, "n=2048");
  EXPECT_DOUBLE_EQ(r.records[1].bytes, 16384);
  EXPECT_DOUBLE_EQ(r.seconds, 1.5);
  // Device time, eager time, spread and clock as the script wrote them; its floor from its own math.
  EXPECT_EQ(r.records[0].timing, "graph");
  EXPECT_DOUBLE_EQ(r.records[0].eager_median_s, 2e-3);
  EXPECT_DOUBLE_EQ(r.records[0].spread, 0.02);
  EXPECT_DOUBLE_EQ(r.records[0].sm_clock_hz, 1.98e9);
  ASSERT_EQ(r.costs.size(), 2u);
  EXPECT_EQ(r.costs[0].dtype, DType::f32);
  EXPECT_EQ(r.costs[0].unit, hw::Unit::Vector);
  EXPECT_FALSE(r.costs[0].math_dtype.has_value());
  EXPECT_EQ(r.costs[1].unit, hw::Unit::Matrix);
  EXPECT_EQ(r.costs[1].math_dtype, DType::tf32);
  EXPECT_DOUBLE_EQ(r.costs[1].bytes, 16384);
  // A record that does not say where its arithmetic runs has no floor to take: the peers are missing.
  const auto untyped = answering_script("sol-test-peer-untyped.py", R"([{'family': fam, 'variant': 'clone',
        'shape': shape, 'median_s': 1e-3, 'flops': 0, 'bytes': 32, 'verified': True}])");
  const PeerRun u = torch_peers("copy", {Shape::parse("n=4")}, 0.5, untyped.string());
  EXPECT_TRUE(u.records.empty());
  EXPECT_TRUE(u.costs.empty());
  EXPECT_NE(u.missing.find("states no dtype"), std::string::npos) << u.missing;
  const auto garbage = answering_script("sol-test-peer-garbage.py", "[{'family': fam}]");
  const PeerRun g = torch_peers("copy", {Shape::parse("n=4")}, 0.5, garbage.string());
  EXPECT_TRUE(g.records.empty());
  EXPECT_NE(g.missing.find("unreadable"), std::string::npos) << g.missing;
  const auto missing = write_script("sol-test-peer-missing.py", R"(import argparse, json
ap = argparse.ArgumentParser()
ap.add_argument('--request'); ap.add_argument('--out')
a = ap.parse_args()
json.dump({'families': {'copy': {'missing': 'no PyTorch peer for this family'}}}, open(a.out, 'w'))
)");
  EXPECT_EQ(torch_peers("copy", {Shape::parse("n=4")}, 0.5, missing.string()).missing, "no PyTorch peer for this family");
  // A family the answer leaves out is missing, by name.
  EXPECT_NE(torch_peers("banks", {Shape::parse("rows=64,cols=64")}, 0.5, missing.string()).missing.find("'banks'"),
            std::string::npos);
  const auto not_json = write_script("sol-test-peer-notjson.py", R"(import argparse
ap = argparse.ArgumentParser()
ap.add_argument('--request'); ap.add_argument('--out')
open(ap.parse_args().out, 'w').write('[{"family": ')
)");
  EXPECT_NE(torch_peers("copy", {Shape::parse("n=4")}, 0.5, not_json.string()).missing.find("unreadable JSON"),
            std::string::npos);
}

// The script starts when the PeerProcess is made, before any request exists (python3's start and
// torch's import overlap the caller's work); the request arrives on stdin when run() is called. One
// destroyed without run() closes stdin: the script reads end-of-file and exits.
TEST(Peers, TheScriptStartsAheadOfItsRequest) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  const auto dir = std::filesystem::temp_directory_path();
  const auto started = dir / ("sol-test-peer-started-" + std::to_string(::getpid()));
  const auto eof = dir / ("sol-test-peer-eof-" + std::to_string(::getpid()));
  std::filesystem::remove(started);
  std::filesystem::remove(eof);
  const auto script = write_script("sol-test-peer-ahead.py", R"(import argparse, json, sys
open(')" + started.string() + R"(', 'w').write('up')
ap = argparse.ArgumentParser()
ap.add_argument('--request'); ap.add_argument('--out')
a = ap.parse_args()
text = sys.stdin.read()
if not text:
    open(')" + eof.string() + R"(', 'w').write('eof')
    sys.exit(0)
req = json.loads(text)
fams = {f['family']: {'records': [{'family': f['family'], 'variant': 'torch.x', 'shape': s['shape'], 'median_s': 1e-3,
        'flops': 0, 'bytes': 64, 'verified': True, 'samples': 20, 'dtype': 'fp32', 'unit': 'vector'}
        for s in f['shapes']], 'seconds': 0.5} for f in req['families']}
json.dump({'torch': 'x', 'import_s': 0.1, 'families': fams}, open(a.out, 'w'))
)");
  PeerOptions o;
  o.script = script.string();
  {
    PeerProcess p(o);
    // It runs before it is asked anything.
    for (int i = 0; i < 200 && !std::filesystem::exists(started); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(std::filesystem::exists(started)) << "the script had not started 10 s after the PeerProcess";
    const PeerBatch b = p.run({{"copy", {Shape::parse("n=4")}}});
    ASSERT_EQ(b.families.size(), 1u);
    EXPECT_EQ(b.families[0].records.size(), 1u) << b.families[0].missing;
    EXPECT_GT(b.seconds, 0);
    // Once only: a second run has no script to ask.
    EXPECT_NE(p.run({{"copy", {Shape::parse("n=4")}}}).families[0].missing.find("already run"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(eof));
  { PeerProcess unused(o); }  // the destructor waits for the script, which saw end-of-file
  EXPECT_TRUE(std::filesystem::exists(eof)) << "a PeerProcess destroyed unasked left its script waiting";
  std::filesystem::remove(started);
  std::filesystem::remove(eof);
}

TEST(Peers, OneProcessAnswersEveryFamily) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  const auto keep = std::filesystem::temp_directory_path() / ("sol-test-peer-request-" + std::to_string(::getpid()) + ".json");
  const auto ok = answering_script("sol-test-peer-batch.py", R"([{'family': fam, 'variant': 'torch.x', 'shape': shape,
        'median_s': 1e-3, 'flops': 0, 'bytes': 64, 'verified': True, 'samples': 20, 'dtype': 'fp32',
        'unit': 'vector'}])",
                                   keep.string());
  PeerOptions o;
  o.script = ok.string();
  o.compile = false;
  o.budget_s = 0.25;
  const PeerBatch b = torch_peers({{"copy", {Shape::parse("n=2^20")}}, {"banks", {Shape::parse("rows=64,cols=64")}}}, o);
  ASSERT_EQ(b.families.size(), 2u);
  EXPECT_EQ(b.families[0].family, "copy");
  EXPECT_EQ(b.families[1].family, "banks");
  EXPECT_EQ(b.families[1].records.size(), 1u) << b.families[1].missing;
  EXPECT_EQ(b.families[1].records[0].family, "banks");
  EXPECT_EQ(b.torch, "9.9 (CUDA 99.9)");
  EXPECT_DOUBLE_EQ(b.import_s, 2.5);
  EXPECT_GT(b.seconds, 0);
  // The request: the budget, the graph threshold the harness's own runs use, the compile switch and,
  // per shape, the registry's cost of each variant there.
  const nlohmann::json req = nlohmann::json::parse(std::ifstream(keep));
  std::filesystem::remove(keep);
  EXPECT_DOUBLE_EQ(req.at("budget_s").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(req.at("graph_below_s").get<double>(), results::kGraphBelowS);
  EXPECT_FALSE(req.at("compile").get<bool>());
  const auto& copy = req.at("families").at(0);
  EXPECT_EQ(copy.at("family"), "copy");
  EXPECT_EQ(copy.at("shapes").at(0).at("shape"), "n=1048576");
  const auto& costs = copy.at("shapes").at(0).at("costs");
  ASSERT_FALSE(costs.empty());
  for (const auto& c : costs) {
    EXPECT_NE(c.at("variant").get<std::string>().rfind("peer:", 0), 0u) << "sol's own variants only";
    EXPECT_EQ(c.at("dtype"), "fp32");
    const Variant* v = select("copy/" + c.at("variant").get<std::string>()).front();
    EXPECT_DOUBLE_EQ(c.at("bytes").get<double>(), v->cost(Shape::parse("n=2^20")).bytes);
  }
}

TEST(Peers, ACrashKeepsTheFamiliesAlreadyAnswered) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  // The answer holds copy when the process dies (as on a CUDA fault) while measuring banks.
  const auto crash = write_script("sol-test-peer-partial.py", R"(import argparse, json, sys
ap = argparse.ArgumentParser()
ap.add_argument('--request'); ap.add_argument('--out')
a = ap.parse_args()
rec = {'family': 'copy', 'variant': 'torch.clone', 'shape': 'n=4', 'median_s': 1e-3, 'flops': 0, 'bytes': 32,
       'verified': True, 'samples': 20, 'dtype': 'fp32', 'unit': 'vector'}
json.dump({'torch': '9.9', 'families': {'copy': {'records': [rec]}}}, open(a.out, 'w'))
sys.stderr.write('CUDA error: an illegal memory access was encountered\n')
sys.exit(134)
)");
  PeerOptions o;
  o.script = crash.string();
  const PeerBatch b = torch_peers({{"copy", {Shape::parse("n=4")}}, {"banks", {Shape::parse("rows=64,cols=64")}}}, o);
  ASSERT_EQ(b.families.size(), 2u);
  EXPECT_EQ(b.families[0].missing, "");
  EXPECT_EQ(b.families[0].records.size(), 1u);
  EXPECT_NE(b.families[1].missing.find("exit 134"), std::string::npos) << b.families[1].missing;
  EXPECT_NE(b.families[1].missing.find("illegal memory access"), std::string::npos) << b.families[1].missing;
}

TEST(Peers, TheScriptMeasuresOnTheCpuWhereTorchIsInstalled) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  if (std::system("python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "PyTorch is not installed here: the peers' CPU run is skipped (the dry run still checks them)";
  // Small shapes of families whose peers run on a CPU; each family's own records, verified.
  PeerOptions o;
  o.cpu = true;
  o.budget_s = 0.01;
  o.compile = false;
  const std::vector<PeerRequest> families = {{"copy", {Shape::parse("n=4096")}},
                                             {"banks", {Shape::parse("rows=64,cols=64")}},
                                             {"coalescing", {Shape::parse("rows=64,cols=64")}},
                                             {"elementwise", {Shape::parse("n=4096")}},
                                             {"layernorm", {Shape::parse("rows=64,cols=256")}},
                                             {"softmax_bwd", {Shape::parse("rows=64,cols=256")}},
                                             {"crossentropy", {Shape::parse("rows=64,vocab=1000,smooth=100,ignore=3")}},
                                             {"gemm_fp32", {Shape::parse("m=64,n=64,k=64")}}};
  const PeerBatch b = torch_peers(families, o);
  ASSERT_EQ(b.families.size(), families.size());
  EXPECT_NE(b.torch, "");
  for (const PeerRun& r : b.families) {
    EXPECT_EQ(r.missing, "") << r.family;
    EXPECT_FALSE(r.records.empty()) << r.family;
    for (const results::Record& rec : r.records) {
      EXPECT_EQ(rec.family, r.family);
      EXPECT_GT(rec.bytes, 0) << rec.variant << " takes its bytes from the registry";
      EXPECT_NE(rec.note.find("as sol's"), std::string::npos) << rec.note;
      if (rec.skipped.empty()) {
        EXPECT_TRUE(rec.verified) << rec.variant << " " << rec.note;
      }
    }
  }
}

TEST(Peers, TheScriptChecksEveryFamilyOfTheRegistryWithoutTorch) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed here";
  // Every family at its headline shapes, as `sol report` asks: the script knows the family and can
  // read each shape and its costs (or says it has no peer for it) without importing torch.
  std::vector<PeerRequest> all;
  for (const auto& [family, variants] : by_family(select(""))) {
    PeerRequest q{family, {}};
    for (const Variant* v : variants)
      if (!v->bench_shapes.empty() && std::find(q.shapes.begin(), q.shapes.end(), v->bench_shapes.front()) == q.shapes.end())
        q.shapes.push_back(v->bench_shapes.front());
    all.push_back(q);
  }
  PeerOptions o;
  o.dry_run = true;
  const PeerBatch b = torch_peers(all, o);
  ASSERT_EQ(b.families.size(), all.size());
  for (const PeerRun& r : b.families) {
    const bool known = r.missing.rfind("dry run: ", 0) == 0;
    const bool no_peer = r.missing.find("no PyTorch peer for family '" + r.family + "'") != std::string::npos;
    EXPECT_TRUE(known || no_peer) << r.family << ": " << r.missing;
    if (r.family == "copy" || r.family == "gemm_fp32" || r.family == "layernorm_bwd") {
      EXPECT_TRUE(known) << r.missing;
    }
  }
}

TEST(Peers, MissingPeerRecord) {
  const results::Record r = missing_peer_record("copy", "torch is not installed");
  EXPECT_EQ(r.variant.rfind("peer:", 0), 0u);
  EXPECT_NE(r.skipped.find("torch is not installed"), std::string::npos);
  EXPECT_FALSE(results::valid(r));
}

TEST(Export, CsvHasOneQuotedRowPerRecord) {
  results::File f;
  f.family = "copy";
  results::Record a;
  a.family = "copy";
  a.variant = "v01_scalar";
  a.version = 1;
  a.shape = "n=1024";
  a.median_s = a.min_s = a.max_s = 2e-6;
  a.samples = 10;
  a.verified = true;
  a.bytes = 8192;
  a.floor_s = 1e-6;
  a.note = "a note, with \"quotes\"";
  results::Record b = a;
  b.variant = "v02_vec";
  b.version = 2;
  b.median_s = 1e-6;
  b.note = "";
  results::Record c = a;
  c.variant = "v03_tma";
  c.version = 3;
  c.skipped = "needs compute capability 9.0";
  f.records = {a, b, c};
  const std::string csv = records_csv({f});
  std::vector<std::string> rows;
  for (size_t s = 0, e; s < csv.size(); s = e + 1) rows.push_back(csv.substr(s, (e = csv.find('\n', s)) - s));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].rfind("family,variant,version,dtype,shape,status,median_s,", 0), 0u) << rows[0];
  EXPECT_NE(rows[1].find(",ok,2e-06,"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("\"a note, with \"\"quotes\"\"\""), std::string::npos) << rows[1];
  auto split = [](const std::string& row) {
    std::vector<std::string> cells;
    for (size_t s = 0, e; s <= row.size(); s = e + 1) cells.push_back(row.substr(s, (e = std::min(row.find(',', s), row.size())) - s));
    return cells;
  };
  const std::vector<std::string> head = split(rows[0]), second = split(rows[2]);
  ASSERT_EQ(head.size(), second.size()) << rows[2];
  auto cell = [&](const std::string& name) {
    for (size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return second[i];
    return std::string("no column ") + name;
  };
  EXPECT_EQ(cell("floor_fraction"), "1");           // 1 µs floor, 1 µs time
  EXPECT_EQ(cell("speedup_over_previous"), "2");    // 2 µs → 1 µs
  EXPECT_EQ(cell("status"), "ok");
  EXPECT_NE(rows[3].find(",skipped,,"), std::string::npos) << rows[3];
  const std::string md = records_markdown({f});
  EXPECT_NE(md.find("| v02_vec | `n=1024` | 1 µs |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2× |"), std::string::npos) << md;
  EXPECT_NE(md.find("- v03_tma `n=1024`: needs compute capability 9.0"), std::string::npos) << md;
}

TEST(RegistryRun, HeadlineRecordAndEta) {
  results::File f;
  auto rec = [](const std::string& v, const std::string& shape, double t, bool ok = true) {
    results::Record r;
    r.variant = v;
    r.shape = shape;
    r.median_s = t;
    r.verified = ok;
    return r;
  };
  f.records = {rec("v01", "n=8", 3e-3), rec("v02", "n=8", 1e-3, false), rec("v03", "n=8", 2e-3),
               rec("v03", "n=4", 0.5e-3), rec("peer:torch.clone", "n=8", 0.1e-3)};
  const results::Record* h = headline_record(f);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->variant, "v03");  // the fastest verified of sol's own at the first shape
  EXPECT_EQ(h->shape, "n=8");
  EXPECT_EQ(headline_record(results::File{}), nullptr);
  EXPECT_DOUBLE_EQ(eta_s(10, 5, 20), 30);
  EXPECT_DOUBLE_EQ(eta_s(10, 20, 20), 0);
  EXPECT_LT(eta_s(0, 0, 20), 0);
}

TEST(RegistryRun, ProgressLineFitsAndSaysWhereItIs) {
  EXPECT_EQ(cli::clock_text(65), "1:05");
  EXPECT_EQ(cli::clock_text(3723), "1:02:03");
  EXPECT_EQ(cli::clock_text(-1), "?");
  RegistryProgress p;
  p.family = 3;
  p.families = 19;
  p.name = "attention_bwd";
  p.variant = std::string(80, 'v');
  p.shape = "b=4,h=16,hkv=16,n=4096,d=128,causal=1,det=1";
  p.records = 41;
  p.total = 96;
  p.elapsed_s = 27;
  p.eta_s = eta_s(p.elapsed_s, p.records, p.total);
  const std::string line = cli::progress_line(p);
  EXPECT_LE(display_width(line), 100u) << line;
  EXPECT_EQ(line.rfind("sol: [ 3/19] attention_bwd  v", 0), 0u) << line;
  EXPECT_NE(line.find("41/96"), std::string::npos) << line;
  EXPECT_NE(line.find("0:27 elapsed, ETA 0:36"), std::string::npos) << line;  // 27 / 41 × 55 = 36.2
  p.family_done = true;
  EXPECT_NE(cli::progress_line(p).find("attention_bwd  done"), std::string::npos);
  p.records = 0;
  p.eta_s = -1;
  EXPECT_NE(cli::progress_line(p).find("ETA …"), std::string::npos);
  // After every family's own records, the peers of all of them: no ETA, the time so far.
  p.family_done = false;
  p.peers = true;
  p.name = "peers";
  p.variant = "PyTorch peers of 19 families, one python3";
  p.shape = "";
  p.records = p.total = 96;
  p.elapsed_s = 83;
  const std::string peers = cli::progress_line(p);
  EXPECT_NE(peers.find("peers  PyTorch peers of 19 families"), std::string::npos) << peers;
  EXPECT_NE(peers.find("1:23 elapsed"), std::string::npos) << peers;
  EXPECT_EQ(peers.find("ETA"), std::string::npos) << peers;
  EXPECT_LE(display_width(peers), 100u) << peers;
}


TEST(RegistryRun, ReportTimingIsBounded) {
  const Options o = cli::report_timing();
  EXPECT_GT(o.timeout_s, 0);
  EXPECT_LE(o.budget_s, o.timeout_s);
  EXPECT_GE(o.min_samples, 3);
}

#else
TEST(Harness, NotBuilt) { GTEST_SKIP() << "the harness is built only with CUDA (nvcc not found)"; }
#endif

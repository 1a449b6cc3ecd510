// Hostile input, one class per test: sizes whose arithmetic would overflow, inputs that would
// take hours or gigabytes, files that are devices or pipes, names that are paths, numbers a JSON
// library cannot hold. Each is refused with one clear line (sol::Error, or exit 2 from the CLI)
// or answered exactly; none may crash, hang, write where it was not told, or print a wrong number.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "sol/core/error.hpp"
#include "sol/core/input.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/access.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/occupancy.hpp"
#include "sol/results.hpp"
#include "sol/sim/picture.hpp"
#include "sol/sim/scalesim_io.hpp"
#include "sol/sim/systolic.hpp"
#include "sol_cli.hpp"

using namespace sol;
using nlohmann::json;
using sol::test::run_sol;

namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sol_test_robustness_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

// The CLI refused the input as bad input, on exactly one printable line naming `needle`.
void expect_refused(const sol::test::CliRun& r, const std::string& needle) {
  EXPECT_EQ(r.rc, 2) << r.all();
  EXPECT_EQ(sol::test::count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("sol: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  for (char c : r.err.substr(0, r.err.size() - 1)) EXPECT_TRUE(c == '\t' || static_cast<unsigned char>(c) >= 0x20) << r.err;
}

std::string bad_input_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput) << e.line();
    return e.line();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

json hw_row(const std::string& name) {
  json j = json::parse(hw::to_json(hw::find("h100")));
  j["name"] = name;
  return j;
}

json results_file(const std::string& family, const std::string& shape) {
  return {{"schema_version", 2},
          {"family", family},
          {"ceilings", {{"copy_bytes_per_s", 3e12}}},
          {"records",
           {{{"family", family}, {"variant", "v01"}, {"shape", shape}, {"median_s", 1e-3}, {"flops", 1e9},
             {"bytes", 1e9}, {"verified", true}}}}};
}

// `text` with the number after "key": replaced by `number` (which JSON itself may not hold).
std::string with_number(std::string text, const std::string& key, const std::string& number) {
  const size_t at = text.find("\"" + key + "\":");
  EXPECT_NE(at, std::string::npos) << key;
  const size_t begin = at + key.size() + 3, end = text.find_first_of(",}", begin);
  return text.replace(begin, end - begin, number);
}

}  // namespace

// ---- arithmetic that would overflow -----------------------------------------------------------
TEST(Robustness, OccupancySharedMemorySumDoesNotWrap) {
  const auto& sm = hw::find("h100").limits;
  const std::string line = bad_input_of([&] { model::occupancy(sm, {256, 32, INT64_MAX, 1, -1}); });
  EXPECT_NE(line.find("9223372036854775807 static + 1 dynamic"), std::string::npos) << line;
  bad_input_of([&] { model::occupancy(sm, {256, 32, 1, INT64_MAX, -1}); });
  expect_refused(run_sol("occupancy --threads 256 --regs 32 --smem 9223372036854775807 --dynamic-smem 1"),
                 "9223372036854775807 static + 1 dynamic");
  expect_refused(run_sol("occupancy --threads 256 --regs 32 --smem 4611686018427387904 --dynamic-smem 4611686018427387904"),
                 "shared memory per block");
}

TEST(Robustness, ConvolutionSizesAreCheckedBeforeTheyMultiply) {
  const std::string line = bad_input_of([] {
    sim::Layer::conv("c", int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31,
                     int64_t(1) << 31, 1, 1);
  });
  EXPECT_NE(line.find("too large"), std::string::npos) << line;
  expect_refused(run_sol("systolic --conv 2147483648,2147483648,2147483648,2147483648,2147483648,2,1"), "too large");
}

TEST(Robustness, AccessAddressesAndTripCountsAreBounded) {
  bad_input_of([] { model::coalescing_addresses({INT64_MAX, 2, 2}, 4); });
  bad_input_of([] { model::coalescing(4, 1, 32, INT64_MAX); });
  bad_input_of([] { model::coalescing(int64_t(1) << 62, int64_t(1) << 39); });  // element size checked first
  bad_input_of([] { model::coalescing_addresses({0, 32}, 4, int64_t(1) << 62); });
  bad_input_of([] { model::bank_conflicts_addresses({INT64_MAX}, 4); });
  bad_input_of([] { model::bank_conflicts({4, int64_t(1) << 30, 1, int64_t(1) << 30, false, 32}); });
  bad_input_of([] { model::loop_trips({INT64_MAX, INT64_MAX, 1}); });
  // At the bounds the answers are still exact.
  EXPECT_EQ(model::coalescing_addresses({(int64_t(1) << 56) - 4}, 4).sectors, 1);
  EXPECT_DOUBLE_EQ(model::loop_trips({int64_t(1) << 50, 0}).efficiency, 0.5);
  expect_refused(run_sol("access coalescing --addresses 9223372036854775807,2,2"), "2^56");
  expect_refused(run_sol("access coalescing --offset 9223372036854775807"), "a base address of 9223372036854775807");
  expect_refused(run_sol("access coalescing --offset 4611686018427387904"), "2^56");
  expect_refused(run_sol("access divergence --trips 9223372036854775807,9223372036854775807"), "trip count");
}

TEST(Robustness, DramBandwidthMustBeAPlausiblePositiveNumber) {
  sim::ArrayConfig c;
  c.bandwidth_mode = sim::BandwidthMode::user;
  for (double bw : {1e-300, 0.0, -1.0, std::nan(""), double(INFINITY), 1e10}) {
    c.dram_words_per_cycle = bw;
    bad_input_of([&] { sim::validate(c); });
  }
  for (const char* bw : {"1e-300", "nan", "-1", "0"})
    expect_refused(run_sol(std::string("systolic --gemm 8,8,8 --dram-bw ") + bw), "DRAM bandwidth");
  // The smallest accepted bandwidth on the largest layer still counts its stalls in 64 bits.
  c.dram_words_per_cycle = 1e-6;
  const sim::Layer big = sim::Layer::gemm("g", int64_t(1) << 31, 1 << 11, 1 << 11);
  bad_input_of([&] { sim::analytic(big, c, sim::Model::sol); });
}

TEST(Robustness, HwFileLimitsWhoseProductPassesIntAreRefused) {
  json j = hw_row("chip-limits");
  j["limits"]["max_warps_per_sm"] = 1 << 22;  // × 1024 lanes = 2^32 threads: checked in 64 bits
  j["limits"]["warp_size"] = 1024;
  EXPECT_EQ(hw::from_json_text(j.dump(), "limits.json").limits.max_warps_per_sm, 1 << 22);
  j["limits"]["max_warps_per_sm"] = 2000000000;
  const std::string line = bad_input_of([&] { hw::from_json_text(j.dump(), "limits.json"); });
  EXPECT_NE(line.find("limits.max_warps_per_sm"), std::string::npos) << line;
  j["limits"]["max_warps_per_sm"] = 64;
  j["limits"]["warp_size"] = 4096;
  bad_input_of([&] { hw::from_json_text(j.dump(), "limits.json"); });
  j = hw_row("chip-steps");
  j["limits"]["carveout_steps"] = {0, 1000000000000};
  bad_input_of([&] { hw::from_json_text(j.dump(), "steps.json"); });
}

// ---- work and memory that would grow without bound --------------------------------------------
TEST(Robustness, DepthwiseChannelsAreBoundedBeforeTheyBecomeLayers) {
  const std::string csv = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
                          "Strides,\nDP1, 8, 8, 3, 3, 1000000000, 1, 1,\n";
  const std::string line = bad_input_of([&] { sim::parse_topology(csv, "t.csv"); });
  EXPECT_NE(line.find("1000000000 channels"), std::string::npos) << line;
  bad_input_of([] {
    sim::parse_topology("Layer name, H, W, FH, FW, C, N, S,\nDP1, 8, 8, 3, 3, 0, 1, 1,\n", "t.csv");
  });
}

// The closed form of the pixels a strided window touches, against marking them one by one.
TEST(Robustness, DistinctIfmapWordsMatchAPixelCount) {
  for (int64_t h = 1; h <= 9; ++h)
    for (int64_t f = 1; f <= h; ++f)
      for (int64_t s = 1; s <= 5; ++s) {
        const sim::Layer l = sim::Layer::conv("c", h, h + 1, f, f, 2, 1, s, s);
        std::set<int64_t> touched;
        const sim::Gemm g = l.lower();
        for (int64_t m = 0; m < g.M; ++m)
          for (int64_t k = 0; k < g.K; ++k)
            if (const int64_t a = l.ifmap_address(m, k); a >= 0) touched.insert(a);
        EXPECT_EQ(l.distinct_ifmap_words(), int64_t(touched.size())) << "H=" << h << " F=" << f << " S=" << s;
      }
  // Any size: 2^31 image rows are counted without visiting them.
  EXPECT_EQ(sim::Layer::gemm("g", int64_t(1) << 31, 2, 100).distinct_ifmap_words(), (int64_t(1) << 31) * 100);
}

TEST(Robustness, ScaleSimReplayRefusesLayersItCannotReplayQuickly) {
  const auto r = run_sol("systolic --compat scalesim --gemm 100000,100000,100000");
  expect_refused(r, "--no-dram-replay");
  EXPECT_EQ(run_sol("systolic --compat scalesim --no-dram-replay --gemm 100000,100000,100000").rc, 0);
}

// ---- input files: regular, bounded, named -------------------------------------------------------
TEST(Robustness, InputFilesMustBeRegularFilesOfBoundedSize) {
  const fs::path d = scratch("inputs");
  const std::string fifo = (d / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = (d / "big.json").string();
  fs::resize_file(write_file(big, ""), kMaxInputFileBytes + 1);
  for (const std::string& p : {std::string("/dev/zero"), fifo, d.string()})
    EXPECT_NE(bad_input_of([&] { read_input_file(p, "hardware file"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(bad_input_of([&] { read_input_file(big, "results file"); }).find("larger than 64 MiB"), std::string::npos);
  EXPECT_NE(bad_input_of([&] { read_input_file((d / "none").string(), "x"); }).find("cannot open"), std::string::npos);
  EXPECT_EQ(read_input_file(write_file(d / "ok", "a\nb"), "x"), "a\nb");
  for (const std::string& p : {std::string("/dev/zero"), std::string("/dev/urandom"), fifo, big}) {
    expect_refused(run_sol("--hw-file " + p + " hw list"), p);
    expect_refused(run_sol("access --against " + p), p);
  }
  expect_refused(run_sol("systolic --topology " + fifo), "not a regular file");
  expect_refused(run_sol("systolic --config /dev/zero --gemm 8,8,8"), "not a regular file");
}

// ---- names that are paths; writes only once all is known ---------------------------------------
TEST(Robustness, ResultsFamiliesAreNamesNotPaths) {
  for (const char* family : {"../../x", "/abs/path", "a/b", "", ".hidden", "x\ny"}) {
    const std::string line = bad_input_of([&] { results::from_json_text(results_file(family, "n=1").dump(), "r.json"); });
    EXPECT_NE(line.find("'family'"), std::string::npos) << line;
  }
  results::from_json_text(results_file("gemm_bf16", "m=1,n=2,k=3").dump(), "r.json");

  const fs::path d = scratch("docs_family");
  fs::create_directories(d / "run" / "results");
  write_file(d / "run" / "results" / "x.json", results_file("../../escaped", "n=1").dump());
  const auto r = run_sol("docs --results results --out docs --readme '' --gpu h100", sol::test::with_cwd((d / "run").string()));
  expect_refused(r, "'family'");
  EXPECT_FALSE(fs::exists(d / "escaped.md"));
  EXPECT_FALSE(fs::exists(d / "run" / "docs"));
}

TEST(Robustness, ResultsShapesAndCountsAreChecked) {
  const std::string line = bad_input_of([] { results::from_json_text(results_file("copy", "n=x").dump(), "r.json"); });
  EXPECT_NE(line.find("r.json record 0: field 'shape' is 'n=x'"), std::string::npos) << line;
  for (const char* shape : {"n=", "=1", "n=1,", "N=1", "n=1,,m=2", "n=1e3"})
    bad_input_of([&] { results::from_json_text(results_file("copy", shape).dump(), "r.json"); });
  json j = results_file("copy", "n=1");
  j["records"][0]["samples"] = 1e20;
  EXPECT_NE(bad_input_of([&] { results::from_json_text(j.dump(), "r.json"); }).find("'samples'"), std::string::npos);
}

TEST(Robustness, DocsWritesNothingUntilEverythingSucceeds) {
  const fs::path d = scratch("docs_atomic");
  fs::create_directories(d / "results");
  write_file(d / "results" / "copy.json", results_file("copy", "n=1").dump());
  // No README where the default --readme points: refused before docs/ is created.
  const auto r = run_sol("docs --results results --gpu h100", sol::test::with_cwd(d.string()));
  expect_refused(r, "README.md");
  EXPECT_FALSE(fs::exists(d / "docs"));
  // --out onto a file: one line, not a filesystem exception.
  write_file(d / "a_file", "x");
  expect_refused(run_sol("docs --results results --out a_file --readme '' --gpu h100", sol::test::with_cwd(d.string())),
                 "not a folder");
  EXPECT_EQ(run_sol("docs --results results --out pages --readme '' --gpu h100", sol::test::with_cwd(d.string())).rc, 0);
  EXPECT_TRUE(fs::exists(d / "pages" / "copy.md"));
}

// A folder with model-shape runs alone (a second GPU measured at the model shapes) writes those
// runs' page; with neither family files nor runs, one line and nothing written.
TEST(Robustness, DocsOfAModelShapesOnlyFolder) {
  const fs::path d = scratch("docs_model_shapes");
  fs::create_directories(d / "results" / "model-shapes");
  expect_refused(run_sol("docs --results results --out pages --readme ''", sol::test::with_cwd(d.string())),
                 "model-shapes");
  EXPECT_FALSE(fs::exists(d / "pages"));
  write_file(d / "results" / "model-shapes" / "dispatch-copy.json", results_file("copy", "n=1").dump());
  write_file(d / "README.md", "<!-- sol:BEGIN headline -->\nkept\n<!-- sol:END headline -->\n");
  const auto r = run_sol("docs --results results --out pages --gpu h100", sol::test::with_cwd(d.string()));
  ASSERT_EQ(r.rc, 0) << r.all();
  const std::string page = read_input_file((d / "pages" / "model-shapes.md").string(), "page");
  EXPECT_NE(page.find("<!-- sol:BEGIN dispatch-copy -->"), std::string::npos) << page;
  EXPECT_NE(page.find("n=1"), std::string::npos) << page;
  EXPECT_FALSE(fs::exists(d / "pages" / "copy.md"));  // no family pages, no collective pages
  EXPECT_FALSE(fs::exists(d / "pages" / "comm.md"));
  EXPECT_NE(read_input_file((d / "README.md").string(), "README").find("kept"), std::string::npos);
}

// ---- numbers a JSON library cannot hold, and implausible figures -------------------------------
TEST(Robustness, JsonNumberOverflowIsOneLineNamingTheFile) {
  const fs::path d = scratch("json_overflow");
  const std::string hw_file =
      write_file(d / "overflow.json", with_number(hw_row("chip-overflow").dump(), "hbm_bytes", "1e999"));
  expect_refused(run_sol("--hw-file " + hw_file + " hw list"), "overflow.json");
  const std::string res = with_number(results_file("copy", "n=1").dump(), "copy_bytes_per_s", "1e999");
  expect_refused(run_sol("access --against " + write_file(d / "res.json", res)), "res.json");
}

TEST(Robustness, PeaksAndBandwidthsMustBeFiniteAndPlausible) {
  json j = hw_row("chip-inf");
  j["matrix_peaks"]["bf16"]["units"] = 1e300;
  j["matrix_peaks"]["bf16"]["flops_per_clock_per_unit"] = 1e300;
  j["matrix_peaks"]["bf16"].erase("flops_per_s");
  EXPECT_NE(bad_input_of([&] { hw::from_json_text(j.dump(), "inf.json"); }).find("matrix_peaks.bf16"), std::string::npos);
  j = hw_row("chip-slow");
  j["hbm_bytes_per_s"] = 1e-300;
  j.erase("levels");
  EXPECT_NE(bad_input_of([&] { hw::from_json_text(j.dump(), "slow.json"); }).find("plausible"), std::string::npos);
  for (const auto* s : hw::all_specs()) hw::validate(*s, "built-in");  // the database itself passes
}

// ---- echoed input stays one printable line -------------------------------------------------------
TEST(Robustness, BinaryConfigLinesAreEscapedAndCut) {
  const std::string junk = "\x01\x02\x1b[31m" + std::string(500, 'x');
  const std::string line = bad_input_of([&] { sim::parse_scalesim_config(junk + "\n", "bin.cfg"); });
  EXPECT_NE(line.find("\\x01\\x02\\x1B[31m"), std::string::npos) << line;
  EXPECT_LT(line.size(), 300u);
  EXPECT_EQ(printable("a\tb\nc\xff" "é", 80), "a\\tb\\nc\\xFFé");
  EXPECT_EQ(printable(std::string(100, 'y'), 10), std::string(10, 'y') + "…");
  const auto r = run_sol("--hw-file '" + std::string("\x01\n") + "' hw list");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(sol::test::count_lines(r.err), 1) << r.err;
}

// ---- refused only where the count does not fit ----------------------------------------------------
TEST(Robustness, FlashWithL2ReuseIsNotRefusedForAnUnstoredScoreMatrix) {
  model::AttentionOp op;
  op.seq = int64_t(1) << 31;
  op.head_dim = 64;
  op.flash = true;
  op.reuse_in_l2 = true;
  const model::Cost c = model::attention(op);
  EXPECT_DOUBLE_EQ(c.bytes, 4.0 * double(op.seq) * 64 * 2 + double(op.seq) * 4);
  op.flash = false;
  bad_input_of([&] { model::attention(op); });  // the N×N matrix really is stored
  EXPECT_EQ(run_sol("roofline attention --impl flash --l2-reuse --seq 2147483648 --head-dim 64").rc, 0);
}

// ---- the cycle-stepped engine does only the work asked of it -------------------------------------
TEST(Robustness, PictureStepsOnlyToTheEndOfItsWindow) {
  sim::ArrayConfig c;
  c.rows = c.cols = 8;
  // 1000³ on 8x8 is 2·10^10 cell updates in all; the picture needs the first 24 cycles.
  const auto frames = sim::capture_frames(sim::Layer::gemm("g", 1000, 1000, 1000), c, sim::Model::scalesim, 8, 16);
  ASSERT_EQ(frames.size(), 16u);
  EXPECT_EQ(frames.front().cycle, 8);
  EXPECT_NE(bad_input_of([&] { sim::capture_frames(sim::Layer::gemm("g", 1000, 1000, 1000), c, sim::Model::sol, 1e9, 16); })
                .find("steps the array too long"),
            std::string::npos);
  EXPECT_NE(bad_input_of([&] { sim::stepped(sim::Layer::gemm("g", 1000, 1000, 1000), c, sim::Model::sol); })
                .find("--engine analytic"),
            std::string::npos);
}

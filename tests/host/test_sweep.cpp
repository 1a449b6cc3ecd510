// The GEMM size sweep without a GPU: the shape list (the cubes, whole waves and one tile
// more, counted here by hand), the variant choice, the predictions' packing term, the report's
// chart, tables and cliffs from a small synthetic results file, and `sol bench --sweep`'s errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/predict.hpp"
#include "sol/report.hpp"
#include "sol/sweep.hpp"
#include "tests/host/sol_cli.hpp"

namespace {

using sol::sweep::Point;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool has_cube(const std::vector<Point>& pts, int64_t n) {
  return std::any_of(pts.begin(), pts.end(), [&](const Point& p) { return p.cube() && p.m == n && p.n == n && p.k == n; });
}

std::vector<Point> wave_points(const std::vector<Point>& pts) {
  std::vector<Point> w;
  for (const auto& p : pts)
    if (!p.cube()) w.push_back(p);
  return w;
}

const std::vector<int64_t> kBriefCubes = {256,  512,  1023, 1024, 1025, 1536, 1792, 1793,  2047,  2048, 2049,
                                          3072, 4095, 4096, 4097, 6144, 8191, 8192, 8193, 12288, 16384};

sol::Error::Kind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sol::Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no sol::Error thrown";
  return sol::Error::Kind::Failure;
}

}  // namespace

TEST(SweepShapes, TensorCoreFamiliesHaveEveryCubeOfTheBrief) {
  for (const char* fam : {"gemm_bf16", "gemm_fp16", "gemm_fp8"}) {
    const auto pts = sol::sweep::points(sol::sweep::gemm_family(fam), 132);
    for (int64_t n : kBriefCubes) EXPECT_TRUE(has_cube(pts, n)) << fam << " " << n;
    // ascending, no repeats
    std::vector<int64_t> sizes;
    for (const auto& p : pts)
      if (p.cube()) sizes.push_back(p.m);
    EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
    EXPECT_EQ(std::set<int64_t>(sizes.begin(), sizes.end()).size(), sizes.size());
  }
}

TEST(SweepShapes, Fp32StopsAt8193AndSaysWhy) {
  const auto& f = sol::sweep::gemm_family("gemm_fp32");
  const auto pts = sol::sweep::points(f, 132);
  for (int64_t n : kBriefCubes) EXPECT_EQ(has_cube(pts, n), n <= 8193) << n;
  EXPECT_FALSE(f.max_cube_why.empty());
}

TEST(SweepShapes, WaveShapesAreOneAndTwoWavesAndOneTileMore) {
  for (const char* fam : {"gemm_bf16", "gemm_fp32", "gemm_fp8"}) {
    const auto& f = sol::sweep::gemm_family(fam);
    for (int sms : {132, 114, 7}) {
      const auto w = wave_points(sol::sweep::points(f, sms));
      ASSERT_EQ(w.size(), 4u) << fam;
      const int64_t slots = int64_t(sms) * f.blocks_per_sm;
      const int64_t want[] = {slots, slots + 1, 2 * slots, 2 * slots + 1};
      for (size_t i = 0; i < 4; ++i) {
        // whole tiles only: no tile quantization muddies the wave term
        EXPECT_EQ(w[i].m % f.tile.m, 0) << fam << " " << w[i].m;
        EXPECT_EQ(w[i].n % f.tile.n, 0) << fam << " " << w[i].n;
        EXPECT_EQ(w[i].k, sol::sweep::kWaveK);
        EXPECT_EQ(ceil_div(w[i].m, f.tile.m) * ceil_div(w[i].n, f.tile.n), want[i]) << fam << " sms " << sms;
      }
    }
  }
}

TEST(SweepShapes, H200WavesAreCountedRightByTheModel) {
  const auto& hw = sol::hw::find("h200");
  ASSERT_EQ(hw.compute_units, 132);
  const auto& f = sol::sweep::gemm_family("gemm_bf16");
  const auto w = wave_points(sol::sweep::points(f, hw.compute_units));
  // 132 tiles: one full wave; 133: one full wave and a second holding one tile (efficiency 133/264)
  const auto e132 = sol::sweep::predict(f, w[0].m, w[0].n, w[0].k, hw).shape_model;
  const auto e133 = sol::sweep::predict(f, w[1].m, w[1].n, w[1].k, hw).shape_model;
  const auto e265 = sol::sweep::predict(f, w[3].m, w[3].n, w[3].k, hw).shape_model;
  EXPECT_EQ(e132.tiles, 132);
  EXPECT_DOUBLE_EQ(e132.wave_efficiency, 1.0);
  EXPECT_EQ(e133.full_waves, 1);
  EXPECT_EQ(e133.last_wave_tiles, 1);
  EXPECT_NEAR(e133.wave_efficiency, 133.0 / 264.0, 1e-12);
  EXPECT_NEAR(e265.wave_efficiency, 265.0 / 396.0, 1e-12);
  // 132 = 12 × 11 tiles of 128 × 256 (closest to square; the tie goes to the larger m)
  EXPECT_EQ(w[0].m * w[0].n, int64_t(12 * 128) * (11 * 256));
  EXPECT_GE(w[0].m, w[0].n);
}

TEST(SweepShapes, WavesPointOfAPrimeIsOneRowOfTiles) {
  const Point p = sol::sweep::waves_point(131, {128, 256, 64}, 4096);
  EXPECT_EQ(ceil_div(p.m, 128) * ceil_div(p.n, 256), 131);
  EXPECT_TRUE(p.m == 128 || p.n == 256);
  EXPECT_EQ(kind_of([] { sol::sweep::waves_point(0, {128, 256, 64}, 4096); }), sol::Error::Kind::BadInput);
  EXPECT_EQ(kind_of([] { sol::sweep::points(sol::sweep::gemm_family("gemm_bf16"), 0); }), sol::Error::Kind::BadInput);
}

TEST(SweepFamilies, ResolveNamesAndRejects) {
  EXPECT_EQ(sol::sweep::resolve("gemm"), (std::vector<std::string>{"gemm_fp32", "gemm_bf16", "gemm_fp16", "gemm_fp8"}));
  EXPECT_EQ(sol::sweep::resolve("gemm_fp16"), std::vector<std::string>{"gemm_fp16"});
  for (const char* bad : {"gemm_int4", "softmax", "", "gemm_bf16/v07_tma_store"})
    EXPECT_EQ(kind_of([&] { sol::sweep::resolve(bad); }), sol::Error::Kind::BadInput) << bad;
}

TEST(SweepFamilies, ChoosesPeersAndTheHighestRung) {
  auto var = [](std::string name, int version) {
    sol::Variant v;
    v.family = "gemm_bf16";
    v.name = std::move(name);
    v.version = version;
    return v;
  };
  const sol::Variant peer = var("peer:cublasLt", 0), v01 = var("v01_mma_sync", 1), v07 = var("v07_tma_store", 7),
                     v02 = var("v02_multistage", 2);
  const auto chosen = sol::sweep::choose_variants({&peer, &v01, &v07, &v02});
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0], &peer);
  EXPECT_EQ(chosen[1], &v07);
  EXPECT_EQ(kind_of([&] { sol::sweep::choose_variants({&peer}); }), sol::Error::Kind::BadInput);
}

TEST(SweepModel, PackingReplacesTheAlignmentTermForTheHopperRung) {
  const auto& hw = sol::hw::find("h200");
  const auto& bf16 = sol::sweep::gemm_family("gemm_bf16");
  const auto aligned = sol::sweep::predict(bf16, 1792, 1792, 1792, hw);
  EXPECT_EQ(aligned.pack_s, 0);
  EXPECT_DOUBLE_EQ(aligned.rung_s, aligned.shape_model.predicted_s);
  const auto odd = sol::sweep::predict(bf16, 1793, 1793, 1793, hw);
  // A and B (1793 × 1793 bf16) each read once and written once at a pitch of 1856 elements (3712 B)
  const double pack = 2.0 * 1793 * (1793 + 1856) * 2 / hw.hbm_bytes_per_s;
  EXPECT_NEAR(odd.pack_s, pack, pack * 1e-12);
  const auto& e = odd.shape_model;
  EXPECT_NEAR(odd.rung_s, e.floor_s / (e.tile_efficiency * e.wave_efficiency) + pack, 1e-15);
  EXPECT_GT(odd.rung_flops_per_s, 4 * e.predicted_flops_per_s);  // the alignment bound is 1/8
  EXPECT_NE(odd.limit.find("alignment"), std::string::npos);
  EXPECT_TRUE(aligned.limit.find("alignment") == std::string::npos);
  // fp32 has no packing rung: its prediction is the shape model's
  const auto fp32 = sol::sweep::predict(sol::sweep::gemm_family("gemm_fp32"), 1793, 1793, 1793, hw);
  EXPECT_EQ(fp32.pack_s, 0);
  EXPECT_DOUBLE_EQ(fp32.rung_s, fp32.shape_model.predicted_s);
}

TEST(SweepModel, ErrorAndMedian) {
  EXPECT_DOUBLE_EQ(sol::sweep::model_error(400, 500), 0.25);
  EXPECT_DOUBLE_EQ(sol::sweep::model_error(500, 400), 0.2);
  EXPECT_EQ(sol::sweep::model_error(0, 400), 0);
  EXPECT_EQ(sol::sweep::median({}), 0);
  EXPECT_EQ(sol::sweep::median({3, 1, 2}), 2);
  EXPECT_EQ(sol::sweep::median({4, 1, 3, 2}), 2.5);
}

// ---- the report from a synthetic sweep file ---------------------------------------------------
namespace {

sol::results::Record rec(const std::string& variant, int version, int64_t m, int64_t n, int64_t k, double tflops) {
  sol::results::Record r;
  r.family = "gemm_bf16";
  r.variant = variant;
  r.version = version;
  r.shape = "m=" + std::to_string(m) + ",n=" + std::to_string(n) + ",k=" + std::to_string(k);
  r.flops = 2.0 * m * n * k;
  r.median_s = r.flops / (tflops * 1e12);
  r.verified = true;
  r.samples = 5;
  return r;
}

sol::results::File synthetic() {
  sol::results::File f;
  f.family = sol::sweep::kFamily;
  f.created = "2026-11-29T00:00:00Z";
  f.device.name = "NVIDIA H200";
  f.device.sms = 132;
  f.device.database_row = "h200";
  // the quoted cuBLAS figures at 1792/1793/2048, and a rung that holds up at 1793
  f.records = {rec("peer:cublasLt", 0, 1792, 1792, 1792, 470), rec("peer:cublasLt", 0, 1793, 1793, 1793, 100),
               rec("peer:cublasLt", 0, 2048, 2048, 2048, 615), rec("v07_tma_store", 7, 1792, 1792, 1792, 500),
               rec("v07_tma_store", 7, 1793, 1793, 1793, 450), rec("v07_tma_store", 7, 2048, 2048, 2048, 640),
               rec("v07_tma_store", 7, 2816, 1536, 4096, 700)};
  sol::results::Record failed = rec("v07_tma_store", 7, 4096, 4096, 4096, 700);
  failed.verified = false;
  f.records.push_back(failed);
  return f;
}

}  // namespace

TEST(SweepReport, ChartHasALinePerVariantAndTheDashedModel) {
  const auto& hw = sol::hw::find("h200");
  const auto f = sol::results::from_json_text(sol::results::to_json(synthetic()), "synthetic");
  ASSERT_TRUE(sol::report::is_sweep(f));
  const std::string svg = sol::report::sweep_chart(f, "gemm_bf16", hw);
  ASSERT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("peer:cublasLt"), std::string::npos);
  EXPECT_NE(svg.find("v07_tma_store"), std::string::npos);
  EXPECT_NE(svg.find("shape model (128x256x64)"), std::string::npos);
  EXPECT_NE(svg.find("model with packing"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_EQ(sol::report::sweep_chart(f, "gemm_fp16", hw), "");  // no fp16 records
}

TEST(SweepReport, MarkdownHasTheNumbersTheErrorsAndTheCliff) {
  const auto& hw = sol::hw::find("h200");
  const auto f = synthetic();
  const std::string md = sol::report::sweep_markdown(f, hw);
  EXPECT_NE(md.find("### gemm_bf16"), std::string::npos);
  EXPECT_NE(md.find("| 1793 | 450.0 | 100.0 |"), std::string::npos) << md;  // rung first, then the peer
  EXPECT_NE(md.find("failed"), std::string::npos);                        // 4096³ did not verify
  // the median error of the shape model for the rung over its 4 verified shapes, computed here
  std::vector<double> errs;
  for (auto [m, n, k, got] : std::vector<std::tuple<int64_t, int64_t, int64_t, double>>{
           {1792, 1792, 1792, 500}, {1793, 1793, 1793, 450}, {2048, 2048, 2048, 640}, {2816, 1536, 4096, 700}}) {
    const auto e = sol::model::gemm_estimate({m, n, k, sol::DType::bf16, {128, 256, 64}, 1}, hw);
    errs.push_back(std::abs(got * 1e12 - e.predicted_flops_per_s) / (got * 1e12));
  }
  std::sort(errs.begin(), errs.end());
  const std::string want = "over 4 shapes: median " + sol::fixed(100 * 0.5 * (errs[1] + errs[2]), 1) + " %";
  EXPECT_NE(md.find(want), std::string::npos) << want << "\n" << md;
  // 1793 is a cliff for cuBLAS (100 against 470), not for the rung (450 against 500)
  EXPECT_NE(md.find("- peer:cublasLt at 1793³"), std::string::npos) << md;
  EXPECT_EQ(md.find("- v07_tma_store at 1793³"), std::string::npos) << md;
  EXPECT_NE(md.find("alignment 12.5 %"), std::string::npos);
  // the wave table names the tiles and waves of the whole-wave shape
  EXPECT_NE(md.find("| 2816×1536×4096 |"), std::string::npos);
  EXPECT_NE(md.find("132 tiles, waves 1 |"), std::string::npos) << md;
}

TEST(SweepReport, MeasuredCeilingsReplaceTheDatasheetLevel) {
  const auto& datasheet = sol::hw::find("h200");
  sol::hw::HwSpec probed = datasheet;  // a probe that measured 500 TFLOP/s bf16
  probed.measured = true;
  auto& bf16 = probed.matrix_peaks.at(sol::dtype_peak_key(sol::DType::bf16));
  bf16.clock_hz *= 500e12 / bf16.flops_per_s;
  bf16.flops_per_s = 500e12;
  const double launch_s = 4e-6;
  // A rung running exactly at the prediction (sol/predict.hpp) on those ceilings, launch overhead
  // included: the error on measured ceilings is 0, the datasheet model's is not.
  sol::results::File f;
  f.family = sol::sweep::kFamily;
  f.device.name = "NVIDIA H200";
  f.device.sms = 132;
  f.ceilings.launch_overhead_s = launch_s;
  const auto& fam = sol::sweep::gemm_family("gemm_bf16");
  sol::predict::Ceilings c;
  c.spec = probed;
  c.copy_bytes_per_s = probed.hbm_bytes_per_s;
  c.launch_s = launch_s;
  for (int64_t n : {1024, 1793, 4096}) {
    const double flops = 2.0 * double(n) * double(n) * double(n);
    const sol::predict::Work w{fam.name, "v07_tma_store", "bf16", sol::Shape{{{"m", n}, {"n", n}, {"k", n}}}, flops,
                               2.0 * 3 * double(n) * double(n), {}};
    f.records.push_back(rec("v07_tma_store", 7, n, n, n, flops / sol::predict::predict(w, c).seconds / 1e12));
  }
  const std::string with = sol::report::sweep_markdown(f, datasheet, &probed);
  EXPECT_NE(with.find("On the ceilings `sol probe` measured (500 TFLOP/s bf16, plus this run's launch overhead of 4.0 µs)"),
            std::string::npos) << with;
  EXPECT_NE(with.find("is off by a median 0.0 % over all 3 shapes"), std::string::npos) << with;
  const std::string without = sol::report::sweep_markdown(f, datasheet);
  EXPECT_EQ(without.find("On the ceilings"), std::string::npos);
  EXPECT_NE(sol::report::sweep_chart(f, "gemm_bf16", datasheet, &probed).find("model on measured ceilings"),
            std::string::npos);
}

TEST(SweepReport, HtmlDrawsTheSweepOnceAndNotAsALadder) {
  const auto& hw = sol::hw::find("h200");
  sol::report::Input in;
  in.hw = &hw;
  in.measured = {synthetic()};
  in.created = "now";
  const std::string page = sol::report::html(in);
  EXPECT_NE(page.find("<h2 id='gemm_sweep'>GEMM size sweep</h2>"), std::string::npos);
  EXPECT_EQ(page.find("<h2 id='gemm_sweep'>gemm_sweep</h2>"), std::string::npos);  // no ladder section
  EXPECT_EQ(sol::report::headline_markdown(in.measured).find("gemm_sweep"), std::string::npos);
  EXPECT_NE(sol::report::text(in).find("[sweep: gemm_bf16"), std::string::npos);
}

// ---- the CLI ------------------------------------------------------------------------------------
class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("SOL_BIN")) GTEST_SKIP() << "SOL_BIN is not set (run through ctest)";
  }
};

TEST_F(SweepCli, BadInputIsOneLineAndExitTwo) {
  for (const std::string args : {"bench gemm_int4 --sweep", "bench softmax --sweep --plan", "bench gemm --plan",
                                 "bench gemm --sweep --shape m=1,n=1,k=1", "bench gemm --sweep --headline",
                                 "bench gemm --sweep --plan --gpu nosuchgpu", "bench gemm --sweep --plan --json x.json"}) {
    const auto r = sol::test::run_sol(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.all();
    EXPECT_EQ(sol::test::count_lines(r.err), 1) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

TEST_F(SweepCli, PlanListsEveryShapeWithoutAGpu) {
  const auto r = sol::test::run_sol("bench gemm --sweep --plan --gpu h200");
  ASSERT_EQ(r.rc, 0) << r.all();
  for (const char* fam : {"gemm_fp32 (", "gemm_bf16 (", "gemm_fp16 (", "gemm_fp8 ("})
    EXPECT_NE(r.out.find(fam), std::string::npos) << fam;
  const auto one = sol::test::run_sol("bench gemm_bf16 --sweep --plan --gpu h200");
  ASSERT_EQ(one.rc, 0) << one.all();
  EXPECT_EQ(one.out.find("gemm_fp32"), std::string::npos);
  for (int64_t n : kBriefCubes)
    EXPECT_NE(one.out.find("\n" + std::to_string(n) + " "), std::string::npos) << n;
  // The "limited by" cell wraps within the table's 100 columns: read it with the wrapping undone.
  const std::string words = std::regex_replace(one.out, std::regex("\\s+"), " ");
  EXPECT_NE(words.find("133 tiles = 1 wave + 1 tile"), std::string::npos);
  EXPECT_NE(words.find("265 tiles = 2 waves + 1 tile"), std::string::npos);
}

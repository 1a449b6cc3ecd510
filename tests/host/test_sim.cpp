// The systolic simulator: its two engines agree on a sweep of small cases, the cycle-stepped
// one computes the right GEMM, and both reproduce hand-derived figures (the lecture's §5 array
// and SCALE-Sim runs quoted in tests/data/scalesim/README.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/sim/scalesim_io.hpp"
#include "sol/sim/systolic.hpp"

using namespace sol::sim;

namespace {

ArrayConfig array(int64_t R, int64_t C, Dataflow df, bool overlap = false) {
  ArrayConfig c;
  c.rows = R, c.cols = C, c.dataflow = df, c.overlap = overlap;
  c.ifmap_sram_kb = c.filter_sram_kb = c.ofmap_sram_kb = 64;
  return c;
}

void expect_same(const LayerResult& a, const LayerResult& s, const std::string& what) {
  EXPECT_EQ(a.total_cycles, s.total_cycles) << what;
  EXPECT_EQ(a.compute_cycles, s.compute_cycles) << what;
  EXPECT_EQ(a.stall_cycles, s.stall_cycles) << what;
  EXPECT_EQ(a.macs, s.macs) << what;
  EXPECT_EQ(python_float(a.mapping_eff), python_float(s.mapping_eff)) << what;
  EXPECT_EQ(python_float(a.compute_util), python_float(s.compute_util)) << what;
  EXPECT_EQ(python_float(a.overall_util), python_float(s.overall_util)) << what;
  const OperandTraffic* A[] = {&a.ifmap, &a.filter, &a.ofmap};
  const OperandTraffic* S[] = {&s.ifmap, &s.filter, &s.ofmap};
  const char* names[] = {"ifmap", "filter", "ofmap"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(A[i]->sram, S[i]->sram) << what << " " << names[i];
    EXPECT_EQ(A[i]->sram_rmw_reads, S[i]->sram_rmw_reads) << what << " " << names[i];
    EXPECT_EQ(A[i]->sram_start, S[i]->sram_start) << what << " " << names[i] << " start";
    EXPECT_EQ(A[i]->sram_stop, S[i]->sram_stop) << what << " " << names[i] << " stop";
  }
}

}  // namespace

TEST(SimEngines, AgreeOnASweepOfSmallCases) {
  struct Shape {
    int64_t M, N, K;
  };
  const std::vector<Shape> gemms = {{1, 1, 1}, {4, 4, 4}, {5, 3, 7}, {13, 11, 17}, {8, 9, 2}, {2, 16, 31}, {23, 1, 5}};
  const std::vector<Layer> convs = {Layer::conv("c1", 7, 6, 3, 2, 2, 5, 1, 1), Layer::conv("c2", 9, 9, 3, 3, 1, 4, 2, 2),
                                    Layer::conv("c3", 10, 10, 3, 3, 2, 3, 4, 3)};
  std::vector<Layer> layers = convs;
  for (const auto& s : gemms) layers.push_back(Layer::gemm("g", s.M, s.N, s.K));
  const std::pair<int64_t, int64_t> arrays[] = {{4, 4}, {3, 5}, {8, 2}, {1, 1}, {2, 7}};
  int runs = 0;
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is})
    for (auto [R, C] : arrays)
      for (const Layer& l : layers)
        for (Model model : {Model::scalesim, Model::sol})
          for (bool overlap : {false, true}) {
            if (model == Model::scalesim && overlap) continue;
            const ArrayConfig cfg = array(R, C, df, overlap);
            const std::string what = to_string(df) + " " + std::to_string(R) + "x" + std::to_string(C) + " " + l.name +
                                     " M" + std::to_string(l.lower().M) + " N" + std::to_string(l.lower().N) + " K" +
                                     std::to_string(l.lower().K) + " " + to_string(model) + (overlap ? " overlap" : "");
            StepOptions planes;
            planes.register_planes = true;
            LayerResult a = analytic(l, cfg, model), s, p;
            ASSERT_NO_THROW(s = stepped(l, cfg, model)) << what;  // also checks every result value
            ASSERT_NO_THROW(p = stepped(l, cfg, model, planes)) << what;
            EXPECT_EQ(s.macs, l.lower().macs()) << what;
            expect_same(a, s, what + " (skewed registers)");
            expect_same(a, p, what + " (register planes)");
            ++runs;
          }
  EXPECT_EQ(runs, 3 * 5 * 10 * 3);
}

// ---- figures derived by hand or quoted from SCALE-Sim runs (tests/data/scalesim/README.md) ----------

TEST(SimScaleSimFigures, SmallLayerPaysTheFullArrayLatency) {
  // H05: 3×5×7 on 128×128, ws: one fold of 2·128 + 128 + 3 − 2 = 385 rows → 384 cycles for 105 MACs
  ArrayConfig cfg = array(128, 128, Dataflow::ws);
  const LayerResult r = analytic(Layer::gemm("h05", 3, 5, 7), cfg, Model::scalesim);
  EXPECT_EQ(r.total_cycles, 384);
  EXPECT_EQ(r.macs, 105);
  EXPECT_DOUBLE_EQ(r.mapping_eff, 100.0 * 7 * 5 / (128 * 128));  // K rows × N columns mapped
}

TEST(SimScaleSimFigures, NonSquareArraysKeepRowAndColumnRoles) {
  // H29 / H30: ws 100,37,250 on 64×16 takes 2903 cycles, on 16×64 3103
  EXPECT_EQ(analytic(Layer::gemm("h29", 100, 37, 250), array(64, 16, Dataflow::ws), Model::scalesim).total_cycles, 2903);
  EXPECT_EQ(analytic(Layer::gemm("h30", 100, 37, 250), array(16, 64, Dataflow::ws), Model::scalesim).total_cycles, 3103);
}

TEST(SimScaleSimFigures, OutputStationaryOverCountsOfmapWrites) {
  // README §6: os SRAM OFMAP writes = M·N + folds·(R+C); P01 (128³ on 8×8): 16384 + 256·16 = 20480
  const LayerResult r = analytic(Layer::gemm("p01", 128, 128, 128), array(8, 8, Dataflow::os), Model::scalesim);
  EXPECT_EQ(r.ofmap.sram, 20480);
  const LayerResult s = analytic(Layer::gemm("p01", 128, 128, 128), array(8, 8, Dataflow::os), Model::sol);
  EXPECT_EQ(s.ofmap.sram, 128 * 128);  // sol counts the writes that happen
}

TEST(SimScaleSimFigures, ConvLayerReadsDistinctPixelsFromDram) {
  // H26 (README §2): AlexNet's conv1 on 224×224×3. ofmap = ceil((224 − 11 + 4) / 4) = 55 per side
  // (the last window hangs off the image; its missing pixels are −1). SRAM reads count im2col
  // elements, 3,294,225 on a 32-column array (3 column folds); DRAM reads count pixels, 150,528.
  const Layer conv1 = Layer::conv("conv1", 224, 224, 11, 11, 3, 96, 4, 4);
  EXPECT_EQ(conv1.lower().M, 55 * 55);
  EXPECT_EQ(conv1.lower().K, 11 * 11 * 3);
  EXPECT_EQ(conv1.ifmap_address(55 * 55 - 1, 11 * 11 * 3 - 1), -1);
  EXPECT_EQ(conv1.distinct_ifmap_words(), 150528);
  EXPECT_EQ(analytic(conv1, array(32, 32, Dataflow::os), Model::scalesim).ifmap.sram, 3294225);
  EXPECT_EQ(Layer::conv("c", 224, 224, 3, 3, 3, 8, 1, 1).distinct_ifmap_words(), 224 * 224 * 3);
}

// ---- sol's own model: what physically happens -----------------------------------------------------

TEST(SimSolModel, OneFoldOfTheLecturesArray) {
  // 128³ on the lecture's 128×128 weight-stationary array: load 128 weights rows, stream 128 pixel
  // rows, and 128 + 128 − 2 cycles of fill and drain: 510 cycles. Every operand is read once.
  const LayerResult r = analytic(Layer::gemm("g", 128, 128, 128), array(128, 128, Dataflow::ws), Model::sol);
  EXPECT_EQ(r.total_cycles, 128 + 128 + 128 + 128 - 2);
  EXPECT_EQ(r.ifmap.sram, 128 * 128);
  EXPECT_EQ(r.filter.sram, 128 * 128);
  EXPECT_EQ(r.ofmap.sram, 128 * 128);
  EXPECT_EQ(r.ofmap.sram_rmw_reads, 0);
  EXPECT_DOUBLE_EQ(r.mapping_eff, 100.0);
}

TEST(SimSolModel, PartialSumsAccumulateAcrossKFolds) {
  // K = 3·128 splits into three row folds: the second and third add onto the first one's sums.
  const LayerResult r = analytic(Layer::gemm("g", 200, 128, 384), array(128, 128, Dataflow::ws), Model::sol);
  EXPECT_EQ(r.ofmap.sram, 3 * 200 * 128);
  EXPECT_EQ(r.ofmap.sram_rmw_reads, 2 * 200 * 128);
  EXPECT_EQ(r.ofmap.dram, 200 * 128);  // only final sums leave (the 200×128 block fits in half the SRAM)
  const LayerResult s = analytic(Layer::gemm("g", 200, 128, 384), array(128, 128, Dataflow::ws), Model::scalesim);
  EXPECT_EQ(s.ofmap.dram, 3 * 200 * 128);  // SCALE-Sim writes every partial sum out
}

TEST(SimSolModel, OverlapHidesTheNextFoldsLoadAndFill) {
  // Two K-folds of a ws layer with T = 1000 ≥ R: overlapped, the second fold's weight load and the
  // first fold's fill/drain disappear behind streaming: exactly 2R + C − 2 cycles fewer.
  ArrayConfig serial = array(128, 128, Dataflow::ws), overlap = array(128, 128, Dataflow::ws, true);
  const Layer l = Layer::gemm("g", 1000, 128, 256);
  const int64_t a = analytic(l, serial, Model::sol).total_cycles, b = analytic(l, overlap, Model::sol).total_cycles;
  EXPECT_EQ(a - b, 2 * 128 + 128 - 2);
  EXPECT_EQ(b, 128 + 2 * 1000 + 128 + 128 - 2);  // load, two streams back to back, fill/drain once
}

TEST(SimSolModel, DramLimitCausesStalls) {
  ArrayConfig cfg = array(32, 32, Dataflow::ws);
  const Layer l = Layer::gemm("g", 512, 512, 512);
  const LayerResult free_bw = analytic(l, cfg, Model::sol);
  EXPECT_EQ(free_bw.stall_cycles, 0);
  cfg.bandwidth_mode = BandwidthMode::user;
  cfg.dram_words_per_cycle = 0.5;
  const LayerResult slow = analytic(l, cfg, Model::sol);
  const double words = double(slow.ifmap.dram + slow.filter.dram + slow.ofmap.dram + slow.ofmap.dram_spill_reads);
  EXPECT_GT(slow.stall_cycles, 0);
  EXPECT_EQ(slow.total_cycles, int64_t(words / 0.5 + 0.999999));  // bandwidth-bound: words / (words/cycle)
  EXPECT_LT(slow.overall_util, free_bw.overall_util);
}

// ---- the stepped engine's picture -----------------------------------------------------------------

#include "sol/sim/picture.hpp"

TEST(SimPicture, DataEntersSkewedAndResultsLeaveTheBottom) {
  // ws on 4×4: weights load in cycles 0..3, pixel row m enters row r at cycle 4 + m + r, and the
  // first result leaves column 0 at cycle 2R − 1 = 7.
  const auto frames = capture_frames(Layer::gemm("g", 6, 4, 4), array(4, 4, Dataflow::ws), Model::sol, 0, 12);
  ASSERT_EQ(frames.size(), 12u);
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(frames[size_t(t)].top_in[0]) << t;
  EXPECT_FALSE(frames[4].top_in[0]);
  EXPECT_TRUE(frames[4].left_in[0]);
  EXPECT_FALSE(frames[4].left_in[1]);  // row 1 is one cycle behind
  EXPECT_TRUE(frames[5].left_in[1]);
  for (int t = 0; t < 7; ++t) EXPECT_FALSE(frames[size_t(t)].bottom_out[0]) << t;
  EXPECT_TRUE(frames[7].bottom_out[0]);
  EXPECT_FALSE(frames[7].bottom_out[1]);
  EXPECT_TRUE(frames[8].bottom_out[1]);
  EXPECT_TRUE(frames[4].cells[0].mac);   // cell (0,0) multiplies at cycle 4
  EXPECT_FALSE(frames[4].cells[1].mac);  // (0,1) one cycle later
  const std::string text = picture_text(frames, Dataflow::ws);
  EXPECT_NE(text.find("cycle 7"), std::string::npos);
  EXPECT_NE(text.find('#'), std::string::npos);
  const std::string svg = picture_svg(frames, Dataflow::ws, "g <4x4>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("&lt;4x4&gt;"), std::string::npos);
  EXPECT_THROW(capture_frames(Layer::gemm("g", 6, 4, 4), array(128, 128, Dataflow::ws), Model::sol, 0, 4), sol::Error);
}

// ---- inputs and formats ---------------------------------------------------------------------------

TEST(SimInput, BadShapesAndConfigsAreRefused) {
  EXPECT_THROW(Layer::gemm("g", 0, 4, 4), sol::Error);
  EXPECT_THROW(Layer::gemm("g", 4, -1, 4), sol::Error);
  EXPECT_THROW(Layer::conv("c", 4, 4, 5, 1, 1, 1, 1, 1), sol::Error);  // filter taller than the image
  EXPECT_THROW(Layer::conv("c", 4, 4, 1, 1, 1, 1, 0, 1), sol::Error);  // stride 0
  EXPECT_THROW(parse_dataflow("xs"), sol::Error);
  ArrayConfig bad = array(0, 4, Dataflow::ws);
  EXPECT_THROW(analytic(Layer::gemm("g", 4, 4, 4), bad, Model::sol), sol::Error);
  bad = array(4, 4, Dataflow::ws);
  bad.ifmap_sram_kb = 0;
  EXPECT_THROW(analytic(Layer::gemm("g", 4, 4, 4), bad, Model::sol), sol::Error);
  StepOptions small;
  small.max_cell_updates = 1000;
  EXPECT_THROW(stepped(Layer::gemm("g", 100, 100, 100), array(16, 16, Dataflow::ws), Model::sol, small), sol::Error);
  try {
    Layer::gemm("g", 0, 4, 4);
  } catch (const sol::Error& e) {
    EXPECT_EQ(e.kind(), sol::Error::Kind::BadInput);
  }
}

TEST(SimInput, TopologyHeadersSelectGemmOrConv) {
  auto g = parse_topology("Layer, M, N, K,\nqkv, 2048, 12288, 4096,\n\nout, 16, 8, 4\n");  // last row without ','
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(g[0].from_gemm);
  EXPECT_EQ(g[0].lower().M, 2048);
  EXPECT_EQ(g[0].lower().N, 12288);
  EXPECT_EQ(g[0].lower().K, 4096);
  EXPECT_EQ(g[1].lower().K, 4);
  auto c = parse_topology(
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
      "Conv1, 224, 224, 11, 11, 3, 96, 4,\nConvDP, 10, 10, 3, 3, 4, 1, 1,\nWide, 9, 9, 3, 3, 1, 2, 1, 2,\n");
  ASSERT_EQ(c.size(), 1u + 4u + 1u);  // the DP layer runs once per channel
  EXPECT_EQ(c[0].lower().M, 55 * 55);
  EXPECT_EQ(c[1].name, "ConvDPChannel_0");
  EXPECT_EQ(c[1].channels, 1);
  EXPECT_EQ(c[5].stride_w, 2);
  EXPECT_EQ(c[5].ofmap_w(), 4);
  EXPECT_THROW(parse_topology("Layer, M, N, K,\ng, 4, x, 4,\n"), sol::Error);
  EXPECT_THROW(parse_topology("Layer, M, N, K,\n"), sol::Error);
  EXPECT_THROW(parse_topology("Layer name, H, W,\nc, 4, 4, 1,\n"), sol::Error);
}

TEST(SimInput, ConfigKeysInAnyCase) {
  const ArrayConfig c = parse_scalesim_config(
      "[general]\nrun_name = t\n[architecture_presets]\narrayheight: 16\nArrayWidth = 8\nIFMAPSRAMSZKB: 4\n"
      "FilterSramSzkB: 8\nOfmapSramSzkB: 2\nDataflow : IS\nBandwidth : 6, 7\n[run_presets]\nInterfaceBandwidth: USER\n");
  EXPECT_EQ(c.rows, 16);
  EXPECT_EQ(c.cols, 8);
  EXPECT_EQ(c.ifmap_sram_kb, 4);
  EXPECT_EQ(c.dataflow, Dataflow::is);
  EXPECT_EQ(c.bandwidth_mode, BandwidthMode::user);
  EXPECT_EQ(c.dram_words_per_cycle, 6);  // only the first value is used
  EXPECT_THROW(parse_scalesim_config("[architecture_presets]\nArrayHeight: 8\n"), sol::Error);
  EXPECT_THROW(parse_scalesim_config("[general]\nrun_name = t\n[architecture_presets]\nArrayHeight: 8x\n"), sol::Error);
}

TEST(SimInput, FloatsPrintAsPython) {
  // reprs as Python 3 prints them
  EXPECT_EQ(python_float(100.0), "100.0");
  EXPECT_EQ(python_float(-1703.0), "-1703.0");
  EXPECT_EQ(python_float(9.620669406928949), "9.620669406928949");
  EXPECT_EQ(python_float(0.0001), "0.0001");
  EXPECT_EQ(python_float(0.00001), "1e-05");
  EXPECT_EQ(python_float(1.5e-7), "1.5e-07");
  EXPECT_EQ(python_float(1e16), "1e+16");
  EXPECT_EQ(python_float(123456789012345.0), "123456789012345.0");
  EXPECT_EQ(python_float(0.1), "0.1");
}

// ---- TPU matmul estimates ------------------------------------------------------------------------

#include "sol/sim/mxu.hpp"

TEST(SimMxu, FoldsThatAreNotFullLoseUtilization) {
  // K = 4000 = 31·128 + 32: the last of 32 K-folds maps 32 of 128 rows → 4000/4096 of the array.
  const MxuMatmul a = mxu_matmul(4096, 4096, 4000, 4, 1.5e9);
  EXPECT_EQ(a.map.row_folds, 32);
  EXPECT_EQ(a.map.col_folds, 32);
  EXPECT_DOUBLE_EQ(a.mapped_fraction, 4000.0 / 4096.0);
  const MxuMatmul b = mxu_matmul(4096, 4096, 4096, 4, 1.5e9);
  EXPECT_DOUBLE_EQ(b.mapped_fraction, 1.0);
  EXPECT_EQ(a.cycles, b.cycles);  // padded folds take as long as full ones
  EXPECT_GT(b.fraction_of_peak, 0.99);
  EXPECT_LT(a.fraction_of_peak, b.fraction_of_peak);
  // A GEMV streams one row per fold: the weight loads dominate.
  EXPECT_LT(mxu_matmul(1, 4096, 4096, 4, 1.5e9).fraction_of_peak, 0.01);
  EXPECT_THROW(mxu_matmul(4, 4, 4, 0, 1e9), sol::Error);
}

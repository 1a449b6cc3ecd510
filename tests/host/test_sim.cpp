// The systolic simulator: its two engines agree on a sweep of small cases, the cycle-stepped
// one computes the right GEMM, and both reproduce hand-derived figures (the lecture's §5 array
// and SCALE-Sim runs quoted in ../shared/scalesim/README.md).
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

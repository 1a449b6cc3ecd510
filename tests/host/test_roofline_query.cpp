// The roofline question as a library call (shared by `sol roofline` and Python's sol.roofline).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sol/core/error.hpp"
#include "sol/model/roofline_query.hpp"

using namespace sol;
using namespace sol::model;

TEST(RooflineQuery, CustomCountsAreTheLecturesCalculator) {
  RooflineQuery q;
  q.op = "custom";
  q.gpu = "h100";
  q.flops = 2.0 * 4096 * 4096 * 4096;
  q.bytes = 2.0 * 3 * 4096 * 4096;
  q.name = "matmul 4096^3";
  const RooflineAnswer a = answer(q);
  EXPECT_EQ(a.cost.op, "matmul 4096^3");
  EXPECT_EQ(a.estimate.bound, "compute");
  EXPECT_NEAR(a.estimate.intensity, 1365.33, 0.01);
  EXPECT_NEAR(a.estimate.ridge, 295.4, 0.1);  // 989.4 TFLOP/s ÷ 3.35 TB/s
  EXPECT_DOUBLE_EQ(a.estimate.t_floor_s, q.flops / a.estimate.ceilings.flops_per_s);
  const auto j = nlohmann::json::parse(to_json(a));
  EXPECT_EQ(j["kind"], "custom");
  EXPECT_DOUBLE_EQ(j["floor_s"].get<double>(), a.estimate.t_floor_s);
}

TEST(RooflineQuery, SizesTheOpDoesNotReadAreRefused) {
  RooflineQuery q;
  q.op = "layernorm";
  q.sizes = {{"rows", 4}, {"cols", 4}, {"m", 3}};
  EXPECT_THROW(answer(q), Error);
  q.sizes.erase("m");
  EXPECT_GT(answer(q).estimate.t_floor_s, 0);
  q.sizes.erase("cols");
  try {
    answer(q);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.line().find("cols"), std::string::npos) << e.line();
  }
}

TEST(RooflineQuery, BadCustomCountsAndUnknownOps) {
  RooflineQuery q;
  q.op = "custom";
  q.flops = 1;
  q.bytes = 0;
  EXPECT_THROW(answer(q), Error);
  q.bytes = 1e9;
  q.flops = -1;
  EXPECT_THROW(answer(q), Error);
  q.op = "matmull";
  try {
    answer(q);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.line().find("matmul"), std::string::npos) << e.line();  // did you mean
  }
}

TEST(RooflineQuery, TpuMatmulCarriesTheSystolicView) {
  RooflineQuery q;
  q.op = "matmul";
  q.gpu = "tpu-v4";
  q.sizes = {{"m", 1000}, {"n", 1000}, {"k", 1000}};
  const RooflineAnswer a = answer(q);
  ASSERT_TRUE(a.mxu.has_value());
  EXPECT_LT(a.mxu->mapped_fraction, 1.0);  // 1000 is not a multiple of 128
  EXPECT_TRUE(nlohmann::json::parse(to_json(a)).contains("mxu"));
}

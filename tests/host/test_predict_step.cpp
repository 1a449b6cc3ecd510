// The transformer step as the kernels it launches (sol/predict.hpp, "a transformer step") and the
// planner's step time from those predictions (model::LayerModel's times), on cases counted by hand.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "sol/core/error.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/predict.hpp"
#include "sol/registry.hpp"
#include "tests/host/sol_cli.hpp"

using namespace sol;
using namespace sol::predict;

namespace {
constexpr double kCopy = 1e12, kLaunch = 1e-6;

Ceilings simple() {
  results::File f;
  f.device.sms = 132;
  f.ceilings.copy_bytes_per_s = kCopy;
  f.ceilings.launch_overhead_s = kLaunch;
  return ceilings_for(f, nullptr, hw::find("h200"));
}

// The measured shape of bench/results/h200/checkpoint/measured.json: T = 4096, d = 1024, f = 4096.
model::StackShape stack() { return {8, 2, 2048, 1024, 16, 4, true, DType::bf16}; }

int count_of(const std::vector<StepOp>& ops, const std::string& family) {
  int n = 0;
  for (const auto& op : ops)
    if (op.work.family == family) n += op.count;
  return n;
}
}  // namespace

TEST(PredictStep, TheKernelsTheStackLaunches) {
  const StackOps o = stack_ops(stack(), declared_cost);
  ASSERT_EQ(o.forward.size(), 10u);
  // Forward: 3 QKV + out + up + down GEMMs; backward: dW and dx for each of the four linears.
  EXPECT_EQ(count_of(o.forward, "gemm_bf16"), 6);
  EXPECT_EQ(count_of(o.backward, "gemm_bf16"), 8);
  EXPECT_EQ(count_of(o.backward, "transpose"), 12);  // dyᵀ, xᵀ, Wᵀ per linear
  EXPECT_EQ(count_of(o.backward, "copy"), 3);        // dQ | dK | dV joined by pitched copies
  EXPECT_EQ(count_of(o.backward, "layernorm_bwd"), 2);
  EXPECT_EQ(count_of(o.once, "copy"), 3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(o.forward[size_t(i)].layer_op, i);
  // The MLP up's dW: C[f × d] = dUᵀ·a2, k = T; its transposes dUᵀ [f × T] and a2ᵀ [d × T].
  bool found = false;
  for (const auto& op : o.backward)
    if (op.name == "MLP up dW") {
      found = true;
      EXPECT_EQ(op.work.shape.str(), "m=4096,n=1024,k=4096");
      EXPECT_DOUBLE_EQ(op.work.flops, 2.0 * 4096 * 1024 * 4096);
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(o.backward.front().work.shape.str(), "rows=4096,cols=1024");  // MLP down dyᵀ: dy is [T × d]
}

TEST(PredictStep, OwnKernelsAreOnePassAndOneLaunch) {
  StackOps o = stack_ops(stack(), declared_cost);
  predict_stack(o, [](const std::string&) { return simple(); });
  // A transpose of [4096 × 1024] bf16: 2 B read + 2 B written per element at 1 TB/s, one launch.
  const StepOp& t = o.backward.front();
  EXPECT_NEAR(t.prediction.seconds, 4.0 * 4096 * 1024 / kCopy + kLaunch, 1e-12);
  // The residual add: two bf16 tensors in, one out, T × d elements.
  const StepOp& add = o.forward[4];
  EXPECT_NEAR(add.prediction.seconds, 3.0 * 2 * 4096 * 1024 / kCopy + kLaunch, 1e-12);
  // Three pitched copies of dQ, dK, dV ([T × d] each).
  for (const auto& op : o.backward)
    if (op.work.family == "copy") {
      EXPECT_NEAR(op.seconds(), 3 * (4.0 * 4096 * 1024 / kCopy + kLaunch), 1e-12);
    }
  double fwd = 0;
  for (const auto& op : o.forward) fwd += op.seconds();
  EXPECT_DOUBLE_EQ(o.forward_s, fwd);
  EXPECT_NEAR(o.once_s, 3 * (4.0 * 4096 * 1024 / kCopy + kLaunch), 1e-12);
}

TEST(PredictStep, EachFamilyGetsItsOwnCeilings) {
  StackOps o = stack_ops(stack(), declared_cost);
  predict_stack(o, [](const std::string& family) {
    Ceilings c = simple();
    if (family == "transpose") c.copy_bytes_per_s = 2 * kCopy;
    return c;
  });
  EXPECT_NEAR(o.backward.front().prediction.seconds, 4.0 * 4096 * 1024 / (2 * kCopy) + kLaunch, 1e-12);
}

TEST(PredictStep, ApplyFeedsThePlannersStepTime) {
  StackOps o = stack_ops(stack(), declared_cost);
  predict_stack(o, [](const std::string&) { return simple(); });
  model::LayerModel layer = model::layer_model(stack(), hw::find("h200"));
  apply(o, layer, "test ceilings");
  EXPECT_DOUBLE_EQ(layer.ops[1].time_s, 3 * o.forward[1].prediction.seconds);  // three QKV GEMMs
  EXPECT_DOUBLE_EQ(layer.forward_s, o.forward_s);
  EXPECT_EQ(layer.time_source, "test ceilings");
  // No checkpoints: L · (forward + backward) + the step's copies; every block adds L forwards.
  const double F = o.forward_s, B = o.backward_s, once = o.once_s;
  EXPECT_NEAR(model::no_checkpoints(layer, 8).step_s, 8 * (F + B) + once, 1e-12);
  const model::Plan every = model::every_kth(layer, 8, 1);
  EXPECT_NEAR(every.extra_s, 8 * F, 1e-12);
  EXPECT_NEAR(every.step_s, 8 * (F + B) + once + 8 * F, 1e-12);
}

TEST(PredictStep, MissingVariantIsBadInput) {
  const DeclaredCost none = [](const std::string&, const std::string&, const Shape&) {
    return std::optional<model::Cost>();
  };
  try {
    (void)stack_ops(stack(), none);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    EXPECT_NE(std::string(e.what()).find("layernorm/v03_one_read_bf16"), std::string::npos) << e.what();
  }
  model::StackShape bad = stack();
  bad.heads = 3;
  EXPECT_THROW((void)stack_ops(bad, declared_cost), Error);
}

TEST(CheckpointTimes, FloorsStandInWithoutPredictions) {
  model::LayerModel layer = model::layer_model(stack(), hw::find("h200"));
  EXPECT_DOUBLE_EQ(model::forward_time(layer), layer.floor_s);
  EXPECT_DOUBLE_EQ(model::backward_time(layer), 2 * layer.floor_s);
  EXPECT_NEAR(model::no_checkpoints(layer, 8).step_s, 24 * layer.floor_s, 1e-15);
  // Hand-set times: forward 1 ms, backward 2.5 ms, 0.1 ms per step; the GeLU op 0.2 ms.
  layer.forward_s = 1e-3;
  layer.backward_s = 2.5e-3;
  layer.step_once_s = 1e-4;
  layer.ops[6].time_s = 2e-4;
  EXPECT_NEAR(model::no_checkpoints(layer, 8).step_s, 8 * 3.5e-3 + 1e-4, 1e-12);
  EXPECT_NEAR(model::every_kth(layer, 8, 1).step_s, 8 * 3.5e-3 + 1e-4 + 8e-3, 1e-12);
  // Dropping what the GeLU keeps (its input, the MLP up output) re-runs the MLP up alone in
  // backward: its predicted time, not its floor.
  std::vector<bool> keep(layer.ops.size(), true);
  keep[7] = false;
  const model::InBlockChoice c = model::in_block_choice(layer, keep);
  ASSERT_EQ(c.rerun, std::vector<int>{6});
  EXPECT_DOUBLE_EQ(c.rerun_s, 2e-4);
  EXPECT_DOUBLE_EQ(model::op_time(layer.ops[7]), layer.ops[7].floor_s);
}

TEST(CheckpointCli, PredictsTheMeasuredStep) {
  const std::string results = std::string(SOL_SOURCE_DIR) + "/bench/results/h200";
  const auto r = sol::test::run_sol("checkpoint --layers 8 --batch 2 --seq 2048 --d-model 1024 --heads 16 --results " +
                                    results + " --json");
  ASSERT_EQ(r.rc, 0) << r.all();
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("measured")) << r.out.substr(0, 400);
  ASSERT_EQ(j["measured"].size(), 4u);
  for (const auto& s : j["measured"]) {
    // The predicted step is the kernels' sum, never the measurement read back.
    EXPECT_NE(s["predicted_step_s"].get<double>(), s["measured_step_s"].get<double>());
    EXPECT_GT(s["predicted_step_s"].get<double>(), 0);
  }
  EXPECT_GT(j["kernels"].size(), 30u);
  const auto text = sol::test::run_sol("checkpoint --layers 8 --batch 2 --seq 2048 --d-model 1024 --heads 16 --results " +
                                       results);
  ASSERT_EQ(text.rc, 0) << text.all();
  for (const char* want : {"Predicted against", "MLP up dW", "attention backward", "binding term"})
    EXPECT_NE(text.out.find(want), std::string::npos) << want;
  const auto bad = sol::test::run_sol("checkpoint --layers 8 --batch 2 --seq 2048 --d-model 1024 --heads 16 --results /nonexistent");
  EXPECT_EQ(bad.rc, 2) << bad.all();
  EXPECT_EQ(sol::test::count_lines(bad.all()), 1) << bad.all();
}

// The tensor-parallel layer roofline (sol roofline tp-mlp / tp-attention): the parts on one GPU
// from the matmul and attention models, the all-reduce from the collective model, and which binds.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/comm.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"
#include "sol/model/roofline_query.hpp"
#include "tests/host/sol_cli.hpp"

namespace {

using namespace sol;

model::RooflineQuery mlp(int64_t gpus, int64_t tokens, const std::string& topology = "") {
  model::RooflineQuery q;
  q.op = "tp-mlp";
  q.gpu = "h200";
  q.sizes = {{"gpus", gpus}, {"tokens", tokens}, {"hidden", 8192}, {"ffn", 32768}};
  q.topology = topology;
  return q;
}

TEST(CommTp, MlpPartsAndAllReduce) {
  const auto a = model::answer(mlp(8, 4096));
  ASSERT_TRUE(a.tp.has_value());
  const model::TpView& t = *a.tp;
  const hw::HwSpec& h = hw::find("h200");
  // W1: 4096 × 32768/8 × 8192 and W2: 4096 × 8192 × 4096 on one GPU, each on the roofline.
  const double w1 = model::roofline(model::matmul({.m = 4096, .n = 4096, .k = 8192}), h).t_floor_s;
  const double w2 = model::roofline(model::matmul({.m = 4096, .n = 8192, .k = 4096}), h).t_floor_s;
  ASSERT_EQ(t.parts.size(), 3u);
  EXPECT_DOUBLE_EQ(t.parts[0].estimate.t_floor_s, w1);
  EXPECT_DOUBLE_EQ(t.parts[2].estimate.t_floor_s, w2);
  EXPECT_NEAR(t.compute_s, w1 + w2 + t.parts[1].estimate.t_floor_s, 1e-15);
  EXPECT_DOUBLE_EQ(t.parts[0].cost.flops, 2.0 * 4096 * 4096 * 8192);
  // The all-reduce of the T × H bf16 output over 8 GPUs, as `sol comm` answers it.
  EXPECT_DOUBLE_EQ(t.allreduce_bytes, 4096.0 * 8192 * 2);
  model::CommQuery cq;
  cq.ranks = 8;
  cq.bytes = t.allreduce_bytes;
  cq.gpu = "h200";
  EXPECT_DOUBLE_EQ(t.allreduce_s, model::comm(cq).best.time_s);
  EXPECT_EQ(t.topology, "nvswitch");
  EXPECT_DOUBLE_EQ(t.serial_s, t.compute_s + t.allreduce_s);
  EXPECT_DOUBLE_EQ(t.overlapped_s, std::max(t.compute_s, t.allreduce_s));
  // 0.55 ms of matmuls against 0.37 ms of all-reduce on NVSwitch: compute binds.
  EXPECT_EQ(t.binds, "compute");
  // Over PCIe the same all-reduce takes 2.3 ms: communication binds.
  const auto p = model::answer(mlp(8, 4096, "pcie"));
  EXPECT_EQ(p.tp->binds, "communication");
  EXPECT_GT(p.tp->allreduce_s, 4 * p.tp->compute_s);
}

TEST(CommTp, AttentionBlock) {
  model::RooflineQuery q;
  q.op = "tp-attention";
  q.gpu = "h200";
  q.sizes = {{"gpus", 4}, {"tokens", 8192}, {"hidden", 4096}, {"heads", 32}, {"seq", 2048}};
  const auto a = model::answer(q);
  ASSERT_TRUE(a.tp.has_value());
  ASSERT_EQ(a.tp->parts.size(), 3u);
  // QKV: T × 3H/N × H; attention over 32/4 heads of 128, batch 8192/2048; output: T × H × H/N.
  EXPECT_DOUBLE_EQ(a.tp->parts[0].cost.flops, 2.0 * 8192 * 3072 * 4096);
  EXPECT_DOUBLE_EQ(a.tp->parts[1].cost.flops, 4.0 * 4 * 8 * 2048.0 * 2048 * 128);
  EXPECT_DOUBLE_EQ(a.tp->parts[2].cost.flops, 2.0 * 8192 * 4096 * 1024);
  EXPECT_DOUBLE_EQ(a.tp->allreduce_bytes, 8192.0 * 4096 * 2);
}

TEST(CommTp, SplitsThatDoNotDivideAreRefused) {
  auto q = mlp(8, 4096);
  q.sizes["ffn"] = 1001;
  EXPECT_THROW(model::answer(q), Error);
  q = mlp(1, 4096);
  EXPECT_THROW(model::answer(q), Error);
  q = mlp(8, 0);
  EXPECT_THROW(model::answer(q), Error);
  model::RooflineQuery att;
  att.op = "tp-attention";
  att.sizes = {{"gpus", 8}, {"tokens", 4096}, {"hidden", 4096}, {"heads", 12}, {"seq", 4096}};
  EXPECT_THROW(model::answer(att), Error);
  att.sizes["heads"] = 32;
  att.sizes["seq"] = 3000;
  EXPECT_THROW(model::answer(att), Error);
}

TEST(CommTp, Cli) {
  const auto r = test::run_sol("roofline tp-mlp --gpus 8 --tokens 4096 --hidden 8192 --ffn 32768 --dtype bf16 --gpu h200");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("tensor parallel over 8 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("binds"), std::string::npos);
  const auto j = test::run_sol("roofline tp-mlp --gpus 8 --tokens 4k --hidden 8k --ffn 32k --gpu h200 --topology pcie --json");
  ASSERT_EQ(j.rc, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["tp"]["binds"], "communication");
  EXPECT_EQ(doc["tp"]["topology"], "pcie");
  for (const char* args : {"roofline matmul --m 8 --n 8 --k 8 --topology pcie",
                           "roofline tp-mlp --gpus 8 --tokens 4096 --hidden 8192 --ffn 1001",
                           "roofline tp-mlp --gpus 8 --tokens 4096 --hidden 8192",
                           "roofline tp-mlp --gpus 16 --tokens 4096 --hidden 8192 --ffn 32768 --gpu h200"}) {
    const auto e = test::run_sol(args);
    EXPECT_EQ(e.rc, 2) << args << ": " << e.all();
    EXPECT_EQ(test::count_lines(e.err), 1) << args << ": " << e.err;
  }
}

}  // namespace

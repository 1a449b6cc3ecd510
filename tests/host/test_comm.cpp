// The collective model (sol/model/comm.hpp) on hand-computed cases, the interconnects of the
// hardware database, `sol comm`'s output and errors; the tensor-parallel layer roofline (sol
// roofline tp-mlp / tp-attention); docs/comm.md (sol/report/comm.hpp); and `sol bench comm` where
// it cannot run (no CUDA or NCCL, or fewer than 2 GPUs): one clear line, non-zero.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/comm.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"
#include "sol/model/roofline_query.hpp"
#include "sol/report/comm.hpp"
#include "tests/host/sol_cli.hpp"

namespace {

using namespace sol;
using model::Collective;
using model::CommAlgo;
using model::CommProto;

constexpr double kGiB = 1024.0 * 1024 * 1024;

model::CommQuery query(Collective op, int ranks, double bytes, const std::string& gpu = "h200",
                       const std::string& topology = "") {
  model::CommQuery q;
  q.op = op;
  q.ranks = ranks;
  q.bytes = bytes;
  q.gpu = gpu;
  q.topology = topology;
  return q;
}

TEST(CommHw, H200InterconnectsAreDerived) {
  const hw::HwSpec& h = hw::find("h200");
  const hw::Interconnect& nv = h.interconnect("nvswitch");
  EXPECT_EQ(nv.links, 18);
  EXPECT_DOUBLE_EQ(nv.link_bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(nv.bytes_per_s, 450e9);
  EXPECT_EQ(nv.max_ranks, 8);
  EXPECT_NE(nv.derivation().find("18 links × 25 GB/s = 450 GB/s per direction (900 GB/s both ways)"), std::string::npos)
      << nv.derivation();
  EXPECT_DOUBLE_EQ(h.interconnect("pcie").bytes_per_s, 64e9);
  EXPECT_DOUBLE_EQ(h.interconnect("ib").bytes_per_s, 50e9);  // 400 Gb/s
  // chip_link and host_link are the same figures, stated once.
  EXPECT_DOUBLE_EQ(h.chip_link.bytes_per_s, nv.bytes_per_s);
  EXPECT_DOUBLE_EQ(h.host_link.bytes_per_s, h.interconnect("pcie").bytes_per_s);
  EXPECT_THROW(h.interconnect("ici"), Error);
}

TEST(CommHw, TpuTorusDims) {
  EXPECT_EQ(hw::find("tpu-v4").interconnect("ici").torus_dims, (std::vector<int>{16, 16, 16}));
  EXPECT_EQ(hw::find("tpu-v5e").interconnect("ici").torus_dims, (std::vector<int>{16, 16}));
  EXPECT_EQ(hw::find("tpu-v5p").interconnect("ici").torus_dims, (std::vector<int>{16, 20, 28}));
  EXPECT_DOUBLE_EQ(hw::find("tpu-v4").interconnect("ici").bytes_per_s, 6 * 4.5e10);
}

TEST(CommHw, JsonCarriesAndValidatesInterconnects) {
  const hw::HwSpec& h = hw::find("h200");
  const hw::HwSpec back = hw::from_json_text(hw::to_json(h), "test");
  ASSERT_EQ(back.interconnects.size(), h.interconnects.size());
  EXPECT_EQ(back.interconnects[0].key, "nvswitch");
  EXPECT_DOUBLE_EQ(back.interconnects[0].bytes_per_s, 450e9);
  const hw::HwSpec v4 = hw::from_json_text(hw::to_json(hw::find("tpu-v4")), "test");
  EXPECT_EQ(v4.interconnects[0].torus_dims, (std::vector<int>{16, 16, 16}));

  auto bad = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& expect) {
    nlohmann::json j = nlohmann::json::parse(hw::to_json(h));
    j["name"] = "h200-edited";
    edit(j);
    try {
      hw::from_json_text(j.dump(), "f.json");
      ADD_FAILURE() << "accepted: " << expect;
    } catch (const Error& e) {
      EXPECT_NE(e.line().find(expect), std::string::npos) << e.line();
      EXPECT_EQ(e.line().find('\n'), std::string::npos);
    }
  };
  bad([](auto& j) { j["interconnects"][0]["link_bytes_per_s"] = -25e9; }, "interconnects[0].link_bytes_per_s");
  bad([](auto& j) { j["interconnects"][0]["bytes_per_s"] = 900e9; }, "links × link_bytes_per_s");
  bad([](auto& j) { j["interconnects"][1]["key"] = "nvswitch"; }, "appears twice");
  bad([](auto& j) { j["interconnects"][0]["torus_dims"] = {4, 4}; }, "applies only to key 'ici'");
  bad([](auto& j) { j["interconnects"][0]["links"] = 0; }, "interconnects[0].links");
  bad([](auto& j) { j["interconnects"][0]["speed"] = 1; }, "'interconnects[0].speed' is not a known field");
  bad([](auto& j) { j["interconnects"][0].erase("source"); }, "interconnects[0].source' is missing");
}

TEST(CommModel, BusFactors) {
  EXPECT_DOUBLE_EQ(model::bus_factor(Collective::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(model::bus_factor(Collective::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(model::bus_factor(Collective::ReduceScatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(model::bus_factor(Collective::AllToAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(model::bus_factor(Collective::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(model::bus_factor(Collective::SendRecv, 2), 1.0);
}

TEST(CommModel, RingAllReduceBandwidthRegime) {
  auto q = query(Collective::AllReduce, 8, 8 * kGiB);
  q.algo = CommAlgo::Ring;
  q.proto = CommProto::Simple;
  const auto a = model::comm(q);
  // Floor: 2(N−1)/N · S over 450 GB/s.
  EXPECT_DOUBLE_EQ(a.floor_wire_bytes, 8 * kGiB * 1.75);
  EXPECT_NEAR(a.floor_s, 8 * kGiB * 1.75 / 450e9, 1e-12);
  // Estimate: α = 8.4 µs + 14 steps × 3.4 µs, B = 450 GB/s × 370/450 = 370 GB/s.
  const double alpha = (8.4 + 14 * 3.4) * 1e-6, t = alpha + 8 * kGiB * 1.75 / 370e9;
  EXPECT_NEAR(a.best.latency_s, alpha, 1e-12);
  EXPECT_NEAR(a.best.bus_bytes_per_s, 370e9, 1e3);
  EXPECT_NEAR(a.best.time_s, t, 1e-9);
  EXPECT_NEAR(a.best.alg_bw, 8 * kGiB / t, 1);
  // nccl-tests' busBw = algBw · 2(N−1)/N.
  EXPECT_DOUBLE_EQ(a.best.bus_bw, a.best.alg_bw * 2.0 * 7 / 8);
  EXPECT_EQ(a.best.regime, "bandwidth");
  EXPECT_NEAR(a.best.bus_bw, 370e9, 0.002 * 370e9);  // α is 0.14 % of the time at 8 GiB
}

TEST(CommModel, LatencyRegimeAndAutoChoice) {
  const auto a = model::comm(query(Collective::AllReduce, 2, 8));
  // ring/LL: 6.6 µs + 2 × 0.6 µs beats tree/LL's 6.8 + 2 × 0.6 and every Simple / LL128 base.
  EXPECT_EQ(a.best.algo, CommAlgo::Ring);
  EXPECT_EQ(a.best.proto, CommProto::LL);
  EXPECT_NEAR(a.best.latency_s, 7.8e-6, 1e-12);
  EXPECT_EQ(a.best.regime, "latency");
  EXPECT_EQ(a.candidates.size(), 6u);  // ring and tree × LL, LL128, Simple
  // LL: half of 370 GB/s, capped at NCCL's 141 GB/s for a Hopper node.
  EXPECT_NEAR(a.best.bus_bytes_per_s, 141e9, 1);
  // Latency-bound below the size where α = S × factor / B: 7.8 µs × 141 GB/s / 1.
  EXPECT_NEAR(a.latency_bound_below, 7.8e-6 * 141e9, 1);
}

TEST(CommModel, CrossoverLLToSimple) {
  const auto a = model::comm(query(Collective::AllReduce, 2, 1 << 20));
  // ring/LL (α 7.8 µs, 141 GB/s) meets ring/Simple (α 8.4 + 2 × 3.4 = 15.2 µs, 370 GB/s) at
  // S = 7.4 µs / (1/141 − 1/370) ns/B; LL128 and tree never win for N = 2.
  ASSERT_EQ(a.crossovers.size(), 1u);
  EXPECT_EQ(a.crossovers[0].from, "ring/LL");
  EXPECT_EQ(a.crossovers[0].to, "ring/Simple");
  const double x = 7.4e-6 / (1 / 141e9 - 1 / 370e9);
  EXPECT_NEAR(a.crossovers[0].bytes, x, 1e-6 * x);
  // The answer at either side of it agrees with the crossover.
  EXPECT_EQ(model::comm(query(Collective::AllReduce, 2, 0.99 * x)).best.proto, CommProto::LL);
  EXPECT_EQ(model::comm(query(Collective::AllReduce, 2, 1.01 * x)).best.proto, CommProto::Simple);
}

TEST(CommModel, NvlsSendsSOnce) {
  auto q = query(Collective::AllReduce, 8, 4 * kGiB);
  q.algo = CommAlgo::Nvls;
  const auto a = model::comm(q);
  EXPECT_DOUBLE_EQ(a.best.wire_bytes, 4 * kGiB);
  EXPECT_NEAR(a.best.latency_s, 25e-6, 1e-12);
  // Fitted to 480 GB/s busBw on 8 GPUs: B = 480 × 8/14 GB/s.
  EXPECT_NEAR(a.best.bus_bytes_per_s, 480e9 * 8 / 14, 1e3);
  EXPECT_NEAR(a.best.bus_bw, 480e9, 0.01 * 480e9);
  q.gpu = "a100";
  EXPECT_THROW(model::comm(q), Error);
}

TEST(CommModel, OtherCollectivesOnARing) {
  auto q = query(Collective::AllGather, 4, 1 * kGiB);
  q.proto = CommProto::Simple;
  const auto ag = model::comm(q);
  EXPECT_EQ(ag.best.algo, CommAlgo::Ring);
  EXPECT_NEAR(ag.best.latency_s, (8.4 + 3 * 3.4) * 1e-6, 1e-12);
  EXPECT_DOUBLE_EQ(ag.best.wire_bytes, 0.75 * kGiB);
  const auto sr = model::comm(query(Collective::SendRecv, 2, 1 * kGiB));
  EXPECT_DOUBLE_EQ(sr.floor_s, kGiB / 450e9);
  EXPECT_DOUBLE_EQ(sr.best.bus_bw, sr.best.alg_bw);
  const auto ib = model::comm(query(Collective::AllReduce, 16, 1 * kGiB, "h200", "ib"));
  EXPECT_DOUBLE_EQ(ib.link_bytes_per_s, 50e9);
  EXPECT_EQ(ib.query.ranks, 16);
}

TEST(CommModel, TpuTorus) {
  // v5e 16×16: both axes wrap, 2 axes × 2 directions × 50 GB/s; 8 + 8 hops of 1 µs.
  const auto ag = model::comm(query(Collective::AllGather, 0, 1 * kGiB, "tpu-v5e", "torus:16x16"));
  EXPECT_EQ(ag.query.ranks, 256);
  EXPECT_DOUBLE_EQ(ag.link_bytes_per_s, 2e11);
  EXPECT_NEAR(ag.best.latency_s, 16e-6, 1e-12);
  EXPECT_NEAR(ag.best.time_s, 16e-6 + kGiB * 255 / 256 / 2e11, 1e-12);
  // The scaling book: a bandwidth-bound all-gather does not depend on the axis size.
  const auto ag2 = model::comm(query(Collective::AllGather, 0, 1 * kGiB, "tpu-v4", "torus:8x4x4"));
  const auto ag3 = model::comm(query(Collective::AllGather, 0, 1 * kGiB, "tpu-v4", "torus:16x16x16"));
  EXPECT_NEAR(ag2.best.bandwidth_s / ag3.best.bandwidth_s, (127.0 / 128) / (4095.0 / 4096), 1e-9);
  EXPECT_EQ(ag3.query.ranks, 4096);  // the lecture's §5: TPU v4, 4096 chips in a 16×16×16 torus
  // All-reduce: twice the hops, 2(N−1)/N the bytes.
  const auto ar = model::comm(query(Collective::AllReduce, 0, 1 * kGiB, "tpu-v5e", "torus:16x16"));
  EXPECT_NEAR(ar.best.latency_s, 32e-6, 1e-12);
  EXPECT_NEAR(ar.best.bandwidth_s, 2 * ag.best.bandwidth_s, 1e-12);
  // 4×4 on v5e has no wraparound: lines, one direction's rate per axis, 3 + 3 hops.
  const auto line = model::comm(query(Collective::AllGather, 16, 1 * kGiB, "tpu-v5e", "torus:4x4"));
  EXPECT_DOUBLE_EQ(line.link_bytes_per_s, 1e11);
  EXPECT_NEAR(line.best.latency_s, 6e-6, 1e-12);
  // All-to-all over a 1D ring of 16: S · 16/2 / (4 × 50 GB/s), a quarter of the gather's cost
  // for the same array (16 · S).
  const auto a2a = model::comm(query(Collective::AllToAll, 0, 1 * kGiB, "tpu-v5e", "torus:16"));
  EXPECT_NEAR(a2a.best.bandwidth_s, kGiB * 8 / (4 * 5e10), 1e-12);
  EXPECT_TRUE(a2a.crossovers.empty());
}

TEST(CommModel, BadInputIsOneClearError) {
  auto expect_bad = [](model::CommQuery q, const std::string& what) {
    try {
      model::comm(q);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::BadInput);
      EXPECT_NE(e.line().find(what), std::string::npos) << e.line();
    }
  };
  expect_bad(query(Collective::AllReduce, 1, 1024), "2 to 1048576 ranks");
  expect_bad(query(Collective::AllReduce, 9, 1024), "at most 8 GPUs");
  expect_bad(query(Collective::AllReduce, 8, 0), "bytes must be > 0");
  expect_bad(query(Collective::AllReduce, 8, std::nan("")), "bytes must be > 0");
  expect_bad(query(Collective::AllReduce, 8, INFINITY), "bytes must be > 0");
  expect_bad(query(Collective::AllReduce, 8, 1024, "nope"), "nope");
  expect_bad(query(Collective::AllReduce, 8, 1024, "h200", "torus:2x4"), "no interconnect 'ici'");
  expect_bad(query(Collective::AllReduce, 8, 1024, "tpu-v5e", "torus:4x4x4"), "2D torus");
  expect_bad(query(Collective::AllReduce, 0, 1024, "tpu-v5e", "torus:32x8"), "does not fit");
  expect_bad(query(Collective::AllReduce, 8, 1024, "tpu-v5e", "torus:4x4"), "disagrees");
  expect_bad(query(Collective::AllReduce, 0, 1024, "tpu-v5e"), "needs its shape");
  expect_bad(query(Collective::SendRecv, 4, 1024), "between 2 ranks");
  auto q = query(Collective::AllGather, 8, 1024);
  q.algo = CommAlgo::Tree;
  expect_bad(q, "tree applies only to all-reduce");
  q = query(Collective::AllReduce, 0, 1024, "tpu-v4", "torus:4x4x4");
  q.proto = CommProto::LL;
  expect_bad(q, "--proto does not apply");
  EXPECT_THROW(model::parse_collective("allsum"), Error);
  EXPECT_EQ(model::parse_collective("allreduce"), Collective::AllReduce);
  EXPECT_EQ(model::parse_collective("All_Gather"), Collective::AllGather);
  EXPECT_EQ(model::parse_proto("ll128"), CommProto::LL128);
}

TEST(CommModel, SweepIsPowersOfTwo) {
  const auto pts = model::comm_sweep(query(Collective::AllReduce, 8, 1), 8, 8 * kGiB);
  ASSERT_EQ(pts.size(), 31u);
  EXPECT_DOUBLE_EQ(pts.front().query.bytes, 8);
  EXPECT_DOUBLE_EQ(pts.back().query.bytes, 8 * kGiB);
  for (size_t i = 1; i < pts.size(); ++i) EXPECT_GE(pts[i].best.time_s, pts[i - 1].best.time_s);
  EXPECT_EQ(pts.front().best.regime, "latency");
  EXPECT_EQ(pts.back().best.regime, "bandwidth");
}

TEST(CommCli, OneSizeJson) {
  const auto r = test::run_sol("comm all-reduce --gpus 8 --bytes 1GiB --gpu h200 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(j.begin().key(), "schema_version");
  EXPECT_EQ(j["op"], "all-reduce");
  EXPECT_EQ(j["ranks"], 8);
  EXPECT_EQ(j["topology"], "nvswitch");
  EXPECT_DOUBLE_EQ(j["bytes"].get<double>(), kGiB);
  EXPECT_NEAR(j["floor_s"].get<double>(), kGiB * 1.75 / 450e9, 1e-12);
  EXPECT_GT(j["estimate_s"].get<double>(), j["floor_s"].get<double>());
  EXPECT_TRUE(j["candidates"].is_array());
}

TEST(CommCli, SizeGrammarAndSweep) {
  for (const char* s : {"4k", "2^28", "40GiB", "1e9"}) {
    const auto r = test::run_sol(std::string("comm all-gather --gpus 4 --bytes ") + s);
    EXPECT_EQ(r.rc, 0) << s << ": " << r.err;
  }
  const auto r = test::run_sol("comm all-reduce --gpus 2 --bytes 8:8GiB --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "comm-sweep");
  EXPECT_EQ(j["points"].size(), 31u);
  const auto t = test::run_sol("comm all-reduce --gpus 2 --bytes 8:8GiB");
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("crossovers"), std::string::npos);
  EXPECT_NE(t.out.find("ring/LL → ring/Simple"), std::string::npos) << t.out;
  const auto tpu = test::run_sol("comm all-reduce --bytes 1GiB --gpu tpu-v4 --topology torus:4x4x4");
  ASSERT_EQ(tpu.rc, 0) << tpu.err;
  EXPECT_NE(tpu.out.find("64 chips"), std::string::npos) << tpu.out;
}

TEST(CommCli, ErrorsAreOneLineExit2) {
  for (const char* args : {"comm all-reduce --gpus 1 --bytes 1k", "comm all-sum --gpus 2 --bytes 1k",
                           "comm all-reduce --gpus 2 --bytes 0", "comm all-reduce --gpus 2 --bytes 8GiB:8",
                           "comm all-reduce --gpus 2 --bytes 1k --topology torus:2x1", "comm all-reduce --gpus 2",
                           "comm all-reduce --gpus 9 --bytes 1k", "comm all-reduce --gpus 2 --bytes 1k --proto LL64",
                           "comm all-reduce --gpus 2 --bytes lots", "comm all-reduce --gpus two --bytes 1k",
                           "comm all-reduce --gpus 2 --bytes 1k --gpu tpu-v5e"}) {
    const auto r = test::run_sol(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.all();
    EXPECT_EQ(test::count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

TEST(CommCli, HwShowListsInterconnects) {
  const auto r = test::run_sol("hw show h200");
  ASSERT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("Interconnects"), std::string::npos);
  EXPECT_NE(r.out.find("NVLink 4 through NVSwitch"), std::string::npos);
  EXPECT_NE(r.out.find("InfiniBand NDR"), std::string::npos);
  const auto t = test::run_sol("hw show tpu-v5p");
  EXPECT_NE(t.out.find("torus up to 16×20×28"), std::string::npos) << t.out;
}

}  // namespace

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

namespace {

namespace fs = std::filesystem;
using namespace sol;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("sol-comm-docs-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(CommDocs, WithoutMeasurementsSaysSo) {
  const fs::path root = scratch("none");
  const auto files = report::comm_docs(root.string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].first, "comm.md");
  const std::string& md = files[0].second;
  EXPECT_NE(md.find("The measurement has not been taken"), std::string::npos);
  EXPECT_NE(md.find("| 8 GiB |"), std::string::npos);           // the size table
  EXPECT_NE(md.find("ring/LL → ring/Simple"), std::string::npos);  // a crossover
  EXPECT_NE(md.find("16x16x16"), std::string::npos);             // the torus example
  EXPECT_NE(md.find("NVIDIA/nccl src/graph/tuning.cc"), std::string::npos);
  fs::remove_all(root);
}

TEST(CommDocs, MeasuredAgainstPredicted) {
  const fs::path root = scratch("measured");
  fs::create_directories(root / "h200x2");
  nlohmann::json rec = {{"op", "all-reduce"}, {"bytes", 1 << 20}, {"count", 1 << 18}, {"in_place", false},
                        {"bus_factor", 1.0}, {"verified", true}, {"wrong_elements", 0}, {"stream", nullptr},
                        {"graph", {{"median_s", 2e-5}, {"samples", 5}, {"bus_bw_bytes_per_s", 5.2e10}}},
                        {"model", {{"estimate_s", 1.5e-5}, {"bus_bw_bytes_per_s", 6.9e10}}}};
  nlohmann::json doc = {{"schema_version", 1}, {"kind", "comm-bench"}, {"gpu", "h200"}, {"ranks", 2},
                        {"device", {{"names", {"NVIDIA H200"}}}}, {"nccl_version", 22809},
                        {"time_utc", "2026-12-01T00:00:00Z"}, {"note", "NVLS off"}, {"records", {rec}},
                        {"peers", {{{"missing", "python3 is not installed"}}}}};
  std::ofstream(root / "h200x2" / "comm.json") << doc.dump(2);
  const auto files = report::comm_docs(root.string());
  ASSERT_EQ(files.size(), 2u);
  const std::string& md = files[0].second;
  EXPECT_EQ(md.find("has not been taken"), std::string::npos);
  EXPECT_NE(md.find("### h200x2/comm.json"), std::string::npos);
  EXPECT_NE(md.find("| all-reduce | 1 MiB | out | ok | 20 µs"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.75 |"), std::string::npos);  // model ÷ measured
  EXPECT_NE(md.find("not measured (python3 is not installed)"), std::string::npos);
  EXPECT_EQ(files[1].first, "comm-h200x2.svg");
  EXPECT_NE(files[1].second.find("<svg"), std::string::npos);
  // A comm*.json that is not a sol bench comm document is one clear error.
  std::ofstream(root / "h200x2" / "comm-bad.json") << R"({"kind": "other"})";
  EXPECT_THROW(report::comm_docs(root.string()), Error);
  fs::remove_all(root);
}

TEST(CommDocs, SolDocsWritesThePage) {
  const fs::path out = scratch("out");
  const auto r = test::run_sol(std::string("docs --results ") + SOL_SOURCE_DIR + "/bench/results/h200 --out-dir " +
                               out.string() + " --readme ''");
  ASSERT_EQ(r.rc, 0) << r.all();
  const std::string md = test::slurp(out / "comm.md");
  EXPECT_NE(md.find("# Collectives"), std::string::npos);
  fs::remove_all(out);
}

TEST(CommBench, CannotRunHereSaysWhyInOneLine) {
  // Without CUDA and NCCL (a host build), or with fewer than 2 GPUs: one line, non-zero.
  const auto r = test::run_sol("bench comm --bytes 8:1k --no-peers");
  EXPECT_NE(r.rc, 0) << r.all();
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("2 GPUs"), std::string::npos) << r.err;
  // One process per GPU fails the same way: the workers find fewer than 2 GPUs (or no NCCL) and
  // the run stops them all and says which failed.
  const auto p = test::run_sol("bench comm --process-per-gpu --gpus 2 --bytes 8:64 --no-peers");
  EXPECT_NE(p.rc, 0) << p.all();
  EXPECT_NE(p.err.find("2 GPUs"), std::string::npos) << p.err;
  // Bad flags are refused before anything runs.
  for (const char* args : {"bench comm --gpus 1", "bench comm --ops all-sum", "bench comm --bytes 1k:8",
                           "bench comm --placement sideways", "bench comm --no-graph --no-stream",
                           "bench comm --process-per-gpu", "bench comm --process-per-gpu --gpus 0"}) {
    const auto e = test::run_sol(args);
    EXPECT_EQ(e.rc, 2) << args << ": " << e.all();
    EXPECT_EQ(test::count_lines(e.err), 1) << args << ": " << e.err;
  }
}

}  // namespace

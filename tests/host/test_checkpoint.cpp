// The checkpointing planner against the lecture's accounting (§8.2): per-block checkpoints turn
// O(L·k) into O(L + k), Chen's √L segments give O(√L), each costs one extra forward pass; a layer's
// saved bytes counted by hand; and the optimum under a budget, checked against every fixed
// strategy over a sweep of budgets and against brute force over all schedules of a short stack;
// then the in-block choice (below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/model/cost.hpp"
#include "sol/report/checkpoint.hpp"

using namespace sol::model;

namespace {

const sol::hw::HwSpec& h200() { return sol::hw::find("h200"); }

// A layer with chosen sizes (no ops): input x bytes, internals k bytes, forward time t.
LayerModel synthetic(double x, double k, double t = 1e-3, double flops = 1e12) {
  LayerModel l;
  l.input_bytes = x;
  l.internal_bytes = k;
  l.floor_s = t;
  l.flops = flops;
  return l;
}

LayerModel gpt_layer(bool flash) {
  return layer_model({32, 8, 4096, 4096, 32, 4, flash}, h200());
}

bool throws_bad_input(const std::function<void()>& f) {
  try {
    f();
  } catch (const sol::Error& e) {
    return e.kind() == sol::Error::Kind::BadInput;
  }
  return false;
}


// Every schedule of L layers: each gap between layers is a boundary or not, each segment kept or
// recomputed.
std::vector<std::vector<Segment>> all_schedules(int64_t L) {
  std::vector<std::vector<Segment>> out;
  for (uint32_t cuts = 0; cuts < (1u << (L - 1)); ++cuts) {
    std::vector<std::pair<int64_t, int64_t>> runs;
    int64_t first = 0;
    for (int64_t i = 1; i <= L; ++i)
      if (i == L || (cuts >> (i - 1)) & 1u) {
        runs.push_back({first, i - first});
        first = i;
      }
    for (uint32_t rec = 0; rec < (1u << runs.size()); ++rec) {
      std::vector<Segment> segs;
      for (size_t j = 0; j < runs.size(); ++j) segs.push_back({runs[j].first, runs[j].second, bool((rec >> j) & 1u)});
      out.push_back(segs);
    }
  }
  return out;
}

// Op indices of layer_model's transformer layer.
enum { kLN1, kQKV, kAttn, kProj, kRes1, kLN2, kUp, kGelu, kDown, kRes2, kOps };

std::vector<bool> keep_all_but(std::initializer_list<int> dropped) {
  std::vector<bool> keep(kOps, true);
  for (int i : dropped) keep[size_t(i)] = false;
  return keep;
}

std::vector<int> rerun_of(const LayerModel& l, std::initializer_list<int> dropped) {
  return in_block_choice(l, keep_all_but(dropped)).rerun;
}

}  // namespace

TEST(CheckpointLayer, HandCountedBytes) {
  // B=2, N=8, d=16, H=2, MLP 64, bf16: T = 16 tokens, [T×d] = 512 B, [T×f] = 2048 B, LayerNorm
  // stats 16 rows × 2 × 4 B = 128 B, logsumexp 2·2·8 × 4 B = 128 B, P = 2·2·8·8 × 2 B = 512 B.
  const LayerModel f = layer_model({1, 2, 8, 16, 2, 4, true}, h200());
  ASSERT_EQ(f.ops.size(), 10u);
  EXPECT_DOUBLE_EQ(f.input_bytes, 512);
  const double want_flash[] = {128, 512, 3 * 512 + 128, 512, 0, 512 + 128, 512, 2048, 2048, 0};
  for (size_t i = 0; i < 10; ++i) EXPECT_DOUBLE_EQ(f.ops[i].saved_bytes, want_flash[i]) << f.ops[i].name;
  EXPECT_DOUBLE_EQ(f.internal_bytes, 8064);

  const LayerModel s = layer_model({1, 2, 8, 16, 2, 4, false}, h200());
  EXPECT_DOUBLE_EQ(s.ops[2].saved_bytes, 3 * 512 + 512);
  EXPECT_DOUBLE_EQ(s.internal_bytes, 8064 - 128 + 512);
}

TEST(CheckpointLayer, MatchesTheSbhFormula) {
  // Korthikanti et al.'s count without dropout masks: 32·s·b·h bytes in 16-bit types per layer
  // (input 2, QKV input 2, Q K V 6, O 2, LN2 input 2, MLP up input 2, GeLU input 8, down input 8),
  // plus 2·a·s²·b for P in standard attention; plus the fp32 row stats.
  const int64_t B = 8, N = 4096, d = 4096, H = 32, T = B * N;
  const double stats = 2.0 * T * 8, lse = double(B) * H * N * 4, P = 2.0 * B * H * N * N;
  const LayerModel f = gpt_layer(true), s = gpt_layer(false);
  EXPECT_DOUBLE_EQ(f.input_bytes + f.internal_bytes, 32.0 * T * d + stats + lse);
  EXPECT_DOUBLE_EQ(s.input_bytes + s.internal_bytes, 32.0 * T * d + stats + P);
  // Forward FLOPs: 2·T·(3d² + d² + 2·4d²) matmuls = 24·T·d², plus attention 4·B·H·N²·(d/H).
  double matmul_and_attention = 24.0 * T * d * d + 4.0 * B * H * N * N * (d / H);
  EXPECT_GT(f.flops, matmul_and_attention);
  EXPECT_LT(f.flops, 1.01 * matmul_and_attention);
  EXPECT_GT(f.floor_s, f.flops / 1000e12);  // no faster than a petaFLOP/s
}

TEST(CheckpointLayer, BadShapes) {
  EXPECT_TRUE(throws_bad_input([] { layer_model({32, 8, 4096, 4096, 3, 4, true}, h200()); }));
  EXPECT_TRUE(throws_bad_input([] { layer_model({32, 0, 4096, 4096, 32, 4, true}, h200()); }));
  EXPECT_TRUE(throws_bad_input([] { layer_model({32, 8, 4096, 4096, 32, 0, true}, h200()); }));
  const LayerModel l = synthetic(1, 1);
  EXPECT_TRUE(throws_bad_input([&] { no_checkpoints(l, 0); }));
  EXPECT_TRUE(throws_bad_input([&] { no_checkpoints(l, 100000); }));
  EXPECT_TRUE(throws_bad_input([&] { evaluate(l, 4, {{0, 2, true}, {3, 1, true}}, "gap"); }));
  EXPECT_TRUE(throws_bad_input([&] { evaluate(l, 4, {{0, 2, true}}, "short"); }));
}

TEST(CheckpointAccounting, PerBlockIsLPlusK) {
  const double x = 3, k = 40;
  const LayerModel l = synthetic(x, k);
  for (int64_t L : {1, 7, 32, 100}) {
    EXPECT_DOUBLE_EQ(no_checkpoints(l, L).peak_bytes, L * (x + k)) << L;  // O(L·k)
    EXPECT_DOUBLE_EQ(every_kth(l, L, 1).peak_bytes, L * x + k) << L;     // O(L + k)
  }
  // Doubling L: no checkpoints grows by L·(x + k), per-block only by L·x.
  EXPECT_DOUBLE_EQ(every_kth(l, 64, 1).peak_bytes - every_kth(l, 32, 1).peak_bytes, 32 * x);
  EXPECT_DOUBLE_EQ(no_checkpoints(l, 64).peak_bytes - no_checkpoints(l, 32).peak_bytes, 32 * (x + k));
}

TEST(CheckpointAccounting, StrategyNames) {
  const LayerModel l = synthetic(1, 1);
  EXPECT_EQ(every_kth(l, 40, 1).strategy, "every block");
  EXPECT_EQ(every_kth(l, 40, 2).strategy, "every 2nd block");
  EXPECT_EQ(every_kth(l, 40, 11).strategy, "every 11th block");
  EXPECT_EQ(every_kth(l, 40, 21).strategy, "every 21st block");
  EXPECT_EQ(every_kth(l, 40, 23).strategy, "every 23rd block");
}

TEST(CheckpointAccounting, SqrtLGrowsAsRootL) {
  const LayerModel l = synthetic(1, 1);
  // L = 16 → 4 segments of 4: 4 checkpoints + 4 layers' internals + 3 inner inputs = 11.
  EXPECT_DOUBLE_EQ(sqrt_l(l, 16).peak_bytes, 11);
  const double ratio = sqrt_l(l, 64).peak_bytes / sqrt_l(l, 16).peak_bytes;  // √4 = 2
  EXPECT_GT(ratio, 1.8);
  EXPECT_LT(ratio, 2.3);
  EXPECT_DOUBLE_EQ(no_checkpoints(l, 64).peak_bytes / no_checkpoints(l, 16).peak_bytes, 4);
}

TEST(CheckpointAccounting, AgreesWithCostModelActivationMemory) {
  const LayerModel l = gpt_layer(true);
  for (int64_t L : {1, 9, 32, 50}) {
    ActivationOp op{L, l.input_bytes, l.internal_bytes, Checkpointing::None};
    EXPECT_DOUBLE_EQ(no_checkpoints(l, L).peak_bytes, activation_memory(op).peak_bytes) << L;
    op.policy = Checkpointing::PerBlock;
    EXPECT_DOUBLE_EQ(every_kth(l, L, 1).peak_bytes, activation_memory(op).peak_bytes) << L;
    op.policy = Checkpointing::SqrtL;
    const ActivationMemory m = activation_memory(op);
    const Plan p = sqrt_l(l, L);
    EXPECT_EQ(p.checkpoints, m.checkpoints) << L;
    EXPECT_EQ(p.largest_segment, m.segment) << L;
    EXPECT_DOUBLE_EQ(p.peak_bytes, m.peak_bytes) << L;
  }
}

TEST(CheckpointAccounting, OneExtraForwardPass) {
  const LayerModel l = gpt_layer(true);
  const int64_t L = 32;
  const double forward_s = L * l.floor_s;
  const Plan none = no_checkpoints(l, L);
  EXPECT_DOUBLE_EQ(none.extra_flops, 0);
  EXPECT_NEAR(none.step_s, 3 * forward_s, 1e-12 * forward_s);
  for (const Plan& p : {every_kth(l, L, 1), every_kth(l, L, 4), sqrt_l(l, L)}) {
    EXPECT_DOUBLE_EQ(p.extra_flops, L * l.flops) << p.strategy;
    EXPECT_NEAR(p.step_s, 4 * forward_s, 1e-9 * forward_s) << p.strategy;
  }
}

TEST(CheckpointPlanner, TransientsAreTheBackwardsHighWaterMark) {
  // 2 × 2048 tokens, d = 1024, MLP 4096, bf16: the MLP up-projection's dW holds dy [T×d], dU [T×4d],
  // dUᵀ and the LN2 outputᵀ: 2·T·(d + 4d)·2 B = 80 MiB, what the H200 run measured above the saved
  // peak for every schedule (bench/results/h200/checkpoint/measured.json).
  const StackShape s{.layers = 8, .batch = 2, .seq = 2048, .d_model = 1024, .heads = 16};
  const LayerModel l = layer_model(s, h200());
  EXPECT_DOUBLE_EQ(l.transient_bytes, 80.0 * 1024 * 1024);
  EXPECT_NE(l.transient_what.find("MLP up dW"), std::string::npos) << l.transient_what;
  const Plan none = no_checkpoints(l, 8);
  EXPECT_DOUBLE_EQ(none.total_peak_bytes, none.peak_bytes + l.transient_bytes);
  // Under the run's 713.7 MiB budget the optimum holds on the total: KKKK|R|R|R|R (745.6 MiB with
  // its transients) no longer fits.
  const Plan best = optimal(l, 8, 748388352.0);
  EXPECT_LE(best.total_peak_bytes, 748388352.0);
  EXPECT_GT(best.recomputed_layers, 4);
}

TEST(CheckpointOptimal, NeverWorseThanFixedNeverOverBudget) {
  for (bool flash : {true, false}) {
    const LayerModel l = gpt_layer(flash);
    const int64_t L = 32;
    std::vector<Plan> fixed = {no_checkpoints(l, L)};
    for (int64_t k = 1; k <= L; ++k) fixed.push_back(every_kth(l, L, k));
    const double lo = min_peak_bytes(l, L), hi = fixed[0].total_peak_bytes * 1.1;
    for (int i = 0; i <= 60; ++i) {
      const double budget = lo * std::pow(hi / lo, i / 60.0);
      const Plan best = optimal(l, L, budget);
      EXPECT_LE(best.total_peak_bytes, budget) << i;
      // Its numbers are those of evaluating its own segments.
      EXPECT_DOUBLE_EQ(evaluate(l, L, best.segments, "x").total_peak_bytes, best.total_peak_bytes);
      for (const Plan& p : fixed) {
        if (p.total_peak_bytes <= budget) {
          EXPECT_LE(best.step_s, p.step_s * (1 + 1e-12)) << p.strategy << " at " << budget;
        }
      }
    }
    // With room for everything, nothing is recomputed; below the least peak nothing fits.
    EXPECT_EQ(optimal(l, L, hi).recomputed_layers, 0);
    EXPECT_DOUBLE_EQ(optimal(l, L, lo).total_peak_bytes, lo);
    EXPECT_TRUE(throws_bad_input([&] { optimal(l, L, lo * 0.999); }));
  }
}

TEST(CheckpointOptimal, MatchesBruteForceOnShortStacks) {
  // Every schedule of L layers: the planner's choice must be as fast as the fastest that fits, and fit.
  const LayerModel l = synthetic(2, 7);
  for (int64_t L : {1, 3, 5, 7}) {
    std::vector<Plan> all;
    for (const auto& segs : all_schedules(L)) all.push_back(evaluate(l, L, segs, "brute"));
    double least = all[0].total_peak_bytes;
    for (const auto& p : all) least = std::min(least, p.total_peak_bytes);
    EXPECT_DOUBLE_EQ(min_peak_bytes(l, L), least) << L;
    for (double budget = least; budget <= L * 9.0 + 1; budget += 1) {
      double fastest = 1e30;
      for (const auto& p : all)
        if (p.total_peak_bytes <= budget) fastest = std::min(fastest, p.step_s);
      const Plan best = optimal(l, L, budget);
      EXPECT_LE(best.total_peak_bytes, budget);
      EXPECT_DOUBLE_EQ(best.step_s, fastest) << "L=" << L << " budget " << budget;
    }
  }
}

// The in-block choice (which ops of a kept layer keep their saved tensors) and its combination with
// the segment search: re-run sets worked out by hand from the layer's dataflow, the classic answers
// (drop the GeLU output and re-run GeLU; drop the LayerNorm outputs and re-run the norms), never
// slower than the block-level optimum, never over budget, and brute force over every schedule ×
// every choice on a short stack. Also the picture: one row per plan, cells as the plans say.
TEST(CheckpointInBlock, RerunSetsFollowTheDataflow) {
  const LayerModel l = gpt_layer(true);
  ASSERT_EQ(l.ops.size(), size_t(kOps));
  EXPECT_EQ(rerun_of(l, {}), std::vector<int>{});
  // GeLU output (MLP down's input) from the kept MLP up output: GeLU alone.
  EXPECT_EQ(rerun_of(l, {kDown}), std::vector<int>{kGelu});
  // ... and if MLP up's output is dropped too, GeLU needs it: MLP up as well.
  EXPECT_EQ(rerun_of(l, {kDown, kGelu}), (std::vector<int>{kUp, kGelu}));
  // LN1 output from the layer input: LN1. Dropping LN1's stats alone re-runs LN1 as well.
  EXPECT_EQ(rerun_of(l, {kQKV}), std::vector<int>{kLN1});
  EXPECT_EQ(rerun_of(l, {kLN1}), std::vector<int>{kLN1});
  // Q, K, V and the logsumexp: the QKV matmul (from the kept LN1 output) and attention itself.
  EXPECT_EQ(rerun_of(l, {kAttn}), (std::vector<int>{kQKV, kAttn}));
  // LN2's input is the first residual: out proj (from the kept O), the add, and LN2 for its stats.
  EXPECT_EQ(rerun_of(l, {kLN2}), (std::vector<int>{kProj, kRes1, kLN2}));
  // O and everything before it dropped: the whole first half again, from the layer input.
  EXPECT_EQ(rerun_of(l, {kLN1, kQKV, kAttn, kProj}), (std::vector<int>{kLN1, kQKV, kAttn}));
  // Bytes: what is dropped is what those ops saved.
  const InBlockChoice c = in_block_choice(l, keep_all_but({kDown, kQKV}));
  EXPECT_DOUBLE_EQ(c.dropped_bytes, l.ops[kDown].saved_bytes + l.ops[kQKV].saved_bytes);
  EXPECT_DOUBLE_EQ(c.kept_bytes + c.dropped_bytes, l.internal_bytes);
  EXPECT_DOUBLE_EQ(c.rerun_s, l.ops[kGelu].floor_s + l.ops[kLN1].floor_s);
  EXPECT_TRUE(throws_bad_input([&] { in_block_choice(l, std::vector<bool>(3, true)); }));
}

TEST(CheckpointInBlock, CheapOpsAreTheOnesRecomputed) {
  const LayerModel l = gpt_layer(true);
  const double td = l.input_bytes, tf = l.ops[kDown].saved_bytes;  // [T×d] and [T×4d]
  // Freeing one [T×4d] tensor: the GeLU output (re-run the elementwise GeLU), not the MLP up
  // output (that would re-run a matmul).
  EXPECT_EQ(best_in_block(l, l.internal_bytes - tf).rerun, std::vector<int>{kGelu});
  // Freeing two [T×d] tensors: both LayerNorm outputs, re-running the two norms.
  EXPECT_EQ(best_in_block(l, l.internal_bytes - 2 * td).rerun, (std::vector<int>{kLN1, kLN2}));
  // A budget that holds everything re-runs nothing.
  EXPECT_TRUE(best_in_block(l, l.internal_bytes).rerun.empty());
}

TEST(CheckpointInBlock, FrontierIsExactAgainstEverySubset) {
  for (bool flash : {true, false}) {
    const LayerModel l = gpt_layer(flash);
    const std::vector<InBlockChoice> frontier = in_block_frontier(l);
    ASSERT_GE(frontier.size(), 3u);
    EXPECT_TRUE(frontier.back().rerun.empty());
    for (size_t i = 1; i < frontier.size(); ++i) {
      EXPECT_GT(frontier[i].kept_bytes, frontier[i - 1].kept_bytes);
      EXPECT_LT(frontier[i].rerun_s, frontier[i - 1].rerun_s);
    }
    // For every one of the 2^8 subsets, the frontier holds a choice keeping no more bytes that is as fast.
    const int droppable[] = {kLN1, kQKV, kAttn, kProj, kLN2, kUp, kGelu, kDown};
    for (uint32_t mask = 0; mask < 256; ++mask) {
      std::vector<bool> keep(kOps, true);
      for (int b = 0; b < 8; ++b) keep[size_t(droppable[b])] = (mask >> b) & 1u;
      const InBlockChoice c = in_block_choice(l, keep);
      const InBlockChoice best = best_in_block(l, c.kept_bytes);
      EXPECT_LE(best.kept_bytes, c.kept_bytes);
      EXPECT_LE(best.rerun_s, c.rerun_s) << mask;
    }
  }
}

TEST(CheckpointInBlock, NeverSlowerThanBlockLevelNeverOverBudget) {
  for (bool flash : {true, false}) {
    const LayerModel l = gpt_layer(flash);
    const int64_t L = 32;
    const double lo = min_peak_bytes(l, L), hi = no_checkpoints(l, L).total_peak_bytes * 1.1;
    int strictly_faster = 0;
    for (int i = 0; i <= 40; ++i) {
      const double budget = lo * std::pow(hi / lo, i / 40.0);
      const Plan block = optimal(l, L, budget), sel = optimal_in_block(l, L, budget);
      EXPECT_LE(sel.total_peak_bytes, budget) << i;
      EXPECT_LE(sel.step_s, block.step_s * (1 + 1e-12)) << i;
      if (sel.step_s < block.step_s * (1 - 1e-9)) ++strictly_faster;
      // Its numbers are those of evaluating its own segments and choice.
      const Plan again = evaluate(l, L, sel.segments, "x", &sel.in_block);
      EXPECT_DOUBLE_EQ(again.total_peak_bytes, sel.total_peak_bytes);
      EXPECT_DOUBLE_EQ(again.step_s, sel.step_s);
    }
    EXPECT_GT(strictly_faster, 5) << "the in-block choice should beat whole-layer recompute for many budgets";
    // Dropping everything in-block is the "every block" schedule, so the least peaks agree; at the
    // least peak the in-block plan still fits.
    EXPECT_LE(optimal_in_block(l, L, lo).total_peak_bytes, lo);
  }
}

TEST(CheckpointInBlock, WithNothingToChooseItIsTheBlockLevelOptimum) {
  // A layer without ops has one in-block choice (keep all), so the closed-form search must land on
  // the segment DP's answer exactly: same time, same peak.
  const LayerModel l = synthetic(3, 11);
  ASSERT_EQ(in_block_frontier(l).size(), 1u);
  for (int64_t L : {1, 2, 7, 16, 33}) {
    const double lo = min_peak_bytes(l, L), hi = no_checkpoints(l, L).total_peak_bytes;
    for (int i = 0; i <= 30; ++i) {
      const double budget = lo + (hi - lo) * i / 30.0;
      const Plan a = optimal(l, L, budget), b = optimal_in_block(l, L, budget);
      EXPECT_DOUBLE_EQ(b.step_s, a.step_s) << "L=" << L << " budget " << budget;
      EXPECT_DOUBLE_EQ(b.total_peak_bytes, a.total_peak_bytes) << "L=" << L << " budget " << budget;
    }
  }
}

TEST(CheckpointInBlock, MatchesBruteForceOnAShortStack) {
  // A tiny layer (B=1, N=16, d=16, H=2) over 4 layers: every segmentation × recompute flags × every
  // one of the 256 in-block choices for the kept layers, evaluated one by one.
  const LayerModel l = layer_model({4, 1, 16, 16, 2, 4, false}, h200());
  const int64_t L = 4;
  const std::vector<std::vector<Segment>> schedules = all_schedules(L);
  const int droppable[] = {kLN1, kQKV, kAttn, kProj, kLN2, kUp, kGelu, kDown};
  std::vector<std::pair<double, double>> all;  // (peak, step)
  for (uint32_t mask = 0; mask < 256; ++mask) {
    std::vector<bool> keep(kOps, true);
    for (int b = 0; b < 8; ++b) keep[size_t(droppable[b])] = (mask >> b) & 1u;
    const InBlockChoice c = in_block_choice(l, keep);
    for (const auto& segs : schedules) {
      const Plan p = evaluate(l, L, segs, "brute", &c);
      all.push_back({p.total_peak_bytes, p.step_s});
    }
  }
  double least = all[0].first, most = all[0].first;
  for (const auto& [peak, step] : all) least = std::min(least, peak), most = std::max(most, peak);
  EXPECT_TRUE(throws_bad_input([&] { optimal_in_block(l, L, least * 0.999); }));
  int checked = 0;
  for (int i = 0; i <= 200; ++i) {
    const double budget = least + (most - least) * i / 200.0;
    double fastest = 1e30;
    for (const auto& [peak, step] : all)
      if (peak <= budget) fastest = std::min(fastest, step);
    const Plan best = optimal_in_block(l, L, budget);
    EXPECT_LE(best.total_peak_bytes, budget);
    EXPECT_NEAR(best.step_s, fastest, 1e-12 * fastest) << "budget " << budget;
    ++checked;
  }
  EXPECT_EQ(checked, 201);
}

TEST(CheckpointInBlock, PictureHasARowPerPlanAndTheRightCells) {
  const LayerModel l = gpt_layer(true);
  const int64_t L = 8;
  const double budget = 40.0 * (1ull << 30);
  const std::vector<Plan> plans = {no_checkpoints(l, L), every_kth(l, L, 2), optimal_in_block(l, L, budget)};
  const std::string svg = sol::report::plans_svg(l, L, plans, budget, "test <title>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("test &lt;title&gt;"), std::string::npos);
  for (const auto& p : plans) EXPECT_NE(svg.find(">" + p.strategy + "<"), std::string::npos) << p.strategy;
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  // Cells: 3 plans × 8 layers × (input + 8 saving ops); the key adds 9 and the legend 5 swatches.
  // "none" keeps all 8·8 activations; "every 2nd block" rebuilds every activation and the inputs of
  // layers 1, 3, 5, 7; the key draws one kept input and 8 kept activations.
  const size_t kept_cells_none = 8 * 8;
  EXPECT_EQ(count("fill=\"#e4e4e4\""), 8u * 8 + 4 + 1 + (plans[2].recomputed_layers * 9 - plans[2].checkpoints));
  EXPECT_GE(count("fill=\"#4a86c5\""), kept_cells_none + 8);
}

// The checkpointing planner: a layer's ops with their saved bytes and forward floors (from the cost
// models), schedules as segments of layers, and the optimum under a memory budget by a dynamic
// program over segment boundaries. Accounting (the lecture's, and cost.hpp's activation_memory):
//   peak = Σ kept segments' (inputs + internals) + Σ recomputed segments' inputs
//        + the largest recomputed segment re-materialized (its internals + its inner layers' inputs).
#include "sol/model/checkpoint.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>

#include "sol/core/error.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"

namespace sol::model {
namespace {

// The DP below is O(L⁴/2) simple steps; 128 layers is ~10⁸ and well under a second.
constexpr int64_t kMaxLayers = 128;
constexpr double kStatBytes = 4;  // LayerNorm keeps mean and 1/σ per row in fp32

void check_layers(int64_t layers) {
  if (layers < 1 || layers > kMaxLayers)
    bad_input("--layers must be 1.." + std::to_string(kMaxLayers) + ", got " + std::to_string(layers));
}

LayerOp op_from(const std::string& name, const Cost& c, double saved, std::string what, const hw::HwSpec& hw,
                std::vector<int> reads, std::vector<int> saves) {
  LayerOp op;
  op.name = name;
  op.saved_bytes = saved;
  op.flops = c.flops;
  op.floor_s = roofline(c, hw).t_floor_s;
  op.saved_what = std::move(what);
  op.reads = std::move(reads);
  op.saves = std::move(saves);
  return op;
}

void check_budget(double budget_bytes) {
  if (!(budget_bytes > 0) || !std::isfinite(budget_bytes)) bad_input("the memory budget must be a positive size");
}

[[noreturn]] void nothing_fits(double least_peak, const std::string& even) {
  bad_input("no checkpointing schedule fits the budget" + even + ": the least peak (saved + transient) is " +
                std::to_string(int64_t(std::ceil(least_peak / (1024.0 * 1024.0)))) + " MiB",
            "raise --budget, or shrink --batch or --seq");
}

// Ops whose saved tensors the in-block choice may drop; more than this is not enumerated.
constexpr size_t kMaxChoiceOps = 16;

// Re-materializing a recomputed segment of `len` layers holds its internals and the inputs of its
// inner layers (its own input is already kept as the checkpoint).
double rematerialized(const LayerModel& l, int64_t len) {
  return len <= 0 ? 0 : double(len) * l.internal_bytes + double(len - 1) * l.input_bytes;
}

}  // namespace

LayerModel layer_model(const StackShape& s, const hw::HwSpec& hw) {
  const std::string what = "transformer layer activation";
  for (auto [v, name] : std::initializer_list<std::pair<int64_t, const char*>>{{s.layers, "--layers"}, {s.batch, "--batch"}, {s.seq, "--seq"},
                         {s.d_model, "--d-model"}, {s.heads, "--heads"}, {s.mlp_ratio, "--mlp-ratio"}})
    if (v < 1) bad_input(std::string(name) + " must be ≥ 1, got " + std::to_string(v));
  if (s.d_model % s.heads != 0)
    bad_input("--heads " + std::to_string(s.heads) + " does not divide --d-model " + std::to_string(s.d_model),
              "head dim = d_model / heads must be a whole number");
  const int64_t b = dtype_bytes(s.dtype);
  const int64_t T = checked_product({s.batch, s.seq}, what);  // tokens
  const int64_t d = s.d_model, f = checked_product({s.mlp_ratio, d}, what);
  const double td = double(checked_product({T, d, b}, what));  // one [T × d] activation
  const double tf = double(checked_product({T, f, b}, what));  // one [T × f] activation
  const double stats = double(T) * 2 * kStatBytes;

  LayerModel m;
  m.input_bytes = td;
  const AttentionOp att{s.batch, s.heads, s.seq, d / s.heads, s.flash, 128, false, false, s.dtype};
  const Cost ca = attention(att);
  // Both kinds keep Q, K, V; standard adds P (N×N per head); flash adds the logsumexp (its O is the
  // out projection's input, counted there).
  const double att_extra = s.flash ? ca.saved_bytes - td : ca.saved_bytes;
  // The dataflow, for the in-block choice: each tensor and the op (index below) that writes it.
  enum Tensor { kX, kStats1, kA1, kQkv, kAttSaved, kO, kProj, kH, kStats2, kA2, kUp, kGelu, kDown, kY };
  m.tensors = {{"layer input", td, -1},  {"LN1 stats", stats, 0}, {"LN1 output", td, 0},
               {"Q, K, V", 3 * td, 1},   {s.flash ? "logsumexp" : "P", att_extra, 2},
               {"O", td, 2},             {"out proj output", td, 3}, {"residual 1 output", td, 4},
               {"LN2 stats", stats, 5},  {"LN2 output", td, 5},     {"MLP up output", tf, 6},
               {"GeLU output", tf, 7},   {"MLP down output", td, 8}, {"layer output", td, 9}};
  auto& ops = m.ops;
  const RowOp ln{RowKind::LayerNorm, T, d, true, s.dtype};
  // LN1's input is the layer input: counted once, as input_bytes; LN1 itself adds its row stats.
  ops.push_back(op_from("LN1", row_op(ln), stats, "mean, 1/σ (fp32); its input is the layer input", hw, {kX},
                        {kStats1}));
  ops.push_back(op_from("QKV matmul", matmul({T, 3 * d, d, s.dtype}), td, "LN1 output [T×d]", hw, {kA1}, {kA1}));
  ops.push_back(op_from(s.flash ? "attention (flash)" : "attention (standard)", ca, 3 * td + att_extra,
                        s.flash ? "Q, K, V, logsumexp (fp32)" : "Q, K, V, P [N×N per head]", hw, {kQkv},
                        {kQkv, kAttSaved}));
  ops.push_back(op_from("out proj", matmul({T, d, d, s.dtype}), td, "attention output O [T×d]", hw, {kO}, {kO}));
  const ElementwiseOp add_d{T * d, 1, false, 1, s.dtype, 1};
  ops.push_back(op_from("residual 1", elementwise(add_d), 0, "nothing (an add passes its gradient through)", hw,
                        {kX, kProj}, {}));
  ops.push_back(op_from("LN2", row_op(ln), td + stats, "its input [T×d], mean, 1/σ (fp32)", hw, {kH}, {kH, kStats2}));
  ops.push_back(op_from("MLP up", matmul({T, f, d, s.dtype}), td, "LN2 output [T×d]", hw, {kA2}, {kA2}));
  // GeLU (tanh form): ~8 FLOPs per element.
  ops.push_back(op_from("GeLU", elementwise({T * f, 1, false, 8, s.dtype, 0}), tf, "its input [T×f]", hw, {kUp}, {kUp}));
  ops.push_back(op_from("MLP down", matmul({T, d, f, s.dtype}), tf, "GeLU output [T×f]", hw, {kGelu}, {kGelu}));
  ops.push_back(op_from("residual 2", elementwise(add_d), 0, "nothing", hw, {kH, kDown}, {}));
  for (const auto& op : ops) {
    m.internal_bytes += op.saved_bytes;
    m.flops += op.flops;
    m.floor_s += op.floor_s;
  }
  // The backward of one layer, phase by phase, with the gradient of its output (dy) live throughout:
  // the high-water mark of what it allocates beside the saved tensors.
  const double dd = double(checked_product({d, d, b}, what)), fd = double(checked_product({f, d, b}, what));
  const double dq_accum = double(checked_product({T, d, 4}, what)) + double(T) * double(s.heads) * 4;
  const std::pair<double, const char*> phases[] = {
      {3 * td + tf - td, "MLP down dW: dy, dyᵀ, GeLU outputᵀ"},
      {td + fd + tf, "MLP down dx: dy, W_downᵀ, dGeLU"},
      {td + 2 * tf, "GeLU backward: dy, dGeLU, dU"},
      {2 * td + 2 * tf, "MLP up dW: dy, dU, dUᵀ, LN2 outputᵀ"},
      {2 * td + tf + fd, "MLP up dx: dy, dU, W_upᵀ, dLN2"},
      {4 * td, "LN2 backward: dy, dLN2, its dx, dh"},
      {3 * td + dd, "out proj dx: dy, dh, W_outᵀ, dO"},
      {6 * td + dq_accum, "attention backward: dy, dh, dO, dQ dK dV, fp32 dQ accumulator"},
      {9 * td, "QKV dW: dy, dh, [dQ|dK|dV], its transpose, LN1 outputᵀ"},
      {6 * td + 3 * dd, "QKV dx: dy, dh, [dQ|dK|dV], W_qkvᵀ, dLN1"},
      {5 * td, "LN1 backward: dy, dh, dLN1, its dx, dx"}};
  for (const auto& [bytes, phase] : phases)
    if (bytes > m.transient_bytes) {
      m.transient_bytes = bytes;
      m.transient_what = phase;
    }
  return m;
}

double op_time(const LayerOp& op) { return op.time_s > 0 ? op.time_s : op.floor_s; }
double forward_time(const LayerModel& layer) { return layer.forward_s > 0 ? layer.forward_s : layer.floor_s; }
double backward_time(const LayerModel& layer) { return layer.backward_s > 0 ? layer.backward_s : 2 * layer.floor_s; }

InBlockChoice in_block_choice(const LayerModel& layer, std::vector<bool> keep) {
  const size_t n = layer.ops.size();
  if (keep.empty()) keep.assign(n, true);
  if (keep.size() != n) bad_input("an in-block choice names " + std::to_string(keep.size()) + " ops, the layer has " +
                                  std::to_string(n));
  InBlockChoice c;
  c.kept_bytes = layer.internal_bytes;
  // Tensors present in backward without re-running anything: the layer input and what kept ops saved.
  std::vector<bool> present(layer.tensors.size(), false), rerun(n, false);
  for (size_t t = 0; t < layer.tensors.size(); ++t) present[t] = layer.tensors[t].producer < 0;
  for (size_t i = 0; i < n; ++i) {
    if (layer.ops[i].saved_bytes <= 0) keep[i] = true;
    if (keep[i])
      for (int t : layer.ops[i].saves) present[size_t(t)] = true;
    else
      c.kept_bytes -= layer.ops[i].saved_bytes;
  }
  // A missing tensor is rebuilt by re-running its producer, whose own missing inputs are rebuilt first.
  std::vector<int> missing;
  for (size_t i = 0; i < n; ++i)
    if (!keep[i])
      for (int t : layer.ops[i].saves) missing.push_back(t);
  while (!missing.empty()) {
    const int t = missing.back();
    missing.pop_back();
    if (present[size_t(t)]) continue;
    const int op = layer.tensors[size_t(t)].producer;
    rerun[size_t(op)] = true;
    for (int out = 0; out < int(layer.tensors.size()); ++out)
      if (layer.tensors[size_t(out)].producer == op) present[size_t(out)] = true;
    for (int in : layer.ops[size_t(op)].reads) missing.push_back(in);
  }
  for (size_t i = 0; i < n; ++i)
    if (rerun[i]) {
      c.rerun.push_back(int(i));
      c.rerun_flops += layer.ops[i].flops;
      c.rerun_s += op_time(layer.ops[i]);
    }
  c.dropped_bytes = layer.internal_bytes - c.kept_bytes;
  c.keep = std::move(keep);
  return c;
}

std::vector<InBlockChoice> in_block_frontier(const LayerModel& layer) {
  std::vector<size_t> droppable;
  for (size_t i = 0; i < layer.ops.size(); ++i)
    if (layer.ops[i].saved_bytes > 0) droppable.push_back(i);
  if (droppable.size() > kMaxChoiceOps)
    bad_input("a layer of " + std::to_string(droppable.size()) + " ops that save tensors is too many to enumerate",
              "the in-block choice enumerates up to " + std::to_string(kMaxChoiceOps));
  std::vector<InBlockChoice> all;
  for (uint32_t mask = 0; mask < (1u << droppable.size()); ++mask) {
    std::vector<bool> keep(layer.ops.size(), true);
    for (size_t b = 0; b < droppable.size(); ++b) keep[droppable[b]] = (mask >> b) & 1u;
    all.push_back(in_block_choice(layer, std::move(keep)));
  }
  std::stable_sort(all.begin(), all.end(), [](const InBlockChoice& a, const InBlockChoice& b) {
    return a.kept_bytes != b.kept_bytes ? a.kept_bytes < b.kept_bytes : a.rerun_s < b.rerun_s;
  });
  std::vector<InBlockChoice> frontier;
  for (auto& c : all)
    if (frontier.empty() || c.rerun_s < frontier.back().rerun_s) frontier.push_back(std::move(c));
  return frontier;
}

InBlockChoice best_in_block(const LayerModel& layer, double budget_bytes) {
  const std::vector<InBlockChoice> frontier = in_block_frontier(layer);
  if (frontier.front().kept_bytes > budget_bytes)
    bad_input("no in-block choice keeps at most " + std::to_string(int64_t(budget_bytes)) + " bytes",
              "the least a layer can keep is " + std::to_string(int64_t(frontier.front().kept_bytes)) + " bytes");
  for (size_t i = frontier.size(); i-- > 0;)
    if (frontier[i].kept_bytes <= budget_bytes) return frontier[i];
  return frontier.front();
}

Plan evaluate(const LayerModel& layer, int64_t layers, std::vector<Segment> segments, std::string strategy,
              const InBlockChoice* choice) {
  check_layers(layers);
  Plan p;
  p.strategy = std::move(strategy);
  p.in_block = choice ? *choice : in_block_choice(layer, {});
  const InBlockChoice& c = p.in_block;
  int64_t next = 0, kept_layers = 0;
  double kept = 0;
  for (const auto& seg : segments) {
    if (seg.first != next || seg.length < 1) bad_input("segments must cover the layers in order without gaps");
    next += seg.length;
    if (seg.recompute) {
      kept += layer.input_bytes;
      ++p.checkpoints;
      p.recomputed_layers += seg.length;
      p.largest_segment = std::max(p.largest_segment, seg.length);
    } else {
      kept += double(seg.length) * (layer.input_bytes + c.kept_bytes);
      kept_layers += seg.length;
    }
  }
  if (next != layers) bad_input("segments cover " + std::to_string(next) + " layers, not " + std::to_string(layers));
  p.segments = std::move(segments);
  // A kept layer re-materializes what it dropped during its own backward, one layer at a time.
  const double transient = std::max(rematerialized(layer, p.largest_segment), kept_layers > 0 ? c.dropped_bytes : 0);
  p.peak_bytes = kept + transient;
  p.total_peak_bytes = p.peak_bytes + layer.transient_bytes;
  p.extra_flops = double(p.recomputed_layers) * layer.flops + double(kept_layers) * c.rerun_flops;
  const double fwd = forward_time(layer);
  p.extra_s = double(p.recomputed_layers) * fwd + double(kept_layers) * c.rerun_s;
  p.step_s = double(layers) * (fwd + backward_time(layer)) + layer.step_once_s + p.extra_s;
  return p;
}

Plan no_checkpoints(const LayerModel& layer, int64_t layers) {
  check_layers(layers);
  return evaluate(layer, layers, {{0, layers, false}}, "none");
}

Plan every_kth(const LayerModel& layer, int64_t layers, int64_t k) {
  check_layers(layers);
  if (k < 1) bad_input("checkpoint interval must be ≥ 1, got " + std::to_string(k));
  std::vector<Segment> segs;
  for (int64_t i = 0; i < layers; i += k) segs.push_back({i, std::min(k, layers - i), true});
  // English ordinals: 2nd, 3rd, 11th, 21st, 22nd.
  const int64_t tens = k % 100, ones = k % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  const std::string name = k == 1 ? "every block" : "every " + std::to_string(k) + suffix + " block";
  return evaluate(layer, layers, std::move(segs), name);
}

Plan sqrt_l(const LayerModel& layer, int64_t layers) {
  check_layers(layers);
  const int64_t k = std::max<int64_t>(1, std::llround(std::sqrt(double(layers))));
  Plan p = every_kth(layer, layers, k);
  p.strategy = "√L segments (k=" + std::to_string(k) + ")";
  return p;
}

// For each cap m on a recomputed segment's length, best[i][r] = the least stored memory for layers
// [0, i) with r of them recomputed, every recomputed segment ≤ m layers. Kept layers are stored one
// by one (a kept run of s layers stores s·(input + internals) either way). The peak of a schedule
// is then ≤ best[L][r] + rematerialized(m), with equality when some segment has exactly m layers,
// so the minimum over m is exact. Time grows with r alone (the layers are identical): the answer is
// the smallest r that fits, then the smallest peak.
Plan optimal(const LayerModel& layer, int64_t layers, double budget_bytes) {
  check_layers(layers);
  check_budget(budget_bytes);
  const int64_t L = layers;
  const double inf = std::numeric_limits<double>::infinity();
  const double x = layer.input_bytes, keep = layer.input_bytes + layer.internal_bytes;
  struct Step {
    int64_t from_i = -1, from_r = -1;
  };
  auto solve = [&](int64_t m, std::vector<std::vector<double>>& best, std::vector<std::vector<Step>>& how) {
    best.assign(L + 1, std::vector<double>(L + 1, inf));
    how.assign(L + 1, std::vector<Step>(L + 1));
    best[0][0] = 0;
    for (int64_t i = 0; i < L; ++i)
      for (int64_t r = 0; r <= i; ++r) {
        const double here = best[i][r];
        if (here == inf) continue;
        if (here + keep < best[i + 1][r]) {
          best[i + 1][r] = here + keep;
          how[i + 1][r] = {i, r};
        }
        for (int64_t s = 1; s <= m && i + s <= L; ++s)
          if (here + x < best[i + s][r + s]) {
            best[i + s][r + s] = here + x;
            how[i + s][r + s] = {i, r};
          }
      }
  };
  int64_t best_m = -1, best_r = L + 1;
  double best_peak = inf, least_peak = inf;
  std::vector<std::vector<double>> best;
  std::vector<std::vector<Step>> how;
  for (int64_t m = 0; m <= L; ++m) {
    solve(m, best, how);
    for (int64_t r = (m == 0 ? 0 : m); r <= (m == 0 ? 0 : L); ++r) {
      const double peak = best[L][r] + rematerialized(layer, m) + layer.transient_bytes;
      least_peak = std::min(least_peak, peak);
      if (peak > budget_bytes) continue;
      if (r < best_r || (r == best_r && peak < best_peak)) {
        best_r = r;
        best_m = m;
        best_peak = peak;
      }
    }
  }
  if (best_m < 0) nothing_fits(least_peak, "");
  solve(best_m, best, how);
  std::vector<Segment> segs;
  for (int64_t i = L, r = best_r; i > 0;) {
    const Step st = how[i][r];
    segs.push_back({st.from_i, i - st.from_i, r != st.from_r});
    i = st.from_i;
    r = st.from_r;
  }
  std::reverse(segs.begin(), segs.end());
  // Merge neighbouring kept layers into one kept segment (same memory, easier to read).
  std::vector<Segment> merged;
  for (const auto& s : segs) {
    if (!merged.empty() && !s.recompute && !merged.back().recompute)
      merged.back().length += s.length;
    else
      merged.push_back(s);
  }
  return evaluate(layer, layers, std::move(merged), "optimal");
}

// Layers are identical, so a schedule is r recomputed layers in segments of at most m (storing
// ⌈r/m⌉ inputs) and L − r kept layers that all use one frontier choice; the search is over
// (choice, r, m), each evaluated in closed form. Time falls with r only through recompute, so the
// fastest fitting (choice, r) wins; ties go to the smaller peak.
Plan optimal_in_block(const LayerModel& layer, int64_t layers, double budget_bytes) {
  check_layers(layers);
  check_budget(budget_bytes);
  const int64_t L = layers;
  const double x = layer.input_bytes, F = forward_time(layer), B = backward_time(layer);
  const std::vector<InBlockChoice> frontier = in_block_frontier(layer);
  const double inf = std::numeric_limits<double>::infinity();
  double best_time = inf, best_peak = inf, least_peak = inf;
  int64_t best_r = -1, best_m = 0;
  size_t best_c = 0;
  for (size_t ci = 0; ci < frontier.size(); ++ci) {
    const InBlockChoice& c = frontier[ci];
    for (int64_t r = 0; r <= L; ++r)
      for (int64_t m = (r == 0 ? 0 : 1); m <= r; ++m) {
        const int64_t segments = m == 0 ? 0 : (r + m - 1) / m;
        const double stored = double(L - r) * (x + c.kept_bytes) + double(segments) * x;
        const double peak =
            stored + std::max(rematerialized(layer, m), r < L ? c.dropped_bytes : 0) + layer.transient_bytes;
        const double time = double(L) * (F + B) + layer.step_once_s + double(r) * F + double(L - r) * c.rerun_s;
        least_peak = std::min(least_peak, peak);
        if (peak > budget_bytes) continue;
        if (time < best_time || (time == best_time && peak < best_peak)) {
          best_time = time;
          best_peak = peak;
          best_r = r;
          best_m = m;
          best_c = ci;
        }
      }
  }
  if (best_r < 0) nothing_fits(least_peak, ", even with in-block selection");
  std::vector<Segment> segs;
  for (int64_t first = 0; first < best_r; first += best_m) segs.push_back({first, std::min(best_m, best_r - first), true});
  if (best_r < L) segs.push_back({best_r, L - best_r, false});
  return evaluate(layer, layers, std::move(segs), "optimal + in-block selection", &frontier[best_c]);
}

double min_peak_bytes(const LayerModel& layer, int64_t layers) {
  check_layers(layers);
  double least = no_checkpoints(layer, layers).total_peak_bytes;
  for (int64_t k = 1; k <= layers; ++k) least = std::min(least, every_kth(layer, layers, k).total_peak_bytes);
  return least;
}

std::vector<Plan> candidate_plans(const LayerModel& layer, int64_t layers, double budget_bytes) {
  std::vector<Plan> plans = {no_checkpoints(layer, layers), every_kth(layer, layers, 1)};
  for (int64_t k : {2, 4, 8})
    if (k < layers) plans.push_back(every_kth(layer, layers, k));
  plans.push_back(sqrt_l(layer, layers));
  // The in-block optimum fits whenever the block-level one does (and sometimes when it does not).
  std::optional<Plan> block_best;
  try {
    block_best = optimal(layer, layers, budget_bytes);
  } catch (const Error& e) {
    if (e.kind() != Error::Kind::BadInput) throw;
  }
  Plan best = optimal_in_block(layer, layers, budget_bytes);  // throws (BadInput) if nothing fits
  if (block_best) plans.push_back(*block_best);
  plans.push_back(std::move(best));
  return plans;
}

std::vector<std::string> dropped_ops(const LayerModel& layer, const Plan& p) {
  std::vector<std::string> out;
  for (size_t i = 0; i < p.in_block.keep.size(); ++i)
    if (!p.in_block.keep[i]) out.push_back(layer.ops[i].name);
  return out;
}

std::vector<std::string> rerun_ops(const LayerModel& layer, const Plan& p) {
  std::vector<std::string> out;
  for (int i : p.in_block.rerun) out.push_back(layer.ops[size_t(i)].name);
  return out;
}

namespace {
using ojson = nlohmann::ordered_json;

ojson plan_doc(const LayerModel& layer, const Plan& p) {
  ojson j;
  j["strategy"] = p.strategy;
  j["peak_bytes"] = p.peak_bytes;
  j["total_peak_bytes"] = p.total_peak_bytes;
  j["checkpoints"] = p.checkpoints;
  j["largest_segment"] = p.largest_segment;
  j["recomputed_layers"] = p.recomputed_layers;
  j["extra_flops"] = p.extra_flops;
  j["extra_s"] = p.extra_s;
  j["step_s"] = p.step_s;
  ojson segs = ojson::array();
  for (const auto& s : p.segments) segs.push_back({{"first", s.first}, {"length", s.length}, {"recompute", s.recompute}});
  j["segments"] = segs;
  j["in_block"] = {{"dropped", dropped_ops(layer, p)}, {"rerun", rerun_ops(layer, p)},
                   {"kept_bytes_per_layer", p.in_block.kept_bytes}, {"rerun_s_per_layer", p.in_block.rerun_s}};
  return j;
}
}  // namespace

std::string checkpoint_json(const std::string& gpu, int64_t layers, const std::string& attention, double budget_bytes,
                            const LayerModel& layer, const std::vector<Plan>& plans) {
  if (plans.empty()) failure("checkpoint_json: no plans");
  ojson j;
  j["gpu"] = gpu;
  j["layers"] = layers;
  j["attention"] = attention;
  j["budget_bytes"] = budget_bytes;
  ojson ops = ojson::array();
  for (const auto& op : layer.ops)
    ops.push_back({{"op", op.name}, {"saved_bytes", op.saved_bytes}, {"saved", op.saved_what}, {"flops", op.flops},
                   {"floor_s", op.floor_s}, {"time_s", op_time(op)}});
  j["layer"] = {{"input_bytes", layer.input_bytes}, {"internal_bytes", layer.internal_bytes},
                {"flops", layer.flops}, {"floor_s", layer.floor_s}, {"forward_s", forward_time(layer)},
                {"backward_s", backward_time(layer)}, {"step_once_s", layer.step_once_s},
                {"times", layer.time_source}, {"ops", ops}};
  j["strategies"] = ojson::array();
  for (const auto& p : plans) j["strategies"].push_back(plan_doc(layer, p));
  j["chosen"] = plan_doc(layer, plans.back());
  return j.dump();
}

}  // namespace sol::model

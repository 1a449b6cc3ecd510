#include "sol/model/roofline_query.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/suggest.hpp"
#include "sol/model/comm.hpp"
#include "sol/sim/mxu.hpp"

namespace sol::model {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string percent(double fraction) { return num(fraction * 100, 3) + " %"; }

class Sizes {
 public:
  explicit Sizes(const RooflineQuery& q) : q_(q) {}
  // The size, or `dflt` when absent (a missing size without a default is an error).
  int64_t get(const std::string& name, int64_t dflt = 0) const {
    const auto it = q_.sizes.find(name);
    if (it == q_.sizes.end()) {
      if (dflt > 0) return dflt;
      bad_input("missing size '" + name + "' for " + q_.op, "give " + name + " (a count ≥ 1)");
    }
    return it->second;  // the op's model checks the value (≥ 1, no overflow)
  }
  int small(const std::string& name, int64_t dflt, int64_t lo) const {
    const auto it = q_.sizes.find(name);
    const int64_t v = it == q_.sizes.end() ? dflt : it->second;
    if (v < lo || v > INT_MAX) bad_input(name + " must be between " + std::to_string(lo) + " and " + std::to_string(INT_MAX));
    return int(v);
  }
  bool has(const std::string& name) const { return q_.sizes.count(name) > 0; }

 private:
  const RooflineQuery& q_;
};

std::string impl_of(const RooflineQuery& q, std::initializer_list<const char*> names, const char* dflt) {
  const std::string impl = q.impl.empty() ? dflt : lower(q.impl);
  for (const char* n : names)
    if (impl == n) return impl;
  std::string valid;
  for (const char* n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
  bad_input("unknown impl '" + q.impl + "' for " + q.op, "use one of " + valid);
}

bool tensor_parallel(const std::string& op) { return op == "tp-mlp" || op == "tp-attention"; }

// The parts of a tensor-parallel layer on one GPU (see TpView).
std::vector<Cost> tp_parts(const RooflineQuery& q) {
  const Sizes s(q);
  const int64_t n = s.get("gpus"), t = s.get("tokens"), h = s.get("hidden");
  if (n < 2 || n > 1 << 20) bad_input("gpus must be 2..1048576 for a tensor-parallel layer, got " + std::to_string(n));
  for (const auto& [name, v] : q.sizes)
    if (v < 1 || v > (int64_t(1) << 40)) bad_input(name + " must be between 1 and 2^40, got " + std::to_string(v));
  if (double(t) * double(h) > 1e15 || (q.sizes.count("ffn") && double(t) * double(s.get("ffn")) > 1e15))
    bad_input("tokens × hidden (or × ffn) is more than 10^15 elements", "give a layer that fits a GPU");
  auto split = [&](int64_t v, const char* what) {
    if (v % n != 0) bad_input(std::string(what) + " " + std::to_string(v) + " does not split over " + std::to_string(n) + " GPUs",
                              std::string("give a ") + what + " that is a multiple of gpus");
    return v / n;
  };
  std::vector<Cost> parts;
  if (q.op == "tp-mlp") {
    const int64_t f = split(s.get("ffn"), "ffn");
    parts.push_back(matmul({.m = t, .n = f, .k = h, .dtype = q.dtype}));
    parts.back().op = "W1, column-parallel: " + parts.back().op;
    ElementwiseOp gelu{.n = t * f, .ops = 1, .fused = true, .dtype = q.dtype};
    parts.push_back(elementwise(gelu));
    parts.back().op = "GeLU: " + parts.back().op;
    parts.push_back(matmul({.m = t, .n = h, .k = f, .dtype = q.dtype}));
    parts.back().op = "W2, row-parallel: " + parts.back().op;
    return parts;
  }
  const int64_t heads = s.get("heads"), seq = s.get("seq");
  if (h % heads != 0) bad_input("hidden " + std::to_string(h) + " is not a multiple of heads " + std::to_string(heads));
  if (t % seq != 0) bad_input("tokens " + std::to_string(t) + " is not a multiple of seq " + std::to_string(seq),
                              "tokens = batch × seq");
  const int64_t local_heads = split(heads, "heads"), local_h = split(h, "hidden");
  parts.push_back(matmul({.m = t, .n = 3 * local_h, .k = h, .dtype = q.dtype}));
  parts.back().op = "QKV, column-parallel: " + parts.back().op;
  AttentionOp att{.batch = t / seq, .heads = local_heads, .seq = seq, .head_dim = h / heads};
  att.flash = true;
  att.causal = q.causal;
  att.dtype = q.dtype;
  parts.push_back(attention(att));
  parts.back().op = "attention: " + parts.back().op;
  parts.push_back(matmul({.m = t, .n = h, .k = local_h, .dtype = q.dtype}));
  parts.back().op = "output projection, row-parallel: " + parts.back().op;
  return parts;
}

TpView tp_view(const RooflineQuery& q, const hw::HwSpec& hw) {
  const Sizes s(q);
  TpView v;
  v.gpus = s.get("gpus");
  for (const Cost& c : tp_parts(q)) {
    v.parts.push_back({c, roofline(c, hw)});
    v.compute_s += v.parts.back().estimate.t_floor_s;
  }
  CommQuery cq;
  cq.op = Collective::AllReduce;
  cq.ranks = int(v.gpus);
  cq.bytes = double(s.get("tokens")) * double(s.get("hidden")) * dtype_bytes(q.dtype);
  cq.gpu = hw.name;
  cq.topology = q.topology;
  const CommAnswer ar = comm(cq);
  v.topology = ar.query.topology;
  v.allreduce_bytes = cq.bytes;
  v.allreduce_s = ar.best.time_s;
  v.allreduce_floor_s = ar.floor_s;
  v.allreduce_algo = ar.best.algo == CommAlgo::Torus ? "torus" : algo_name(ar.best.algo) + "/" + proto_name(ar.best.proto);
  v.serial_s = v.compute_s + v.allreduce_s;
  v.overlapped_s = std::max(v.compute_s, v.allreduce_s);
  v.binds = v.allreduce_s > v.compute_s ? "communication" : "compute";
  return v;
}

Cost build_cost(const RooflineQuery& q) {
  const Sizes s(q);
  if (tensor_parallel(q.op)) {
    // The parts summed: one GPU's share of the layer, as one point on the roofline.
    Cost c;
    c.op = q.op + " per GPU of " + std::to_string(s.get("gpus")) + ": T=" + std::to_string(s.get("tokens")) +
           ", H=" + std::to_string(s.get("hidden"));
    c.op += q.op == "tp-mlp" ? ", F=" + std::to_string(s.get("ffn")) : ", heads=" + std::to_string(s.get("heads"));
    c.dtype = q.dtype;
    c.unit = hw::Unit::Matrix;
    for (const Cost& p : tp_parts(q)) {
      c.flops += p.flops;
      c.bytes += p.bytes;
      c.notes.push_back(p.op + ": " + si(p.flops, "FLOP") + ", " + si(p.bytes, "B"));
    }
    return c;
  }
  if (q.op == "custom") {
    if (!(q.flops >= 0) || !std::isfinite(q.flops) || !(q.bytes > 0) || !std::isfinite(q.bytes))
      bad_input("custom roofline needs flops ≥ 0 and bytes > 0 (finite)", "give the op's FLOPs and the bytes it moves");
    Cost c;
    c.op = q.name.empty() ? "custom op" : q.name;
    c.flops = q.flops;
    c.bytes = q.bytes;
    c.dtype = q.dtype;
    c.unit = hw::Unit::Matrix;  // the lecture's calculator divides by the tensor-core peak
    c.notes.push_back("FLOPs and bytes as given");
    return c;
  }
  if (q.op == "matmul") {
    MatmulOp op{.m = s.get("m"), .n = s.get("n"), .k = s.get("k"), .dtype = q.dtype};
    const std::string impl = impl_of(q, {"minimal", "naive", "tiled"}, "minimal");
    op.impl = impl == "naive" ? MatmulImpl::Naive : impl == "tiled" ? MatmulImpl::Tiled : MatmulImpl::Minimal;
    if (op.impl == MatmulImpl::Tiled) op.tile = s.get("tile", 32);
    else if (s.has("tile")) bad_input("tile applies only to impl tiled");
    return matmul(op);
  }
  if (q.op == "elementwise") {
    ElementwiseOp op{.n = s.get("n"), .ops = s.small("ops", 1, 1), .dtype = q.dtype};
    op.fused = impl_of(q, {"naive", "fused"}, "naive") == "fused";
    op.flops_per_op = q.flops_per_op;
    op.extra_reads = s.small("extra_reads", 0, 0);
    return elementwise(op);
  }
  if (q.op == "layernorm" || q.op == "rmsnorm" || q.op == "softmax") {
    RowOp op{.rows = s.get("rows"), .cols = s.get("cols"), .dtype = q.dtype};
    op.kind = q.op == "layernorm" ? RowKind::LayerNorm : q.op == "rmsnorm" ? RowKind::RMSNorm : RowKind::Softmax;
    op.fused = impl_of(q, {"naive", "fused"}, "naive") == "fused";
    return row_op(op);
  }
  AttentionOp op{.batch = s.get("batch", 1), .heads = s.get("heads", 1), .seq = s.get("seq"), .head_dim = s.get("head_dim")};
  const std::string impl = impl_of(q, {"naive", "standard", "flash"}, "naive");
  op.flash = impl == "flash";
  if (op.flash) op.block_q = s.get("block_q", 128);
  else if (s.has("block_q")) bad_input("block_q applies only to impl flash");
  if (q.l2_reuse && !op.flash) bad_input("l2_reuse applies only to impl flash", "use impl flash");
  op.causal = q.causal;
  op.backward = q.backward;
  op.reuse_in_l2 = q.l2_reuse;
  op.dtype = q.dtype;
  return attention(op);
}

// Which peak the % is of, and why; `natural` is the unit the op's arithmetic runs on.
std::string unit_note(hw::Unit unit, hw::Unit natural) {
  if (unit == hw::Unit::Matrix)
    return natural == hw::Unit::Matrix
               ? "peak: the matrix unit (tensor cores / MXU), which runs this op's multiply-adds"
               : "peak: the matrix unit, as asked with unit matrix; the lecture divides even elementwise FLOPs by "
                 "the 989 TFLOP/s tensor peak, so this reproduces its % of peak";
  return natural == hw::Unit::Vector
             ? "peak: the vector unit (CUDA cores / VPU), since this arithmetic cannot use tensor cores; the lecture "
               "divides by the tensor peak instead (unit matrix gives its %); the floor time is the same either way "
               "while the op is memory-bound"
             : "peak: the vector unit";
}

// TPU rows: the MXUs are 128×128 systolic arrays. The systolic simulator says how much of each
// array the shape fills (K and N not multiples of 128 leave cells idle) and how long the folds
// take; the note sets that beside the roofline floor.
std::optional<MxuView> mxu_view(const hw::HwSpec& hw, const Cost& c, const Estimate& e, std::vector<std::string>& notes,
                                int64_t m, int64_t n, int64_t k) {
  const hw::Peak& p = hw.peak(c.math_dtype.value_or(c.dtype), hw::Unit::Matrix);
  const double clock = hw.boost_clock_hz > 0 ? hw.boost_clock_hz : hw.base_clock_hz;
  const auto mxus = int64_t(p.flops_per_s / (2.0 * 128 * 128 * clock) + 0.5);
  if (clock <= 0 || mxus < 1) return std::nullopt;
  const sim::MxuMatmul s = sim::mxu_matmul(m, n, k, mxus, clock);
  const double t = std::max(s.seconds, e.t_memory_s);
  notes.push_back("MXU (sol systolic, 128×128 weight-stationary, " + std::to_string(mxus) + " MXUs): K×N cut into " +
                  std::to_string(s.map.row_folds) + "×" + std::to_string(s.map.col_folds) + " folds fill " +
                  percent(s.mapped_fraction) + " of the array (" + percent(1 - s.mapped_fraction) +
                  " lost to folds that are not full); with loads overlapped: " + std::to_string(s.cycles) +
                  " cycles per MXU = " + si(s.seconds, "s") + ", " + percent(s.fraction_of_peak) +
                  " of peak; estimate max(MXU time, memory time) = " + si(t, "s") + " vs roofline floor " +
                  si(e.t_floor_s, "s"));
  return MxuView{mxus, s.map.row_folds, s.map.col_folds, s.cycles, s.mapped_fraction, s.seconds, s.fraction_of_peak, t};
}

}  // namespace

const std::map<std::string, std::vector<std::string>>& roofline_sizes() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"matmul", {"m", "n", "k", "tile"}},
      {"elementwise", {"n", "ops", "extra_reads"}},
      {"layernorm", {"rows", "cols"}},
      {"rmsnorm", {"rows", "cols"}},
      {"softmax", {"rows", "cols"}},
      {"attention", {"batch", "heads", "seq", "head_dim", "block_q"}},
      {"custom", {}},
      {"tp-mlp", {"gpus", "tokens", "hidden", "ffn"}},
      {"tp-attention", {"gpus", "tokens", "hidden", "heads", "seq"}},
  };
  return m;
}

RooflineAnswer answer(const RooflineQuery& query) {
  RooflineQuery q = query;
  q.op = lower(q.op);
  const auto allowed = roofline_sizes().find(q.op);
  if (allowed == roofline_sizes().end()) {
    std::vector<std::string> ops;
    std::string valid;
    for (const auto& [op, sizes] : roofline_sizes()) ops.push_back(op), valid += (valid.empty() ? "" : ", ") + op;
    bad_input("unknown op '" + q.op + "'" + did_you_mean(q.op, ops), "use one of " + valid);
  }
  for (const auto& [name, v] : q.sizes)
    if (std::find(allowed->second.begin(), allowed->second.end(), name) == allowed->second.end())
      bad_input("size '" + name + "' does not apply to " + q.op);

  RooflineAnswer a;
  a.kind = q.op;
  a.hw = &hw::find(q.gpu);
  const hw::HwSpec& hw = *a.hw;
  a.cost = build_cost(q);
  a.notes = a.cost.notes;
  const hw::Unit natural = a.cost.unit;
  const std::string unit = lower(q.unit);
  if (!unit.empty() && unit != "matrix" && unit != "vector") bad_input("unknown unit '" + q.unit + "'", "use matrix or vector");
  const hw::Unit asked = unit.empty() ? natural : unit == "matrix" ? hw::Unit::Matrix : hw::Unit::Vector;
  const PeakChoice choice = resolve_peak(hw, q.dtype, asked);
  // An explicit unit is obeyed: no moving to the other unit (peak() then says what the chip has).
  a.cost.unit = unit.empty() ? choice.unit : asked;
  if (choice.unit == a.cost.unit && choice.dtype != q.dtype) a.cost.math_dtype = choice.dtype;
  if (choice.unit == a.cost.unit && !choice.why.empty()) a.notes.push_back(choice.why);
  a.notes.push_back(unit_note(a.cost.unit, natural));
  // The unfused models count every pass as HBM traffic; a tensor that fits in L2 may be served
  // from there on the later passes.
  const bool unfused_stream = q.op != "matmul" && q.op != "attention" && q.op != "custom" && !tensor_parallel(q.op) &&
                              lower(q.impl) != "fused";
  if (unfused_stream && hw.l2_bytes > 0) {
    const Sizes s(q);
    const double tensor = (q.op == "elementwise" ? double(s.get("n")) : double(s.get("rows")) * double(s.get("cols"))) *
                          dtype_bytes(q.dtype);
    if (tensor <= hw.l2_bytes)
      a.notes.push_back("the tensor (" + bytes_iec(tensor) + ") fits in " + hw.name + "'s " + bytes_iec(hw.l2_bytes) +
                        " L2: later passes may hit L2, so a measurement can beat this HBM floor");
  }
  a.estimate = roofline(a.cost, hw);
  a.levels = hierarchical(a.cost, hw);
  if (tensor_parallel(q.op)) {
    if (!q.impl.empty()) bad_input("impl does not apply to " + q.op);
    a.tp = tp_view(q, hw);
    a.notes.push_back("the layer's time on one GPU is the sum of its parts' floors (" + si(a.tp->compute_s, "s") +
                      "), not the floor of their summed cost (" + si(a.estimate.t_floor_s, "s") + ")");
  } else if (!q.topology.empty()) {
    bad_input("topology applies only to tp-mlp and tp-attention");
  }
  if (q.op == "matmul" && hw.vendor == "google" && a.cost.unit == hw::Unit::Matrix) {
    const Sizes s(q);
    a.mxu = mxu_view(hw, a.cost, a.estimate, a.notes, s.get("m"), s.get("n"), s.get("k"));
  }
  return a;
}

std::string to_json(const RooflineAnswer& a, int indent) {
  const hw::HwSpec& hw = *a.hw;
  const Cost& c = a.cost;
  const Estimate& e = a.estimate;
  const DType math = c.math_dtype.value_or(c.dtype);
  const hw::Peak& p = hw.peak(math, c.unit);
  nlohmann::ordered_json j;
  j["op"] = c.op;
  j["kind"] = a.kind;
  j["gpu"] = hw.name;
  j["gpu_full_name"] = hw.full_name;
  j["dtype"] = dtype_name(c.dtype);
  if (c.math_dtype) j["math_dtype"] = dtype_name(math);
  j["unit"] = hw::unit_name(c.unit);
  j["flops"] = e.flops;
  j["bytes"] = e.bytes;
  if (a.kind == "attention") j["saved_bytes"] = e.saved_bytes;
  j["intensity_flops_per_byte"] = e.intensity;
  j["ridge_flops_per_byte"] = e.ridge;
  j["bound"] = e.bound;
  j["compute_s"] = e.t_compute_s;
  j["memory_s"] = e.t_memory_s;
  j["floor_s"] = e.t_floor_s;
  j["attainable_flops_per_s"] = e.attainable_flops_per_s;
  j["fraction_of_peak"] = e.fraction_of_peak;
  j["peak_flops_per_s"] = e.ceilings.flops_per_s;
  j["peak_label"] = e.ceilings.flops_label;
  j["peak_derivation"] = p.derivation();
  j["bandwidth_bytes_per_s"] = e.ceilings.bytes_per_s;
  j["bandwidth_label"] = e.ceilings.bytes_label;
  j["measured"] = hw.measured;
  auto lv = nlohmann::ordered_json::array();
  for (const auto& l : a.levels)
    lv.push_back({{"level", l.level}, {"bytes", l.bytes}, {"bytes_per_s", l.bytes_per_s}, {"intensity_flops_per_byte", l.intensity},
                  {"ridge_flops_per_byte", l.ridge}, {"time_s", l.t_s}, {"binding", l.binding}});
  j["levels"] = lv;
  j["notes"] = a.notes;
  if (a.tp) {
    const TpView& t = *a.tp;
    auto parts = nlohmann::ordered_json::array();
    for (const auto& p : t.parts)
      parts.push_back({{"op", p.cost.op}, {"flops", p.cost.flops}, {"bytes", p.cost.bytes}, {"bound", p.estimate.bound},
                       {"floor_s", p.estimate.t_floor_s}});
    j["tp"] = {{"gpus", t.gpus}, {"topology", t.topology}, {"parts", parts}, {"compute_s", t.compute_s},
               {"allreduce_bytes", t.allreduce_bytes}, {"allreduce_s", t.allreduce_s},
               {"allreduce_floor_s", t.allreduce_floor_s}, {"allreduce_algo", t.allreduce_algo},
               {"serial_s", t.serial_s}, {"overlapped_s", t.overlapped_s}, {"binds", t.binds}};
  }
  if (a.mxu) {
    const MxuView& m = *a.mxu;
    j["mxu"] = {{"mxus", m.mxus}, {"array", "128x128"}, {"dataflow", "ws"}, {"row_folds", m.row_folds},
                {"col_folds", m.col_folds}, {"mapped_fraction", m.mapped_fraction}, {"cycles_per_mxu", m.cycles_per_mxu},
                {"mxu_s", m.mxu_s}, {"fraction_of_peak", m.fraction_of_peak}, {"estimate_s", m.estimate_s}};
  }
  return j.dump(indent);
}

}  // namespace sol::model

// `sol roofline OP [sizes] --gpu NAME --dtype T [--json]`: the lecture's §6 calculator. It
// builds the op's cost (FLOPs, HBM bytes, faster levels where known), puts it on the chip's
// roofline and prints intensity, ridge, bound, the three times, attainable FLOP/s and % of
// peak, with the peak's derivation beside it, then the same question at each memory level.
#include <nlohmann/json.hpp>

#include <cctype>
#include <climits>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/size.hpp"
#include "sol/core/suggest.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"
#include "sol/registry.hpp"
#include "sol/sim/mxu.hpp"

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;

const std::vector<std::string> kOps = {"matmul", "elementwise", "layernorm", "rmsnorm", "softmax", "attention"};

struct Args {
  std::string op, gpu = "h100", dtype = "bf16", unit, impl;
  std::string m, n, k, tile, ops, rows, cols, batch, heads, seq, head_dim, block_q, extra_reads;
  double flops_per_op = 1;
  bool causal = false, backward = false, l2_reuse = false;
  JsonOut json;
};

// Which size flags each op reads; any other size flag given is a mistake worth reporting.
const std::map<std::string, std::set<std::string>>& flags_of_op() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"matmul", {"--m", "--n", "--k", "--tile"}},
      {"elementwise", {"--n", "--ops", "--flops-per-op", "--extra-reads"}},
      {"layernorm", {"--rows", "--cols"}},
      {"rmsnorm", {"--rows", "--cols"}},
      {"softmax", {"--rows", "--cols"}},
      {"attention", {"--batch", "--heads", "--seq", "--head-dim", "--block-q", "--causal", "--backward", "--l2-reuse"}},
  };
  return m;
}

// A size in the one grammar (sol/core/size.hpp), or the default when the flag is not given.
int64_t size_value(const std::string& flag, const std::string& text, bool given, int64_t dflt) {
  if (!given) {
    if (dflt > 0) return dflt;
    bad_input("missing " + flag, "give " + flag + " VALUE");
  }
  return parse_count(flag, text);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

model::Cost build_cost(const Args& a, const std::map<std::string, bool>& given, DType dtype) {
  auto size = [&](const std::string& flag, const std::string& text, int64_t dflt = 0) {
    return size_value(flag, text, given.at(flag), dflt);
  };
  auto small_int = [&](const std::string& flag, const std::string& text, int64_t dflt, int64_t lo) {
    const int64_t v = given.at(flag) ? size_value(flag, text, true, 0) : dflt;
    if (v < lo || v > INT_MAX) bad_input(flag + " must be between " + std::to_string(lo) + " and " + std::to_string(INT_MAX));
    return int(v);
  };
  auto impl_is = [&](std::initializer_list<const char*> names, const char* dflt) {
    std::string impl = a.impl.empty() ? dflt : lower(a.impl);
    for (const char* n : names)
      if (impl == n) return impl;
    std::string valid;
    for (const char* n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
    bad_input("unknown --impl '" + a.impl + "' for " + a.op, "use one of " + valid);
  };

  if (a.op == "matmul") {
    model::MatmulOp op{.m = size("--m", a.m), .n = size("--n", a.n), .k = size("--k", a.k), .dtype = dtype};
    const std::string impl = impl_is({"minimal", "naive", "tiled"}, "minimal");
    op.impl = impl == "naive" ? model::MatmulImpl::Naive : impl == "tiled" ? model::MatmulImpl::Tiled : model::MatmulImpl::Minimal;
    if (op.impl == model::MatmulImpl::Tiled) op.tile = size("--tile", a.tile, 32);
    else if (given.at("--tile")) bad_input("--tile applies only to --impl tiled");
    return model::matmul(op);
  }
  if (a.op == "elementwise") {
    model::ElementwiseOp op{.n = size("--n", a.n), .ops = small_int("--ops", a.ops, 1, 1), .dtype = dtype};
    op.fused = impl_is({"naive", "fused"}, "naive") == "fused";
    op.flops_per_op = a.flops_per_op;
    op.extra_reads = small_int("--extra-reads", a.extra_reads, 0, 0);
    return model::elementwise(op);
  }
  if (a.op == "layernorm" || a.op == "rmsnorm" || a.op == "softmax") {
    model::RowOp op{.rows = size("--rows", a.rows), .cols = size("--cols", a.cols), .dtype = dtype};
    op.kind = a.op == "layernorm" ? model::RowKind::LayerNorm : a.op == "rmsnorm" ? model::RowKind::RMSNorm : model::RowKind::Softmax;
    op.fused = impl_is({"naive", "fused"}, "naive") == "fused";
    return model::row_op(op);
  }
  // attention
  model::AttentionOp op{.batch = size("--batch", a.batch, 1), .heads = size("--heads", a.heads, 1),
                        .seq = size("--seq", a.seq), .head_dim = size("--head-dim", a.head_dim)};
  const std::string impl = impl_is({"naive", "standard", "flash"}, "naive");
  op.flash = impl == "flash";
  if (op.flash) op.block_q = size("--block-q", a.block_q, 128);
  else if (given.at("--block-q")) bad_input("--block-q applies only to --impl flash");
  if (a.l2_reuse && !op.flash) bad_input("--l2-reuse applies only to --impl flash", "add --impl flash");
  op.causal = a.causal;
  op.backward = a.backward;
  op.reuse_in_l2 = a.l2_reuse;
  op.dtype = dtype;
  return model::attention(op);
}

// Which peak the % is of, and why; `natural` is the unit the op's arithmetic runs on.
std::string unit_note(hw::Unit unit, hw::Unit natural) {
  if (unit == hw::Unit::Matrix)
    return natural == hw::Unit::Matrix
               ? "peak: the matrix unit (tensor cores / MXU), which runs this op's multiply-adds"
               : "peak: the matrix unit, as asked with --unit matrix; the lecture divides even elementwise FLOPs by "
                 "the 989 TFLOP/s tensor peak, so this reproduces its % of peak";
  return natural == hw::Unit::Vector
             ? "peak: the vector unit (CUDA cores / VPU), since this arithmetic cannot use tensor cores; the lecture "
               "divides by the tensor peak instead (--unit matrix gives its %); the floor time is the same either way "
               "while the op is memory-bound"
             : "peak: the vector unit";
}

std::string percent(double fraction) { return num(fraction * 100, 3) + " %"; }

// TPU rows: the MXUs are 128×128 systolic arrays. The systolic simulator says how much of each
// array the shape fills (K and N not multiples of 128 leave cells idle) and how long the folds
// take; the note sets that beside the roofline floor.
ojson mxu_estimate(const hw::HwSpec& hw, const model::Cost& c, const model::Estimate& e, std::vector<std::string>& notes,
                   int64_t m, int64_t n, int64_t k) {
  const hw::Peak& p = hw.peak(c.math_dtype.value_or(c.dtype), hw::Unit::Matrix);
  const double clock = hw.boost_clock_hz > 0 ? hw.boost_clock_hz : hw.base_clock_hz;
  const auto mxus = int64_t(p.flops_per_s / (2.0 * 128 * 128 * clock) + 0.5);
  if (clock <= 0 || mxus < 1) return nullptr;
  const sim::MxuMatmul s = sim::mxu_matmul(m, n, k, mxus, clock);
  const double t = std::max(s.seconds, e.t_memory_s);
  notes.push_back("MXU (sol systolic, 128×128 weight-stationary, " + std::to_string(mxus) + " MXUs): K×N cut into " +
                  std::to_string(s.map.row_folds) + "×" + std::to_string(s.map.col_folds) + " folds fill " +
                  percent(s.mapped_fraction) + " of the array (" + percent(1 - s.mapped_fraction) +
                  " lost to folds that are not full); with loads overlapped: " + std::to_string(s.cycles) +
                  " cycles per MXU = " + si(s.seconds, "s") + ", " + percent(s.fraction_of_peak) +
                  " of peak; estimate max(MXU time, memory time) = " + si(t, "s") + " vs roofline floor " +
                  si(e.t_floor_s, "s"));
  return {{"mxus", mxus}, {"array", "128x128"}, {"dataflow", "ws"}, {"row_folds", s.map.row_folds},
          {"col_folds", s.map.col_folds}, {"mapped_fraction", s.mapped_fraction}, {"cycles_per_mxu", s.cycles},
          {"mxu_s", s.seconds}, {"fraction_of_peak", s.fraction_of_peak}, {"estimate_s", t}};
}

ojson to_json(const Args& a, const hw::HwSpec& hw, const model::Cost& c, const model::Estimate& e,
              const std::vector<model::LevelEstimate>& levels, hw::Unit unit, const std::vector<std::string>& notes) {
  const DType math = c.math_dtype.value_or(c.dtype);
  const hw::Peak& p = hw.peak(math, unit);
  ojson j;
  j["op"] = c.op;
  j["kind"] = a.op;
  j["gpu"] = hw.name;
  j["gpu_full_name"] = hw.full_name;
  j["dtype"] = dtype_name(c.dtype);
  if (c.math_dtype) j["math_dtype"] = dtype_name(math);
  j["unit"] = hw::unit_name(unit);
  j["flops"] = e.flops;
  j["bytes"] = e.bytes;
  if (a.op == "attention") j["saved_bytes"] = e.saved_bytes;
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
  ojson lv = ojson::array();
  for (const auto& l : levels)
    lv.push_back({{"level", l.level}, {"bytes", l.bytes}, {"bytes_per_s", l.bytes_per_s}, {"intensity_flops_per_byte", l.intensity},
                  {"ridge_flops_per_byte", l.ridge}, {"time_s", l.t_s}, {"binding", l.binding}});
  j["levels"] = lv;
  j["notes"] = notes;
  return j;
}

std::string to_text(const hw::HwSpec& hw, const model::Cost& c, const model::Estimate& e,
                    const std::vector<model::LevelEstimate>& levels, hw::Unit unit, const std::vector<std::string>& notes,
                    bool attention) {
  const DType math = c.math_dtype.value_or(c.dtype);
  const hw::Peak& p = hw.peak(math, unit);
  std::string out = c.op + "\non " + hw.name + " (" + hw.full_name + "), " + dtype_name(math) + " math on the " +
                    hw::unit_name(unit) + " unit\n\n";
  Table t({"quantity", "value"});
  t.align(1, Table::Align::Left);
  t.add_row({"FLOPs", si(e.flops, "FLOP")});
  t.add_row({"bytes (HBM)", si(e.bytes, "B") + " (" + bytes_iec(e.bytes) + ")"});
  if (attention) t.add_row({"saved for backward", si(e.saved_bytes, "B")});
  t.add_row({"intensity", num(e.intensity, 4) + " FLOP/B"});
  t.add_row({"ridge", num(e.ridge, 4) + " FLOP/B = " + si(e.ceilings.flops_per_s, "FLOP/s") + " ÷ " + si(e.ceilings.bytes_per_s, "B/s")});
  t.add_row({"bound", e.bound});
  t.add_row({"compute time", si(e.t_compute_s, "s")});
  t.add_row({"memory time", si(e.t_memory_s, "s")});
  t.add_row({"floor", si(e.t_floor_s, "s") + " = max(compute, memory)"});
  t.add_row({"attainable", si(e.attainable_flops_per_s, "FLOP/s")});
  t.add_row({"% of peak", percent(e.fraction_of_peak) + " of " + e.ceilings.flops_label});
  t.add_row({"peak", p.derivation()});
  t.add_row({"bandwidth", e.ceilings.bytes_label});
  out += t.str();

  out += "\nhierarchical roofline (levels whose traffic the model knows; HBM always)\n";
  Table h({"level", "bytes", "bandwidth", "intensity", "ridge", "time", ""});
  for (const auto& l : levels)
    h.add_row({l.level, si(l.bytes, "B"), si(l.bytes_per_s, "B/s"), num(l.intensity, 4), num(l.ridge, 4), si(l.t_s, "s"),
               l.binding ? "← slowest level" : ""});
  h.align(6, Table::Align::Left);
  out += h.str();

  out += "\nnotes\n";
  for (const auto& n : notes) out += "  - " + n + "\n";
  return out;
}

}  // namespace

Command add_roofline(CLI::App& root, Global&) {
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("roofline", "speed of light of one op on one chip: the lecture's §6 roofline");
  app->add_option("op", args->op, "matmul | elementwise | layernorm | rmsnorm | softmax | attention")->required();
  app->add_option("--gpu", args->gpu, "database name, a row from --hw-file, or 'measured' (default h100)");
  app->add_option("--dtype", args->dtype, "element type (default bf16)");
  app->add_option("--unit", args->unit, "matrix | vector: whose peak bounds the op (default: matrix for matmul and "
                                        "attention, vector otherwise)");
  app->add_option("--impl", args->impl, "matmul: minimal|naive|tiled; elementwise, norms, softmax: naive|fused; "
                                        "attention: naive|flash");
  add_json(app, args->json, "the estimate");
  struct SizeFlag {
    const char* name;
    std::string* target;
    const char* help;
  };
  app->footer("SIZE: " + std::string(kCountForms));
  const SizeFlag sizes[] = {
      {"--m", &args->m, "matmul: rows of A and C (1 for a GEMV)"},
      {"--n", &args->n, "matmul: columns of B and C; elementwise: elements"},
      {"--k", &args->k, "matmul: the contracted dimension"},
      {"--tile", &args->tile, "matmul --impl tiled: square tile edge T (default 32)"},
      {"--ops", &args->ops, "elementwise: ops in the chain, k (default 1)"},
      {"--extra-reads", &args->extra_reads, "elementwise naive: extra whole-tensor reads (binary ops' second operands)"},
      {"--rows", &args->rows, "layernorm/rmsnorm/softmax: rows"},
      {"--cols", &args->cols, "layernorm/rmsnorm/softmax: the normalized dimension"},
      {"--batch", &args->batch, "attention: batch (default 1)"},
      {"--heads", &args->heads, "attention: heads (default 1)"},
      {"--seq", &args->seq, "attention: sequence length N"},
      {"--head-dim", &args->head_dim, "attention: head dimension d"},
      {"--block-q", &args->block_q, "attention --impl flash: query block Bq (default 128)"},
  };
  std::vector<std::pair<std::string, CLI::Option*>> opts;
  for (const auto& s : sizes) opts.emplace_back(s.name, app->add_option(s.name, *s.target, s.help)->type_name("SIZE"));
  opts.emplace_back("--flops-per-op", app->add_option("--flops-per-op", args->flops_per_op, "elementwise: FLOPs per element per op (default 1)"));
  opts.emplace_back("--causal", app->add_flag("--causal", args->causal, "attention: causal mask"));
  opts.emplace_back("--backward", app->add_flag("--backward", args->backward, "attention: the backward pass"));
  opts.emplace_back("--l2-reuse",
                    app->add_flag("--l2-reuse", args->l2_reuse,
                                  "attention --impl flash: the re-reads served by L2, each tensor counted once in HBM "
                                  "(as sol's kernels see on an H200); default: the lecture's count, every re-read from HBM"));

  return {app, [args, opts]() -> int {
            Args& a = *args;
            a.op = lower(a.op);
            const auto allowed = flags_of_op().find(a.op);
            if (allowed == flags_of_op().end()) {
              std::string valid;
              for (const auto& o : kOps) valid += (valid.empty() ? "" : ", ") + o;
              bad_input("unknown op '" + a.op + "'" + did_you_mean(a.op, kOps), "use one of " + valid);
            }
            std::map<std::string, bool> given;
            for (const auto& [name, opt] : opts) {
              given[name] = opt->count() > 0;
              if (given[name] && !allowed->second.count(name))
                bad_input(name + " does not apply to " + a.op, "see sol roofline --help");
            }
            const DType dtype = parse_dtype(a.dtype);
            const hw::HwSpec& hw = hw::find(a.gpu);
            model::Cost cost = build_cost(a, given, dtype);

            std::vector<std::string> notes = cost.notes;
            const hw::Unit natural = cost.unit;
            const std::string unit_flag = lower(a.unit);
            if (!unit_flag.empty() && unit_flag != "matrix" && unit_flag != "vector")
              bad_input("unknown --unit '" + a.unit + "'", "use matrix or vector");
            const hw::Unit asked = unit_flag.empty() ? natural : unit_flag == "matrix" ? hw::Unit::Matrix : hw::Unit::Vector;
            const model::PeakChoice choice = model::resolve_peak(hw, dtype, asked);
            // An explicit --unit is obeyed: no moving to the other unit (peak() then says what the chip has).
            cost.unit = unit_flag.empty() ? choice.unit : asked;
            if (choice.unit == cost.unit && choice.dtype != dtype) cost.math_dtype = choice.dtype;
            if (choice.unit == cost.unit && !choice.why.empty()) notes.push_back(choice.why);
            notes.push_back(unit_note(cost.unit, natural));
            // The unfused models count every pass as HBM traffic; a tensor that fits in L2 may
            // be served from there on the later passes.
            const bool unfused_stream = (a.op != "matmul" && a.op != "attention") && lower(a.impl) != "fused";
            if (unfused_stream && hw.l2_bytes > 0) {
              const double tensor = a.op == "elementwise" ? double(size_value("--n", a.n, true, 0)) * dtype_bytes(dtype)
                                                          : double(size_value("--rows", a.rows, true, 0)) *
                                                                double(size_value("--cols", a.cols, true, 0)) * dtype_bytes(dtype);
              if (tensor <= hw.l2_bytes)
                notes.push_back("the tensor (" + bytes_iec(tensor) + ") fits in " + hw.name + "'s " + bytes_iec(hw.l2_bytes) +
                                " L2: later passes may hit L2, so a measurement can beat this HBM floor");
            }

            const model::Estimate e = model::roofline(cost, hw);
            const auto levels = model::hierarchical(cost, hw);
            ojson mxu;
            if (a.op == "matmul" && hw.vendor == "google" && cost.unit == hw::Unit::Matrix)
              mxu = mxu_estimate(hw, cost, e, notes, size_value("--m", a.m, true, 0), size_value("--n", a.n, true, 0),
                                 size_value("--k", a.k, true, 0));
            if (a.json.on()) {
              ojson j = to_json(a, hw, cost, e, levels, cost.unit, notes);
              if (!mxu.is_null()) j["mxu"] = mxu;
              emit_json(a.json, j);
            } else
              std::printf("%s", reflow(to_text(hw, cost, e, levels, cost.unit, notes, a.op == "attention")).c_str());
            return 0;
          }};
}

}  // namespace sol::cli

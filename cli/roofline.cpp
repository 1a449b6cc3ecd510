// `sol roofline OP [sizes] --gpu NAME --dtype T [--json]`: the lecture's §6 calculator. It
// builds the op's cost (FLOPs, HBM bytes, faster levels where known), puts it on the chip's
// roofline and prints intensity, ridge, bound, the three times, attainable FLOP/s and % of
// peak, with the peak's derivation beside it, then the same question at each memory level.
#include <nlohmann/json.hpp>

#include <algorithm>
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
#include "sol/model/roofline_query.hpp"
#include "sol/registry.hpp"
#include "sol/sim/mxu.hpp"

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;

struct Args {
  std::string op, gpu = "h100", dtype = "bf16", unit, impl;
  std::map<std::string, std::string> sizes;  // flag → text, as given
  double flops_per_op = 1;
  bool causal = false, backward = false, l2_reuse = false;
  JsonOut json;
};

// The flag of a size: "head_dim" → "--head-dim".
std::string flag_of(std::string size) {
  std::replace(size.begin(), size.end(), '_', '-');
  return "--" + size;
}

// The flags each op reads besides its sizes; any other flag given is a mistake worth reporting.
const std::map<std::string, std::set<std::string>>& switches_of_op() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"elementwise", {"--flops-per-op"}},
      {"attention", {"--causal", "--backward", "--l2-reuse"}},
      {"tp-mlp", {"--topology"}},
      {"tp-attention", {"--causal", "--topology"}},
  };
  return m;
}

std::string percent(double fraction) { return num(fraction * 100, 3) + " %"; }

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

// A tensor-parallel layer: its parts on one GPU, the all-reduce, and which of the two binds.
std::string tp_text(const model::TpView& t) {
  std::string out = "\ntensor parallel over " + std::to_string(t.gpus) + " GPUs (" + t.topology + "), forward\n";
  Table p({"part (one GPU)", "FLOPs", "bytes", "bound", "floor"});
  p.align(3, Table::Align::Left);
  for (const auto& x : t.parts)
    p.add_row({x.cost.op.substr(0, x.cost.op.find(':')), si(x.cost.flops, "FLOP"), si(x.cost.bytes, "B"), x.estimate.bound,
               si(x.estimate.t_floor_s, "s")});
  out += p.str();
  Table s({"quantity", "value"});
  s.align(1, Table::Align::Left);
  s.add_row({"compute per GPU", si(t.compute_s, "s") + " (Σ of the parts' floors)"});
  s.add_row({"all-reduce", si(t.allreduce_s, "s") + " of " + si(t.allreduce_bytes, "B") + " (" + t.allreduce_algo +
                               "; floor " + si(t.allreduce_floor_s, "s") + ")"});
  s.add_row({"not overlapped", si(t.serial_s, "s") + " = compute + all-reduce"});
  s.add_row({"overlapped", si(t.overlapped_s, "s") + " = max(compute, all-reduce)"});
  s.add_row({"binds", t.binds});
  return out + "\n" + s.str();
}

}  // namespace

Command add_roofline(CLI::App& root, Global&) {
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("roofline", "speed of light of one op on one chip: the lecture's §6 roofline");
  app->add_option("op", args->op, "matmul | elementwise | layernorm | rmsnorm | softmax | attention | custom | tp-mlp | "
                                 "tp-attention")->required();
  app->add_option("--gpu", args->gpu, "database name, a row from --hw-file, or 'measured' (default h100)");
  app->add_option("--dtype", args->dtype, "element type (default bf16)");
  app->add_option("--unit", args->unit, "matrix | vector: whose peak bounds the op (default: matrix for matmul, "
                                        "attention and custom, vector otherwise)");
  app->add_option("--impl", args->impl, "matmul: minimal|naive|tiled; elementwise, norms, softmax: naive|fused; "
                                        "attention: naive|flash");
  add_json(app, args->json, "the estimate");
  app->footer("SIZE: " + std::string(kCountForms));
  const struct {
    const char* size;
    const char* help;
  } sizes[] = {
      {"m", "matmul: rows of A and C (1 for a GEMV)"},
      {"n", "matmul: columns of B and C; elementwise: elements"},
      {"k", "matmul: the contracted dimension"},
      {"tile", "matmul --impl tiled: square tile edge T (default 32)"},
      {"ops", "elementwise: ops in the chain, k (default 1)"},
      {"extra_reads", "elementwise naive: extra whole-tensor reads (binary ops' second operands)"},
      {"rows", "layernorm/rmsnorm/softmax: rows"},
      {"cols", "layernorm/rmsnorm/softmax: the normalized dimension"},
      {"batch", "attention: batch (default 1)"},
      {"heads", "attention: heads (default 1); tp-attention: heads, split over the GPUs"},
      {"seq", "attention: sequence length N; tp-attention: tokens per sequence"},
      {"head_dim", "attention: head dimension d"},
      {"block_q", "attention --impl flash: query block Bq (default 128)"},
      {"gpus", "tp-mlp/tp-attention: tensor-parallel GPUs N"},
      {"tokens", "tp-mlp/tp-attention: tokens T (batch × seq)"},
      {"hidden", "tp-mlp/tp-attention: hidden size H"},
      {"ffn", "tp-mlp: the MLP's inner size F"},
  };
  std::vector<std::pair<std::string, CLI::Option*>> opts;
  for (const auto& s : sizes) {
    const std::string flag = flag_of(s.size);
    opts.emplace_back(flag, app->add_option_function<std::string>(
                                   flag, [args, flag](const std::string& v) { args->sizes[flag] = v; }, s.help)
                                ->type_name("SIZE"));
  }
  opts.emplace_back("--flops-per-op", app->add_option("--flops-per-op", args->flops_per_op, "elementwise: FLOPs per element per op (default 1)"));
  opts.emplace_back("--causal", app->add_flag("--causal", args->causal, "attention: causal mask"));
  opts.emplace_back("--backward", app->add_flag("--backward", args->backward, "attention: the backward pass"));
  opts.emplace_back("--l2-reuse",
                    app->add_flag("--l2-reuse", args->l2_reuse,
                                  "attention --impl flash: the re-reads served by L2, each tensor counted once in HBM "
                                  "(as sol's kernels see on an H200); default: the lecture's count, every re-read from HBM"));
  auto custom = std::make_shared<model::RooflineQuery>();
  opts.emplace_back("--flops", app->add_option("--flops", custom->flops, "custom: the op's FLOPs"));
  opts.emplace_back("--bytes", app->add_option("--bytes", custom->bytes, "custom: the bytes it moves (read + written)"));
  opts.emplace_back("--name", app->add_option("--name", custom->name, "custom: the op's label"));
  opts.emplace_back("--topology", app->add_option("--topology", custom->topology,
                                                  "tp-mlp/tp-attention: the all-reduce's fabric (see sol comm)"));

  return {app, [args, opts, custom]() -> int {
            Args& a = *args;
            model::RooflineQuery q = *custom;
            q.op = a.op;
            for (char& c : q.op) c = char(std::tolower(static_cast<unsigned char>(c)));
            // Flags another op reads are refused by name, before the model sees the sizes.
            const auto known = model::roofline_sizes().find(q.op);
            if (known != model::roofline_sizes().end()) {
              std::set<std::string> allowed;
              for (const auto& s : known->second) allowed.insert(flag_of(s));
              if (const auto sw = switches_of_op().find(q.op); sw != switches_of_op().end())
                allowed.insert(sw->second.begin(), sw->second.end());
              if (q.op == "custom") allowed.insert({"--flops", "--bytes", "--name"});
              for (const auto& [name, opt] : opts)
                if (opt->count() > 0 && !allowed.count(name)) bad_input(name + " does not apply to " + q.op, "see sol roofline --help");
            }
            for (const auto& [flag, text] : a.sizes) {
              std::string size = flag.substr(2);
              std::replace(size.begin(), size.end(), '-', '_');
              q.sizes[size] = parse_count(flag, text);
            }
            q.gpu = a.gpu;
            q.dtype = parse_dtype(a.dtype);
            q.unit = a.unit;
            q.impl = a.impl;
            q.flops_per_op = a.flops_per_op;
            q.causal = a.causal;
            q.backward = a.backward;
            q.l2_reuse = a.l2_reuse;
            const model::RooflineAnswer r = model::answer(q);
            if (a.json.on()) emit_json(a.json, ojson::parse(model::to_json(r)));
            else
              std::printf("%s", reflow(to_text(*r.hw, r.cost, r.estimate, r.levels, r.cost.unit, r.notes, r.kind == "attention") +
                                       (r.tp ? tp_text(*r.tp) : ""))
                                    .c_str());
            return 0;
          }};
}

}  // namespace sol::cli

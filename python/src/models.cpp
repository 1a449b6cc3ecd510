// The models beyond the roofline, for sol._core: shapes, occupancy, access, the checkpoint planner
// and the systolic simulator. Each function runs the library function the CLI subcommand runs and
// returns the document that subcommand prints with --json (the same names, in the same order,
// without schema_version); tests/python compares the two for one case of each.
#include "models.hpp"

#include <nlohmann/json.hpp>

#include <climits>
#include <optional>

#include "sol/core/error.hpp"
#include "sol/doctor.hpp"
#include "sol/step_model.hpp"
#include "sol/core/size.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/access.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/model/occupancy.hpp"
#include "sol/model/shapes.hpp"
#include "sol/sim/scalesim_io.hpp"
#include "sol/sim/systolic.hpp"

namespace sol::python {
namespace {

using ojson = nlohmann::ordered_json;

std::string text(const ojson& j) { return j.dump(-1); }

ojson gemm_doc(const model::GemmEstimate& e) { return ojson::parse(model::gemm_estimate_json(e)); }

}  // namespace

std::string gemm_shape_json(const GemmShapeArgs& a) {
  const hw::HwSpec& spec = hw::find(a.gpu);
  const model::GemmShape s{a.m, a.n, a.k, parse_dtype(a.dtype), model::parse_tile(a.tile), a.blocks_per_sm};
  if (a.sweep.empty()) {
    if (a.m <= 0 || a.n <= 0 || a.k <= 0) bad_input("give m, n and k (each ≥ 1)", "or sweep='FROM:TO:STEP'");
    ojson j = gemm_doc(model::gemm_estimate(s, spec));
    j["gpu"] = spec.name;
    return text(j);
  }
  ojson j;
  j["gpu"] = spec.name;
  j["points"] = ojson::array();
  for (const auto& e : model::gemm_sweep(s, model::parse_sweep(a.sweep), spec)) j["points"].push_back(gemm_doc(e));
  return text(j);
}

std::string occupancy_json(const std::string& gpu, int threads, int regs, int64_t smem, int64_t dynamic_smem,
                           int carveout) {
  const hw::HwSpec& spec = hw::find(gpu);
  const model::KernelResources k{threads, regs, smem, dynamic_smem, carveout};
  return model::occupancy_json(spec, k, model::occupancy(spec.limits, k));
}

std::string coalescing_json(int64_t elem, int64_t stride, int lanes, int64_t offset, int64_t granule,
                            const std::vector<int64_t>& addresses) {
  const model::Coalescing c = addresses.empty() ? model::coalescing(elem, stride, lanes, offset, granule)
                                                : model::coalescing_addresses(addresses, elem, granule);
  return text(ojson{{"lanes", c.lanes}, {"elem_bytes", c.elem_bytes}, {"sectors_per_request", c.sectors},
                    {"cache_lines", c.lines}, {"useful_bytes", c.useful_bytes}, {"sector_bytes", c.sector_bytes},
                    {"ideal_sectors", c.ideal_sectors}, {"efficiency", c.efficiency},
                    {"dram_granule_bytes", c.dram_granule}, {"dram_bytes", c.dram_bytes},
                    {"derivation", c.derivation}});
}

std::string banks_json(int64_t elem, int64_t stride, int64_t row, int64_t pad, bool swizzle, int lanes,
                       const std::vector<int64_t>& addresses) {
  const model::BankConflict b = addresses.empty() ? model::bank_conflicts({elem, stride, row, pad, swizzle, lanes})
                                                  : model::bank_conflicts_addresses(addresses, elem);
  return text(ojson{{"phases", b.phases}, {"wavefronts", b.wavefronts}, {"conflict_degree", b.degree},
                    {"efficiency", b.efficiency}, {"broadcast", b.broadcast}, {"byte_addresses", b.byte_addresses},
                    {"derivation", b.derivation}});
}

std::string divergence_json(int ways, const std::vector<int64_t>& trips, int64_t base, int64_t spread) {
  const int forms = (ways > 0) + !trips.empty() + (base >= 0 || spread >= 0);
  if (forms != 1) bad_input("give exactly one of ways=K, trips=[...], or base=B with spread=S");
  const model::Divergence d = ways > 0         ? model::divergent_paths(ways)
                              : !trips.empty() ? model::loop_trips(trips)
                                               : model::loop_linear(base < 0 ? 0 : base, spread < 0 ? 0 : spread);
  return text(ojson{{"issued", d.issued}, {"useful", d.useful}, {"efficiency", d.efficiency},
                    {"slowdown", d.slowdown}, {"derivation", d.derivation}});
}

std::string checkpoint_json(const CheckpointArgs& a) {
  if (a.attention != "flash" && a.attention != "standard")
    bad_input("attention must be flash or standard, got '" + a.attention + "'");
  if (a.layers < 1) bad_input("give layers (≥ 1)");
  const hw::HwSpec& spec = hw::find(a.gpu);
  const model::StackShape shape{a.layers, a.batch, a.seq, a.d_model, a.heads, a.mlp_ratio, a.attention == "flash"};
  model::LayerModel layer = model::layer_model(shape, spec);
  const StepModel steps = step_model(shape, spec, "");
  if (steps.ops) predict::apply(*steps.ops, layer, steps.source);
  const double budget = a.budget.empty() ? spec.hbm_bytes : parse_bytes("budget", a.budget);
  if (!(budget > 0)) bad_input("no budget given and " + spec.name + " has no HBM size", "give budget");
  // The schedules and the document of `sol checkpoint --json` (sol/model/checkpoint.hpp), the
  // step's kernels predicted as the CLI predicts them (datasheet ceilings: no results folder).
  ojson j = ojson::parse(model::checkpoint_json(spec.name, a.layers, a.attention, budget, layer,
                                                model::candidate_plans(layer, a.layers, budget)));
  if (steps.ops) j["kernels"] = ojson::parse(step_kernels_json(*steps.ops));
  return text(j);
}

std::string systolic_json(const SystolicArgs& a) {
  sim::ArrayConfig c = a.config.empty() ? sim::ArrayConfig{} : sim::read_scalesim_config(a.config);
  if (a.rows > 0 || a.cols > 0) {
    if (a.rows < 1 || a.cols < 1) bad_input("give the array as (rows, cols), each ≥ 1");
    c.rows = a.rows, c.cols = a.cols;
  }
  if (!a.dataflow.empty()) c.dataflow = sim::parse_dataflow(a.dataflow);
  if (!a.sram_kb.empty()) {
    if (a.sram_kb.size() != 1 && a.sram_kb.size() != 3) bad_input("give sram_kb as one size or (ifmap, filter, ofmap)");
    c.ifmap_sram_kb = a.sram_kb[0], c.filter_sram_kb = a.sram_kb[a.sram_kb.size() / 2], c.ofmap_sram_kb = a.sram_kb.back();
  }
  if (a.dram_bw > 0) c.bandwidth_mode = sim::BandwidthMode::user, c.dram_words_per_cycle = a.dram_bw;
  if (a.word_bytes > 0) c.word_bytes = a.word_bytes;
  c.overlap = a.overlap;
  sim::validate(c);
  const sim::Model model = sim::parse_model(a.compat);
  if (model == sim::Model::scalesim && c.word_bytes != 1) bad_input("compat='scalesim' uses 1-byte words", "drop word_bytes");
  if (a.engine != "analytic" && a.engine != "stepped") bad_input("engine must be analytic or stepped, got '" + a.engine + "'");
  const int given = int(!a.topology.empty()) + int(!a.gemm.empty()) + int(!a.conv.empty());
  if (given != 1) bad_input("give exactly one of topology=FILE, gemm=(M, N, K) or conv=(H, W, FH, FW, C, N, S[, S2])");
  std::vector<sim::Layer> layers;
  if (!a.topology.empty()) layers = sim::read_topology(a.topology);
  else if (!a.gemm.empty()) {
    if (a.gemm.size() != 3) bad_input("gemm takes (M, N, K)");
    layers = {sim::Layer::gemm("gemm", a.gemm[0], a.gemm[1], a.gemm[2])};
  } else {
    const auto& v = a.conv;
    if (v.size() != 7 && v.size() != 8) bad_input("conv takes (H, W, FH, FW, C, N, stride[, column stride])");
    layers = {sim::Layer::conv("conv", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v.size() > 7 ? v[7] : v[6])};
  }

  std::vector<sim::LayerResult> results;
  for (const auto& l : layers) {
    sim::LayerResult r = a.engine == "stepped" ? sim::stepped(l, c, model) : sim::analytic(l, c, model);
    if (model == sim::Model::scalesim && !a.no_replay) sim::replay_scalesim_memory(l, c, r);
    results.push_back(std::move(r));
  }
  return sim::results_json(c, a.engine, results);
}

std::string doctor_json(const std::string& variant, const std::string& shape, const std::string& results,
                        const std::string& gpu, double measured_s) {
  const predict::Diagnosis d =
      doctor({.variant = variant, .shape = shape, .results = results, .gpu = gpu, .measured_s = measured_s});
  ojson j = ojson::parse(diagnosis_json(d));
  j["text"] = predict::diagnosis_text(d);
  return text(j);
}

}  // namespace sol::python

// `sol systolic`: the TPU-style systolic array simulator. Reads SCALE-Sim's config and topology
// (or one --gemm / --conv layer on an --array), prints per-layer cycles, utilization and memory
// traffic, writes SCALE-Sim's three CSV reports with --out-dir, draws the data flow with --picture.
// --compat scalesim reproduces SCALE-Sim v2's numbers; without it sol counts what physically happens.
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/sim/picture.hpp"
#include "sol/sim/scalesim_io.hpp"
#include "sol/sim/systolic.hpp"

namespace sol::cli {
namespace {

struct Options {
  std::string config, topology, array, dataflow, gemm, conv, compat = "sol", engine = "analytic", sram, out, svg;
  std::optional<double> dram_bw;  // absent: unlimited
  int64_t word_bytes = 0;
  bool overlap = false, picture = false, no_replay = false;
  JsonOut json;
  int64_t from = 0, cycles = 16;
};

sim::ArrayConfig config_of(const Options& o) {
  sim::ArrayConfig c = o.config.empty() ? sim::ArrayConfig{} : sim::read_scalesim_config(o.config);
  if (!o.array.empty()) {
    const auto rc = parse_counts("--array", o.array, 2, 2);
    c.rows = rc[0], c.cols = rc[1];
  }
  if (!o.dataflow.empty()) c.dataflow = sim::parse_dataflow(o.dataflow);
  if (!o.sram.empty()) {
    const auto kb = parse_counts("--sram", o.sram, 1, 3);
    c.ifmap_sram_kb = kb[0], c.filter_sram_kb = kb.size() > 1 ? kb[1] : kb[0], c.ofmap_sram_kb = kb.size() > 2 ? kb[2] : kb[0];
  }
  if (o.dram_bw) c.bandwidth_mode = sim::BandwidthMode::user, c.dram_words_per_cycle = *o.dram_bw;
  if (o.word_bytes > 0) c.word_bytes = o.word_bytes;
  c.overlap = o.overlap;
  sim::validate(c);
  return c;
}

std::vector<sim::Layer> layers_of(const Options& o) {
  const int given = int(!o.topology.empty()) + int(!o.gemm.empty()) + int(!o.conv.empty());
  if (given != 1) bad_input("give exactly one of --topology FILE, --gemm M,N,K or --conv H,W,FH,FW,C,N,S[,S2]");
  if (!o.topology.empty()) return sim::read_topology(o.topology);
  if (!o.gemm.empty()) {
    const auto v = parse_counts("--gemm", o.gemm, 3, 3);
    return {sim::Layer::gemm("gemm", v[0], v[1], v[2])};
  }
  const auto v = parse_counts("--conv", o.conv, 7, 8);
  return {sim::Layer::conv("conv", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v.size() > 7 ? v[7] : v[6])};
}

std::string table_text(const sim::ArrayConfig& c, const std::string& engine, const std::vector<sim::LayerResult>& rs) {
  std::string out = std::to_string(c.rows) + "x" + std::to_string(c.cols) + " " + sim::to_string(c.dataflow) +
                    " array, SRAM " + std::to_string(c.ifmap_sram_kb) + "/" + std::to_string(c.filter_sram_kb) + "/" +
                    std::to_string(c.ofmap_sram_kb) + " KB, " +
                    (c.bandwidth_mode == sim::BandwidthMode::user ? "DRAM " + num(c.dram_words_per_cycle) + " words/cycle"
                                                                  : std::string("DRAM unlimited (CALC)")) +
                    "; model " + (rs.empty() ? "sol" : sim::to_string(rs[0].model)) + ", engine " + engine +
                    (c.overlap ? ", folds overlapped" : "") + "\n\n";
  Table t({"layer", "M×N×K", "folds", "cycles", "stalls", "util %", "mapped %", "compute %", "SRAM rd i/f", "SRAM wr o",
           "DRAM i/f/o"});
  int64_t cycles = 0, macs = 0;
  for (const auto& r : rs) {
    cycles += r.total_cycles, macs += r.macs;
    t.add_row({r.name, std::to_string(r.gemm.M) + "×" + std::to_string(r.gemm.N) + "×" + std::to_string(r.gemm.K),
               std::to_string(r.map.row_folds) + "×" + std::to_string(r.map.col_folds), std::to_string(r.total_cycles),
               std::to_string(r.stall_cycles), fixed(r.overall_util, 2), fixed(r.mapping_eff, 2), fixed(r.compute_util, 2),
               si(double(r.ifmap.sram), "") + "/" + si(double(r.filter.sram), ""), si(double(r.ofmap.sram), ""),
               si(double(r.ifmap.dram), "") + "/" + si(double(r.filter.dram), "") + "/" +
                   si(double(r.ofmap.dram + r.ofmap.dram_spill_reads), "")});
  }
  out += t.str();
  if (rs.size() > 1)
    out += "\ntotal: " + std::to_string(cycles) + " cycles, " + si(double(macs), "MAC") + ", utilization " +
           fixed(100.0 * double(macs) / (double(cycles) * double(c.rows * c.cols)), 2) + " %\n";
  for (const auto& r : rs)
    for (const auto& n : r.notes) out += "note (" + r.name + "): " + n + "\n";
  return out;
}

}  // namespace

Command add_systolic(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("systolic", "simulate a TPU-style systolic array (SCALE-Sim compatible)");
  auto o = std::make_shared<Options>();
  app->add_option("--config", o->config, "SCALE-Sim .cfg: array, SRAMs, dataflow, bandwidth mode")->check(CLI::ExistingFile);
  app->add_option("--topology", o->topology, "SCALE-Sim topology CSV (conv, or GEMM with header 'Layer, M, N, K,')")
      ->check(CLI::ExistingFile);
  app->add_option("--gemm", o->gemm, "one GEMM layer: M,N,K or MxNxK");
  app->add_option("--conv", o->conv, "one conv layer: H,W,FH,FW,C,N,stride[,column stride]");
  app->add_option("--array", o->array, "array size RxC (default 128x128, or the config's)");
  app->add_option("--dataflow", o->dataflow, "ws (weight-stationary), os or is");
  app->add_option("--compat", o->compat, "scalesim: reproduce SCALE-Sim v2's reported figures, quirks included");
  app->add_option("--engine", o->engine, "analytic (closed form, any size) or stepped (cycle by cycle, small arrays)")
      ->check(CLI::IsMember({"analytic", "stepped"}));
  app->add_option("--sram", o->sram, "SRAM KB: one size for all, or IFMAP,FILTER,OFMAP (default 1024)");
  app->add_option("--dram-bw", o->dram_bw, "DRAM limit in words/cycle (USER mode; stalls when exceeded)");
  app->add_option("--word-bytes", o->word_bytes, "bytes per word for SRAM capacity (sol model; SCALE-Sim uses 1)");
  app->add_flag("--overlap", o->overlap, "sol model: overlap each fold's load and drain with its neighbours");
  app->add_option("--out-dir", o->out, "write COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv here")
      ->type_name("DIR");
  add_json(app, o->json, "the results");
  app->add_flag("--no-dram-replay", o->no_replay, "compat: skip replaying SCALE-Sim's buffers (DRAM figures estimated)");
  app->add_flag("--picture", o->picture, "print the data flow of the first layer, cycle by cycle (small arrays)");
  app->add_option("--svg", o->svg, "write the data-flow picture as SVG to this file");
  app->add_option("--from", o->from, "first cycle of the picture (default 0)");
  app->add_option("--cycles", o->cycles, "cycles in the picture (default 16)");
  return {app, [o]() -> int {
            const sim::ArrayConfig cfg = config_of(*o);
            const sim::Model model = sim::parse_model(o->compat);
            if (model == sim::Model::scalesim && cfg.word_bytes != 1)
              bad_input("--compat scalesim uses 1-byte words", "drop --word-bytes");
            const std::vector<sim::Layer> layers = layers_of(*o);
            if (o->picture || !o->svg.empty()) {
              const auto frames = sim::capture_frames(layers[0], cfg, model, o->from, o->cycles);
              if (o->picture) std::fputs(sim::picture_text(frames, cfg.dataflow).c_str(), stdout);
              if (!o->svg.empty()) {
                std::ofstream f(o->svg);
                f << sim::picture_svg(frames, cfg.dataflow,
                                      layers[0].name + " on " + std::to_string(cfg.rows) + "x" + std::to_string(cfg.cols));
                if (!f) failure("cannot write '" + o->svg + "'");
              }
              return 0;
            }
            std::vector<sim::LayerResult> rs;
            for (const auto& l : layers) {
              sim::LayerResult r = o->engine == "stepped" ? sim::stepped(l, cfg, model) : sim::analytic(l, cfg, model);
              if (model == sim::Model::scalesim && !o->no_replay) sim::replay_scalesim_memory(l, cfg, r);
              rs.push_back(std::move(r));
            }
            if (!o->out.empty()) sim::write_scalesim_reports(o->out, rs);
            if (o->json.on()) emit_json(o->json, nlohmann::ordered_json::parse(sim::results_json(cfg, o->engine, rs)));
            else std::fputs(table_text(cfg, o->engine, rs).c_str(), stdout);
            return 0;
          }};
}

}  // namespace sol::cli

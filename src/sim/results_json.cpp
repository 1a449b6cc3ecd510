// The systolic simulator's results document, built once for `sol systolic --json` and for
// sol.model.systolic (sol/sim/systolic.hpp: results_json).
#include <nlohmann/json.hpp>

#include "sol/sim/systolic.hpp"

namespace sol::sim {
namespace {

using ojson = nlohmann::ordered_json;

ojson traffic_json(const OperandTraffic& t) {
  return {{"sram_words", t.sram},
          {"sram_rmw_read_words", t.sram_rmw_reads},
          {"dram_words", t.dram},
          {"dram_spill_read_words", t.dram_spill_reads},
          {"sram_start_cycle", t.sram_start},
          {"sram_stop_cycle", t.sram_stop},
          {"dram_start_cycle", t.dram_start},
          {"dram_stop_cycle", t.dram_stop},
          {"avg_sram_words_per_cycle", t.avg_sram_bw},
          {"avg_dram_words_per_cycle", t.avg_dram_bw},
          {"peak_dram_words_per_cycle", t.peak_dram_bw}};
}

}  // namespace

std::string results_json(const ArrayConfig& c, const std::string& engine, const std::vector<LayerResult>& rs) {
  ojson j;
  j["array"] = {{"rows", c.rows}, {"cols", c.cols}, {"dataflow", to_string(c.dataflow)},
                {"sram_kb", {c.ifmap_sram_kb, c.filter_sram_kb, c.ofmap_sram_kb}}, {"word_bytes", c.word_bytes},
                {"bandwidth_mode", c.bandwidth_mode == BandwidthMode::user ? "USER" : "CALC"},
                {"dram_words_per_cycle", c.dram_words_per_cycle}, {"overlap", c.overlap}};
  j["engine"] = engine;
  j["model"] = rs.empty() ? "sol" : to_string(rs[0].model);
  j["layers"] = ojson::array();
  int64_t cycles = 0, macs = 0;
  for (const auto& r : rs) {
    cycles += r.total_cycles, macs += r.macs;
    j["layers"].push_back({{"name", r.name},
                           {"m", r.gemm.M}, {"n", r.gemm.N}, {"k", r.gemm.K},
                           {"row_folds", r.map.row_folds}, {"col_folds", r.map.col_folds},
                           {"total_cycles", r.total_cycles}, {"stall_cycles", r.stall_cycles},
                           {"compute_cycles", r.compute_cycles}, {"macs", r.macs},
                           {"overall_util", r.overall_util / 100}, {"mapping_efficiency", r.mapping_eff / 100},
                           {"compute_util", r.compute_util / 100}, {"dram_replayed", r.dram_replayed},
                           {"ifmap", traffic_json(r.ifmap)}, {"filter", traffic_json(r.filter)},
                           {"ofmap", traffic_json(r.ofmap)}, {"notes", r.notes}});
  }
  j["total"] = {{"cycles", cycles}, {"macs", macs},
                {"overall_util", cycles > 0 ? double(macs) / (double(cycles) * double(c.rows * c.cols)) : 0}};
  return j.dump();
}

}  // namespace sol::sim

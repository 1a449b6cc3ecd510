#pragma once
// sol._core's models beyond the roofline; each returns the JSON document of the CLI subcommand
// named beside it (`--json`, without schema_version). Throw sol::Error as the library does.
#include <cstdint>
#include <string>
#include <vector>

namespace sol::python {

struct GemmShapeArgs {  // sol shapes gemm
  int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16", gpu = "h100", tile = "128x256x64", sweep;
  int blocks_per_sm = 1;
};
std::string gemm_shape_json(const GemmShapeArgs& a);

// sol occupancy
std::string occupancy_json(const std::string& gpu, int threads, int regs, int64_t smem, int64_t dynamic_smem,
                           int carveout);

// sol access coalescing | banks | divergence (addresses / trips empty: the strided form)
std::string coalescing_json(int64_t elem, int64_t stride, int lanes, int64_t offset, int64_t granule,
                            const std::vector<int64_t>& addresses);
std::string banks_json(int64_t elem, int64_t stride, int64_t row, int64_t pad, bool swizzle, int lanes,
                       const std::vector<int64_t>& addresses);
std::string divergence_json(int ways, const std::vector<int64_t>& trips, int64_t base, int64_t spread);

struct CheckpointArgs {  // sol checkpoint
  int64_t layers = 0, batch = 0, seq = 0, d_model = 0, heads = 0, mlp_ratio = 4;
  std::string gpu = "h200", budget, attention = "flash";
};
std::string checkpoint_json(const CheckpointArgs& a);

struct SystolicArgs {  // sol systolic
  std::string config, topology, dataflow, compat = "sol", engine = "analytic";
  std::vector<int64_t> gemm, conv, sram_kb;
  int64_t rows = 0, cols = 0, word_bytes = 0;
  double dram_bw = 0;  // ≤ 0: unlimited (CALC)
  bool overlap = false, no_replay = false;
};
std::string systolic_json(const SystolicArgs& a);

// sol doctor --results (and a caller's own time): the CLI's document plus "text", what it prints.
std::string doctor_json(const std::string& variant, const std::string& shape, const std::string& results,
                        const std::string& gpu, double measured_s);

}  // namespace sol::python

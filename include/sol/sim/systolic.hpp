#pragma once
// A systolic array of R×C multiply-accumulate cells (the lecture's §5: a TPU MXU). A layer is
// lowered to a GEMM (M, N, K), cut into "folds" that fit the array, and each fold is streamed
// through it: one operand stays in the cells (weight-, input- or output-stationary), the others
// enter skewed from the left and the top, partial sums flow down and leave at the bottom.
//
// Two engines answer the same question and must agree: analytic() counts folds, fill and drain
// in closed form (any size, instantly); stepped() moves every operand and partial sum through
// the cell registers cycle by cycle (small arrays; it also computes the numbers and checks them).
// Model::sol counts what physically happens; Model::scalesim reproduces SCALE-Sim v2's reported
// figures, quirks included (see docs/systolic.md and tests/data/scalesim/README.md).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sol::sim {

enum class Dataflow { os, ws, is };        // output-, weight-, input-stationary
enum class Model { sol, scalesim };        // what to count: physics, or SCALE-Sim v2's reports
enum class BandwidthMode { calc, user };   // DRAM: estimate the bandwidth needed, or limit it

std::string to_string(Dataflow d);
std::string to_string(Model m);
Dataflow parse_dataflow(const std::string& s);  // "os" | "ws" | "is" (any case)
Model parse_model(const std::string& s);        // "sol" | "scalesim"

struct ArrayConfig {
  std::string run_name = "sol";
  int64_t rows = 128;  // R: PE rows (ArrayHeight)
  int64_t cols = 128;  // C: PE columns (ArrayWidth)
  Dataflow dataflow = Dataflow::ws;
  // Operand SRAMs in KiB, each double-buffered (half active, half being filled or drained).
  int64_t ifmap_sram_kb = 1024, filter_sram_kb = 1024, ofmap_sram_kb = 1024;
  int64_t word_bytes = 1;  // SCALE-Sim fixes 1; sol's own model accepts 2 (bf16) or 4
  BandwidthMode bandwidth_mode = BandwidthMode::calc;
  double dram_words_per_cycle = 10;  // the limit in USER mode (words per cycle per operand)
  bool overlap = false;  // sol model: hide stationary loads and drains behind the next fold
  int64_t sram_words(int64_t kb) const { return kb * 1024 / word_bytes; }
};
// Throws sol::bad_input for sizes that cannot describe an array.
void validate(const ArrayConfig& cfg);

struct Gemm {
  int64_t M = 0, N = 0, K = 0;  // M output pixels, N filters, K = filter h × w × channels
  int64_t macs() const { return M * N * K; }
};

// A layer as SCALE-Sim's topology files describe it: a valid (unpadded) convolution, batch 1.
// A GEMM row (M, N, K) is the convolution of an M×K image with N filters of 1×K.
struct Layer {
  std::string name;
  bool from_gemm = false;
  int64_t ifmap_h = 1, ifmap_w = 1, filter_h = 1, filter_w = 1, channels = 1, filters = 1;
  int64_t stride_h = 1, stride_w = 1;

  static Layer gemm(const std::string& name, int64_t M, int64_t N, int64_t K);
  static Layer conv(const std::string& name, int64_t ifmap_h, int64_t ifmap_w, int64_t filter_h, int64_t filter_w,
                    int64_t channels, int64_t filters, int64_t stride_h, int64_t stride_w);
  int64_t ofmap_h() const;  // ceil((H - FH + S) / S)
  int64_t ofmap_w() const;
  Gemm lower() const;       // im2col; throws bad_input for impossible shapes
  // im2col address of ifmap element (m, k): the pixel (row·W + col)·C + ch, or -1 off the image.
  int64_t ifmap_address(int64_t m, int64_t k) const;
  int64_t distinct_ifmap_words() const;  // pixels the layer actually touches
};

// How a GEMM is cut into folds: Sr rows of work over R array rows, Sc columns over C, and T
// steps streamed through each fold. Folds run column-fold outer, row-fold inner.
struct Mapping {
  int64_t R = 0, C = 0, Sr = 0, Sc = 0, T = 0;
  int64_t row_folds = 0, col_folds = 0;
  int64_t folds() const { return row_folds * col_folds; }
  int64_t rows_used(int64_t fr) const;  // min(R, Sr - fr·R)
  int64_t cols_used(int64_t fc) const;
};
Mapping map_gemm(const Gemm& g, const ArrayConfig& cfg);

// Accesses of one operand: SRAM (reads for ifmap/filter, writes for ofmap), DRAM, when they
// happen (cycles; DRAM windows can start before cycle 0: the first buffer is preloaded).
struct OperandTraffic {
  int64_t sram = 0;          // SRAM reads (ifmap, filter) or writes (ofmap)
  int64_t sram_rmw_reads = 0;  // ofmap only: partial sums read back to accumulate (sol model)
  int64_t dram = 0;          // DRAM reads (ifmap, filter) or writes (ofmap)
  int64_t dram_spill_reads = 0;  // ofmap only: partial sums read back from DRAM (sol model)
  double sram_start = 0, sram_stop = 0;
  double dram_start = 0, dram_stop = 0;
  double avg_sram_bw = 0;   // words per cycle over the layer
  double avg_dram_bw = 0;   // SCALE-Sim: over the operand's own DRAM window; sol: over the layer
  double peak_dram_bw = 0;  // sol: words per cycle the busiest fold needs to run without stalls
};

struct LayerResult {
  std::string name;
  Model model = Model::sol;
  Dataflow dataflow = Dataflow::ws;
  Gemm gemm;
  Mapping map;
  int64_t total_cycles = 0;    // SCALE-Sim: its "Total Cycles" (index of the last cycle + stalls)
  int64_t stall_cycles = 0;
  int64_t compute_cycles = 0;  // total without stalls
  int64_t macs = 0;            // useful multiply-accumulates performed
  double overall_util = 0;     // %: MACs / (R·C·total)
  double mapping_eff = 0;      // %: mean over folds of mapped PEs / (R·C)
  double compute_util = 0;     // %: mean over folds of MACs / (R·C·fold cycles)
  OperandTraffic ifmap, filter, ofmap;
  bool dram_replayed = false;  // DRAM figures come from replaying SCALE-Sim's buffer models
  std::vector<std::string> notes;
};

// Closed form: folds, fill and drain. Any size, microseconds.
LayerResult analytic(const Layer& layer, const ArrayConfig& cfg, Model model);

// One cycle of the array, for pictures: what each cell holds after the cycle.
struct Cell {
  bool stationary = false;   // holds a stationary operand (weight / input) or an accumulator (os)
  bool horizontal = false;   // a streamed operand is passing through, left to right
  bool vertical = false;     // a partial sum (ws/is) or a streamed operand (os) passes downward
  bool mac = false;          // did a useful multiply-accumulate this cycle
  int64_t fold = -1;         // fold of the data in the horizontal register
};
struct Frame {
  int64_t cycle = 0;
  int64_t R = 0, C = 0;
  std::vector<Cell> cells;         // R·C, row-major
  std::vector<bool> left_in;       // R: a streamed operand entered row r this cycle
  std::vector<bool> top_in;        // C: a stationary load (ws/is) or operand (os) entered column c
  std::vector<bool> bottom_out;    // C: a result left column c this cycle
};

struct StepOptions {
  bool check_values = true;          // compute the GEMM in the cells and compare with a reference
  int64_t max_cell_updates = 5e8;    // refuse runs bigger than this (R·C·cycles; ~2 s)
  std::function<void(const Frame&)> on_cycle;  // called after every cycle when set (implies register_planes)
  // How registers are stored. Planes: one array per register kind, shifted one cell every cycle
  // (literal; used for pictures). Skewed (default): the same registers indexed by when their value
  // entered the array, so moving one cell is a change of index, not a copy; each cycle then costs
  // one multiply-add per cell that holds data. Both give identical results; the tests check it.
  bool register_planes = false;
};
// Cycle-stepped: every cycle every cell takes its inputs from its neighbours' registers.
LayerResult stepped(const Layer& layer, const ArrayConfig& cfg, Model model, const StepOptions& opt = {});

// SCALE-Sim's DRAM figures in CALC mode come from its buffer bookkeeping (a 100-set window
// over each read SRAM, a line-based drain of the ofmap SRAM). This replays the demand stream
// through models of those buffers and fills the DRAM fields of a Model::scalesim result exactly.
// Cost: proportional to the SRAM accesses (milliseconds to seconds). USER mode is not replayed.
void replay_scalesim_memory(const Layer& layer, const ArrayConfig& cfg, LayerResult& r);

// The results document of `sol systolic --json` and sol.model.systolic, built once here: the
// array, the engine and model, per layer its GEMM, folds, cycles, utilizations (fractions) and
// each operand's SRAM and DRAM traffic, and the total over the layers. JSON text.
std::string results_json(const ArrayConfig& cfg, const std::string& engine, const std::vector<LayerResult>& results);

}  // namespace sol::sim

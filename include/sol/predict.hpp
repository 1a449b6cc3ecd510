#pragma once
// A prediction for every measured record: the time the model expects a variant to take at a
// shape, from what the variant declares (its FLOPs and bytes, its element type, for the GEMM rungs
// its tile, stages and how it treats unaligned operands) and the ceilings calibrated on the card
// (`sol probe`'s measured profile, the run's copy bandwidth and launch overhead). A kernel's own
// measured time is never an input. `sol validate` compares the two over committed results; the
// harness writes the prediction into every record it measures.
//
//   GEMM rungs     mainloop = FLOPs ÷ (matrix ceiling × tile × wave efficiency), or ÷ the alignment
//                  efficiency where the rung reads unaligned operands in place; + the packing kernel
//                  where the rung copies them; + the pipeline's fill and drain (one stage loaded and
//                  one C tile stored at an SM's share of the bandwidth); + the C tiles before the
//                  last where the SM's one CTA stores C itself between tiles; + a launch.
//   SGEMM          the same on the fp32 ceiling an SGEMM reaches (kSgemmShareOfFma of the FMA chain).
//   matrix kernels  max(tensor work ÷ the instruction's ceiling + exponentials + shared-memory operand
//                   traffic + L2 atomics, DRAM bytes ÷ copy) + its launches: the pipes a tile waits
//                   on one after another add up; DRAM streams under them. Where the kernel declares
//                   its CTAs (model::CtaSchedule), the tiles' time is when its CTAs finish on the
//                   SMs' slots, each started on the first slot to free up: uneven causal CTAs, a
//                   partial last wave and a lone CTA's loads before its first tile show there.
//   everything else max(FLOPs ÷ the unit's ceiling, issue slots ÷ the issue rate, (shared-memory
//                   wavefronts + global accesses' L1 passes) ÷ the L1 data stage's rate, DRAM bytes ÷
//                   copy) + its launches: independent CTAs overlap whichever resource binds. Where the variant declares its launches' loads
//                   in flight (model::LoadStream), the DRAM term is their sum, each at least its
//                   reads ÷ (loads in flight ÷ kDramLatencyS): Little's law. A second read that
//                   counts on L2 (model::Reread) is DRAM traffic again when what the resident
//                   blocks move between the two reads exceeds the L2.
// The terms beyond FLOPs and bytes come from the variant's declared model::Execution (its spec), or
// for a PyTorch peer from peer_execution: what the peer's script runs.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sol/core/shape.hpp"
#include "sol/gemm_rungs.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/shapes.hpp"
#include "sol/results.hpp"

namespace sol::predict {

// What fraction of the FMA-chain rate (`sol probe`'s fp32 vector ceiling) a register-tiled SGEMM
// can sustain: the best SGEMM measured on the H200, cuBLAS at 8192³ (51.1 TFLOP/s), reaches 86 % of
// the 59.3 TFLOP/s chain, the rest being the issue slots its shared-memory loads, address
// arithmetic and loop take from the FFMAs (bench/results/h200/gemm_sweep.json).
inline constexpr double kSgemmShareOfFma = 0.86;

// Attention's softmax: one exp2 per query-key pair (the backward recomputes P once), on the special
// function units at 16 results per clock per SM (sm_80–sm_90: the CUDA C++ Programming Guide's
// throughput table), at the clock the matrix ceiling runs at. FlashAttention-2-style kernels issue
// them between the MMAs that depend on them, so the two add up.
inline constexpr double kExpPerClockPerSm = 16;

// mma.sync on Hopper: "only about 2/3 of the peak throughput of the Hopper GPU's Tensor Cores"
// (Shah et al., FlashAttention-3, 2024, §1); wgmma reaches the measured matrix ceiling.
inline constexpr double kMmaSyncShareOfWgmma = 2.0 / 3.0;
// The e4m3 mma.sync (m16n8k32) is Ada's (sm_89); on Hopper "the compiler will use software
// emulation to convert the data and use fp16 tensor core instead" (an NVIDIA engineer, 2025:
// github.com/NVIDIA/cutlass/issues/1986): on this compute capability an fp8 mma.sync rung runs at
// the fp16 matrix ceiling, not the fp8 one.
inline constexpr int kFp8MmaSyncAsFp16Cc = 90;
// ... and not at all of it: each m16n8k32 becomes two fp16 HMMAs whose sums FADDs add, on operand
// fragments F2FP converts (per k step of the 4 × 4 warp tile 48 F2FP, 32 HMMA, 64 FADD: v02's
// SASS). That tile ran at 0.70 of the same tile in fp16 on an H100, at 2, 4 and 8 warps per
// scheduler alike (bench/tuning/mma_sync_rates.cu; bench/results/h100/tuning/mma-sync-rates/).
inline constexpr double kE4m3MmaSyncShareOfFp16 = 0.70;

// The latency of a load from HBM on a loaded Hopper memory system, for Little's law: a launch
// whose threads wait on their loads reads at most (bytes of loads in flight) ÷ this. 600 ns is the
// figure kernels/copy/v01_scalar.cu's estimate works with (≈ 1,200 clocks at 1.98 GHz; an idle
// pointer chase measures less, queues under load add to it). Not measured by `sol probe`: stated
// once here.
inline constexpr double kDramLatencyS = 600e-9;


// The ceilings under a prediction.
struct Ceilings {
  double copy_bytes_per_s = 0;  // device copy, read + write
  double launch_s = 0;          // one kernel launch, back to back
  hw::HwSpec spec;              // the peaks and SM count: a measured profile, else the datasheet row
  double l2_bytes_per_s = 0;    // L2 read + write: the run's probe, else the spec's L2 level (0: atomics not timed)
  double smem_bytes_per_s = 0;  // shared memory, all SMs: the spec's smem/L1 level (one wavefront of 128 B per clock per SM)
  std::string source;           // "the measured profile" or "the h200 datasheet"
};
// The run's copy bandwidth and launch overhead from the file (when measured), the peaks and SM count
// from `profile` (a measured profile; nullptr: the datasheet row `sheet` alone).
Ceilings ceilings_for(const results::File& f, const hw::HwSpec* profile, const hw::HwSpec& sheet);
// The same from a run's own measured ceilings (the harness, during the run).
Ceilings ceilings_for(const results::MeasuredCeilings& m, const hw::HwSpec& row);

// One launch bounded by its loads in flight (model::LoadStream): max(its bytes ÷ the copy bandwidth,
// its read bytes ÷ (resident threads × loads in flight × bytes per load ÷ kDramLatencyS)). The
// resident blocks are min(grid, SMs × the occupancy of its block on the spec's SM limits). `why`
// (optional) gets the count in one line. Throws sol::Error (BadInput) on a block the SM cannot hold.
double stream_seconds(const model::LoadStream& s, const Ceilings& c, std::string* why = nullptr);

// The last finish time of `repeats` groups of CTAs whose durations (seconds on one slot) are
// `cta_s`, launched in order onto `slots` resident slots, each CTA starting on the first slot to
// free up (the hardware's block scheduler). Exact up to kExactCtas CTAs; beyond, the earlier ones
// are taken as spread evenly over the slots and the last kExactCtas scheduled one by one.
inline constexpr int64_t kExactCtas = int64_t(1) << 16;
double greedy_makespan(const std::vector<double>& cta_s, int64_t repeats, int64_t slots);
// A tiled kernel's compute time `core_s` (its tiles' work spread evenly over the GPU) as its CTAs
// finish under model::CtaSchedule: slots = SMs × ctas_per_sm, each tile core_s × slots ÷ all tiles
// on one slot, plus fill_bytes at 1/SMs of the copy bandwidth per CTA when it is alone on its SM
// (with others resident, their tiles run while it fills). With several CTAs per SM, a grid that
// leaves SMs half empty is also scheduled as lone CTAs at a whole SM's rate, fills paid, and the
// lesser finish taken. At least core_s. `why` (optional) gets the count.
double schedule_seconds(const model::CtaSchedule& s, double core_s, const Ceilings& c, std::string* why = nullptr);

// The L1 pipeline's time for `wavefronts` passes (global loads: one per distinct 128-byte line a
// warp request touches; shared memory: one per bank pass), one per clock per SM: the busiest SM's
// share when the grid's `blocks` spread unevenly (⌈blocks ÷ SMs⌉ blocks' worth; 0: evenly).
double l1_seconds(double wavefronts, int64_t blocks, const Ceilings& c);

// Whether a launch's second read misses L2 (model::Reread): the resident blocks (min(grid, SMs ×
// occupancy)) × what each moves between its two reads, against the spec's L2 capacity. The bytes
// DRAM reads again: Reread::bytes when it misses, else 0; `why` (optional) gets the count.
double reread_dram_bytes(const model::Reread& r, const Ceilings& c, std::string* why = nullptr);

// How a GEMM rung is built, as far as its time depends on it.
struct GemmRung {
  model::GemmTile tile;
  int blocks_per_sm = 1;
  int stages = 1;
  int64_t pack_pitch_bytes = 0;  // operands whose pitch is not a multiple of this are copied first (0: none)
  bool sgemm = false;            // fp32 on the vector unit
  bool known = true;             // false for a library peer: its tiles are assumed, not declared
  bool mma_sync = false;         // mma.sync fed by ldmatrix (kMmaSyncShareOfWgmma), not wgmma
  double smem_bytes_per_flop = 0;  // mma.sync: the warp tile's operand bytes read from shared memory per FLOP
  int wavefronts_per_warp_fma = 0;  // SGEMM: L1 passes per warp FMA (gemm_rungs::Fp32Rung; 0: none counted)
  int64_t grid_blocks = 0;          // SGEMM: the rung's grid at the shape
  int splits = 1;                // k split over a cluster per tile (v08: gemm_rungs::decomposition), summed on chip
  bool c_tma_store = false;      // C leaves by TMA stores that drain under the next tile (gemm_rungs::Epilogue::tma_store)
  std::string name;              // "128×256×64, 4 stages, packs to 128 B"
};
// The rung's facts at a GEMM shape (v08 picks its tile and k split by the shape, its split capped at
// max_splits, its tile forced by tile_n where that is one of its widths); known=false with the
// Hopper tile for peers. Throws sol::Error (BadInput) for a family that is not a GEMM.
GemmRung gemm_rung(const std::string& family, const std::string& variant, const std::string& dtype, int64_t m,
                   int64_t n, int64_t k, int sms, int max_splits = gemm_rungs::kMaxSplitK, int tile_n = 0);
// gemm_rung at a shape (its m, n, k and v08's keys, gemm_rungs::kMaxSplitsKey and kTileNKey).
GemmRung gemm_rung(const std::string& family, const std::string& variant, const std::string& dtype, const Shape& s,
                   int sms);
bool is_gemm_family(const std::string& family);

struct Term {
  std::string name;  // "mainloop", "packing", "fill", "launch", "memory", "compute"
  double seconds = 0;
  std::string why;   // how it was counted, one line
};

struct Prediction {
  double seconds = 0;        // the sum of the terms
  std::vector<Term> terms;
  std::string bound;         // "compute" | "memory" | "launch"
  double tile_efficiency = 1, wave_efficiency = 1, alignment_efficiency = 1;  // GEMM only
  std::string rung;          // GEMM: the rung's facts used
  // The term that dominates, with the efficiencies below 95 % ("tile quantization 0.8 %").
  std::string limit;
};

// What the model needs about one record.
struct Work {
  std::string family, variant, dtype;
  Shape shape;
  double flops = 0, bytes = 0;
  model::Execution exec;  // declared by the variant (Execution::declared), else nothing beyond flops and bytes
};
// What a record's variant declares at its shape (the registry's cost); nullopt for a variant the
// registry does not hold (a PyTorch peer, a retired rung). The CLI passes the registry's.
using Declared = std::function<std::optional<model::Execution>(const std::string& family, const std::string& variant,
                                                               const Shape& shape)>;

// ---- declarations the specs and peers share ----------------------------------------------------
// How a flash-attention kernel runs its tiles: which matrix instruction, query × key tile, the
// operand bytes its warps read from shared memory per FLOP (ldmatrix-fed mma.sync; 0 for wgmma),
// how many keys each fp32 atomic add into dQ sums (backward; 0: no atomics), whether causal tiles
// above the diagonal are skipped, and its launches.
struct AttentionTiling {
  model::MatrixInstruction mma = model::MatrixInstruction::Wgmma;
  int64_t block_q = 128, block_k = 128;
  double smem_bytes_per_flop = 0;
  int64_t dq_keys_per_add = 0;
  bool skips_causal = true;
  int kernels = 1;
  double recompute = 1;  // FLOPs run ÷ FLOPs counted (det=1's dQ pass recomputes S and dP: 1.4)
  // CTAs resident per SM of the main kernel (0: not declared, no CTA schedule). The forward's CTA
  // owns block_q query rows of one head and streams the key tiles; the backward's owns block_k
  // keys of one K/V head and streams the query tiles of its h ÷ h_kv query heads.
  int ctas_per_sm = 0;
};
// At a registry shape (b, h[, hkv], n[, nk], d[, causal]); forward or backward (2.5× the FLOPs,
// P recomputed: one exponential per pair either way).
model::Execution attention_execution(const Shape& s, bool backward, const AttentionTiling& t);
// The standard (unfused) attention on the FP32 pipes: S = QKᵀ and O = PV as 16×16 shared-memory
// tiles (two wavefronts per warp FMA, the whole N×N computed even when causal), three kernels.
model::Execution standard_attention_execution(const Shape& s);
// A PyTorch peer's execution from what its script runs (bench/peers/*.py): the eager formulas'
// kernels and whole-tensor passes, the attention libraries' tiling; nullopt where it states nothing.
std::optional<model::Execution> peer_execution(const Work& w);
Work work_of(const results::Record& r);  // throws sol::Error (BadInput) on a shape it cannot parse
// The same for a record of a file: a record of schema 1, which names no dtype, takes the one its
// variant's or family's name gives (results::comparison_dtype).
Work work_of(const results::File& f, const results::Record& r);
// Throws sol::Error (BadInput) when the ceilings lack what the work needs (no copy bandwidth, no
// peak for its type).
Prediction predict(const Work& w, const Ceilings& c);
// A GEMM's prediction on the rung facts given, not the ones its variant declares: what v08 would
// take with another tile or k split (gemm_rungs::split_k is checked against it). Throws sol::Error
// (BadInput) for work that is not a GEMM with m, n and k, or ceilings without an SM count.
Prediction predict_gemm_with(const Work& w, const Ceilings& c, const GemmRung& g);

// ---- validation: predicted against measured over committed results -----------------------------
struct Check {
  results::Record record;
  Prediction prediction;
  double error = 0;  // |predicted − measured| ÷ measured
  double ratio = 0;  // measured ÷ predicted (> 1: slower than the model)
};
struct Stats {
  std::string family;  // "" for the overall row
  int count = 0;
  double mape = 0, median = 0, p90 = 0;  // of Check::error
};
struct Validation {
  std::vector<Check> checks;         // every verified record with a time, worst first
  std::vector<Stats> families;       // by family name
  // sol's own variants (whose structure the model reads from their declarations) and the peers
  // (libraries whose kernels it knows only from the peer's stated op), apart.
  Stats sol_kernels, peers;
  Stats overall;
  std::vector<std::string> unpredicted;  // "family/variant at shape: why" for records the model could not predict
  // Verified records left out of the error because their time holds host dispatch
  // (results::host_in_time): the model predicts device time. Count per family.
  std::map<std::string, int> host_timed;
  std::string ceilings;              // what the predictions stand on
};
// `profile`: the measured profile beside the results (nullptr: each file's datasheet row).
// `declared`: what each record's variant declares (empty: nothing; peers still get peer_execution).
Validation validate(const std::vector<results::File>& files, const hw::HwSpec* profile, const Declared& declared = {});
// p-th quantile (0..1) by linear interpolation; 0 for an empty list.
double quantile(std::vector<double> v, double p);
// The worst `worst` checks with their causes; text for a terminal, Markdown for docs/validation.md.
std::string validation_text(const Validation& v, size_t worst = 10);
std::string validation_markdown(const Validation& v, const std::string& results_dir, size_t worst = 10);
// One line: why a check is off, from its largest term and its efficiencies.
std::string cause(const Check& c);

// ---- a transformer step as the kernels it launches (kernels/transformer/stack.cu) -------------
// What a registered variant declares at a shape: its FLOPs, bytes and execution (the registry's
// cost); nullopt for a variant it lacks. The CLI passes the registry's (sol::declared_cost).
using DeclaredCost = std::function<std::optional<model::Cost>(const std::string& family, const std::string& variant,
                                                              const Shape& shape)>;
struct StepOp {
  std::string name;       // "QKV matmul", "MLP down dW", "transpose dyᵀ", ...
  int layer_op = -1;      // forward: the index into model::LayerModel::ops it belongs to; else −1
  int count = 1;          // identical launches
  Work work;              // one launch
  Prediction prediction;  // one launch
  double seconds() const { return double(count) * prediction.seconds; }
};
struct StackOps {
  std::vector<StepOp> forward, backward;  // one layer's, in launch order
  std::vector<StepOp> once;               // once per step: the input, upstream-gradient and dX copies
  double forward_s = 0, backward_s = 0, once_s = 0;
};
// The kernels the stack launches for one layer, each as the registry variant it runs (the TN GEMM
// v08_tile_choice, the LayerNorm register kernels, flash v02 forward and v01 det=1 backward) with
// that variant's declared cost, and the stack's own kernels (the elementwise chain, the bf16
// transpose, pitched copies) from the cost model. Throws sol::Error (BadInput) for a shape the
// layer model refuses, or when `declared` lacks one of the variants.
StackOps stack_ops(const model::StackShape& s, const DeclaredCost& declared);
// Every op predicted with the ceilings `for_family` gives for its family; sums the phases.
void predict_stack(StackOps& ops, const std::function<Ceilings(const std::string& family)>& for_family);
// The layer's predicted times into the planner's model: each forward op's time, the layer's
// forward and backward, the per-step copies; `source` says what the ceilings are.
void apply(const StackOps& ops, model::LayerModel& layer, const std::string& source);

// ---- the doctor on committed results: family-aware findings from the models -------------------
struct Finding {
  std::string topic;         // "tile quantization", "waves", "alignment", "split-k", "rows", "intensity"
  std::string observation;
  std::string prescription;
  bool problem = false;
};
struct Diagnosis {
  Work work;
  bool measured = false;     // a verified record with a time was found at the shape
  double measured_s = 0;
  Prediction prediction;
  std::string cause;         // the first problem's topic; "" when the model sees none
  std::string ceilings;      // what the prediction stands on (Ceilings::source)
  std::string origin = "from committed results";  // where the measured time comes from
  std::vector<Finding> findings;
};
// `record`: the measured record at the shape, or nullptr (model-only findings).
Diagnosis diagnose(const Work& w, const Ceilings& c, const results::Record* record);
std::string diagnosis_text(const Diagnosis& d);

}  // namespace sol::predict

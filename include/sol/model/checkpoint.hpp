#pragma once
// Activation checkpointing (lecture §8.2: spend FLOPs to save bytes, at block scale). A transformer
// layer is a chain of ops; each keeps some tensors in HBM until its backward runs. A schedule cuts
// the L identical layers into segments: a kept segment stores everything, a recomputed segment
// stores only its input and re-runs its forward just before its backward. Peak activation memory =
// what the schedule stores + the largest recomputed segment re-materialized; extra time = the
// recomputed forward. The optimum under a budget comes from a dynamic program over boundaries.
// Inside a kept layer a schedule may also keep only some ops' saved tensors and rebuild the rest in
// backward from what is kept (AOTAutograd's partitioner idea): keep the matmul inputs, re-run the
// cheap LayerNorm / GeLU. The choice is an exhaustive search over the layer's ops (2^8 subsets).
#include <cstdint>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"
#include "sol/hw/spec.hpp"

namespace sol::model {

struct StackShape {
  int64_t layers = 0, batch = 0, seq = 0, d_model = 0, heads = 0;
  int64_t mlp_ratio = 4;  // MLP width = mlp_ratio · d_model
  bool flash = true;      // attention: FlashAttention (O + logsumexp saved) or standard (P saved)
  DType dtype = DType::bf16;
  int64_t tokens() const { return batch * seq; }
  int64_t head_dim() const { return d_model / heads; }
  int64_t mlp() const { return mlp_ratio * d_model; }
};

// A tensor of a layer's forward, as the in-block choice sees it.
struct LayerTensor {
  std::string name;
  double bytes = 0;
  int producer = -1;  // index of the op whose forward writes it; -1: the layer input
};

// One op of a layer's forward: what it keeps for backward and what its forward costs.
struct LayerOp {
  std::string name;          // "LN1", "QKV matmul", ...
  double saved_bytes = 0;    // kept in HBM from the forward until this op's backward
  double flops = 0;          // forward
  double floor_s = 0;        // forward roofline floor on the chosen GPU
  double time_s = 0;         // forward predicted from the kernels it launches (0: floor_s stands in)
  std::string saved_what;    // which tensors, in words
  std::vector<int> reads;    // tensors its forward reads (indices into LayerModel::tensors)
  std::vector<int> saves;    // tensors its backward needs beyond the layer input; bytes sum to saved_bytes
};

struct LayerModel {
  std::vector<LayerOp> ops;
  double input_bytes = 0;     // the layer's input (LN1's input, the residual stream): a checkpoint
  double internal_bytes = 0;  // everything else the layer saves for backward
  double flops = 0;           // one layer's forward
  double floor_s = 0;         // one layer's forward floor
  // Times predicted from the kernels the stack launches (sol/predict.hpp's step model); 0: the
  // floors stand in (forward = floor_s, backward = 2 × floor_s, nothing once per step).
  double forward_s = 0, backward_s = 0;
  double step_once_s = 0;     // once per step: the stack's input, upstream gradient and dX copies
  std::string time_source = "roofline floors";
  std::vector<LayerTensor> tensors;  // the dataflow; tensors[0] is the layer input
  // What a layer's backward holds beside the saved activations at its high-water mark: the
  // gradients in flight, the transposed copies of the TN-only GEMM, attention's fp32 dQ
  // accumulator (kernels/transformer/stack.cu's order). The same for every schedule.
  double transient_bytes = 0;
  std::string transient_what;  // the phase that sets it, in words
};
// Throws sol::Error (BadInput) for non-positive sizes or heads not dividing d_model.
LayerModel layer_model(const StackShape& s, const hw::HwSpec& hw);
// The times the planner uses: predicted where LayerModel carries them, else the floors.
double op_time(const LayerOp& op);
double forward_time(const LayerModel& layer);
double backward_time(const LayerModel& layer);

// A contiguous run of layers [first, first + length).
struct Segment {
  int64_t first = 0, length = 0;
  bool recompute = false;  // false: all its activations are kept through the forward
};

// Which ops of a kept layer keep their saved tensors; the others' are rebuilt in backward by
// re-running the forward ops that produce them, back to a kept tensor or the layer input.
struct InBlockChoice {
  std::vector<bool> keep;        // per op (ops that save nothing count as kept); empty: keep all
  double kept_bytes = 0;         // Σ saved_bytes of kept ops
  double dropped_bytes = 0;      // the rest, re-materialized during the layer's backward
  std::vector<int> rerun;        // ops re-run in backward, ascending
  double rerun_flops = 0;
  double rerun_s = 0;            // Σ their forward times (op_time)
};
// Evaluates one choice. Throws sol::Error (BadInput) if keep has the wrong size.
InBlockChoice in_block_choice(const LayerModel& layer, std::vector<bool> keep);
// Every choice that is best for some per-layer byte budget: ascending kept bytes, strictly falling
// re-run time; the first keeps least, the last re-runs nothing. Exhaustive over the 2^n subsets of
// the ops that save something (n ≤ 16; a transformer layer has 8, so 256 subsets). Why not a
// min-cut: a cut minimizes re-run time plus a price per kept byte, which finds only the convex hull
// of this frontier; under a hard byte budget the best choice can lie inside the hull. Enumeration
// is exact for any budget and costs microseconds.
std::vector<InBlockChoice> in_block_frontier(const LayerModel& layer);
// The least re-run time whose kept bytes are ≤ budget_bytes; throws sol::Error (BadInput) if none.
InBlockChoice best_in_block(const LayerModel& layer, double budget_bytes);

struct Plan {
  std::string strategy;           // "none", "every block", "every 4th block", "√L segments", "optimal", ...
  std::vector<Segment> segments;  // cover layers 0..L-1 in order
  int64_t checkpoints = 0;        // recomputed segments (each keeps its input)
  int64_t largest_segment = 0;    // layers of the largest recomputed segment (0: none)
  int64_t recomputed_layers = 0;
  double peak_bytes = 0;          // kept + the largest recomputed segment re-materialized
  double total_peak_bytes = 0;    // peak_bytes + the backward's transients: what a budget must hold
  double extra_flops = 0;         // recomputed forward
  double extra_s = 0;
  double step_s = 0;              // forward + backward + recompute (+ the step's copies): layer_times
  InBlockChoice in_block;         // what the kept layers keep (keep empty: everything)
};

// Peak memory, recompute and step time of a schedule over L identical layers.
// Throws sol::Error (BadInput) if the segments do not cover 0..L-1 in order.
// With a choice, every kept layer keeps only choice.kept_bytes of its internals, re-runs choice.rerun
// in its backward (extra time) and re-materializes the dropped bytes then (peak).
Plan evaluate(const LayerModel& layer, int64_t layers, std::vector<Segment> segments, std::string strategy,
              const InBlockChoice* choice = nullptr);

// Fixed strategies. every_kth(k): a checkpoint at every k-th layer input, each segment of k layers
// recomputed (the last one shorter); k = 1 is "every block"; sqrt_l: k = round(√L) (Chen et al. 2016).
Plan no_checkpoints(const LayerModel& layer, int64_t layers);
Plan every_kth(const LayerModel& layer, int64_t layers, int64_t k);
Plan sqrt_l(const LayerModel& layer, int64_t layers);

// The fastest schedule whose total peak (saved + transients) is ≤ budget_bytes (ties: the smaller
// peak). Throws sol::Error (BadInput) when no schedule fits, naming the smallest total peak.
Plan optimal(const LayerModel& layer, int64_t layers, double budget_bytes);

// "optimal + in-block selection": the fastest schedule under the budget when every kept layer uses
// one in-block choice from the frontier (the same one for all kept layers) and the others sit in
// recomputed segments. For each frontier choice the best segmentation is exact (layers are
// identical, so r recomputed layers in segments of at most m store ⌈r/m⌉ inputs); the answer is the
// fastest over choices, so it is never slower than optimal() (whose layers keep everything).
// Throws sol::Error (BadInput) when nothing fits.
Plan optimal_in_block(const LayerModel& layer, int64_t layers, double budget_bytes);

// The smallest total peak any schedule reaches (what optimal() needs at least).
double min_peak_bytes(const LayerModel& layer, int64_t layers);

// The schedules `sol checkpoint` weighs, in its order: none, every block, every 2nd/4th/8th block
// (those below `layers`), √L, the block-level optimum (when one fits) and last the in-block
// optimum, the choice. Throws sol::Error (BadInput) when nothing fits the budget.
std::vector<Plan> candidate_plans(const LayerModel& layer, int64_t layers, double budget_bytes);

// The ops whose saved tensors a plan's kept layers drop, and the ops they re-run to rebuild them.
std::vector<std::string> dropped_ops(const LayerModel& layer, const Plan& p);
std::vector<std::string> rerun_ops(const LayerModel& layer, const Plan& p);

// The document of `sol checkpoint --json` (and sol.model.checkpoint): gpu, layers, attention,
// budget_bytes, the layer with its ops and times, each plan as a strategy, and the last plan as
// the choice. JSON text; the CLI adds what only it knows (the predicted kernels, the measurement).
std::string checkpoint_json(const std::string& gpu, int64_t layers, const std::string& attention, double budget_bytes,
                            const LayerModel& layer, const std::vector<Plan>& plans);

}  // namespace sol::model

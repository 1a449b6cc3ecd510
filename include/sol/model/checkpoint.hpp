#pragma once
// Activation checkpointing (lecture §8.2: spend FLOPs to save bytes, at block scale). A transformer
// layer is a chain of ops; each keeps some tensors in HBM until its backward runs. A schedule cuts
// the L identical layers into segments: a kept segment stores everything, a recomputed segment
// stores only its input and re-runs its forward just before its backward. Peak activation memory =
// what the schedule stores + the largest recomputed segment re-materialized; extra time = the
// recomputed forward. The optimum under a budget comes from a dynamic program over boundaries.
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
};

// One op of a layer's forward: what it keeps for backward and what its forward costs.
struct LayerOp {
  std::string name;          // "LN1", "QKV matmul", ...
  double saved_bytes = 0;    // kept in HBM from the forward until this op's backward
  double flops = 0;          // forward
  double floor_s = 0;        // forward roofline floor on the chosen GPU
  std::string saved_what;    // which tensors, in words
};

struct LayerModel {
  std::vector<LayerOp> ops;
  double input_bytes = 0;     // the layer's input (LN1's input, the residual stream): a checkpoint
  double internal_bytes = 0;  // everything else the layer saves for backward
  double flops = 0;           // one layer's forward
  double floor_s = 0;         // one layer's forward floor
};
// Throws sol::Error (BadInput) for non-positive sizes or heads not dividing d_model.
LayerModel layer_model(const StackShape& s, const hw::HwSpec& hw);

// A contiguous run of layers [first, first + length).
struct Segment {
  int64_t first = 0, length = 0;
  bool recompute = false;  // false: all its activations are kept through the forward
};

struct Plan {
  std::string strategy;           // "none", "every block", "every 4th block", "√L segments", "optimal"
  std::vector<Segment> segments;  // cover layers 0..L-1 in order
  int64_t checkpoints = 0;        // recomputed segments (each keeps its input)
  int64_t largest_segment = 0;    // layers of the largest recomputed segment (0: none)
  int64_t recomputed_layers = 0;
  double peak_bytes = 0;          // kept + the largest recomputed segment re-materialized
  double extra_flops = 0;         // recomputed forward
  double extra_s = 0;
  double step_s = 0;              // forward + backward (2× forward) + recompute, floors
};

// Peak memory, recompute and step time of a schedule over L identical layers.
// Throws sol::Error (BadInput) if the segments do not cover 0..L-1 in order.
Plan evaluate(const LayerModel& layer, int64_t layers, std::vector<Segment> segments, std::string strategy);

// Fixed strategies. every_kth(k): a checkpoint at every k-th layer input, each segment of k layers
// recomputed (the last one shorter); k = 1 is "every block"; sqrt_l: k = round(√L) (Chen et al. 2016).
Plan no_checkpoints(const LayerModel& layer, int64_t layers);
Plan every_kth(const LayerModel& layer, int64_t layers, int64_t k);
Plan sqrt_l(const LayerModel& layer, int64_t layers);

// The fastest schedule whose peak is ≤ budget_bytes (ties: the smaller peak). Throws sol::Error
// (BadInput) when no schedule fits, naming the smallest peak any schedule reaches.
Plan optimal(const LayerModel& layer, int64_t layers, double budget_bytes);

// The smallest peak any schedule reaches (what optimal() needs at least).
double min_peak_bytes(const LayerModel& layer, int64_t layers);

// "40GiB", "40 GB", "512MiB", "1e9" (bytes) → bytes. Throws sol::Error (BadInput).
double parse_bytes(const std::string& text);

}  // namespace sol::model

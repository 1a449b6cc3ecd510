#pragma once
// One roofline question, asked the same way by `sol roofline` and by Python's sol.roofline:
// an op and its sizes (or the caller's own FLOP and byte counts), a chip, a dtype and which
// unit's peak bounds it. The answer holds the cost, the estimate, the per-level roofline, the
// notes that say how each figure was chosen, and for a TPU matmul the systolic simulator's
// view; to_json gives the document `sol roofline --json` prints (one schema for both).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"

namespace sol::model {

struct RooflineQuery {
  // matmul | elementwise | layernorm | rmsnorm | softmax | attention | custom (flops, bytes given)
  std::string op;
  std::string gpu = "h100";
  DType dtype = DType::bf16;
  std::string unit;  // "" (the op's natural unit), "matrix" or "vector"
  std::string impl;  // matmul: minimal|naive|tiled; elementwise, norms, softmax: naive|fused; attention: naive|flash
  // Sizes by name: m, n, k, tile (matmul); n, ops, extra_reads (elementwise); rows, cols
  // (norms, softmax); batch, heads, seq, head_dim, block_q (attention).
  std::map<std::string, int64_t> sizes;
  double flops_per_op = 1;  // elementwise
  bool causal = false, backward = false, l2_reuse = false;  // attention
  double flops = 0, bytes = 0;  // custom
  std::string name;             // custom: the op's label
  std::string topology;         // tp-mlp, tp-attention: the fabric of the all-reduce (sol/model/comm.hpp)
};

// A tensor-parallel layer over N GPUs, Megatron-style: a column-parallel matmul, the local work,
// a row-parallel matmul, then one all-reduce of the T×H output. tp-mlp: W1 (T × F/N × H), GeLU,
// W2 (T × H × F/N); tp-attention: QKV (T × 3H/N × H), flash attention over heads/N heads, the
// output projection (T × H × H/N). Forward pass only.
struct TpPart {
  Cost cost;
  Estimate estimate;
};
struct TpView {
  int64_t gpus = 0;
  std::string topology;
  std::vector<TpPart> parts;
  double compute_s = 0;          // Σ of the parts' floors on one GPU
  double allreduce_bytes = 0;    // T × H × dtype
  double allreduce_s = 0;        // the collective model's estimate
  double allreduce_floor_s = 0;  // its bandwidth floor
  std::string allreduce_algo;    // "ring/Simple"
  double serial_s = 0;           // compute + all-reduce, one after the other
  double overlapped_s = 0;       // max of the two, with the all-reduce hidden behind other work
  std::string binds;             // "compute" | "communication"
};

struct MxuView {
  int64_t mxus = 0, row_folds = 0, col_folds = 0, cycles_per_mxu = 0;
  double mapped_fraction = 0, mxu_s = 0, fraction_of_peak = 0, estimate_s = 0;
};

struct RooflineAnswer {
  std::string kind;  // the query's op
  const hw::HwSpec* hw = nullptr;
  Cost cost;         // cost.unit: the unit whose peak bounds it; math_dtype where converted
  Estimate estimate;
  std::vector<LevelEstimate> levels;
  std::vector<std::string> notes;
  std::optional<MxuView> mxu;  // a matmul on a TPU's matrix unit
  std::optional<TpView> tp;    // tp-mlp, tp-attention
};

// The size names each op reads (a size given that the op does not read is a mistake).
const std::map<std::string, std::vector<std::string>>& roofline_sizes();
// Throws sol::Error (BadInput) for an unknown op, gpu, unit or impl, a missing or invalid size,
// or a size the op does not read (a tensor-parallel split that does not divide: F, heads by N).
RooflineAnswer answer(const RooflineQuery& q);
// The `sol roofline --json` document (without the schema_version every CLI document starts with).
std::string to_json(const RooflineAnswer& a, int indent = 2);

}  // namespace sol::model

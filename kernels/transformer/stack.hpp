#pragma once
// The checkpointing planner's GPU proof (lecture §8.2): a stack of pre-LN transformer
// layers — exactly include/sol/model/checkpoint.hpp's layer_model(): LN1 → QKV matmul → flash
// attention → out proj → residual → LN2 → MLP up → GeLU → MLP down → residual, no biases —
// run forward and backward on sol's own kernels (LayerNorm, FlashAttention-2 with det=1, the
// Hopper TN GEMM, the elementwise chain) under a schedule of model::Segment: a kept segment
// stores every activation its backward needs, a recomputed one stores only its input and re-runs
// its forward just before its backward. Every kernel is deterministic, so every schedule must
// produce the same gradient bits; the step's device memory is counted by a stream-ordered pool
// with per-tensor bookkeeping (what the planner calls saved activations, and everything else).
// Host-visible interface only (no CUDA types): the harness (bench/checkpoint.cpp) and the GPU tests
// include it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sol/model/checkpoint.hpp"

namespace sol::transformer {

// The planner's own shape: the stack runs what it models (flash attention, bf16).
using Shape = model::StackShape;

// Where each parameter sits in one layer's flat bf16 parameter (and gradient) block, in elements.
// Linear weights are stored as nn.Linear does, W[out × in]: y = x·Wᵀ.
struct ParamLayout {
  int64_t ln1_gamma = 0, ln1_beta = 0, w_qkv = 0, w_out = 0, ln2_gamma = 0, ln2_beta = 0, w_up = 0, w_down = 0;
  int64_t count = 0;  // elements per layer
  static ParamLayout of(const Shape& s);
};

// What one step held on the device. "Saved" tensors are exactly what the planner counts as
// activation memory: each layer's input (the residual stream, kept or a checkpoint), LN stats,
// LN1/LN2 outputs, Q/K/V, the logsumexp, O, the first residual's output, the MLP up and GeLU
// outputs — kept through the forward, or re-materialized by a recomputed segment. Everything
// else the step allocates is "transient": the out-proj and MLP-down outputs before their residual
// adds, the stack's output, every activation gradient, transposed copies for the TN-only GEMM,
// the attention and LayerNorm backward workspaces. Weights and their gradients live outside.
struct StepMemory {
  double saved_peak = 0;      // high-water mark of live saved bytes (compare with Plan::peak_bytes)
  double total_peak = 0;      // high-water mark of saved + transient live bytes
  double pool_used_high = 0;  // the pool's own high-water mark (cudaMemPoolAttrUsedMemHigh)
  double device_delta = 0;    // cudaMemGetInfo: free before the step − least free during it (0 unless sampled)
};

class Stack {
 public:
  // Allocates weights, gradients, the input and the upstream gradient dY, filled from seed.
  // Throws sol::Error (BadInput) for shapes the kernels do not run (head dim 64 or 128, d_model a
  // multiple of 64, tokens a multiple of 64) and when there is no CUDA device.
  Stack(const Shape& shape, uint64_t seed);
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  // One forward + backward under the schedule (segments must cover 0..layers−1 in order); the
  // loss is Σ dY∘Y, so the backward starts from dY. The gradients are poisoned (NaN) first, so a
  // gradient the step does not write shows as NaN, never as a stale value. sample_device: also query cudaMemGetInfo after
  // every allocation (after trimming the pool, so that its growth shows); slower, for one step.
  StepMemory step(const std::vector<model::Segment>& segments, bool sample_device = false);
  // warmup steps, then `reps` steps timed each with CUDA events around forward + backward (ms).
  // enqueue_ms: the host's wall time to issue each timed step; where it approaches the GPU time,
  // the step is launch-bound and the GPU time is the host's, not the kernels'.
  std::vector<double> time_steps(const std::vector<model::Segment>& segments, int warmup, int reps,
                                 std::vector<double>* enqueue_ms = nullptr);

  const Shape& shape() const { return shape_; }
  // Host copies (bf16 bits): the stack input x [T×d], dY [T×d], one layer's parameters.
  std::vector<uint16_t> input() const;
  std::vector<uint16_t> upstream() const;
  std::vector<uint16_t> params(int64_t layer) const;
  // Gradients of the last step: dX of the stack input [T×d], then every layer's ParamLayout block.
  std::vector<uint16_t> gradients() const;

 private:
  struct Impl;
  Shape shape_;
  std::unique_ptr<Impl> impl_;
};

// True if a CUDA device is usable; otherwise *why says why not.
bool device_available(std::string* why);
// The current device's name ("NVIDIA H200").
std::string device_name();

}  // namespace sol::transformer

#pragma once
// The model shape set: the problem sizes of real decoder layers, derived from the published
// configurations of a few open models. Every benchmark that claims "the shapes a model uses"
// reads this one list (the dispatcher's table, `sol bench FAMILY --model-shapes`).
//   linear layers  tokens × in → tokens × out, activations × weightsᵀ (the registry's TN GEMM:
//                  m = tokens, n = out features, k = in features): QKV projection, output
//                  projection, MLP up+gate (fused as 2·FFN), MLP down, LM head.
//   norms          tokens × hidden (the model's own norm), and per-head qk-norm tokens·heads × d.
//   softmax        tokens × vocabulary (the logits); crossentropy the same (rows, vocab), training.
//   attention      prefill (sequence = tokens, causal) and decode (a few new tokens against a
//                  KV cache), the model's GQA ratio and head dim.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/core/shape.hpp"

namespace sol::model {

struct ModelConfig {
  std::string name;  // "llama3-8b"
  int64_t hidden = 0, ffn = 0, q_heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, layers = 0;
  int64_t experts = 1, top_k = 1;  // mixture of experts (ffn is per expert)
  bool rmsnorm = true;             // false: LayerNorm (GPT-2)
};
const std::vector<ModelConfig>& model_configs();

// Token counts per call. Dispatch: decode 1, 8, 32 and prefill 512, 4096, 16384; Full: decode
// 1, 8, 16, 32, 64 and prefill/training 512, 2048, 8192, 16384.
enum class TokenSet { Dispatch, Full };
std::vector<int64_t> token_counts(TokenSet set);

struct ModelShape {
  std::string model;  // the first model with this shape
  std::string layer;  // "qkv", "o", "up_gate", "down", "lm_head", "norm", "qk_norm", "logits",
                      // "prefill", "decode"
  int64_t tokens = 0;
  Shape shape;        // in the family's registry dimensions
  std::vector<std::string> also;  // other "model/layer" entries with the identical shape
};

// The shapes of one family, deduplicated, in model then layer then token order. Families:
// gemm_bf16, gemm_fp16, gemm_fp8 (m, n, k), layernorm, rmsnorm, layernorm_bwd, rmsnorm_bwd
// (rows, cols), softmax, softmax_bwd (rows, cols), attention, attention_bwd (b, h, hkv, n, nk, d,
// causal), crossentropy (rows, vocab). Decode attention uses batches 1, 8, 64 against caches of
// 1024, 8192, 32768 keys (the training-only families — the backwards, crossentropy — take prefill
// shapes only). Throws sol::Error (BadInput) for a
// family the set does not cover.
std::vector<ModelShape> model_shapes(const std::string& family, TokenSet set = TokenSet::Dispatch);
// The families model_shapes covers.
const std::vector<std::string>& model_shape_families();

}  // namespace sol::model

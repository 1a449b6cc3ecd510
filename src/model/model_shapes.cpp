#include "sol/model/model_shapes.hpp"

#include <algorithm>

#include "sol/core/error.hpp"

namespace sol::model {

const std::vector<ModelConfig>& model_configs() {
  // Published configurations (config.json of each release).
  static const std::vector<ModelConfig> configs = {
      {"llama3-8b", 4096, 14336, 32, 8, 128, 128256, 32},
      {"llama3-70b", 8192, 28672, 64, 8, 128, 128256, 80},
      {"qwen2.5-7b", 3584, 18944, 28, 4, 128, 152064, 28},
      {"mixtral-8x7b", 4096, 14336, 32, 8, 128, 32000, 32, 8, 2},
      {"gpt2", 768, 3072, 12, 12, 64, 50257, 12, 1, 1, false},
  };
  return configs;
}

std::vector<int64_t> token_counts(TokenSet set) {
  if (set == TokenSet::Dispatch) return {1, 8, 32, 512, 4096, 16384};
  return {1, 8, 16, 32, 64, 512, 2048, 8192, 16384};
}

const std::vector<std::string>& model_shape_families() {
  static const std::vector<std::string> f = {"gemm_bf16", "gemm_fp16",     "gemm_fp8",    "layernorm",
                                             "rmsnorm",   "layernorm_bwd", "rmsnorm_bwd", "softmax",
                                             "softmax_bwd", "attention",   "attention_bwd", "crossentropy"};
  return f;
}

namespace {

bool is_decode(int64_t tokens) { return tokens < 512; }

class Collector {
 public:
  void add(const ModelConfig& c, const std::string& layer, int64_t tokens, Shape s) {
    for (auto& have : out_)
      if (have.shape == s) {
        have.also.push_back(c.name + "/" + layer);
        return;
      }
    out_.push_back({c.name, layer, tokens, std::move(s), {}});
  }
  std::vector<ModelShape> take() { return std::move(out_); }

 private:
  std::vector<ModelShape> out_;
};

Shape dims(std::initializer_list<std::pair<const char*, int64_t>> d) {
  Shape s;
  for (const auto& [k, v] : d) s.dims.emplace_back(k, v);
  return s;
}

void gemm(Collector& col, const ModelConfig& c, int64_t t) {
  const int64_t qkv = (c.q_heads + 2 * c.kv_heads) * c.head_dim;
  // Mixture of experts: each expert's FFN sees tokens·top_k/experts rows on average (≥ 1).
  const int64_t ffn_rows = std::max<int64_t>(1, t * c.top_k / c.experts);
  col.add(c, "qkv", t, dims({{"m", t}, {"n", qkv}, {"k", c.hidden}}));
  col.add(c, "o", t, dims({{"m", t}, {"n", c.hidden}, {"k", c.q_heads * c.head_dim}}));
  col.add(c, "up_gate", ffn_rows, dims({{"m", ffn_rows}, {"n", 2 * c.ffn}, {"k", c.hidden}}));
  col.add(c, "down", ffn_rows, dims({{"m", ffn_rows}, {"n", c.hidden}, {"k", c.ffn}}));
  col.add(c, "lm_head", t, dims({{"m", t}, {"n", c.vocab}, {"k", c.hidden}}));
}

void norms(Collector& col, const ModelConfig& c, int64_t t, bool rms) {
  if (c.rmsnorm == rms) col.add(c, "norm", t, dims({{"rows", t}, {"cols", c.hidden}}));
  // qk-norm (per head, d wide) is an RMSNorm wherever a model uses it.
  if (rms) col.add(c, "qk_norm", t, dims({{"rows", t * c.q_heads}, {"cols", c.head_dim}}));
}

Shape attention_shape(const ModelConfig& c, int64_t b, int64_t n, int64_t nk) {
  return dims({{"b", b}, {"h", c.q_heads}, {"hkv", c.kv_heads}, {"n", n}, {"nk", nk}, {"d", c.head_dim}, {"causal", 1}});
}

}  // namespace

std::vector<ModelShape> model_shapes(const std::string& family, TokenSet set) {
  const auto& families = model_shape_families();
  if (std::find(families.begin(), families.end(), family) == families.end()) {
    std::string list;
    for (const auto& f : families) list += (list.empty() ? "" : ", ") + f;
    bad_input("the model shape set has no shapes for family '" + family + "'", "it covers " + list);
  }
  const bool bwd = family.ends_with("_bwd") || family == "crossentropy";  // a loss and its gradient: training
  Collector col;
  for (const auto& c : model_configs())
    for (int64_t t : token_counts(set)) {
      if (family.starts_with("gemm_")) gemm(col, c, t);
      else if (family.starts_with("layernorm")) norms(col, c, t, false);
      else if (family.starts_with("rmsnorm")) norms(col, c, t, true);
      else if (family.starts_with("softmax")) col.add(c, "logits", t, dims({{"rows", t}, {"cols", c.vocab}}));
      else if (family == "crossentropy") col.add(c, "loss", t, dims({{"rows", t}, {"vocab", c.vocab}}));
      else if (family.starts_with("attention")) {
        if (!is_decode(t)) col.add(c, "prefill", t, attention_shape(c, 1, t, t));
        else if (!bwd && (t == 1 || t == 8))
          for (int64_t b : {1, 8, 64})
            for (int64_t cache : {1024, 8192, 32768}) col.add(c, "decode", t, attention_shape(c, b, t, cache));
      }
    }
  auto out = col.take();
  // Training-only families: prefill token counts (a backward runs where a forward trained).
  if (bwd) std::erase_if(out, [](const ModelShape& s) { return is_decode(s.tokens); });
  return out;
}

}  // namespace sol::model

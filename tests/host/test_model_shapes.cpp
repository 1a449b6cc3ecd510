#include <gtest/gtest.h>

#include <algorithm>

#include "sol/core/error.hpp"
#include "sol/model/model_shapes.hpp"

using namespace sol;
using namespace sol::model;

namespace {
const ModelShape* find(const std::vector<ModelShape>& v, const std::string& shape) {
  for (const auto& s : v)
    if (s.shape.str() == shape) return &s;
  return nullptr;
}
}  // namespace

TEST(ModelShapes, LinearLayersFollowTheConfig) {
  const auto v = model_shapes("gemm_bf16");
  // Llama-3 8B: QKV (32 + 2·8)·128 = 6144 outputs from 4096; up+gate 2·14336; LM head 128256.
  const auto* qkv = find(v, "m=8,n=6144,k=4096");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->model, "llama3-8b");
  EXPECT_EQ(qkv->layer, "qkv");
  EXPECT_NE(find(v, "m=4096,n=28672,k=4096"), nullptr);
  EXPECT_NE(find(v, "m=1,n=128256,k=4096"), nullptr);
  // Mixtral's attention layers equal Llama-3 8B's: listed once, the duplicate named in `also`.
  EXPECT_NE(std::find(qkv->also.begin(), qkv->also.end(), "mixtral-8x7b/qkv"), qkv->also.end());
  // Mixtral's experts see tokens·2/8 rows: 4096 tokens → 1024 rows per expert.
  const auto* expert = find(v, "m=1024,n=28672,k=4096");
  ASSERT_NE(expert, nullptr);
  EXPECT_EQ(expert->model, "mixtral-8x7b");
}

TEST(ModelShapes, NoShapeIsListedTwice) {
  for (const auto& f : model_shape_families()) {
    const auto v = model_shapes(f, TokenSet::Full);
    ASSERT_FALSE(v.empty()) << f;
    for (size_t i = 0; i < v.size(); ++i)
      for (size_t j = i + 1; j < v.size(); ++j) EXPECT_FALSE(v[i].shape == v[j].shape) << f << " " << v[i].shape.str();
  }
}

TEST(ModelShapes, AttentionDecodeAndPrefill) {
  const auto v = model_shapes("attention");
  EXPECT_NE(find(v, "b=8,h=32,hkv=8,n=1,nk=32768,d=128,causal=1"), nullptr);
  EXPECT_NE(find(v, "b=1,h=64,hkv=8,n=16384,nk=16384,d=128,causal=1"), nullptr);
  EXPECT_NE(find(v, "b=1,h=12,hkv=12,n=512,nk=512,d=64,causal=1"), nullptr);
  for (const auto& s : model_shapes("attention_bwd")) EXPECT_GE(s.tokens, 512) << s.shape.str();
}

TEST(ModelShapes, NormsAndLogits) {
  EXPECT_NE(find(model_shapes("rmsnorm"), "rows=16384,cols=3584"), nullptr);
  EXPECT_NE(find(model_shapes("rmsnorm"), "rows=131072,cols=128"), nullptr);  // qk-norm, 4096 tokens × 32 heads
  EXPECT_NE(find(model_shapes("layernorm"), "rows=4096,cols=768"), nullptr);
  EXPECT_EQ(find(model_shapes("layernorm"), "rows=4096,cols=4096"), nullptr);  // Llama uses RMSNorm
  EXPECT_NE(find(model_shapes("softmax"), "rows=32,cols=152064"), nullptr);
  // Cross-entropy: the training token counts against each vocabulary.
  EXPECT_NE(find(model_shapes("crossentropy"), "rows=16384,vocab=152064"), nullptr);
  EXPECT_NE(find(model_shapes("crossentropy"), "rows=512,vocab=50257"), nullptr);
  for (const auto& s : model_shapes("crossentropy")) EXPECT_GE(s.tokens, 512) << s.shape.str();
  EXPECT_EQ(token_counts(TokenSet::Dispatch), (std::vector<int64_t>{1, 8, 32, 512, 4096, 16384}));
}

TEST(ModelShapes, UnknownFamilyIsOneClearError) {
  try {
    model_shapes("copy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    EXPECT_NE(e.line().find("it covers gemm_bf16"), std::string::npos) << e.line();
  }
}

// The public kernel API's host side under random arguments, right and wrong: every explain_* and
// *_workspace_size call returns or throws sol::Error with a one-line message — never another
// exception, a crash or a hang. Sizes, pitches and strides from 0, negative and huge values to
// plausible ones; pointers null, fake (never dereferenced: explain and the size queries do not touch
// memory), aligned and not, some shared between operands; every element type, and one past the
// enum. Deterministic (fixed seed); needs no GPU.
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "sol/core/error.hpp"
#include "sol/kernels.hpp"
#include "tests/gpu/api_test_util.hpp"

namespace {

using namespace sol;

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  T pick(std::initializer_list<T> from) {
    return *(from.begin() + std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng_));
  }
  // A size or pitch: mostly plausible, sometimes zero, negative or past any limit.
  int64_t size() {
    if (chance(0.75)) return pick<int64_t>({1, 2, 7, 8, 63, 64, 128, 1000, 4096, 5120, 32000, 151936});
    return pick<int64_t>({0, -1, -4096, int64_t(1) << 31, (int64_t(1) << 31) - 1, int64_t(1) << 40,
                          std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()});
  }
  int64_t pitch() { return chance(0.5) ? 0 : size(); }
  DType dtype() {
    return pick<DType>({DType::bf16, DType::f16, DType::f32, DType::fp8_e4m3, DType::fp8_e5m2, DType::int8,
                        DType::f64, DType::tf32, static_cast<DType>(99)});
  }
  float number() {
    return pick<float>({0.f, 1.f, -1.f, 1e-5f, 0.5f, 1e30f, std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()});
  }
  // Null, or one of a few fake allocations (so that operands sometimes coincide), at an offset that
  // keeps or breaks 16-byte alignment.
  void* pointer() {
    if (chance(0.15)) return nullptr;
    char* base = static_cast<char*>(test::fake_pointer(pick<uintptr_t>({1, 2, 3, 4, 5, 6})));
    return base + pick<int>({0, 0, 0, 2, 4, 8, 1});
  }
  BSHDStrides strides() {
    if (chance(0.6)) return {};
    return {pitch(), pitch(), pitch()};
  }

 private:
  std::mt19937_64 rng_;
};

// One call: a result, or sol::Error with one line; anything else fails the test with the op's name.
int calls = 0, refused = 0;
void expect_result_or_error(const char* op, const std::function<void()>& call) {
  ++calls;
  try {
    call();
  } catch (const Error& e) {
    ++refused;
    const std::string line = e.line();
    EXPECT_FALSE(line.empty()) << op;
    EXPECT_EQ(line.find('\n'), std::string::npos) << op << ": " << line;
  } catch (const std::exception& e) {
    ADD_FAILURE() << op << " threw " << typeid(e).name() << ", not sol::Error: " << e.what();
  } catch (...) {
    ADD_FAILURE() << op << " threw something that is not an exception";
  }
}

}  // namespace

TEST(ApiFuzz, RandomArgumentsGiveAResultOrOneLineError) {
  Draw d(20261206);
  for (int i = 0; i < 4000; ++i) {
    MatmulArgs mm;
    mm.m = d.size(), mm.n = d.size(), mm.k = d.size();
    mm.a_type = d.chance(0.8) ? d.pick<DType>({DType::bf16, DType::f16, DType::fp8_e4m3, DType::f32}) : d.dtype();
    mm.b_type = d.chance(0.9) ? mm.a_type : d.dtype();
    mm.c_type = d.chance(0.8) ? d.pick<DType>({DType::bf16, DType::f16, DType::f32}) : d.dtype();
    mm.trans_a = d.pick<Transpose>({Transpose::N, Transpose::T});
    mm.trans_b = d.pick<Transpose>({Transpose::N, Transpose::T});
    mm.a = d.pointer(), mm.b = d.pointer(), mm.c = d.pointer();
    mm.lda = d.pitch(), mm.ldb = d.pitch(), mm.ldc = d.pitch();
    mm.alpha = d.number(), mm.beta = d.chance(0.7) ? 0.f : d.number();
    mm.scale_a = static_cast<const float*>(d.pointer()), mm.scale_b = static_cast<const float*>(d.pointer());
    expect_result_or_error("explain_matmul", [&] { (void)explain_matmul(mm); });
    expect_result_or_error("matmul_workspace_size", [&] { (void)matmul_workspace_size(mm); });

    AttentionArgs at;
    at.dtype = d.chance(0.8) ? d.pick<DType>({DType::bf16, DType::f16}) : d.dtype();
    at.b = d.size(), at.h = d.pick<int64_t>({1, 8, 32, 0, -1}), at.h_kv = d.pick<int64_t>({1, 8, 3, 0, 32});
    at.n = d.size(), at.nk = d.size(), at.d = d.pick<int>({64, 128, 96, 256, 0, -64});
    at.causal = d.chance(0.5), at.scale = d.chance(0.7) ? 0.f : d.number();
    at.q = d.pointer(), at.k = d.pointer(), at.v = d.pointer(), at.o = d.pointer();
    at.lse = static_cast<float*>(d.pointer());
    at.q_stride = d.strides(), at.k_stride = d.strides(), at.v_stride = d.strides(), at.o_stride = d.strides();
    if (d.chance(0.2)) at.seqlens_k = static_cast<const int32_t*>(d.pointer());
    if (d.chance(0.2)) {
      at.block_table = static_cast<const int32_t*>(d.pointer());
      at.pages_per_seq = d.size(), at.page_size = d.pick<int>({16, 64, 256, 17, 0, 512});
    }
    expect_result_or_error("explain_attention_forward", [&] { (void)explain_attention_forward(at); });
    expect_result_or_error("attention_forward_workspace_size", [&] { (void)attention_forward_workspace_size(at); });
    AttentionBackwardArgs ab;
    ab.fwd = at;
    ab.dout = d.pointer(), ab.dq = d.pointer(), ab.dk = d.pointer(), ab.dv = d.pointer();
    ab.dout_stride = d.strides(), ab.dq_stride = d.strides();
    ab.deterministic = d.chance(0.5);
    expect_result_or_error("explain_attention_backward", [&] { (void)explain_attention_backward(ab); });
    expect_result_or_error("attention_backward_workspace_size",
                           [&] { (void)attention_backward_workspace_size(ab); });

    LayerNormArgs ln;
    ln.dtype = d.dtype(), ln.rows = d.size(), ln.cols = d.size();
    ln.x = d.pointer(), ln.y = d.pointer(), ln.ldx = d.pitch(), ln.ldy = d.pitch();
    ln.gamma = d.chance(0.5) ? d.pointer() : nullptr, ln.beta = d.chance(0.5) ? d.pointer() : nullptr;
    ln.eps = d.number();
    ln.mean = static_cast<float*>(d.chance(0.5) ? d.pointer() : nullptr);
    ln.rstd = static_cast<float*>(d.chance(0.5) ? d.pointer() : nullptr);
    if (d.chance(0.3)) ln.residual = d.pointer(), ln.sum = d.pointer(), ln.ldr = d.pitch(), ln.lds = d.pitch();
    expect_result_or_error("explain_layernorm_forward", [&] { (void)explain_layernorm_forward(ln); });
    expect_result_or_error("layernorm_forward_workspace_size", [&] { (void)layernorm_forward_workspace_size(ln); });
    RMSNormArgs rn;
    rn.dtype = ln.dtype, rn.rows = ln.rows, rn.cols = ln.cols, rn.x = ln.x, rn.y = ln.y, rn.ldx = ln.ldx;
    rn.ldy = ln.ldy, rn.gamma = ln.gamma, rn.eps = ln.eps, rn.rstd = ln.rstd, rn.residual = ln.residual;
    rn.sum = ln.sum, rn.ldr = ln.ldr, rn.lds = ln.lds;
    expect_result_or_error("explain_rmsnorm_forward", [&] { (void)explain_rmsnorm_forward(rn); });
    expect_result_or_error("rmsnorm_forward_workspace_size", [&] { (void)rmsnorm_forward_workspace_size(rn); });
    SoftmaxArgs sm{ln.dtype, ln.rows, ln.cols, ln.x, ln.y, ln.ldx, ln.ldy};
    expect_result_or_error("explain_softmax_forward", [&] { (void)explain_softmax_forward(sm); });
    expect_result_or_error("softmax_forward_workspace_size", [&] { (void)softmax_forward_workspace_size(sm); });

    LayerNormBackwardArgs lb;
    lb.dtype = d.dtype(), lb.rows = d.size(), lb.cols = d.size();
    lb.x = d.pointer(), lb.dy = d.pointer(), lb.dx = d.pointer();
    lb.ldx = d.pitch(), lb.lddy = d.pitch(), lb.lddx = d.pitch();
    lb.gamma = d.chance(0.5) ? d.pointer() : nullptr;
    lb.mean = static_cast<const float*>(d.pointer()), lb.rstd = static_cast<const float*>(d.pointer());
    lb.dgamma = d.chance(0.5) ? d.pointer() : nullptr, lb.dbeta = d.chance(0.5) ? d.pointer() : nullptr;
    expect_result_or_error("explain_layernorm_backward", [&] { (void)explain_layernorm_backward(lb); });
    expect_result_or_error("layernorm_backward_workspace_size",
                           [&] { (void)layernorm_backward_workspace_size(lb); });
    RMSNormBackwardArgs rb;
    rb.dtype = lb.dtype, rb.rows = lb.rows, rb.cols = lb.cols, rb.x = lb.x, rb.dy = lb.dy, rb.dx = lb.dx;
    rb.ldx = lb.ldx, rb.lddy = lb.lddy, rb.lddx = lb.lddx, rb.gamma = lb.gamma, rb.rstd = lb.rstd;
    rb.dgamma = lb.dgamma;
    expect_result_or_error("explain_rmsnorm_backward", [&] { (void)explain_rmsnorm_backward(rb); });
    expect_result_or_error("rmsnorm_backward_workspace_size", [&] { (void)rmsnorm_backward_workspace_size(rb); });
    SoftmaxBackwardArgs sb{lb.dtype, lb.rows, lb.cols, lb.x, lb.dy, lb.dx, lb.ldx, lb.lddy, lb.lddx};
    expect_result_or_error("explain_softmax_backward", [&] { (void)explain_softmax_backward(sb); });
    expect_result_or_error("softmax_backward_workspace_size", [&] { (void)softmax_backward_workspace_size(sb); });

    CrossEntropyArgs ce;
    ce.dtype = d.dtype(), ce.rows = d.size(), ce.vocab = d.size();
    ce.logits = d.pointer(), ce.ldlogits = d.pitch(), ce.labels = d.pointer();
    ce.label_type = d.pick<IndexType>({IndexType::i32, IndexType::i64});
    ce.ignore_index = d.pick<int64_t>({-100, 0, 5, -1});
    ce.label_smoothing = d.chance(0.7) ? 0.f : d.number();
    ce.reduction = d.pick<Reduction>({Reduction::Mean, Reduction::Sum});
    ce.grad_scale = d.number();
    ce.loss = static_cast<float*>(d.chance(0.5) ? d.pointer() : nullptr);
    ce.loss_reduced = static_cast<float*>(d.chance(0.5) ? d.pointer() : nullptr);
    ce.dlogits = d.chance(0.5) ? d.pointer() : nullptr, ce.lddlogits = d.pitch();
    expect_result_or_error("explain_cross_entropy", [&] { (void)explain_cross_entropy(ce); });
    expect_result_or_error("cross_entropy_workspace_size", [&] { (void)cross_entropy_workspace_size(ce); });

    MxQuantizeArgs mq;
    mq.rows = d.size(), mq.cols = d.size(), mq.elem = d.dtype();
    mq.rule = d.pick<MxScaleRule>({MxScaleRule::Ceil, MxScaleRule::Floor});
    mq.x = d.pointer(), mq.row_codes = d.pointer(), mq.row_scales = d.pointer();
    mq.col_codes = d.chance(0.5) ? d.pointer() : nullptr, mq.col_scales = d.chance(0.5) ? d.pointer() : nullptr;
    expect_result_or_error("explain_mx_quantize", [&] { (void)explain_mx_quantize(mq); });
    MxDequantizeArgs md;
    md.rows = d.size(), md.cols = d.size(), md.elem = d.dtype(), md.columnwise = d.chance(0.5);
    md.codes = d.pointer(), md.scales = d.pointer(), md.out = d.pointer();
    expect_result_or_error("explain_mx_dequantize", [&] { (void)explain_mx_dequantize(md); });

    CopyArgs cp;
    cp.src = d.pointer(), cp.dst = d.pointer();
    cp.bytes = d.chance(0.8) ? size_t(d.pick<int64_t>({0, 1, 15, 16, 4096, 1 << 30}))
                             : d.pick<size_t>({std::numeric_limits<size_t>::max(), size_t(1) << 62});
    expect_result_or_error("explain_copy", [&] { (void)explain_copy(cp); });
  }
  // Both outcomes were exercised, and not every call was refused.
  EXPECT_GT(refused, 0);
  EXPECT_LT(refused, calls);
}
#endif

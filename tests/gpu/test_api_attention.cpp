// sol::attention_forward / attention_backward through the public API: every refusal (these throw
// before any CUDA call and run without a GPU), the workspace sizes, and on a GPU the outputs
// against the double-precision references (attn_ref) at odd sizes, GQA,
// causal with n ≠ nk, decode, strided (packed-QKV) layouts, fp16, sliding windows and softcap
// (forward and backward), and the deterministic backward's bit-identical reruns.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "kernels/api/choice.hpp"
#include "kernels/api/entry_util.hpp"
#include "sol/kernels.hpp"
#include "sol/ref/attention.hpp"
#include "sol/registry.hpp"
#include "tests/gpu/api_test_util.hpp"

using namespace sol;
namespace attn_ref = sol::ref;  // the double-precision references
using sol::test::DevBuf;
using sol::test::fake_pointer;

namespace {

AttentionArgs valid_args() { return sol::test::fake_attention_args(2, 4, 2, 17, 33, 64); }

AttentionBackwardArgs valid_bwd_args() {
  AttentionBackwardArgs g;
  g.fwd = valid_args();
  g.dout = fake_pointer(6);
  g.dq = fake_pointer(7);
  g.dk = fake_pointer(8);
  g.dv = fake_pointer(9);
  return g;
}

constexpr size_t kBig = size_t(1) << 30;  // a workspace size no test shape needs

}  // namespace

TEST(ApiAttention, RefusesBadSizesDtypesAndHeads) {
  auto forward = [](AttentionArgs a) { attention_forward(a, fake_pointer(10), kBig, nullptr); };
  AttentionArgs a = valid_args();
  a.b = 0;
  SOL_EXPECT_BAD_INPUT(forward(a), "b = 0");
  a = valid_args();
  a.nk = -1;
  SOL_EXPECT_BAD_INPUT(forward(a), "nk = -1");
  a = valid_args();
  a.h_kv = 3;
  SOL_EXPECT_BAD_INPUT(forward(a), "does not divide h");
  a = valid_args();
  a.d = 96;
  SOL_EXPECT_BAD_INPUT(forward(a), "d = 96");
  a = valid_args();
  a.dtype = DType::f32;
  SOL_EXPECT_BAD_INPUT(forward(a), "dtype fp32");
  a = valid_args();
  a.h = a.h_kv = 70000;
  SOL_EXPECT_BAD_INPUT(forward(a), "65535");
  a = valid_args();
  a.scale = NAN;
  SOL_EXPECT_BAD_INPUT(forward(a), "scale");
  a = valid_args();
  a.d = 80;
  SOL_EXPECT_BAD_INPUT(attention_forward_workspace_size(a), "d = 80");
}

TEST(ApiAttention, RefusesBadWindowsAndSoftcaps) {
  auto forward = [](AttentionArgs a) { attention_forward(a, fake_pointer(10), kBig, nullptr); };
  AttentionArgs a = valid_args();
  a.window_left = -2;
  SOL_EXPECT_BAD_INPUT(forward(a), "window (-2, -1) has a size below −1");
  a = valid_args();
  a.window_right = -5;
  SOL_EXPECT_BAD_INPUT(attention_forward_workspace_size(a), "below −1");
  a = valid_args();
  a.causal = true;
  a.window_right = 3;
  SOL_EXPECT_BAD_INPUT(forward(a), "causal with window_right = 3");
  for (float cap : {-1.f, NAN, INFINITY}) {
    a = valid_args();
    a.softcap = cap;
    SOL_EXPECT_BAD_INPUT(forward(a), "softcap");
  }
  AttentionBackwardArgs g = valid_bwd_args();
  g.fwd.window_left = -7;
  SOL_EXPECT_BAD_INPUT(attention_backward(g, fake_pointer(10), kBig, nullptr), "below −1");
  g = valid_bwd_args();
  g.fwd.softcap = -0.5f;
  SOL_EXPECT_BAD_INPUT(api::explain_attention_backward_on(g, 90), "softcap");
  // Causal with window_right 0 (or −1) says the same thing twice: served.
  a = valid_args();
  a.causal = true;
  a.window_right = 0;
  a.window_left = 4;
  EXPECT_NO_THROW(api::explain_attention_forward_on(a, 90));
}

TEST(ApiAttention, RefusesBadPointersStridesAndWorkspace) {
  auto forward = [](AttentionArgs a, void* ws = fake_pointer(10), size_t bytes = kBig) {
    attention_forward(a, ws, bytes, nullptr);
  };
  AttentionArgs a = valid_args();
  a.q = nullptr;
  SOL_EXPECT_BAD_INPUT(forward(a), "q is nullptr");
  a = valid_args();
  a.o = static_cast<char*>(a.o) + 2;
  SOL_EXPECT_BAD_INPUT(forward(a), "o is not 16-byte aligned");
  a = valid_args();
  a.k_stride = {0, 64, 0};
  SOL_EXPECT_BAD_INPUT(forward(a), "all three");
  a = valid_args();
  a.v_stride = {33 * 2 * 64, 2 * 64 + 4, 64};
  SOL_EXPECT_BAD_INPUT(forward(a), "multiples of 8");
  a = valid_args();
  a.o_stride = {17 * 4 * 64, 4 * 64, 32};  // heads 32 elements apart, each 64 long
  SOL_EXPECT_BAD_INPUT(forward(a), "overlap");
  a = valid_args();
  a.o_stride = {17 * 64, 64, 64};  // heads on top of each other
  SOL_EXPECT_BAD_INPUT(forward(a), "overlap");
}

TEST(ApiAttention, ADimensionOfExtentOneTakesAnyStride) {
  // Never stepped over, so its stride may be anything, 0 and odd values included: a decode query
  // [b, 1, h, d] transposed from BHSD has sequence stride d; a batch of one may say 0.
  AttentionArgs a = sol::test::fake_attention_args(2, 4, 2, 1, 33, 64);
  a.q_stride = {4 * 64, 3, 64};
  a.o_stride = {4 * 64, 0, 64};
  EXPECT_NO_THROW(api::explain_attention_forward_on(a, 90));
  a.n = 2;  // now the sequence is stepped over
  SOL_EXPECT_BAD_INPUT(api::explain_attention_forward_on(a, 90), "multiples of 8");
  AttentionArgs one = sol::test::fake_attention_args(1, 4, 2, 17, 33, 64);
  one.k_stride = {0, 2 * 64, 64};
  EXPECT_NO_THROW(api::explain_attention_forward_on(one, 90));
  one.b = 2;
  SOL_EXPECT_BAD_INPUT(api::explain_attention_forward_on(one, 90), "all three");
  // The backward serves packed BSHD: the transposed decode layout is packed whatever its sequence stride.
  AttentionBackwardArgs g = valid_bwd_args();
  g.fwd.n = 1;
  g.fwd.q_stride = g.dout_stride = g.dq_stride = {4 * 64, 64, 64};
  EXPECT_NO_THROW(api::explain_attention_backward_on(g, 90));
  g.fwd.n = 2;
  SOL_EXPECT_BAD_INPUT(api::explain_attention_backward_on(g, 90), "packed BSHD only");
}

TEST(ApiAttention, WorkspaceSizes) {
  AttentionArgs a = valid_args();
  EXPECT_EQ(attention_forward_workspace_size(a), 0u);  // lse given
  a.lse = nullptr;
  EXPECT_EQ(attention_forward_workspace_size(a), 768u);  // 2·4·17 fp32 = 544 bytes, to 256
  AttentionBackwardArgs g = valid_bwd_args();
  // dq_accum 2·17·4·64 fp32 = 34816 bytes (a multiple of 256), delta 544 → 768
  EXPECT_EQ(attention_backward_workspace_size(g), 34816u + 768u);
}

TEST(ApiAttention, RefusesWorkspaceTooSmall) {
  AttentionArgs a = valid_args();
  a.lse = nullptr;
  SOL_EXPECT_BAD_INPUT(attention_forward(a, nullptr, 0, nullptr), "workspace");
  SOL_EXPECT_BAD_INPUT(attention_forward(a, fake_pointer(10), 767, nullptr), "768 needed");
  AttentionBackwardArgs g = valid_bwd_args();
  SOL_EXPECT_BAD_INPUT(attention_backward(g, fake_pointer(10), 1000, nullptr), "needed");
}

TEST(ApiAttention, BackwardRefusesMissingInputsAndStrides) {
  auto backward = [](AttentionBackwardArgs g) { attention_backward(g, fake_pointer(10), kBig, nullptr); };
  AttentionBackwardArgs g = valid_bwd_args();
  g.fwd.lse = nullptr;
  SOL_EXPECT_BAD_INPUT(backward(g), "fwd.lse is nullptr");
  g = valid_bwd_args();
  g.dout = nullptr;
  SOL_EXPECT_BAD_INPUT(backward(g), "dout is nullptr");
  g = valid_bwd_args();
  g.fwd.o = nullptr;
  SOL_EXPECT_BAD_INPUT(backward(g), "fwd.o is nullptr");
  g = valid_bwd_args();
  g.dq_stride = {17 * 4 * 64 * 2, 4 * 64 * 2, 64};
  SOL_EXPECT_BAD_INPUT(backward(g), "packed BSHD only");
  g = valid_bwd_args();
  g.fwd.q_stride = {17 * 4 * 64, 4 * 64, 64};  // the packed values, given explicitly: served
  g.dv = nullptr;
  SOL_EXPECT_BAD_INPUT(backward(g), "dv is nullptr");
  g = valid_bwd_args();
  g.fwd.d = 100;
  SOL_EXPECT_BAD_INPUT(backward(g), "d = 100");
}

// The choice on a given compute capability (no GPU needed).
TEST(ApiAttention, ChoiceFollowsTheDeviceAndTheLayout) {
  AttentionArgs a = valid_args();
  a.b = 4, a.h = a.h_kv = 16, a.n = a.nk = 4096, a.d = 128;
  auto hopper_rung = [](const Choice& c) { return c.implementation.find("wgmma") != std::string::npos; };
  const Choice on80 = api::explain_attention_forward_on(a, 80), on90 = api::explain_attention_forward_on(a, 90);
  EXPECT_FALSE(hopper_rung(on80)) << on80.implementation;  // sm_90a code runs on sm_90 only
  EXPECT_NE(on80.reason.find("sm_80"), std::string::npos) << on80.reason;
  EXPECT_FALSE(hopper_rung(api::explain_attention_forward_on(a, 100)));
  // More rungs to choose from at the same nearest measured shape: never a slower prediction.
  EXPECT_GT(on90.predicted_s, 0);
  EXPECT_LE(on90.predicted_s, on80.predicted_s) << on90.reason << " / " << on80.reason;
  EXPECT_NE(on90.reason.find("nearest measured"), std::string::npos) << on90.reason;

  // Heads interleaved with K and V ([b, n, h, 3, d]): no tensor map, the mma.sync rungs.
  AttentionArgs s = a;
  s.q_stride = s.k_stride = s.v_stride = {a.n * a.h * 3 * a.d, a.h * 3 * a.d, 3 * a.d};
  const Choice strided = api::explain_attention_forward_on(s, 90);
  EXPECT_FALSE(hopper_rung(strided)) << strided.implementation;
  EXPECT_NE(strided.reason.find("TMA"), std::string::npos) << strided.reason;
  // A packed QKV projection ([b, n, 3, h, d]) keeps the heads contiguous: the TMA rungs may serve it.
  s.q_stride = s.k_stride = s.v_stride = {a.n * 3 * a.h * a.d, 3 * a.h * a.d, a.d};
  EXPECT_EQ(api::explain_attention_forward_on(s, 90).implementation, on90.implementation);

  // Decode: one query row against a long cache still gets a rung and a prediction.
  AttentionArgs decode = a;
  decode.n = 1;
  decode.nk = 32768;
  decode.b = 8;
  decode.h_kv = 4;
  decode.causal = true;
  const Choice dc = api::explain_attention_forward_on(decode, 90);
  EXPECT_EQ(dc.implementation.rfind("attention/v0", 0), 0u) << dc.implementation;
  EXPECT_GT(dc.predicted_s, 0);
  EXPECT_LT(dc.predicted_s, on90.predicted_s);  // far less work than 4×16 heads of 4096²

  SOL_EXPECT_FAILURE(api::explain_attention_forward_on(a, 75), "sm_75");
}

// A window or softcap runs on the wgmma rungs (or, n ≤ 16, the decode kernel); elsewhere it is
// refused, never dropped. A window that never binds, and (−1, 0), are the plain and causal masks.
TEST(ApiAttention, WindowAndSoftcapChoiceAndRefusals) {
  AttentionArgs a = valid_args();
  a.b = 1, a.h = 32, a.h_kv = 8, a.n = a.nk = 8192, a.d = 128, a.causal = true;
  const Choice causal = api::explain_attention_forward_on(a, 90);
  a.window_left = 4096;
  const Choice mistral = api::explain_attention_forward_on(a, 90);
  EXPECT_NE(mistral.implementation.find("wgmma"), std::string::npos) << mistral.implementation;
  EXPECT_NE(mistral.reason.find("window=(4096,0)"), std::string::npos) << mistral.reason;
  EXPECT_GT(mistral.predicted_s, 0);
  EXPECT_LT(mistral.predicted_s, causal.predicted_s);  // ≈ 3/4 of the causal pairs
  SOL_EXPECT_FAILURE(api::explain_attention_forward_on(a, 80), "sliding window or softcap");  // sm_80: mma.sync rungs
  AttentionArgs s = a;  // heads interleaved with K and V: no tensor map, so no rung with a window
  s.q_stride = s.k_stride = s.v_stride = {a.n * a.h * 3 * a.d, a.h * 3 * a.d, 3 * a.d};
  SOL_EXPECT_BAD_INPUT(api::explain_attention_forward_on(s, 90), "head stride = d");
  AttentionArgs capped = valid_args();
  capped.softcap = 30;
  EXPECT_NE(api::explain_attention_forward_on(capped, 90).implementation.find("wgmma"), std::string::npos);
  // Sizes that never bind are no window: the plain rungs' choice; (−1, 0) is the causal one.
  AttentionArgs wide = valid_args();  // n = 17, nk = 33
  const Choice plain = api::explain_attention_forward_on(wide, 80);
  wide.window_left = 32;
  wide.window_right = 16;
  EXPECT_EQ(api::explain_attention_forward_on(wide, 80).implementation, plain.implementation);
  AttentionArgs right0 = valid_args(), causal_args = valid_args();
  right0.window_right = 0;
  causal_args.causal = true;
  EXPECT_EQ(api::explain_attention_forward_on(right0, 80).reason, api::explain_attention_forward_on(causal_args, 80).reason);
  // The backward: v04 (the wgmma rung with the Windowed forms) on sm_90, refused elsewhere.
  AttentionBackwardArgs g = valid_bwd_args();
  g.fwd.window_left = 5;
  EXPECT_EQ(api::explain_attention_backward_on(g, 90).implementation, "attention_bwd/v04_flash_bwd_2wg");
  g.deterministic = true;
  EXPECT_EQ(api::explain_attention_backward_on(g, 90).implementation, "attention_bwd/v04_flash_bwd_2wg");
  SOL_EXPECT_FAILURE(api::explain_attention_backward_on(g, 80), "sm_90a");
}

// The registry's view: a rung without the Windowed forms refuses a window or softcap with the
// reason (the harness skips it), the others take it.
TEST(ApiAttention, RungsWithoutAWindowedFormRefuseIt) {
  const std::set<std::string> windowed = {"attention/dispatch", "attention/v04_flash_wgmma",
                                          "attention/v05_flash_wgmma_overlap", "attention/v06_split_kv_decode",
                                          "attention_bwd/dispatch", "attention_bwd/v04_flash_bwd_2wg"};
  int seen = 0;
  for (const Variant& v : registry()) {
    if (v.family != "attention" && v.family != "attention_bwd") continue;
    const std::string id = v.family + "/" + v.name;
    for (const char* shape : {"b=1,h=2,n=9,nk=300,d=64,wl=16", "b=1,h=2,n=9,nk=300,d=64,softcap=30"}) {
      const std::string why = v.unsupported(Shape::parse(shape));
      if (windowed.count(id)) {
        EXPECT_EQ(why, "") << id << " " << shape;
      } else {
        EXPECT_NE(why.find("sliding window"), std::string::npos) << id << " " << shape << ": " << why;
      }
    }
    ++seen;
  }
  EXPECT_EQ(seen, 12);
  for (const Variant& v : registry())
    if (v.family == "attention" && v.name == "dispatch") {
      EXPECT_NE(v.unsupported(Shape::parse("b=1,h=2,n=9,d=64,causal=1,wr=2")).find("contradicts"), std::string::npos);
    }
}

TEST(ApiAttention, BackwardChoiceFollowsTheDevice) {
  AttentionBackwardArgs g = valid_bwd_args();
  g.fwd.b = 4, g.fwd.h = g.fwd.h_kv = 16, g.fwd.n = g.fwd.nk = 4096, g.fwd.d = 128;
  EXPECT_EQ(api::explain_attention_backward_on(g, 80).implementation, "attention_bwd/v01_flash_bwd");  // the one sm_80 rung
  const Choice on90 = api::explain_attention_backward_on(g, 90);
  EXPECT_LE(on90.predicted_s, api::explain_attention_backward_on(g, 80).predicted_s);
  g.deterministic = true;
  const Choice det = api::explain_attention_backward_on(g, 90);
  EXPECT_NE(det.reason.find("det"), std::string::npos) << det.reason;
  EXPECT_GT(det.predicted_s, 0);
}

// ---- on a GPU -------------------------------------------------------------------------------------

namespace {

// One problem: host tensors as doubles in their (possibly strided) device layout, device copies.
struct Problem {
  AttentionArgs a;
  bool fp16 = false;
  // Element strides of Q, K, V, O as the kernels index them.
  BSHDStrides qs, ks, vs, os;
  std::vector<uint16_t> q_bits, k_bits, v_bits;  // whole buffers (packed QKV: one shared buffer)
  size_t q_off = 0, k_off = 0, v_off = 0;        // element offsets of Q, K, V in their buffers
};

BSHDStrides packed(int64_t rows, int64_t heads, int d) { return {rows * heads * d, heads * d, d}; }
int64_t at(const BSHDStrides& s, int64_t bi, int64_t r, int64_t hi) { return bi * s.batch + r * s.seq + hi * s.head; }

// Exact small values: k/16, |k| ≤ 16, hashed from (salt, i).
double value(uint64_t salt, uint64_t i) {
  uint64_t x = (salt * 0x9E3779B97F4A7C15ull) ^ (i + 0x632BE59BD9B4E019ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return (int64_t(x % 33) - 16) / 16.0;
}

std::vector<uint16_t> random_bits(size_t count, uint64_t salt, bool fp16) {
  std::vector<uint16_t> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = test::half_bits(value(salt, i), fp16);
  return v;
}

// One head's rows of a tensor (rows × d doubles).
std::vector<double> head_rows(const std::vector<uint16_t>& bits, size_t off, const BSHDStrides& s, int64_t bi,
                              int64_t hi, int64_t rows, int d, bool fp16) {
  std::vector<double> out(size_t(rows * d));
  for (int64_t r = 0; r < rows; ++r)
    for (int c = 0; c < d; ++c) out[size_t(r * d + c)] = test::half_value(bits[off + size_t(at(s, bi, r, hi) + c)], fp16);
  return out;
}

double scale_of(const AttentionArgs& a) { return a.scale != 0 ? a.scale : 1.0 / std::sqrt(double(a.d)); }

// The double reference's head for a call: its mask, window and softcap.
attn_ref::AttentionHead ref_head(const AttentionArgs& a) {
  attn_ref::AttentionHead head{a.n, a.nk, a.d, a.causal, scale_of(a)};
  head.window_left = a.window_left;
  head.window_right = a.window_right;
  head.softcap = a.softcap;
  return head;
}

// Runs the forward on p (O into a buffer of o_elems elements at strides p.os) and compares O and L
// with attention_row on every row of every head.
void check_forward(Problem& p, size_t o_elems, bool lse_in_workspace = false) {
  AttentionArgs& a = p.a;
  DevBuf q(p.q_bits.size() * 2), k(p.k_bits.size() * 2), v(p.v_bits.size() * 2), o(o_elems * 2);
  DevBuf lse(size_t(a.b * a.h * a.n) * 4);
  q.upload(p.q_bits);
  k.upload(p.k_bits);
  v.upload(p.v_bits);
  a.q = q.get<uint16_t>() + p.q_off;
  a.k = k.get<uint16_t>() + p.k_off;
  a.v = v.get<uint16_t>() + p.v_off;
  a.o = o.get();
  a.lse = lse_in_workspace ? nullptr : lse.get<float>();
  const size_t ws_bytes = attention_forward_workspace_size(a);
  DevBuf ws(ws_bytes);
  const Choice c = explain_attention_forward(a);
  attention_forward(a, ws.get(), ws_bytes, nullptr);
  const std::vector<uint16_t> got_o = o.download<uint16_t>(o_elems);
  const std::vector<float> got_l = (lse_in_workspace ? ws : lse).download<float>(size_t(a.b * a.h * a.n));

  const attn_ref::AttentionHead head = ref_head(a);
  std::vector<double> want_o, have_o, want_l, have_l;
  for (int64_t bi = 0; bi < a.b; ++bi)
    for (int64_t hi = 0; hi < a.h; ++hi) {
      const int64_t hk = hi / (a.h / a.h_kv);
      const auto qh = head_rows(p.q_bits, p.q_off, p.qs, bi, hi, a.n, a.d, p.fp16);
      const auto kh = head_rows(p.k_bits, p.k_off, p.ks, bi, hk, a.nk, a.d, p.fp16);
      const auto vh = head_rows(p.v_bits, p.v_off, p.vs, bi, hk, a.nk, a.d, p.fp16);
      std::vector<double> row(size_t(a.d));
      for (int64_t i = 0; i < a.n; ++i) {
        const double l = attn_ref::attention_row(head, i, qh.data() + i * a.d, kh.data(), vh.data(), row.data());
        const double gl = got_l[size_t((bi * a.h + hi) * a.n + i)];
        if (std::isinf(l)) {
          EXPECT_TRUE(std::isinf(gl) && gl < 0) << "row " << i << " sees no key: L must be −∞, is " << gl;
        } else {
          want_l.push_back(l);
          have_l.push_back(gl);
        }
        for (int cix = 0; cix < a.d; ++cix) {
          want_o.push_back(row[size_t(cix)]);
          have_o.push_back(test::half_value(got_o[size_t(at(p.os, bi, i, hi) + cix)], p.fp16));
        }
      }
    }
  EXPECT_LT(test::rel_l2(have_o, want_o), 1e-2) << c.implementation << ": " << c.reason;
  EXPECT_LT(test::rel_l2(have_l, want_l), 1e-3) << c.implementation << ": " << c.reason;
}

Problem packed_problem(int64_t b, int64_t h, int64_t hkv, int64_t n, int64_t nk, int d, bool causal, bool fp16) {
  Problem p;
  p.a.dtype = fp16 ? DType::f16 : DType::bf16;
  p.a.b = b;
  p.a.h = h;
  p.a.h_kv = hkv;
  p.a.n = n;
  p.a.nk = nk;
  p.a.d = d;
  p.a.causal = causal;
  p.fp16 = fp16;
  p.qs = p.os = packed(n, h, d);
  p.ks = p.vs = packed(nk, hkv, d);
  p.q_bits = random_bits(size_t(b * n * h * d), 1, fp16);
  p.k_bits = random_bits(size_t(b * nk * hkv * d), 2, fp16);
  p.v_bits = random_bits(size_t(b * nk * hkv * d), 3, fp16);
  return p;
}

struct Dims {
  int64_t b, h, hkv, n, nk;
  int d;
  bool causal, fp16;
  int64_t wl = -1, wr = -1;  // a sliding window (−1: unbounded)
  float softcap = 0;
};
std::string name(const Dims& x) {
  return "b=" + std::to_string(x.b) + ",h=" + std::to_string(x.h) + ",hkv=" + std::to_string(x.hkv) + ",n=" +
         std::to_string(x.n) + ",nk=" + std::to_string(x.nk) + ",d=" + std::to_string(x.d) + (x.causal ? ",causal" : "") +
         (x.fp16 ? ",fp16" : "") +
         (x.wl >= 0 || x.wr >= 0 ? ",window=(" + std::to_string(x.wl) + "," + std::to_string(x.wr) + ")" : "") +
         (x.softcap > 0 ? ",softcap=" + std::to_string(int(x.softcap)) : "");
}

Problem problem(const Dims& x) {
  Problem p = packed_problem(x.b, x.h, x.hkv, x.n, x.nk, x.d, x.causal, x.fp16);
  p.a.window_left = x.wl;
  p.a.window_right = x.wr;
  p.a.softcap = x.softcap;
  return p;
}

// Windows and softcap, prefill: the wgmma rungs on sm_90 alone (other devices refuse them, which
// WindowAndSoftcapChoiceAndRefusals checks without a GPU). Mistral's causal window, a two-sided one
// at GQA 4, width one at GQA 8 with n > nk (rows that see no key), n = 17, softcap 30 and 50 alone
// and under windows, n > nk with both.
const Dims kWindowed[] = {
    {1, 2, 2, 1000, 1000, 64, true, false, 256},          {2, 8, 2, 257, 257, 128, false, false, 127, 33},
    {1, 8, 1, 300, 129, 128, false, true, 0, 0},          {2, 3, 3, 17, 17, 64, false, false, 5, 2},
    {1, 2, 2, 1500, 1500, 128, true, false, -1, -1, 30},  {2, 4, 4, 100, 333, 64, true, true, 64, -1, 50},
    {1, 4, 1, 333, 100, 128, false, false, 127, 33, 30},
};
bool on_hopper() { return api::current_cc("test") == 90; }

// Odd sizes, GQA, causal with n ≠ nk both ways (rows that see no key), decode, fp16.
const Dims kForward[] = {
    {1, 1, 1, 1, 1, 64, false, false},     {2, 3, 3, 17, 17, 128, true, false},   {2, 8, 2, 257, 257, 128, true, false},
    {2, 4, 4, 100, 333, 64, true, false},  {2, 4, 4, 333, 100, 64, true, true},   {1, 4, 1, 129, 65, 64, false, true},
    {1, 8, 1, 1, 4097, 128, false, false}, {2, 8, 2, 1, 4097, 64, true, false},   {1, 2, 2, 4, 1000, 128, true, true},
    {3, 2, 2, 77, 77, 128, true, true},
};

}  // namespace

TEST(ApiAttention, ForwardMatchesReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const Dims& x : kForward) {
    SCOPED_TRACE(name(x));
    Problem p = packed_problem(x.b, x.h, x.hkv, x.n, x.nk, x.d, x.causal, x.fp16);
    check_forward(p, p.q_bits.size());
  }
}

TEST(ApiAttention, ForwardWindowsAndSoftcapMatchReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  if (!on_hopper()) GTEST_SKIP() << "windows and softcap run on the wgmma rungs (sm_90); elsewhere they are refused";
  for (const Dims& x : kWindowed) {
    SCOPED_TRACE(name(x));
    Problem p = problem(x);
    check_forward(p, p.q_bits.size());
  }
}

TEST(ApiAttention, ForwardKeepsLogsumexpInWorkspaceWhenLseIsNull) {
  SOL_REQUIRE_GPU_OR_SKIP();
  Problem p = packed_problem(2, 4, 2, 70, 90, 64, true, false);
  check_forward(p, p.q_bits.size(), true);
}

// A packed QKV projection [b, n, 3, h, d]: Q, K, V at offsets 0, h·d, 2h·d with sequence stride
// 3·h·d (the TMA rungs' layout: heads contiguous); O into rows padded by 8 elements.
TEST(ApiAttention, ForwardServesPackedQkvStrides) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const Dims& x : {Dims{2, 4, 4, 130, 130, 128, true, false}, Dims{1, 3, 3, 65, 65, 64, false, true}}) {
    SCOPED_TRACE(name(x));
    Problem p = packed_problem(x.b, x.h, x.hkv, x.n, x.nk, x.d, x.causal, x.fp16);
    const int64_t hd = x.h * x.d;
    p.qs = p.ks = p.vs = {x.n * 3 * hd, 3 * hd, x.d};
    p.q_bits = random_bits(size_t(x.b * x.n * 3 * hd), 4, x.fp16);
    p.k_bits = p.v_bits = p.q_bits;
    p.k_off = size_t(hd);
    p.v_off = size_t(2 * hd);
    p.os = {x.n * (hd + 8), hd + 8, x.d};
    p.a.q_stride = p.a.k_stride = p.a.v_stride = p.qs;
    p.a.o_stride = p.os;
    check_forward(p, size_t(x.b * x.n * (hd + 8)));
  }
}

// [b, n, h, 3, d]: each head's q, k, v side by side, head stride 3·d — the mma.sync rungs' layout
// (TMA needs contiguous heads).
TEST(ApiAttention, ForwardServesInterleavedHeadStrides) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const Dims x{2, 4, 4, 99, 99, 64, true, false};
  Problem p = packed_problem(x.b, x.h, x.hkv, x.n, x.nk, x.d, x.causal, x.fp16);
  const int64_t row = x.h * 3 * x.d;
  p.qs = p.ks = p.vs = {x.n * row, row, 3 * x.d};
  p.q_bits = random_bits(size_t(x.b * x.n * row), 5, x.fp16);
  p.k_bits = p.v_bits = p.q_bits;
  p.k_off = size_t(x.d);
  p.v_off = size_t(2 * x.d);
  p.a.q_stride = p.a.k_stride = p.a.v_stride = p.qs;
  const Choice c = [&] {
    AttentionArgs e = p.a;
    e.q = e.k = e.v = e.o = nullptr;
    return explain_attention_forward(e);
  }();
  EXPECT_TRUE(c.implementation == "attention/v02_flash_mma" || c.implementation == "attention/v03_flash_mma_128")
      << c.implementation << ": " << c.reason;
  check_forward(p, p.q_bits.size() / 3);
}

TEST(ApiAttention, ExplainNamesARungAndPredicts) {
  SOL_REQUIRE_GPU_OR_SKIP();
  AttentionArgs a = valid_args();
  a.b = 4, a.h = a.h_kv = 16, a.n = a.nk = 4096, a.d = 128;
  const Choice c = explain_attention_forward(a);
  EXPECT_EQ(c.implementation.rfind("attention/v0", 0), 0u) << c.implementation;
  EXPECT_NE(c.reason.find("nearest measured"), std::string::npos) << c.reason;
  EXPECT_GT(c.predicted_s, 0);
  AttentionBackwardArgs g = valid_bwd_args();
  g.fwd = a;
  g.deterministic = true;
  const Choice cb = explain_attention_backward(g);
  EXPECT_EQ(cb.implementation.rfind("attention_bwd/v0", 0), 0u) << cb.implementation;
  EXPECT_NE(cb.reason.find("det"), std::string::npos) << cb.reason;
}

// ---- backward -------------------------------------------------------------------------------------

namespace {

struct Grads {
  std::vector<uint16_t> dq, dk, dv;
};

// Forward then backward through the API; the reference takes the device's O and L as given.
Grads check_backward(const Dims& x, bool deterministic) {
  Problem p = problem(x);
  AttentionArgs& a = p.a;
  const size_t nq = p.q_bits.size(), nkv = p.k_bits.size();
  DevBuf q(nq * 2), k(nkv * 2), v(nkv * 2), o(nq * 2), lse(size_t(a.b * a.h * a.n) * 4), dout(nq * 2), dq(nq * 2),
      dk(nkv * 2), dv(nkv * 2);
  const std::vector<uint16_t> g_bits = random_bits(nq, 6, x.fp16);
  q.upload(p.q_bits);
  k.upload(p.k_bits);
  v.upload(p.v_bits);
  dout.upload(g_bits);
  a.q = q.get(), a.k = k.get(), a.v = v.get(), a.o = o.get(), a.lse = lse.get<float>();
  const size_t fwd_ws_bytes = attention_forward_workspace_size(a);  // decode shapes: the splits' partials
  DevBuf fwd_ws(fwd_ws_bytes);
  attention_forward(a, fwd_ws.get(), fwd_ws_bytes, nullptr);
  AttentionBackwardArgs g;
  g.fwd = a;
  g.dout = dout.get(), g.dq = dq.get(), g.dk = dk.get(), g.dv = dv.get();
  g.deterministic = deterministic;
  const size_t ws_bytes = attention_backward_workspace_size(g);
  DevBuf ws(ws_bytes);
  const Choice c = explain_attention_backward(g);
  attention_backward(g, ws.get(), ws_bytes, nullptr);
  Grads out{dq.download<uint16_t>(nq), dk.download<uint16_t>(nkv), dv.download<uint16_t>(nkv)};
  const std::vector<uint16_t> o_bits = o.download<uint16_t>(nq);
  const std::vector<float> l = lse.download<float>(size_t(a.b * a.h * a.n));

  const attn_ref::AttentionHead head = ref_head(a);
  const int64_t d = a.d, group = a.h / a.h_kv;
  std::vector<double> want_q, have_q, want_kv, have_kv;
  for (int64_t bi = 0; bi < a.b; ++bi)
    for (int64_t hk = 0; hk < a.h_kv; ++hk) {
      const auto kh = head_rows(p.k_bits, 0, p.ks, bi, hk, a.nk, x.d, x.fp16);
      const auto vh = head_rows(p.v_bits, 0, p.vs, bi, hk, a.nk, x.d, x.fp16);
      std::vector<double> dk_ref(size_t(a.nk * d), 0.0), dv_ref(dk_ref.size(), 0.0);
      for (int64_t hi = hk * group; hi < (hk + 1) * group; ++hi) {
        const auto qh = head_rows(p.q_bits, 0, p.qs, bi, hi, a.n, x.d, x.fp16);
        const auto gh = head_rows(g_bits, 0, p.qs, bi, hi, a.n, x.d, x.fp16);
        const auto oh = head_rows(o_bits, 0, p.os, bi, hi, a.n, x.d, x.fp16);
        std::vector<double> lh(size_t(a.n));
        for (int64_t i = 0; i < a.n; ++i) lh[size_t(i)] = l[size_t((bi * a.h + hi) * a.n + i)];
        std::vector<double> row(static_cast<size_t>(d));
        for (int64_t i = 0; i < a.n; ++i) {
          attn_ref::attention_backward_query(head, i, qh.data() + i * d, kh.data(), vh.data(), oh.data() + i * d,
                                          lh[size_t(i)], gh.data() + i * d, row.data());
          for (int64_t c2 = 0; c2 < d; ++c2) {
            want_q.push_back(row[size_t(c2)]);
            have_q.push_back(test::half_value(out.dq[size_t(at(p.qs, bi, i, hi) + c2)], x.fp16));
          }
        }
        for (int64_t j = 0; j < a.nk; ++j)
          attn_ref::attention_backward_key(head, j, qh.data(), kh.data() + j * d, vh.data() + j * d, oh.data(), lh.data(),
                                        gh.data(), dk_ref.data() + j * d, dv_ref.data() + j * d);
      }
      for (int64_t j = 0; j < a.nk; ++j)
        for (int64_t c2 = 0; c2 < d; ++c2) {
          const size_t e = size_t(at(p.ks, bi, j, hk) + c2);
          want_kv.push_back(dk_ref[size_t(j * d + c2)]);
          have_kv.push_back(test::half_value(out.dk[e], x.fp16));
          want_kv.push_back(dv_ref[size_t(j * d + c2)]);
          have_kv.push_back(test::half_value(out.dv[e], x.fp16));
        }
    }
  EXPECT_LT(test::rel_l2(have_q, want_q), 3e-2) << "dQ, " << c.implementation << ": " << c.reason;
  EXPECT_LT(test::rel_l2(have_kv, want_kv), 3e-2) << "dK, dV, " << c.implementation << ": " << c.reason;
  return out;
}

const Dims kBackward[] = {
    {1, 1, 1, 1, 1, 64, false, false},     {2, 4, 2, 65, 130, 64, true, false},  {1, 2, 2, 100, 60, 128, false, false},
    {2, 4, 4, 133, 100, 64, true, true},   {1, 8, 1, 200, 391, 128, true, false}, {1, 4, 2, 1, 700, 64, false, true},
};

}  // namespace

TEST(ApiAttention, BackwardMatchesReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const Dims& x : kBackward) {
    SCOPED_TRACE(name(x));
    check_backward(x, false);
  }
}

TEST(ApiAttention, BackwardWindowsAndSoftcapMatchReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  if (!on_hopper()) GTEST_SKIP() << "windows and softcap run on the wgmma rungs (sm_90); elsewhere they are refused";
  for (const Dims& x : kWindowed) {
    SCOPED_TRACE(name(x));
    check_backward(x, false);
  }
  // det=1: the deterministic dQ kernel's Windowed and Capped forms, bit for bit across runs.
  for (const Dims& x : {kWindowed[1], kWindowed[5]}) {
    SCOPED_TRACE(name(x) + ",det");
    const Grads first = check_backward(x, true), second = check_backward(x, true);
    EXPECT_TRUE(first.dq == second.dq);
    EXPECT_TRUE(first.dk == second.dk);
    EXPECT_TRUE(first.dv == second.dv);
  }
}

TEST(ApiAttention, DeterministicBackwardIsBitIdenticalAcrossRuns) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const Dims& x : {Dims{2, 4, 2, 333, 100, 64, true, false}, Dims{1, 4, 4, 257, 257, 128, false, true}}) {
    SCOPED_TRACE(name(x));
    const Grads first = check_backward(x, true), second = check_backward(x, true);
    EXPECT_TRUE(first.dq == second.dq);
    EXPECT_TRUE(first.dk == second.dk);
    EXPECT_TRUE(first.dv == second.dv);
  }
}

#else
TEST(ApiAttention, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif  // SOL_WITH_CUDA

// sol::cross_entropy (include/sol/kernels.hpp) against a double-precision reference computed here from
// the same rounded logits: fp32, bf16 and fp16; vocabularies of 1, 3, primes, odd lengths, the model
// set's, 2^18 and one past it; ignored rows (all of them, too), label smoothing, both reductions,
// int32 and int64 labels, padded pitches (the padding must stay untouched), dlogits in place, loss
// alone, a bad label; both rungs (the one-read rung where a row fits a cluster, the passes past it:
// 786433 logits, and 400000 in fp32); > 2^31-element calls checked on sampled rows. The argument
// checks need no GPU.
// Tolerances, relative L2 over each output: dlogits are stored in the logits' dtype, so their error
// is that one rounding (bf16 2^-9, fp16 2^-11 relative; the reference is rounded to the dtype first,
// since fp16 probabilities of 10^5 columns are subnormal) — 4e-3 and 1e-3 leave room for the fp32
// sums; fp32 dlogits and every loss (fp32 arithmetic on exact inputs: lse = max + log Σ over < 2^20
// terms, relative error ~1e-6) within 2e-5. dlogits are judged against max(‖dlogits‖, the norm
// of their terms p and (1 − ε)·onehot): where the label's p nears 1, p − (1 − ε) cancels and
// keeps p's fp32 rounding.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/api/choice.hpp"
#include "sol/kernels.hpp"
#include "tests/gpu/api_test_util.hpp"
#include "tests/gpu/dtype_host.hpp"

using namespace sol;
using namespace sol::test;

namespace {

double dl_tol(DType d) { return d == DType::f32 ? 2e-5 : d == DType::bf16 ? 4e-3 : 1e-3; }
constexpr double kLossTol = 2e-5;
constexpr double kPad = 7.25;  // what the padding of a pitched tensor holds (exact in each dtype)

struct Problem {
  DType dtype = DType::bf16;
  int64_t rows = 1, vocab = 1;
  int64_t ignore_every = 0;  // rows r % k == k − 1 get ignore_index
  float smoothing = 0.f;
  Reduction reduction = Reduction::Mean;
  IndexType labels = IndexType::i64;
  int64_t pad = 0;           // extra elements per row of logits and dlogits
  double scale = 4.0;        // logit magnitude
  bool in_place = false;     // dlogits written over the logits
  bool shift = false;        // dlogits one element into their buffer: rows at another 16-byte offset than x's
  bool dlogits = true;       // false: the losses alone
  int64_t bad_row = -1;      // this row's label is vocab (out of range)
  std::string str() const {
    return dtype_name(dtype) + " " + std::to_string(rows) + "×" + std::to_string(vocab) + " ignore/" +
           std::to_string(ignore_every) + " ε " + std::to_string(smoothing) + (reduction == Reduction::Sum ? " sum" : " mean") +
           (labels == IndexType::i32 ? " i32" : " i64") + " pad " + std::to_string(pad) + (in_place ? " in place" : "") + (shift ? " shifted" : "") +
           (dlogits ? "" : " loss only");
  }
};

constexpr int64_t kIgnore = -100;

void check(const Problem& p) {
  SCOPED_TRACE(p.str());
  const int64_t R = p.rows, V = p.vocab, ld = V + p.pad, eb = bytes_of(p.dtype);
  // Logits, rounded to the dtype, padding kPad.
  std::vector<unsigned char> hx(static_cast<size_t>(R * ld * eb));
  Lcg g{0xC0FFEEull + uint64_t(R * 131 + V)};
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < ld; ++c) store(p.dtype, &hx[size_t((r * ld + c) * eb)], c < V ? g.next() * p.scale : kPad);
  auto x = [&](int64_t r, int64_t c) { return load(p.dtype, &hx[size_t((r * ld + c) * eb)]); };
  std::vector<int64_t> label(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) {
    const bool ignored = p.ignore_every > 0 && r % p.ignore_every == p.ignore_every - 1;
    label[size_t(r)] = ignored ? kIgnore : r == p.bad_row ? V : int64_t((uint64_t(r) * 2654435761u + 7) % uint64_t(V));
  }
  DevBuf dx(hx.size()), dlab(size_t(R) * 8), dloss(size_t(R) * 4), dred(4);
  const size_t at = p.shift ? size_t(eb) : 0;  // where dlogits start in dy
  DevBuf dy(p.in_place || !p.dlogits ? 0 : hx.size() + at);
  dx.upload(hx);
  if (dy.bytes()) dy.upload(hx, at);  // padding kPad, the rest overwritten
  if (p.labels == IndexType::i64) {
    dlab.upload(label);
  } else {
    dlab.upload(std::vector<int32_t>(label.begin(), label.end()));
  }
  void* out = !p.dlogits ? nullptr : p.in_place ? dx.get() : dy.get<char>() + at;
  const CrossEntropyArgs a{.dtype = p.dtype, .rows = R, .vocab = V, .logits = dx.get(), .ldlogits = p.pad ? ld : 0,
                           .labels = dlab.get(), .label_type = p.labels, .ignore_index = kIgnore,
                           .label_smoothing = p.smoothing, .reduction = p.reduction, .grad_scale = 1.5f,
                           .loss = dloss.get<float>(), .loss_reduced = dred.get<float>(), .dlogits = out, .lddlogits = ld};
  const size_t bytes = cross_entropy_workspace_size(a);
  DevBuf work(bytes);
  const Choice choice = explain_cross_entropy(a);
  cross_entropy(a, work.get(), bytes, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_FALSE(choice.implementation.empty());
  EXPECT_GT(choice.predicted_s, 0);
  const std::vector<float> loss = dloss.download<float>(size_t(R));
  const float reduced = dred.download<float>(1)[0];
  std::vector<unsigned char> hy;
  if (p.dlogits) hy = p.in_place ? dx.download<unsigned char>(hx.size()) : dy.download<unsigned char>(hx.size(), at);
  // The reference, row by row.
  int64_t counted = 0;
  for (int64_t r = 0; r < R; ++r) counted += label[size_t(r)] != kIgnore;
  const double eps = p.smoothing, gs = 1.5 * (p.reduction == Reduction::Mean ? 1.0 / double(counted) : 1.0);
  std::vector<double> got_dl, want_dl, got_loss, want_loss;
  double total = 0, terms2 = 0;  // Σ (p·gs)² + ((1 − ε)·gs)² at the labels: the floor of ‖dlogits‖²
  double lse2 = 0;               // Σ lse²: the floor of ‖loss‖² (lse − x_label cancels where p nears 1)
  bool padding_intact = true;
  for (int64_t r = 0; r < R; ++r) {
    const int64_t l = label[size_t(r)];
    const bool ignored = l == kIgnore, bad = r == p.bad_row;
    double mx = -INFINITY, s = 0, sx = 0;
    for (int64_t c = 0; c < V; ++c) mx = std::max(mx, x(r, c));
    for (int64_t c = 0; c < V; ++c) s += std::exp(x(r, c) - mx), sx += x(r, c);
    const double lse = mx + std::log(s);
    const double lr = ignored ? 0 : lse - (1 - eps) * x(r, l < V ? l : 0) - eps * sx / double(V);
    if (bad) {
      EXPECT_TRUE(std::isnan(loss[size_t(r)])) << "a label outside [0, V) gives a NaN loss";
    } else {
      got_loss.push_back(loss[size_t(r)]);
      want_loss.push_back(lr);
      total += lr;
      if (!ignored) lse2 += lse * lse;
    }
    if (!p.dlogits) continue;
    for (int64_t c = 0; c < ld; ++c) {
      const double have = load(p.dtype, &hy[size_t((r * ld + c) * eb)]);
      if (c >= V) {
        padding_intact = padding_intact && have == kPad;
        continue;
      }
      if (bad) {
        EXPECT_TRUE(std::isnan(have)) << "row " << r << ": a bad label gives NaN dlogits";
        continue;
      }
      const double p_c = std::exp(x(r, c) - lse);
      const double want = ignored ? 0 : (p_c - (c == l ? 1 - eps : 0) - eps / double(V)) * gs;
      if (!ignored) terms2 += (p_c * p_c + (c == l ? (1 - eps) * (1 - eps) : 0)) * gs * gs;
      got_dl.push_back(have);
      want_dl.push_back(round_to(p.dtype, want));
    }
  }
  EXPECT_TRUE(padding_intact) << "dlogits' padding was written";
  if (at) {  // the element before the first row stays as cudaMemset left it
    for (unsigned char byte : dy.download<unsigned char>(at)) EXPECT_EQ(byte, 0) << "the element before dlogits was written";
  }
  EXPECT_LE(rel_l2(got_loss, want_loss, lse2), kLossTol) << choice.implementation << ": " << choice.reason;
  if (p.dlogits) {
    EXPECT_LE(rel_l2(got_dl, want_dl, terms2), dl_tol(p.dtype)) << choice.implementation << ": " << choice.reason;
  }
  if (p.bad_row >= 0) {
    EXPECT_TRUE(std::isnan(reduced));
  } else if (p.reduction == Reduction::Mean && counted == 0) {
    EXPECT_TRUE(std::isnan(reduced)) << "every row ignored: the mean is 0/0";
  } else {
    const double want = p.reduction == Reduction::Mean ? total / double(counted) : total;
    EXPECT_LE(std::abs(reduced - want), kLossTol * std::max(1.0, std::abs(want))) << reduced << " vs " << want;
  }
}

const DType kTypes[] = {DType::f32, DType::bf16, DType::f16};
// Tiny, prime, odd (not a multiple of 8: rows at every 16-byte offset, read in packs over their
// aligned windows), the model set's vocabularies, 2^18 ± 1.
const int64_t kShapes[][2] = {{1, 1},     {3, 3},     {2, 2},     {7, 17},     {37, 1000},  {5, 4099},
                              {3, 32000}, {3, 50257}, {2, 65537}, {2, 128256}, {1, 151936}, {2, 152064},
                              {1, 262144}, {2, 262145}, {1, 400000}, {2, 786433}};

TEST(ApiCrossEntropy, EveryTypeAndShapeAgainstTheReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes)
    for (const auto& s : kShapes) check({.dtype = d, .rows = s[0], .vocab = s[1]});
}

TEST(ApiCrossEntropy, IgnoredRowsSmoothingReductionsAndLabelTypes) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes) {
    check({.dtype = d, .rows = 37, .vocab = 1000, .ignore_every = 3});
    check({.dtype = d, .rows = 9, .vocab = 50257, .ignore_every = 2, .smoothing = 0.1f});
    check({.dtype = d, .rows = 5, .vocab = 151936, .smoothing = 0.05f, .reduction = Reduction::Sum});
    check({.dtype = d, .rows = 4, .vocab = 3, .smoothing = 1.f, .labels = IndexType::i32});
    check({.dtype = d, .rows = 3, .vocab = 17, .ignore_every = 1});                                 // mean: NaN
    check({.dtype = d, .rows = 3, .vocab = 17, .ignore_every = 1, .reduction = Reduction::Sum});   // sum: 0
    check({.dtype = d, .rows = 300, .vocab = 70001, .ignore_every = 5, .labels = IndexType::i32});  // many rows
    check({.dtype = d, .rows = 2, .vocab = 262144, .scale = 30.0});  // peaked: the label's p near 0 or 1
  }
}

TEST(ApiCrossEntropy, PitchesInPlaceLossOnlyAndBadLabels) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes) {
    check({.dtype = d, .rows = 3, .vocab = 1000, .pad = 24});    // aligned pitch: 16-byte packs
    check({.dtype = d, .rows = 3, .vocab = 32000, .pad = 3});    // unaligned pitch: packs over each row's window
    check({.dtype = d, .rows = 5, .vocab = 50257, .shift = true});  // x and dlogits at other offsets: single elements
    check({.dtype = d, .rows = 3, .vocab = 32000, .pad = 3, .shift = true});
    check({.dtype = d, .rows = 4, .vocab = 128256, .in_place = true});
    check({.dtype = d, .rows = 4, .vocab = 50257, .pad = 5, .in_place = true});
    check({.dtype = d, .rows = 6, .vocab = 4099, .ignore_every = 3, .dlogits = false});
    check({.dtype = d, .rows = 5, .vocab = 1000, .bad_row = 2});
  }
}

// rows × vocab > 2^31 (64-bit offsets in every kernel): dlogits in place, checked on sampled rows;
// the reduced loss against the mean of the per-row losses the call wrote.
// Both rungs: the one-read rung at 16385 × 131072 (2^31 + 2^17 logits, 4 GiB of bf16), the passes
// at 2731 × 786433 (past a cluster's 786432; 2^31 + 264875 logits).
TEST(ApiCrossEntropy, MoreThan2To31Logits) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const std::pair<int64_t, int64_t>& shape : {std::pair<int64_t, int64_t>{16385, 131072}, {2731, 786433}}) {
    const int64_t R = shape.first, V = shape.second;
    SCOPED_TRACE("rows=" + std::to_string(R) + ",vocab=" + std::to_string(V));
    std::vector<uint16_t> hx(static_cast<size_t>(R * V));
    Lcg g{0xB16ull};
    for (auto& b : hx) b = uint16_t(f32_bits(float(g.next() * 4)) >> 16);  // bf16 by truncation: exact
    std::vector<int64_t> label(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) label[size_t(r)] = r % 7 == 3 ? kIgnore : (r * 7919) % V;
    DevBuf dx(hx.size() * 2), dlab(size_t(R) * 8), dloss(size_t(R) * 4), dred(4);
    dx.upload(hx);
    dlab.upload(label);
    const CrossEntropyArgs a{.rows = R, .vocab = V, .logits = dx.get(), .labels = dlab.get(), .loss = dloss.get<float>(),
                             .loss_reduced = dred.get<float>(), .dlogits = dx.get()};
    const size_t bytes = cross_entropy_workspace_size(a);
    DevBuf work(bytes);
    cross_entropy(a, work.get(), bytes, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> loss = dloss.download<float>(size_t(R));
    int64_t counted = 0;
    double total = 0;
    for (int64_t r = 0; r < R; ++r) counted += label[size_t(r)] != kIgnore, total += loss[size_t(r)];
    const float reduced = dred.download<float>(1)[0];
    EXPECT_LE(std::abs(reduced - total / double(counted)), 1e-5 * std::abs(total / double(counted)));
    for (int64_t r : {int64_t(0), int64_t(1), int64_t(3), R / 2, R - 2, R - 1}) {
      SCOPED_TRACE("row " + std::to_string(r));
      const std::vector<uint16_t> got = dx.download<uint16_t>(size_t(V), size_t(r * V) * 2);
      auto xv = [&](int64_t c) { return half_value(hx[size_t(r * V + c)], false); };
      const int64_t l = label[size_t(r)];
      double mx = -INFINITY, s = 0;
      for (int64_t c = 0; c < V; ++c) mx = std::max(mx, xv(c));
      for (int64_t c = 0; c < V; ++c) s += std::exp(xv(c) - mx);
      const double lse = mx + std::log(s);
      std::vector<double> have, want;
      for (int64_t c = 0; c < V; ++c) {
        have.push_back(half_value(got[size_t(c)], false));
        want.push_back(l == kIgnore ? 0 : round_to(DType::bf16, (std::exp(xv(c) - lse) - (c == l)) / double(counted)));
      }
      EXPECT_LE(rel_l2(have, want), dl_tol(DType::bf16));
      if (l != kIgnore) {
        EXPECT_LE(std::abs(loss[size_t(r)] - (lse - xv(l))), kLossTol * (lse - xv(l)));
      } else {
        EXPECT_EQ(loss[size_t(r)], 0.f);
      }
    }
  }
}

// ---- without a GPU: the checks and the choice ------------------------------------------------------
CrossEntropyArgs ok_args() {
  return {.rows = 4, .vocab = 1000, .logits = fake_pointer(1), .labels = fake_pointer(2),
          .loss_reduced = static_cast<float*>(fake_pointer(3)), .dlogits = fake_pointer(4)};
}

TEST(ApiCrossEntropyChecks, RefusesBadArgumentsBeforeAnyCudaCall) {
  auto with = [](auto edit) {
    CrossEntropyArgs a = ok_args();
    edit(a);
    return a;
  };
  SOL_EXPECT_BAD_INPUT(cross_entropy_workspace_size(with([](auto& a) { a.rows = 0; })), "rows = 0");
  SOL_EXPECT_BAD_INPUT(cross_entropy_workspace_size(with([](auto& a) { a.vocab = -2; })), "vocab = -2");
  SOL_EXPECT_BAD_INPUT(cross_entropy_workspace_size(with([](auto& a) { a.rows = int64_t(1) << 31; })), "grid");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.rows = 1, a.vocab = int64_t(1) << 31; })), "vocab");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.logits = nullptr; })), "logits is nullptr");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.labels = nullptr; })), "labels is nullptr");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.dtype = DType::fp8_e4m3; })), "fp8_e4m3");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.label_smoothing = 1.5f; })), "label_smoothing");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.label_smoothing = NAN; })), "label_smoothing");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.grad_scale = INFINITY; })), "grad_scale");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.ldlogits = 999; })), "ldlogits = 999");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.lddlogits = -1; })), "lddlogits = -1");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.loss_reduced = nullptr, a.dlogits = nullptr; })),
                       "no output");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.dlogits = static_cast<char*>(fake_pointer(1)) + 64; })),
                       "overlaps");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.dlogits = fake_pointer(1), a.lddlogits = 1024; })),
                       "another pitch");
  SOL_EXPECT_BAD_INPUT(explain_cross_entropy(with([](auto& a) { a.rows = int64_t(1) << 30, a.ldlogits = int64_t(1) << 40; })),
                       "overflow");
  SOL_EXPECT_BAD_INPUT(cross_entropy(ok_args(), nullptr, 0, nullptr), "workspace");
}

TEST(ApiCrossEntropyChecks, TheChoiceFollowsTheVocabulary) {
  CrossEntropyArgs a = ok_args();
  a.vocab = 151936;
  a.dlogits = nullptr;  // the fake pointers lie 4 KiB apart: these rows would overlap them
  Choice c = api::explain_cross_entropy_on(a, 90);
  EXPECT_EQ(c.implementation, "crossentropy/v02_one_read_bf16");
  EXPECT_NE(c.reason.find("151936 logits over 8 CTAs of a cluster"), std::string::npos) << c.reason;
  EXPECT_GT(c.predicted_s, 0);
  a.vocab = 786433;  // past 8 × 192 KiB of bf16
  EXPECT_EQ(api::explain_cross_entropy_on(a, 90).implementation, "crossentropy/v01_passes_bf16");
  a.dtype = DType::f32;
  a.vocab = 262144;
  EXPECT_EQ(api::explain_cross_entropy_on(a, 90).implementation, "crossentropy/v03_one_read_fp32");
  a.vocab = 393217;  // past 8 × 192 KiB of fp32
  c = api::explain_cross_entropy_on(a, 90);
  EXPECT_EQ(c.implementation, "crossentropy/v01_passes_fp32");
  EXPECT_NE(c.reason.find("393216"), std::string::npos) << c.reason;
  a.dtype = DType::f16;
  a.vocab = 50257;  // sm_80: one CTA of ≤ 160 KiB holds it
  EXPECT_EQ(api::explain_cross_entropy_on(a, 80).implementation, "crossentropy/v02_one_read_fp16");
  a.vocab = 128256;
  EXPECT_EQ(api::explain_cross_entropy_on(a, 80).implementation, "crossentropy/v01_passes_fp16");
}

}  // namespace

#endif  // SOL_WITH_CUDA

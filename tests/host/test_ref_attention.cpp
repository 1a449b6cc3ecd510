// Host attention references: the standard algorithm against a hand-computed case, the lecture's
// tiled online softmax (§11.4) against the standard one (causal with nq ≠ nk, lengths 1 and 17,
// blocks that do not divide the lengths; sliding windows and softcap), and the backward against
// central finite differences (with windows and softcap too).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/ref/attention.hpp"

namespace {

using sol::ref::AttentionHead;
using Vec = std::vector<double>;

Vec random_vec(int64_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vec v(static_cast<size_t>(count));
  for (double& x : v) x = u(gen);
  return v;
}

struct Inputs {
  Vec q, k, v;
};

Inputs inputs(const AttentionHead& a, uint32_t seed) {
  return {random_vec(a.n * a.d, seed), random_vec(a.nk * a.d, seed + 1), random_vec(a.nk * a.d, seed + 2)};
}

AttentionHead head(int64_t n, int64_t nk, int64_t d, bool causal) {
  return {n, nk, d, causal, 1.0 / std::sqrt(double(d))};
}

TEST(AttentionRef, HandComputedTwoKeys) {
  // q = 1, keys 0 and 1, values 0 and 1, scale 1: O = e/(1+e), L = log(1 + e).
  const AttentionHead a{1, 2, 1, false, 1.0};
  const Vec q{1}, k{0, 1}, v{0, 1};
  double o = -1, l = 0;
  sol::ref::attention_standard(a, q.data(), k.data(), v.data(), &o, &l);
  EXPECT_NEAR(o, std::exp(1.0) / (1 + std::exp(1.0)), 1e-15);
  EXPECT_NEAR(l, std::log(1 + std::exp(1.0)), 1e-15);
}

TEST(AttentionRef, CausalBottomRightMask) {
  // n = 2 queries, nk = 3 keys: row 0 sees keys 0..1, row 1 sees keys 0..2.
  const AttentionHead a = head(2, 3, 1, true);
  EXPECT_EQ(sol::ref::attention_last_key(a, 0), 1);
  EXPECT_EQ(sol::ref::attention_last_key(a, 1), 2);
  // n = 3 queries, nk = 1 key: rows 0 and 1 see nothing → O = 0, L = −∞.
  const AttentionHead b = head(3, 1, 2, true);
  const Vec q = random_vec(6, 3), k = random_vec(2, 4), v{0.5, -0.25};
  Vec o(6, 7.0), l(3, 7.0);
  sol::ref::attention_standard(b, q.data(), k.data(), v.data(), o.data(), l.data());
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(o[size_t(2 * r)], 0.0);
    EXPECT_EQ(o[size_t(2 * r + 1)], 0.0);
    EXPECT_EQ(l[size_t(r)], -std::numeric_limits<double>::infinity());
  }
  // Row 2 sees the single key: O = v exactly, L = the one score.
  EXPECT_NEAR(o[4], 0.5, 1e-15);
  EXPECT_NEAR(o[5], -0.25, 1e-15);
  EXPECT_NEAR(l[2], b.scale * (q[4] * k[0] + q[5] * k[1]), 1e-15);
}

TEST(AttentionRef, UniformValuesGiveThatValue) {
  // Every value row equal → every visible row's output is that row, whatever the weights.
  const AttentionHead a = head(17, 17, 4, true);
  Inputs in = inputs(a, 11);
  for (int64_t j = 0; j < a.nk; ++j)
    for (int64_t c = 0; c < a.d; ++c) in.v[size_t(j * a.d + c)] = double(c) - 1.5;
  Vec o(static_cast<size_t>(a.n * a.d)), l(size_t(a.n));
  sol::ref::attention_standard(a, in.q.data(), in.k.data(), in.v.data(), o.data(), l.data());
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t c = 0; c < a.d; ++c) EXPECT_NEAR(o[size_t(i * a.d + c)], double(c) - 1.5, 1e-12);
}

struct TiledCase {
  int64_t n, nk, d;
  bool causal;
  int64_t bq, bk;
  int64_t wl = -1, wr = -1;  // window sizes
  double cap = 0;            // softcap
};

AttentionHead head(const TiledCase& t) {
  AttentionHead a = head(t.n, t.nk, t.d, t.causal);
  a.window_left = t.wl;
  a.window_right = t.wr;
  a.softcap = t.cap;
  return a;
}

class TiledEqualsStandard : public ::testing::TestWithParam<TiledCase> {};

TEST_P(TiledEqualsStandard, OutputsAndLogsumexp) {
  const TiledCase t = GetParam();
  const AttentionHead a = head(t);
  const Inputs in = inputs(a, uint32_t(t.n * 131 + t.nk));
  Vec o1(static_cast<size_t>(a.n * a.d)), l1(size_t(a.n)), o2(o1.size(), 9.0), l2(l1.size(), 9.0), o3(size_t(a.d));
  sol::ref::attention_standard(a, in.q.data(), in.k.data(), in.v.data(), o1.data(), l1.data());
  sol::ref::attention_tiled(a, in.q.data(), in.k.data(), in.v.data(), o2.data(), l2.data(), t.bq, t.bk);
  for (int64_t i = 0; i < a.n; ++i) {
    if (std::isinf(l1[size_t(i)])) {
      EXPECT_EQ(l2[size_t(i)], l1[size_t(i)]) << "row " << i;
    } else {
      EXPECT_NEAR(l2[size_t(i)], l1[size_t(i)], 1e-12) << "row " << i;
    }
    const double lr = sol::ref::attention_row(a, i, in.q.data() + i * a.d, in.k.data(), in.v.data(), o3.data());
    if (!std::isinf(l1[size_t(i)])) {
      EXPECT_NEAR(lr, l1[size_t(i)], 1e-12);
    }
    for (int64_t c = 0; c < a.d; ++c) {
      EXPECT_NEAR(o2[size_t(i * a.d + c)], o1[size_t(i * a.d + c)], 1e-12) << "row " << i << " col " << c;
      EXPECT_NEAR(o3[size_t(c)], o1[size_t(i * a.d + c)], 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TiledEqualsStandard,
                         ::testing::Values(TiledCase{1, 1, 8, false, 4, 4}, TiledCase{1, 1, 8, true, 4, 4},
                                           TiledCase{17, 17, 8, false, 4, 5}, TiledCase{17, 17, 8, true, 4, 5},
                                           TiledCase{1, 17, 16, true, 64, 8}, TiledCase{17, 1, 16, true, 3, 64},
                                           TiledCase{17, 40, 8, true, 5, 7}, TiledCase{40, 17, 8, true, 7, 5},
                                           TiledCase{33, 65, 4, false, 16, 16}, TiledCase{64, 64, 8, true, 16, 16},
                                           TiledCase{17, 17, 8, false, 4, 5, 3, 2}, TiledCase{17, 17, 8, true, 4, 5, 3, -1},
                                           TiledCase{17, 40, 8, false, 5, 7, 0, 0}, TiledCase{40, 17, 8, false, 7, 5, 4, 1},
                                           TiledCase{33, 65, 4, false, 16, 16, -1, 5}, TiledCase{17, 17, 8, true, 4, 5, -1, -1, 2.5},
                                           TiledCase{17, 40, 8, false, 5, 7, 6, 3, 0.75}));

// Loss = Σ dO ∘ O; its gradient with respect to each input is what attention_backward returns.
double loss(const AttentionHead& a, const Inputs& in, const Vec& dout) {
  Vec o(static_cast<size_t>(a.n * a.d)), l(size_t(a.n));
  sol::ref::attention_standard(a, in.q.data(), in.k.data(), in.v.data(), o.data(), l.data());
  double s = 0;
  for (size_t i = 0; i < o.size(); ++i) s += o[i] * dout[i];
  return s;
}

class BackwardFiniteDifferences : public ::testing::TestWithParam<TiledCase> {};

TEST_P(BackwardFiniteDifferences, AllThreeGradients) {
  const TiledCase t = GetParam();
  const AttentionHead a = head(t);
  Inputs in = inputs(a, uint32_t(7 + t.n));
  const Vec dout = random_vec(a.n * a.d, 99);
  Vec o(static_cast<size_t>(a.n * a.d)), l(size_t(a.n)), dq(o.size()), dk(size_t(a.nk * a.d)), dv(dk.size());
  sol::ref::attention_standard(a, in.q.data(), in.k.data(), in.v.data(), o.data(), l.data());
  sol::ref::attention_backward(a, in.q.data(), in.k.data(), in.v.data(), o.data(), l.data(), dout.data(), dq.data(),
                                 dk.data(), dv.data());
  const double h = 1e-5;
  auto check = [&](Vec& x, const Vec& grad, const char* name) {
    double worst = 0, norm = 0;
    for (size_t e = 0; e < x.size(); ++e) {
      const double keep = x[e];
      x[e] = keep + h;
      const double up = loss(a, in, dout);
      x[e] = keep - h;
      const double down = loss(a, in, dout);
      x[e] = keep;
      worst = std::max(worst, std::abs((up - down) / (2 * h) - grad[e]));
      norm = std::max(norm, std::abs(grad[e]));
    }
    EXPECT_GT(norm, 1e-3) << name << ": a gradient of all zeros would pass trivially";
    EXPECT_LT(worst, 1e-7) << name;
  };
  check(in.q, dq, "dQ");
  check(in.k, dk, "dK");
  check(in.v, dv, "dV");
}

INSTANTIATE_TEST_SUITE_P(Shapes, BackwardFiniteDifferences,
                         ::testing::Values(TiledCase{1, 3, 3, false, 0, 0}, TiledCase{5, 5, 4, true, 0, 0},
                                           TiledCase{3, 6, 4, true, 0, 0}, TiledCase{6, 3, 4, true, 0, 0},
                                           TiledCase{4, 7, 5, false, 0, 0}, TiledCase{6, 6, 4, false, 0, 0, 2, 1},
                                           TiledCase{4, 7, 5, true, 0, 0, 1, 0}, TiledCase{5, 5, 4, false, 0, 0, -1, -1, 0.6},
                                           TiledCase{6, 4, 4, false, 0, 0, 2, 0, 1.5}));

TEST(AttentionRef, WindowBoundsBothSides) {
  // n = 4, nk = 6: row i's diagonal key is i + 2; window (1, 1) sees i + 1 … i + 3, clamped to [0, 6).
  AttentionHead a = head(4, 6, 1, false);
  a.window_left = a.window_right = 1;
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(sol::ref::attention_first_key(a, i), i + 1);
    EXPECT_EQ(sol::ref::attention_last_key(a, i), std::min<int64_t>(i + 3, 5));
  }
  // causal is window_right = 0; with a left size it is Mistral's window.
  a.causal = true;
  a.window_right = -1;
  a.window_left = 0;
  EXPECT_EQ(sol::ref::attention_first_key(a, 2), 4);
  EXPECT_EQ(sol::ref::attention_last_key(a, 2), 4);
  a.window_right = 1;
  EXPECT_THROW(sol::ref::attention_row(a, 0, nullptr, nullptr, nullptr, nullptr), sol::Error);
}

TEST(AttentionRef, SoftcapCapsEveryScore) {
  // One key: L is the capped score itself, softcap·tanh(scale·q·k / softcap), below the cap.
  AttentionHead a{1, 1, 1, false, 1.0};
  a.softcap = 2;
  const Vec q{3}, k{4}, v{1};
  double o = 0;
  const double l = sol::ref::attention_row(a, 0, q.data(), k.data(), v.data(), &o);
  EXPECT_NEAR(l, 2 * std::tanh(12.0 / 2), 1e-15);
  EXPECT_LT(l, 2);
  EXPECT_NEAR(sol::ref::attention_score(a, q.data(), k.data()), l, 1e-15);
  a.softcap = -1;
  EXPECT_THROW(sol::ref::attention_row(a, 0, q.data(), k.data(), v.data(), &o), sol::Error);
}

TEST(AttentionRef, BadSizesThrow) {
  const Vec x(4, 1.0);
  Vec o(4), l(4);
  EXPECT_THROW(sol::ref::attention_standard(head(0, 1, 1, false), x.data(), x.data(), x.data(), o.data(), l.data()),
               sol::Error);
  EXPECT_THROW(sol::ref::attention_tiled(head(1, 1, 1, false), x.data(), x.data(), x.data(), o.data(), l.data(), 0, 1),
               sol::Error);
}

}  // namespace

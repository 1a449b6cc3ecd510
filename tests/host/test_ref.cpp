// Host references (sol/ref/rows.hpp, gemm.hpp, elementwise.hpp) on cases small enough to check by
// hand, the row backward against central finite differences of the forward, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/ref/elementwise.hpp"
#include "sol/ref/gemm.hpp"
#include "sol/ref/rows.hpp"

namespace {

using Vec = std::vector<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(RefRows, LayerNormByHand) {
  // x = 1, 2, 3, 4: mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
  const Vec x{1, 2, 3, 4};
  const sol::ref::LayerNormStats s = sol::ref::layernorm_stats(x.data(), 4, 0.0);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.rstd, 1 / std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(sol::ref::layernorm_y(4, s, 2, 0.5), 1.5 / std::sqrt(1.25) * 2 + 0.5);
  // eps is added to the variance: a constant row normalises to 0, rstd = 1/√eps.
  const Vec flat{3, 3};
  EXPECT_DOUBLE_EQ(sol::ref::layernorm_stats(flat.data(), 2, 0.25).rstd, 2.0);
}

TEST(RefRows, RMSNormByHand) {
  // x = 3, 4: mean of squares 12.5.
  const Vec x{3, 4};
  const double rstd = sol::ref::rmsnorm_rstd(x.data(), 2, 0.0);
  EXPECT_DOUBLE_EQ(rstd, 1 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(sol::ref::rmsnorm_y(4, rstd, 0.5), 2 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(sol::ref::rmsnorm_rstd(x.data(), 2, 3.5), 0.25);  // 1/√(12.5 + 3.5)
}

TEST(RefRows, SoftmaxByHandAndMasked) {
  // x = 0, ln 3: max ln 3, Σ exp(x − max) = 1/3 + 1, y = 1/4, 3/4.
  const Vec x{0, std::log(3.0)};
  const sol::ref::SoftmaxStats s = sol::ref::softmax_stats(x.data(), 2);
  EXPECT_DOUBLE_EQ(s.max, std::log(3.0));
  EXPECT_DOUBLE_EQ(s.sum, 4.0 / 3.0);
  EXPECT_NEAR(sol::ref::softmax_y(x[0], s), 0.25, 1e-15);
  EXPECT_NEAR(sol::ref::softmax_y(x[1], s), 0.75, 1e-15);
  // A masked (−∞) element gets 0; a fully masked row gives 0 everywhere, not NaN.
  const Vec part{-kInf, 1.0};
  const sol::ref::SoftmaxStats p = sol::ref::softmax_stats(part.data(), 2);
  EXPECT_EQ(sol::ref::softmax_y(part[0], p), 0.0);
  EXPECT_DOUBLE_EQ(sol::ref::softmax_y(part[1], p), 1.0);
  const Vec none{-kInf, -kInf};
  const sol::ref::SoftmaxStats z = sol::ref::softmax_stats(none.data(), 2);
  EXPECT_EQ(z.max, -kInf);
  EXPECT_EQ(z.sum, 0.0);
  EXPECT_EQ(sol::ref::softmax_y(none[0], z), 0.0);
}

// Σ_c dy[c]·y[c](x) as a function of x: its gradient is the backward's dx.
double loss(const std::function<double(const Vec&, int64_t)>& y, const Vec& x, const Vec& dy) {
  double l = 0;
  for (int64_t c = 0; c < int64_t(x.size()); ++c) l += dy[size_t(c)] * y(x, c);
  return l;
}
void expect_gradient(const std::function<double(const Vec&, int64_t)>& y, const Vec& x, const Vec& dy,
                     const std::function<double(int64_t)>& dx) {
  const double h = 1e-6;
  for (int64_t c = 0; c < int64_t(x.size()); ++c) {
    Vec up = x, down = x;
    up[size_t(c)] += h;
    down[size_t(c)] -= h;
    EXPECT_NEAR(dx(c), (loss(y, up, dy) - loss(y, down, dy)) / (2 * h), 1e-7) << "element " << c;
  }
}

const Vec kX{0.3, -1.2, 2.0, 0.7, -0.4};
const Vec kDy{0.5, 1.5, -0.25, -1.0, 2.0};
const Vec kGamma{1.0, 0.5, 2.0, -1.5, 0.75};
constexpr double kEps = 1e-5;

TEST(RefRows, LayerNormBackwardIsTheGradient) {
  const int64_t n = int64_t(kX.size());
  const sol::ref::LayerNormStats s = sol::ref::layernorm_stats(kX.data(), n, kEps);
  const sol::ref::NormBwdSums b = sol::ref::layernorm_bwd_sums(kX.data(), kDy.data(), kGamma.data(), n, s.mean, s.rstd);
  auto y = [&](const Vec& x, int64_t c) {
    return sol::ref::layernorm_y(x[size_t(c)], sol::ref::layernorm_stats(x.data(), n, kEps), kGamma[size_t(c)], 0.3);
  };
  expect_gradient(y, kX, kDy, [&](int64_t c) {
    return sol::ref::norm_dx(kX[size_t(c)], kDy[size_t(c)], kGamma[size_t(c)], s.mean, s.rstd, b);
  });
  // dγ's contribution of the row: dy·x̂.
  EXPECT_DOUBLE_EQ(sol::ref::norm_xhat(kX[2], s.mean, s.rstd), (kX[2] - s.mean) * s.rstd);
}

TEST(RefRows, RMSNormBackwardIsTheGradient) {
  const int64_t n = int64_t(kX.size());
  const double rstd = sol::ref::rmsnorm_rstd(kX.data(), n, kEps);
  const sol::ref::NormBwdSums b = sol::ref::rmsnorm_bwd_sums(kX.data(), kDy.data(), kGamma.data(), n, rstd);
  EXPECT_EQ(b.mean_g, 0.0);
  auto y = [&](const Vec& x, int64_t c) {
    return sol::ref::rmsnorm_y(x[size_t(c)], sol::ref::rmsnorm_rstd(x.data(), n, kEps), kGamma[size_t(c)]);
  };
  expect_gradient(y, kX, kDy, [&](int64_t c) {
    return sol::ref::norm_dx(kX[size_t(c)], kDy[size_t(c)], kGamma[size_t(c)], 0, rstd, b);
  });
}

TEST(RefRows, SoftmaxBackwardIsTheGradient) {
  const int64_t n = int64_t(kX.size());
  const sol::ref::SoftmaxStats s = sol::ref::softmax_stats(kX.data(), n);
  Vec y0(kX.size());
  for (size_t c = 0; c < kX.size(); ++c) y0[c] = sol::ref::softmax_y(kX[c], s);
  const double sum = sol::ref::softmax_bwd_sum(y0.data(), kDy.data(), n);
  auto y = [&](const Vec& x, int64_t c) {
    return sol::ref::softmax_y(x[size_t(c)], sol::ref::softmax_stats(x.data(), n));
  };
  expect_gradient(y, kX, kDy, [&](int64_t c) { return sol::ref::softmax_dx(y0[size_t(c)], kDy[size_t(c)], sum); });
}

TEST(RefRows, EmptyRowsAreBadInput) {
  const Vec x{1};
  EXPECT_THROW(sol::ref::layernorm_stats(x.data(), 0, kEps), sol::Error);
  EXPECT_THROW(sol::ref::rmsnorm_rstd(x.data(), -1, kEps), sol::Error);
  EXPECT_THROW(sol::ref::softmax_stats(x.data(), 0), sol::Error);
  EXPECT_THROW(sol::ref::softmax_bwd_sum(x.data(), x.data(), 0), sol::Error);
}

TEST(RefGemm, ElementByHand) {
  // Row (1, 2, 3) of A, column (4, 5, 6) of B stored 2 apart: Σ = 32; alpha 0.5, beta 2, C_in −20.
  const Vec a{1, 2, 3}, b{4, -1, 5, -1, 6};
  const sol::ref::GemmElement e = sol::ref::gemm_element(a.data(), 1, b.data(), 2, 3, 0.5, 2, -20);
  EXPECT_DOUBLE_EQ(e.value, 16 - 40);
  EXPECT_DOUBLE_EQ(e.terms, 16 + 40);  // the terms' magnitudes, not the cancelled result
  EXPECT_DOUBLE_EQ(sol::ref::gemm_element(a.data(), 1, b.data(), 2, 0, 1).value, 0.0);  // k = 0: empty sum
  EXPECT_THROW(sol::ref::gemm_element(a.data(), 1, b.data(), 1, -1, 1), sol::Error);
}

TEST(RefElementwise, SinCosChainIsOne) {
  for (double x : {0.0, 0.5, -3.0, 1e3}) EXPECT_NEAR(sol::ref::sincos_chain(x), 1.0, 1e-15) << x;
  EXPECT_DOUBLE_EQ(sol::ref::sincos_chain(0.0), 1.0);
}

}  // namespace

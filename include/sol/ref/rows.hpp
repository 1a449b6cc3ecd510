#pragma once
// Host references for the row operations (lecture §8) in double, on one row of n elements:
// LayerNorm, RMSNorm and softmax, forward and backward. A row's statistics are computed once
// (O(n)), then each output element from them (O(1)), so a check can compare element by element
// without holding a whole output.
//   LayerNorm  y = (x − μ)·rstd·γ + β,  μ = mean(x), rstd = 1/√(mean((x − μ)²) + eps)
//   RMSNorm    y = x·rstd·γ,            rstd = 1/√(mean(x²) + eps)
//   softmax    y = exp(x − max)/Σ exp(x − max); −∞ elements (a mask) give 0, a row of −∞ gives 0
// Backward, with x̂ = (x − μ)·rstd (μ = 0 for RMSNorm) and g = dy·γ:
//   dx = rstd·(g − mean(g) − x̂·mean(g·x̂))  (RMSNorm: without the mean(g) term)
//   dγ = Σ over rows of dy·x̂,  dβ = Σ over rows of dy;  softmax: dx = y·(dy − Σ dy·y)
// Cross-entropy of a row of V logits against its label with label smoothing ε (PyTorch's):
//   loss = lse − (1 − ε)·x_label − (ε/V)·Σx,  dlogit_c = softmax_c − (1 − ε)·[c = label] − ε/V
#include <cstdint>

namespace sol::ref {

struct LayerNormStats {
  double mean = 0, rstd = 0;
};
LayerNormStats layernorm_stats(const double* x, int64_t n, double eps);
double layernorm_y(double x, const LayerNormStats& s, double gamma, double beta);

double rmsnorm_rstd(const double* x, int64_t n, double eps);
double rmsnorm_y(double x, double rstd, double gamma);

struct SoftmaxStats {
  double max = 0, sum = 0;  // max = −∞ and sum = 0 for a row of −∞
};
SoftmaxStats softmax_stats(const double* x, int64_t n);
double softmax_y(double x, const SoftmaxStats& s);

// The two row means a norm's dx needs: mean(g) (LayerNorm; 0 for RMSNorm) and mean(g·x̂), from
// the forward's saved mean (0 for RMSNorm) and rstd.
struct NormBwdSums {
  double mean_g = 0, mean_gx = 0;
};
double norm_xhat(double x, double mean, double rstd);
NormBwdSums layernorm_bwd_sums(const double* x, const double* dy, const double* gamma, int64_t n, double mean,
                               double rstd);
NormBwdSums rmsnorm_bwd_sums(const double* x, const double* dy, const double* gamma, int64_t n, double rstd);
double norm_dx(double x, double dy, double gamma, double mean, double rstd, const NormBwdSums& s);

// Σ dy·y over the row, and dx of one element from it.
double softmax_bwd_sum(const double* y, const double* dy, int64_t n);
double softmax_dx(double y, double dy, double sum);

// One row's cross-entropy: its softmax statistics, logsumexp and loss (label in [0, n)).
struct CrossEntropyRow {
  SoftmaxStats st;
  double lse = 0, loss = 0;
};
CrossEntropyRow cross_entropy_row(const double* x, int64_t n, int64_t label, double smoothing);
// ∂loss/∂x_c of that row (unscaled: a mean multiplies it by 1/rows counted).
double cross_entropy_dlogit(double x, int64_t c, int64_t n, int64_t label, double smoothing, const CrossEntropyRow& r);

}  // namespace sol::ref

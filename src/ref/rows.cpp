// Host references for the row operations (include/sol/ref/rows.hpp): straight loops in double.
#include "sol/ref/rows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sol/core/error.hpp"

namespace sol::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void require_row(int64_t n, const char* op) {
  if (n < 1) bad_input(std::string(op) + " reference: a row needs n ≥ 1 elements (got " + std::to_string(n) + ")");
}

}  // namespace

LayerNormStats layernorm_stats(const double* x, int64_t n, double eps) {
  require_row(n, "layernorm");
  LayerNormStats s;
  double sum = 0, m2 = 0;
  for (int64_t c = 0; c < n; ++c) sum += x[c];
  s.mean = sum / double(n);
  for (int64_t c = 0; c < n; ++c) m2 += (x[c] - s.mean) * (x[c] - s.mean);
  s.rstd = 1 / std::sqrt(m2 / double(n) + eps);
  return s;
}
double layernorm_y(double x, const LayerNormStats& s, double gamma, double beta) {
  return (x - s.mean) * s.rstd * gamma + beta;
}

double rmsnorm_rstd(const double* x, int64_t n, double eps) {
  require_row(n, "rmsnorm");
  double sq = 0;
  for (int64_t c = 0; c < n; ++c) sq += x[c] * x[c];
  return 1 / std::sqrt(sq / double(n) + eps);
}
double rmsnorm_y(double x, double rstd, double gamma) { return x * rstd * gamma; }

SoftmaxStats softmax_stats(const double* x, int64_t n) {
  require_row(n, "softmax");
  SoftmaxStats s;
  s.max = kNegInf;
  for (int64_t c = 0; c < n; ++c) s.max = std::max(s.max, x[c]);
  for (int64_t c = 0; c < n; ++c) s.sum += s.max == kNegInf || x[c] == kNegInf ? 0 : std::exp(x[c] - s.max);
  return s;
}
double softmax_y(double x, const SoftmaxStats& s) { return s.sum > 0 && x != kNegInf ? std::exp(x - s.max) / s.sum : 0; }

double norm_xhat(double x, double mean, double rstd) { return (x - mean) * rstd; }

NormBwdSums layernorm_bwd_sums(const double* x, const double* dy, const double* gamma, int64_t n, double mean,
                               double rstd) {
  require_row(n, "layernorm backward");
  NormBwdSums s;
  for (int64_t c = 0; c < n; ++c) {
    const double g = dy[c] * gamma[c];
    s.mean_g += g;
    s.mean_gx += g * norm_xhat(x[c], mean, rstd);
  }
  s.mean_g /= double(n);
  s.mean_gx /= double(n);
  return s;
}
NormBwdSums rmsnorm_bwd_sums(const double* x, const double* dy, const double* gamma, int64_t n, double rstd) {
  require_row(n, "rmsnorm backward");
  NormBwdSums s;
  for (int64_t c = 0; c < n; ++c) s.mean_gx += dy[c] * gamma[c] * norm_xhat(x[c], 0, rstd);
  s.mean_gx /= double(n);
  return s;
}
double norm_dx(double x, double dy, double gamma, double mean, double rstd, const NormBwdSums& s) {
  return rstd * (dy * gamma - s.mean_g - norm_xhat(x, mean, rstd) * s.mean_gx);
}

double softmax_bwd_sum(const double* y, const double* dy, int64_t n) {
  require_row(n, "softmax backward");
  double s = 0;
  for (int64_t c = 0; c < n; ++c) s += dy[c] * y[c];
  return s;
}
double softmax_dx(double y, double dy, double sum) { return y * (dy - sum); }

CrossEntropyRow cross_entropy_row(const double* x, int64_t n, int64_t label, double smoothing) {
  require_row(n, "cross-entropy");
  if (label < 0 || label >= n)
    bad_input("cross-entropy: label " + std::to_string(label) + " is outside [0, " + std::to_string(n) + ")",
              "give a label in [0, V), or leave the row out (ignore_index)");
  CrossEntropyRow r;
  r.st = softmax_stats(x, n);
  r.lse = r.st.max + std::log(r.st.sum);
  double sumx = 0;
  for (int64_t c = 0; c < n; ++c) sumx += x[c];
  r.loss = r.lse - (1 - smoothing) * x[label] - smoothing * sumx / double(n);
  return r;
}
double cross_entropy_dlogit(double x, int64_t c, int64_t n, int64_t label, double smoothing, const CrossEntropyRow& r) {
  return std::exp(x - r.lse) - (c == label ? 1 - smoothing : 0) - smoothing / double(n);
}

}  // namespace sol::ref

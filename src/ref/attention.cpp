// Host attention references in double (include/sol/ref/attention.hpp). Straight loops:
// they are the definition the GPU kernels are checked against, so clarity beats speed.
#include "sol/ref/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sol/core/attention_window.hpp"
#include "sol/core/error.hpp"

namespace sol::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void require(const AttentionHead& a) {
  if (a.n < 1 || a.nk < 1 || a.d < 1)
    bad_input("attention reference: n, nk and d must be ≥ 1 (got n=" + std::to_string(a.n) +
              ", nk=" + std::to_string(a.nk) + ", d=" + std::to_string(a.d) + ")");
  if (!(a.scale > 0) || !std::isfinite(a.scale)) bad_input("attention reference: scale must be finite and > 0");
  if (a.window_left < -1 || a.window_right < -1 || (a.causal && a.window_right > 0))
    bad_input("attention reference: window sizes are ≥ −1, and causal allows window_right ≤ 0");
  if (!(a.softcap >= 0) || !std::isfinite(a.softcap)) bad_input("attention reference: softcap must be finite and ≥ 0");
}

double dot(const double* x, const double* y, int64_t d) {
  double s = 0;
  for (int64_t c = 0; c < d; ++c) s += x[c] * y[c];
  return s;
}

}  // namespace

namespace {
KeyWindow<int64_t> window_of(const AttentionHead& a) {
  return key_window<int64_t>(a.n, a.nk, a.window_left, a.causal ? 0 : a.window_right);
}
// dS of a capped score → dS of the scaled score: d(c·tanh(s/c))/ds = 1 − tanh² = 1 − (capped/c)².
double softcap_slope(const AttentionHead& a, double capped) {
  return a.softcap > 0 ? 1 - (capped / a.softcap) * (capped / a.softcap) : 1;
}
}  // namespace

int64_t attention_first_key(const AttentionHead& a, int64_t i) { return std::max<int64_t>(0, window_of(a).first(i)); }
int64_t attention_last_key(const AttentionHead& a, int64_t i) { return std::min(a.nk - 1, window_of(a).last(i)); }

double attention_score(const AttentionHead& a, const double* q, const double* k) {
  const double s = a.scale * dot(q, k, a.d);
  return a.softcap > 0 ? a.softcap * std::tanh(s / a.softcap) : s;
}

void attention_standard(const AttentionHead& a, const double* q, const double* k, const double* v, double* o,
                        double* lse) {
  require(a);
  // S = Q·Kᵀ·scale with −∞ where masked, then a row softmax, then P·V: the three passes of
  // the standard algorithm, S kept whole.
  std::vector<double> s(static_cast<size_t>(a.n * a.nk));
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = 0; j < a.nk; ++j)
      s[size_t(i * a.nk + j)] = attention_first_key(a, i) <= j && j <= attention_last_key(a, i)
                                    ? attention_score(a, q + i * a.d, k + j * a.d)
                                    : kNegInf;
  for (int64_t i = 0; i < a.n; ++i) {
    double* row = s.data() + i * a.nk;
    const double m = *std::max_element(row, row + a.nk);
    double* out = o + i * a.d;
    std::fill(out, out + a.d, 0.0);
    if (m == kNegInf) {  // no visible key
      lse[i] = kNegInf;
      continue;
    }
    double l = 0;
    for (int64_t j = 0; j < a.nk; ++j) l += row[j] = std::exp(row[j] - m);
    for (int64_t j = 0; j < a.nk; ++j)
      for (int64_t c = 0; c < a.d; ++c) out[c] += row[j] / l * v[j * a.d + c];
    lse[i] = m + std::log(l);
  }
}

double attention_row(const AttentionHead& a, int64_t i, const double* q_row, const double* k, const double* v,
                     double* o_row) {
  require(a);
  const int64_t first = attention_first_key(a, i), last = attention_last_key(a, i);
  std::fill(o_row, o_row + a.d, 0.0);
  if (last < first) return kNegInf;
  std::vector<double> s(static_cast<size_t>(a.nk));
  double m = kNegInf, l = 0;
  for (int64_t j = first; j <= last; ++j) m = std::max(m, s[size_t(j)] = attention_score(a, q_row, k + j * a.d));
  for (int64_t j = first; j <= last; ++j) l += s[size_t(j)] = std::exp(s[size_t(j)] - m);
  for (int64_t j = first; j <= last; ++j)
    for (int64_t c = 0; c < a.d; ++c) o_row[c] += s[size_t(j)] / l * v[j * a.d + c];
  return m + std::log(l);
}

void attention_tiled(const AttentionHead& a, const double* q, const double* k, const double* v, double* o, double* lse,
                     int64_t block_q, int64_t block_k) {
  require(a);
  if (block_q < 1 || block_k < 1) bad_input("attention_tiled: block sizes must be ≥ 1");
  std::vector<double> m(static_cast<size_t>(block_q)), l(static_cast<size_t>(block_q));
  std::vector<double> acc(static_cast<size_t>(block_q * a.d)), p(static_cast<size_t>(block_k));
  for (int64_t i0 = 0; i0 < a.n; i0 += block_q) {
    const int64_t rows = std::min(block_q, a.n - i0);
    std::fill(m.begin(), m.end(), kNegInf);
    std::fill(l.begin(), l.end(), 0.0);
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t j0 = 0; j0 < a.nk; j0 += block_k) {
      const int64_t cols = std::min(block_k, a.nk - j0);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r, first = attention_first_key(a, i), last = attention_last_key(a, i);
        // Scores of this key block; the block's max updates the running max.
        double block_max = kNegInf;
        for (int64_t c = 0; c < cols; ++c) {
          const int64_t j = j0 + c;
          p[size_t(c)] = first <= j && j <= last ? attention_score(a, q + i * a.d, k + j * a.d) : kNegInf;
          block_max = std::max(block_max, p[size_t(c)]);
        }
        const double m_new = std::max(m[size_t(r)], block_max);
        if (m_new == kNegInf) continue;  // nothing visible yet: the state stays empty
        const double alpha = std::exp(m[size_t(r)] - m_new);  // exp(−∞) = 0 on the first visible block
        double* row = acc.data() + r * a.d;
        for (int64_t c = 0; c < a.d; ++c) row[c] *= alpha;
        l[size_t(r)] *= alpha;
        for (int64_t c = 0; c < cols; ++c) {
          const double pc = std::exp(p[size_t(c)] - m_new);
          l[size_t(r)] += pc;
          for (int64_t e = 0; e < a.d; ++e) row[e] += pc * v[(j0 + c) * a.d + e];
        }
        m[size_t(r)] = m_new;
      }
    }
    for (int64_t r = 0; r < rows; ++r) {  // the one rescale at the end
      const int64_t i = i0 + r;
      for (int64_t c = 0; c < a.d; ++c) o[i * a.d + c] = l[size_t(r)] > 0 ? acc[size_t(r * a.d + c)] / l[size_t(r)] : 0.0;
      lse[i] = l[size_t(r)] > 0 ? m[size_t(r)] + std::log(l[size_t(r)]) : kNegInf;
    }
  }
}

void attention_backward_query(const AttentionHead& a, int64_t i, const double* q_row, const double* k, const double* v,
                              const double* o_row, double lse_i, const double* dout_row, double* dq_row) {
  require(a);
  std::fill(dq_row, dq_row + a.d, 0.0);
  const int64_t first = attention_first_key(a, i), last = attention_last_key(a, i);
  if (last < first || lse_i == kNegInf) return;
  const double D = dot(dout_row, o_row, a.d);
  for (int64_t j = first; j <= last; ++j) {
    const double s = attention_score(a, q_row, k + j * a.d), p = std::exp(s - lse_i);
    const double ds = p * (dot(dout_row, v + j * a.d, a.d) - D) * softcap_slope(a, s);
    for (int64_t c = 0; c < a.d; ++c) dq_row[c] += a.scale * ds * k[j * a.d + c];
  }
}

void attention_backward_key(const AttentionHead& a, int64_t j, const double* q, const double* k_row,
                            const double* v_row, const double* o, const double* lse, const double* dout, double* dk_row,
                            double* dv_row) {
  require(a);
  for (int64_t i = 0; i < a.n; ++i) {
    if (j < attention_first_key(a, i) || j > attention_last_key(a, i) || lse[i] == kNegInf) continue;
    const double* qi = q + i * a.d;
    const double* doi = dout + i * a.d;
    const double s = attention_score(a, qi, k_row), p = std::exp(s - lse[i]);
    const double ds = p * (dot(doi, v_row, a.d) - dot(doi, o + i * a.d, a.d)) * softcap_slope(a, s);
    for (int64_t c = 0; c < a.d; ++c) {
      dv_row[c] += p * doi[c];
      dk_row[c] += a.scale * ds * qi[c];
    }
  }
}

void attention_backward(const AttentionHead& a, const double* q, const double* k, const double* v, const double* o,
                        const double* lse, const double* dout, double* dq, double* dk, double* dv) {
  require(a);
  for (int64_t i = 0; i < a.n; ++i)
    attention_backward_query(a, i, q + i * a.d, k, v, o + i * a.d, lse[i], dout + i * a.d, dq + i * a.d);
  std::fill(dk, dk + a.nk * a.d, 0.0);
  std::fill(dv, dv + a.nk * a.d, 0.0);
  for (int64_t j = 0; j < a.nk; ++j)
    attention_backward_key(a, j, q, k + j * a.d, v + j * a.d, o, lse, dout, dk + j * a.d, dv + j * a.d);
}

}  // namespace sol::ref

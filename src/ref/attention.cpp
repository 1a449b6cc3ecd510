// Host attention references in double (include/sol/ref/attention.hpp). Straight loops:
// they are the definition the GPU kernels are checked against, so clarity beats speed.
#include "sol/ref/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sol/core/error.hpp"

namespace sol::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void require(const AttentionHead& a) {
  if (a.n < 1 || a.nk < 1 || a.d < 1)
    bad_input("attention reference: n, nk and d must be ≥ 1 (got n=" + std::to_string(a.n) +
              ", nk=" + std::to_string(a.nk) + ", d=" + std::to_string(a.d) + ")");
  if (!(a.scale > 0) || !std::isfinite(a.scale)) bad_input("attention reference: scale must be finite and > 0");
}

double dot(const double* x, const double* y, int64_t d) {
  double s = 0;
  for (int64_t c = 0; c < d; ++c) s += x[c] * y[c];
  return s;
}

}  // namespace

int64_t attention_last_key(const AttentionHead& a, int64_t i) {
  return a.causal ? std::min(a.nk - 1, i + a.nk - a.n) : a.nk - 1;
}

void attention_standard(const AttentionHead& a, const double* q, const double* k, const double* v, double* o,
                        double* lse) {
  require(a);
  // S = Q·Kᵀ·scale with −∞ where masked, then a row softmax, then P·V: the three passes of
  // the standard algorithm, S kept whole.
  std::vector<double> s(static_cast<size_t>(a.n * a.nk));
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = 0; j < a.nk; ++j)
      s[size_t(i * a.nk + j)] = j <= attention_last_key(a, i) ? a.scale * dot(q + i * a.d, k + j * a.d, a.d) : kNegInf;
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
  const int64_t last = attention_last_key(a, i);
  std::fill(o_row, o_row + a.d, 0.0);
  if (last < 0) return kNegInf;
  std::vector<double> s(static_cast<size_t>(last + 1));
  double m = kNegInf, l = 0;
  for (int64_t j = 0; j <= last; ++j) m = std::max(m, s[size_t(j)] = a.scale * dot(q_row, k + j * a.d, a.d));
  for (int64_t j = 0; j <= last; ++j) l += s[size_t(j)] = std::exp(s[size_t(j)] - m);
  for (int64_t j = 0; j <= last; ++j)
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
        const int64_t i = i0 + r, last = attention_last_key(a, i);
        // Scores of this key block; the block's max updates the running max.
        double block_max = kNegInf;
        for (int64_t c = 0; c < cols; ++c) {
          const int64_t j = j0 + c;
          p[size_t(c)] = j <= last ? a.scale * dot(q + i * a.d, k + j * a.d, a.d) : kNegInf;
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
  const int64_t last = attention_last_key(a, i);
  if (last < 0 || lse_i == kNegInf) return;
  const double D = dot(dout_row, o_row, a.d);
  for (int64_t j = 0; j <= last; ++j) {
    const double p = std::exp(a.scale * dot(q_row, k + j * a.d, a.d) - lse_i);
    const double ds = p * (dot(dout_row, v + j * a.d, a.d) - D);
    for (int64_t c = 0; c < a.d; ++c) dq_row[c] += a.scale * ds * k[j * a.d + c];
  }
}

void attention_backward_key(const AttentionHead& a, int64_t j, const double* q, const double* k_row,
                            const double* v_row, const double* o, const double* lse, const double* dout, double* dk_row,
                            double* dv_row) {
  require(a);
  for (int64_t i = 0; i < a.n; ++i) {
    if (j > attention_last_key(a, i) || lse[i] == kNegInf) continue;
    const double* qi = q + i * a.d;
    const double* doi = dout + i * a.d;
    const double p = std::exp(a.scale * dot(qi, k_row, a.d) - lse[i]);
    const double ds = p * (dot(doi, v_row, a.d) - dot(doi, o + i * a.d, a.d));
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

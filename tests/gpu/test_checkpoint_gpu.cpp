// The checkpointing planner's GPU proof, small: a 2-layer stack (seq 128, d 128) run without
// checkpoints and with every block recomputed must give bit-identical gradients, a lower measured
// peak, and exactly the planner's predicted peaks (the measurement books the very tensors the
// planner counts); and one layer's backward is checked against a double-precision CPU forward +
// backward written out here from the formulas, so the backward is right, not only self-consistent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint.hpp"
#include "tests/gpu/gpu_env.hpp"
#ifdef SOL_WITH_CUDA
#include "kernels/transformer/stack.hpp"
#endif

namespace {

#ifdef SOL_WITH_CUDA
using namespace sol;

double bf16_value(uint16_t bits) {
  const uint32_t w = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return double(f);
}

std::vector<double> values(const std::vector<uint16_t>& bits, size_t first, size_t count) {
  std::vector<double> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = bf16_value(bits[first + i]);
  return v;
}

model::LayerModel planner_layer(const transformer::Shape& s) { return model::layer_model(s, hw::find("h200")); }

TEST(CheckpointGpu, RecomputedBlocksGiveIdenticalGradientsAndTheirPredictedPeak) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const transformer::Shape s{2, 1, 128, 128, 2, 4};
  const model::LayerModel layer = planner_layer(s);
  const model::Plan none = model::no_checkpoints(layer, s.layers), every = model::every_kth(layer, s.layers, 1);
  transformer::Stack stack(s, 7);
  const transformer::StepMemory m_none = stack.step(none.segments);
  const std::vector<uint16_t> g_none = stack.gradients();
  const transformer::StepMemory m_every = stack.step(every.segments);
  const std::vector<uint16_t> g_every = stack.gradients();
  const transformer::StepMemory m_again = stack.step(none.segments);
  const std::vector<uint16_t> g_again = stack.gradients();

  ASSERT_EQ(g_none.size(), g_every.size());
  int64_t non_finite = 0;
  for (uint16_t b : g_none) non_finite += (b & 0x7F80u) == 0x7F80u;  // the NaN poison of an unwritten gradient
  EXPECT_EQ(non_finite, 0);
  EXPECT_EQ(std::memcmp(g_none.data(), g_every.data(), g_none.size() * 2), 0) << "recomputation changed a gradient bit";
  EXPECT_EQ(std::memcmp(g_none.data(), g_again.data(), g_none.size() * 2), 0) << "two identical steps differ";

  EXPECT_LT(m_every.saved_peak, m_none.saved_peak);
  EXPECT_DOUBLE_EQ(m_none.saved_peak, none.peak_bytes);
  EXPECT_DOUBLE_EQ(m_every.saved_peak, every.peak_bytes);
  EXPECT_DOUBLE_EQ(m_again.saved_peak, m_none.saved_peak);
  // Transients come on top of the saved tensors; the pool holds at least what was booked live.
  EXPECT_GT(m_none.total_peak, m_none.saved_peak);
  EXPECT_GE(m_none.pool_used_high, m_none.total_peak);
}

// ---- a double-precision reference of one layer ------------------------------------------------------
struct Mat {
  int64_t r = 0, c = 0;
  std::vector<double> v;
  Mat(int64_t rows, int64_t cols) : r(rows), c(cols), v(size_t(rows * cols), 0.0) {}
  double& at(int64_t i, int64_t j) { return v[size_t(i * c + j)]; }
  double at(int64_t i, int64_t j) const { return v[size_t(i * c + j)]; }
};
Mat from(const std::vector<double>& v, int64_t r, int64_t c) {
  Mat m(r, c);
  m.v = v;
  return m;
}
Mat mul_nt(const Mat& a, const Mat& b) {  // a·bᵀ
  Mat o(a.r, b.r);
  for (int64_t i = 0; i < a.r; ++i)
    for (int64_t j = 0; j < b.r; ++j) {
      double s = 0;
      for (int64_t k = 0; k < a.c; ++k) s += a.at(i, k) * b.at(j, k);
      o.at(i, j) = s;
    }
  return o;
}
Mat tr(const Mat& a) {
  Mat o(a.c, a.r);
  for (int64_t i = 0; i < a.r; ++i)
    for (int64_t j = 0; j < a.c; ++j) o.at(j, i) = a.at(i, j);
  return o;
}
Mat mul_nn(const Mat& a, const Mat& b) { return mul_nt(a, tr(b)); }
Mat mul_tn(const Mat& a, const Mat& b) { return mul_nt(tr(a), tr(b)); }  // aᵀ·b

struct Ln {
  Mat y, xh;
  std::vector<double> rstd;
};
Ln ln_fwd(const Mat& x, const std::vector<double>& g, const std::vector<double>& b) {
  Ln o{Mat(x.r, x.c), Mat(x.r, x.c), std::vector<double>(size_t(x.r))};
  for (int64_t i = 0; i < x.r; ++i) {
    double mu = 0, var = 0;
    for (int64_t j = 0; j < x.c; ++j) mu += x.at(i, j) / double(x.c);
    for (int64_t j = 0; j < x.c; ++j) var += (x.at(i, j) - mu) * (x.at(i, j) - mu) / double(x.c);
    o.rstd[size_t(i)] = 1.0 / std::sqrt(var + 1e-5);
    for (int64_t j = 0; j < x.c; ++j) {
      o.xh.at(i, j) = (x.at(i, j) - mu) * o.rstd[size_t(i)];
      o.y.at(i, j) = o.xh.at(i, j) * g[size_t(j)] + b[size_t(j)];
    }
  }
  return o;
}
// dx; dγ, dβ accumulated into dg, db.
Mat ln_bwd(const Ln& f, const Mat& dy, const std::vector<double>& g, std::vector<double>& dg, std::vector<double>& db) {
  Mat dx(dy.r, dy.c);
  dg.assign(size_t(dy.c), 0.0);
  db.assign(size_t(dy.c), 0.0);
  for (int64_t i = 0; i < dy.r; ++i) {
    double m1 = 0, m2 = 0;
    for (int64_t j = 0; j < dy.c; ++j) {
      const double gx = dy.at(i, j) * g[size_t(j)];
      m1 += gx / double(dy.c);
      m2 += gx * f.xh.at(i, j) / double(dy.c);
      dg[size_t(j)] += dy.at(i, j) * f.xh.at(i, j);
      db[size_t(j)] += dy.at(i, j);
    }
    for (int64_t j = 0; j < dy.c; ++j)
      dx.at(i, j) = f.rstd[size_t(i)] * (dy.at(i, j) * g[size_t(j)] - m1 - f.xh.at(i, j) * m2);
  }
  return dx;
}

double gelu(double u) { return 0.5 * u * (1 + std::tanh(std::sqrt(2 / M_PI) * (u + 0.044715 * u * u * u))); }
double gelu_grad(double u) {
  const double k = std::sqrt(2 / M_PI), t = std::tanh(k * (u + 0.044715 * u * u * u));
  return 0.5 * (1 + t) + 0.5 * u * k * (1 + 3 * 0.044715 * u * u) * (1 - t * t);
}

double rel_l2(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

TEST(CheckpointGpu, OneLayerBackwardMatchesADoublePrecisionReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const transformer::Shape s{1, 1, 128, 128, 2, 4};
  const int64_t T = s.tokens(), d = s.d_model, f = s.mlp(), H = s.heads, dh = s.head_dim();
  transformer::Stack stack(s, 11);
  stack.step({{0, 1, false}});
  const std::vector<uint16_t> grads = stack.gradients(), pb = stack.params(0);
  const transformer::ParamLayout L = transformer::ParamLayout::of(s);
  const auto par = [&](int64_t off, int64_t n) { return values(pb, size_t(off), size_t(n)); };
  const Mat x = from(values(stack.input(), 0, size_t(T * d)), T, d);
  const Mat dY = from(values(stack.upstream(), 0, size_t(T * d)), T, d);
  const std::vector<double> g1 = par(L.ln1_gamma, d), b1 = par(L.ln1_beta, d), g2 = par(L.ln2_gamma, d),
                            b2 = par(L.ln2_beta, d);
  const Mat Wqkv = from(par(L.w_qkv, 3 * d * d), 3 * d, d), Wo = from(par(L.w_out, d * d), d, d);
  const Mat Wup = from(par(L.w_up, f * d), f, d), Wdown = from(par(L.w_down, d * f), d, f);

  // Forward.
  const Ln ln1 = ln_fwd(x, g1, b1);
  const Mat qkv = mul_nt(ln1.y, Wqkv);  // [T × 3d]: Q | K | V, head hh at columns hh·dh
  const double scale = 1.0 / std::sqrt(double(dh));
  std::vector<Mat> P(size_t(H), Mat(T, T));
  Mat O(T, d);
  for (int64_t hh = 0; hh < H; ++hh)
    for (int64_t i = 0; i < T; ++i) {
      double mx = -1e300;
      std::vector<double> srow(static_cast<size_t>(T));
      for (int64_t j = 0; j < T; ++j) {
        double sc = 0;
        for (int64_t e = 0; e < dh; ++e) sc += qkv.at(i, hh * dh + e) * qkv.at(j, d + hh * dh + e);
        srow[size_t(j)] = sc * scale;
        mx = std::max(mx, srow[size_t(j)]);
      }
      double sum = 0;
      for (int64_t j = 0; j < T; ++j) sum += std::exp(srow[size_t(j)] - mx);
      for (int64_t j = 0; j < T; ++j) P[size_t(hh)].at(i, j) = std::exp(srow[size_t(j)] - mx) / sum;
      for (int64_t e = 0; e < dh; ++e) {
        double o = 0;
        for (int64_t j = 0; j < T; ++j) o += P[size_t(hh)].at(i, j) * qkv.at(j, 2 * d + hh * dh + e);
        O.at(i, hh * dh + e) = o;
      }
    }
  Mat h = mul_nt(O, Wo);
  for (size_t i = 0; i < h.v.size(); ++i) h.v[i] += x.v[i];
  const Ln ln2 = ln_fwd(h, g2, b2);
  const Mat u = mul_nt(ln2.y, Wup);
  Mat g(T, f);
  for (size_t i = 0; i < g.v.size(); ++i) g.v[i] = gelu(u.v[i]);

  // Backward.
  const Mat dWdown = mul_tn(dY, g);
  Mat du = mul_nn(dY, Wdown);
  for (size_t i = 0; i < du.v.size(); ++i) du.v[i] *= gelu_grad(u.v[i]);
  const Mat dWup = mul_tn(du, ln2.y);
  const Mat da2 = mul_nn(du, Wup);
  std::vector<double> dg2, db2, dg1, db1;
  Mat dres = ln_bwd(ln2, da2, g2, dg2, db2);
  for (size_t i = 0; i < dres.v.size(); ++i) dres.v[i] += dY.v[i];
  const Mat dWo = mul_tn(dres, O);
  const Mat dO = mul_nn(dres, Wo);
  Mat dqkv(T, 3 * d);
  for (int64_t hh = 0; hh < H; ++hh) {
    const Mat& Ph = P[size_t(hh)];
    Mat dS(T, T);
    for (int64_t i = 0; i < T; ++i) {
      std::vector<double> dP(static_cast<size_t>(T));
      double D = 0;
      for (int64_t j = 0; j < T; ++j) {
        double v = 0;
        for (int64_t e = 0; e < dh; ++e) v += dO.at(i, hh * dh + e) * qkv.at(j, 2 * d + hh * dh + e);
        dP[size_t(j)] = v;
        D += v * Ph.at(i, j);
      }
      for (int64_t j = 0; j < T; ++j) dS.at(i, j) = Ph.at(i, j) * (dP[size_t(j)] - D);
    }
    for (int64_t j = 0; j < T; ++j)
      for (int64_t e = 0; e < dh; ++e) {
        double dv = 0, dk = 0;
        for (int64_t i = 0; i < T; ++i) {
          dv += Ph.at(i, j) * dO.at(i, hh * dh + e);
          dk += dS.at(i, j) * qkv.at(i, hh * dh + e) * scale;
        }
        dqkv.at(j, 2 * d + hh * dh + e) = dv;
        dqkv.at(j, d + hh * dh + e) = dk;
      }
    for (int64_t i = 0; i < T; ++i)
      for (int64_t e = 0; e < dh; ++e) {
        double dq = 0;
        for (int64_t j = 0; j < T; ++j) dq += dS.at(i, j) * qkv.at(j, d + hh * dh + e) * scale;
        dqkv.at(i, hh * dh + e) = dq;
      }
  }
  const Mat dWqkv = mul_tn(dqkv, ln1.y);
  const Mat da1 = mul_nn(dqkv, Wqkv);
  Mat dx = ln_bwd(ln1, da1, g1, dg1, db1);
  for (size_t i = 0; i < dx.v.size(); ++i) dx.v[i] += dres.v[i];

  // The GPU keeps every intermediate in bf16 (8 mantissa bits, 2^-9 relative rounding) and about
  // ten of them lie on each gradient's path, several through sums with cancellation (the
  // LayerNorm backward's centring, the attention's dS = P∘(dP − D)): a few 1e-3 to 1e-2 of
  // relative L2 error is rounding. A wrong transpose, operand or formula is O(1).
  constexpr double kTol = 5e-2;
  const size_t base = size_t(T * d);
  const auto gpu = [&](int64_t off, int64_t n) { return values(grads, base + size_t(off), size_t(n)); };
  EXPECT_LT(rel_l2(values(grads, 0, size_t(T * d)), dx.v), kTol) << "dX";
  // Q, K and V rows apart: dV dominates the norm, and dQ, dK (through dS) must be right on their own.
  for (int64_t i = 0; i < 3; ++i) {
    const std::vector<double> want(dWqkv.v.begin() + i * d * d, dWqkv.v.begin() + (i + 1) * d * d);
    EXPECT_LT(rel_l2(gpu(L.w_qkv + i * d * d, d * d), want), kTol) << "dW" << "qkv"[i];
  }
  EXPECT_LT(rel_l2(gpu(L.w_out, d * d), dWo.v), kTol) << "dWo";
  EXPECT_LT(rel_l2(gpu(L.w_up, f * d), dWup.v), kTol) << "dWup";
  EXPECT_LT(rel_l2(gpu(L.w_down, d * f), dWdown.v), kTol) << "dWdown";
  EXPECT_LT(rel_l2(gpu(L.ln1_gamma, d), dg1), kTol) << "dγ1";
  EXPECT_LT(rel_l2(gpu(L.ln1_beta, d), db1), kTol) << "dβ1";
  EXPECT_LT(rel_l2(gpu(L.ln2_gamma, d), dg2), kTol) << "dγ2";
  EXPECT_LT(rel_l2(gpu(L.ln2_beta, d), db2), kTol) << "dβ2";
}

#else
TEST(CheckpointGpu, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif

}  // namespace

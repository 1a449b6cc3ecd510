// sol::kernels from an installed package: every operation of <sol/kernels.hpp> on small, odd
// shapes, each checked against a plain CPU reference below. Plain C++: calling sol's kernels
// needs the CUDA runtime's headers and libraries, not nvcc. Without a GPU it says so and exits
// 77, which ctest counts as a skip.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "sol/formats/cast.hpp"  // bf16 <-> float on the host
#include "sol/formats/mx.hpp"    // the MX format's definition, which mx_quantize matches bit for bit
#include "sol/kernels.hpp"

namespace {

using Bf16 = uint16_t;
using Floats = std::vector<float>;
using Doubles = std::vector<double>;

void cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) sol::failure(std::string(what) + ": " + cudaGetErrorString(status));
}

// A device copy of a host vector; read() copies it back (and waits for the work before it).
template <class T>
struct Device {
  T* ptr = nullptr;
  size_t size = 0;
  explicit Device(size_t n) : size(n) {
    void* p = nullptr;
    cuda(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)), "cudaMalloc");
    ptr = static_cast<T*>(p);
  }
  explicit Device(const std::vector<T>& host) : Device(host.size()) {
    cuda(cudaMemcpy(ptr, host.data(), size * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~Device() { cudaFree(ptr); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  std::vector<T> read() const {
    std::vector<T> host(size);
    cuda(cudaMemcpy(host.data(), ptr, size * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }
};

// The scratch an op asks for (none: nullptr).
struct Workspace {
  explicit Workspace(size_t n) : bytes(n), buffer(n) {}
  void* ptr() { return bytes ? buffer.ptr : nullptr; }
  size_t bytes;
  Device<std::byte> buffer;
};

Bf16 to_bf16(float x) { return Bf16(sol::formats::encode_checked(sol::formats::Format::bf16, x, sol::formats::Overflow::Plain)); }
float from_bf16(Bf16 b) { return sol::formats::decode_value(sol::formats::Format::bf16, b); }
std::vector<Bf16> to_bf16(const Floats& x) {
  std::vector<Bf16> out(x.size());
  std::transform(x.begin(), x.end(), out.begin(), [](float v) { return to_bf16(v); });
  return out;
}
Floats from_bf16(const std::vector<Bf16>& x) {
  Floats out(x.size());
  std::transform(x.begin(), x.end(), out.begin(), [](Bf16 v) { return from_bf16(v); });
  return out;
}

// Uniform in [-1, 1), already rounded to bf16 so that the CPU sees exactly the GPU's inputs.
Floats random_values(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  Floats x(n);
  for (float& v : x) v = from_bf16(to_bf16(u(gen)));
  return x;
}

int g_failures = 0;

// ‖got − want‖₂ / ‖want‖₂ against a tolerance; prints one line per check.
void expect_close(const std::string& what, const Floats& got, const Doubles& want, double tolerance) {
  double err = 0, norm = 0;
  bool finite = got.size() == want.size();
  for (size_t i = 0; finite && i < got.size(); ++i) {
    finite = std::isfinite(got[i]);
    err += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  const double rel = std::sqrt(err / std::max(norm, 1e-300));
  const bool ok = finite && rel <= tolerance;
  std::printf("  %-34s %-6s rel_l2 %.1e (tolerance %.0e)\n", what.c_str(), ok ? "ok" : "FAILED", rel, tolerance);
  g_failures += !ok;
}

template <class T>
void expect_equal(const std::string& what, const std::vector<T>& got, const std::vector<T>& want) {
  const bool ok = got == want;
  std::printf("  %-34s %s\n", what.c_str(), ok ? "ok (bit for bit)" : "FAILED (bits differ)");
  g_failures += !ok;
}

void show(const sol::Choice& c) { std::printf("%s: %s\n", c.implementation.c_str(), c.reason.c_str()); }

// ---- matmul: C = op(A) · op(B) in each of the four layouts -----------------------------------------
void check_matmul() {
  const int64_t m = 37, n = 29, k = 45;
  const Floats a = random_values(m * k, 1), b = random_values(k * n, 2);
  const Device<Bf16> dA(to_bf16(a)), dB(to_bf16(b));
  Device<float> dC(m * n);
  for (sol::Transpose ta : {sol::Transpose::N, sol::Transpose::T})
    for (sol::Transpose tb : {sol::Transpose::N, sol::Transpose::T}) {
      // N: A is m×k, B is k×n; T: A is stored k×m, B n×k (packed: leading dimensions 0).
      sol::MatmulArgs args{.m = m, .n = n, .k = k, .c_type = sol::DType::f32, .trans_a = ta, .trans_b = tb,
                           .a = dA.ptr, .b = dB.ptr, .c = dC.ptr};
      const std::string layout = std::string(ta == sol::Transpose::N ? "N" : "T") + (tb == sol::Transpose::N ? "N" : "T");
      if (layout == "NT") std::printf("matmul %s runs ", layout.c_str()), show(sol::explain_matmul(args));
      Workspace ws(sol::matmul_workspace_size(args));
      sol::matmul(args, ws.ptr(), ws.bytes, nullptr);
      Doubles want(m * n, 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t p = 0; p < k; ++p)
            want[i * n + j] += double(ta == sol::Transpose::N ? a[i * k + p] : a[p * m + i]) *
                               (tb == sol::Transpose::N ? b[p * n + j] : b[j * k + p]);
      expect_close("matmul " + layout + " 37x29x45 bf16->f32", dC.read(), want, 1e-5);
    }
}

// ---- attention: forward and backward, grouped-query, causal -------------------------------------
// BSHD; query head hh reads K/V head hh / (h / h_kv); query i sees key j iff j <= i + nk - n.
struct Attention {
  int64_t b = 2, h = 2, h_kv = 1, n = 7, nk = 9;
  int d = 64;
  int64_t q_at(int64_t bb, int64_t i, int64_t hh) const { return ((bb * n + i) * h + hh) * d; }
  int64_t k_at(int64_t bb, int64_t j, int64_t hh) const { return ((bb * nk + j) * h_kv + hh / (h / h_kv)) * d; }
  bool sees(int64_t i, int64_t j) const { return j <= i + nk - n; }
};

double dot(const float* x, const float* y, int d) {
  double s = 0;
  for (int t = 0; t < d; ++t) s += double(x[t]) * y[t];
  return s;
}

void check_attention() {
  const Attention s;
  const double scale = 1.0 / std::sqrt(double(s.d));
  const Floats q = random_values(s.b * s.n * s.h * s.d, 3), k = random_values(s.b * s.nk * s.h_kv * s.d, 4),
               v = random_values(s.b * s.nk * s.h_kv * s.d, 5), dout = random_values(q.size(), 6);
  const Device<Bf16> dQ(to_bf16(q)), dK(to_bf16(k)), dV(to_bf16(v)), dDout(to_bf16(dout));
  Device<Bf16> dO(q.size()), dGradQ(q.size()), dGradK(k.size()), dGradV(v.size());
  Device<float> dLse(s.b * s.h * s.n);

  // Strides in elements of the batch, sequence and head dimensions; these are the packed ones, which
  // {} (all 0) would mean as well.
  const sol::BSHDStrides q_strides{.batch = s.n * s.h * s.d, .seq = s.h * s.d, .head = s.d},
      kv_strides{.batch = s.nk * s.h_kv * s.d, .seq = s.h_kv * s.d, .head = s.d};
  sol::AttentionArgs fwd{.b = s.b, .h = s.h, .h_kv = s.h_kv, .n = s.n, .nk = s.nk, .d = s.d, .causal = true,
                         .q = dQ.ptr, .k = dK.ptr, .v = dV.ptr, .o = dO.ptr, .lse = dLse.ptr,
                         .q_stride = q_strides, .k_stride = kv_strides, .v_stride = kv_strides, .o_stride = q_strides};
  std::printf("attention_forward runs "), show(sol::explain_attention_forward(fwd));
  Workspace fwd_ws(sol::attention_forward_workspace_size(fwd));
  sol::attention_forward(fwd, fwd_ws.ptr(), fwd_ws.bytes, nullptr);

  sol::AttentionBackwardArgs bwd{.fwd = fwd, .dout = dDout.ptr, .dq = dGradQ.ptr, .dk = dGradK.ptr, .dv = dGradV.ptr,
                                 .dout_stride = q_strides, .dq_stride = q_strides, .dk_stride = kv_strides,
                                 .dv_stride = kv_strides};
  std::printf("attention_backward runs "), show(sol::explain_attention_backward(bwd));
  Workspace bwd_ws(sol::attention_backward_workspace_size(bwd));
  sol::attention_backward(bwd, bwd_ws.ptr(), bwd_ws.bytes, nullptr);

  // P = softmax(scale · Q Kᵀ) row by row; O = P V; dV = Pᵀ dO; dS = P ∘ (dO Vᵀ − rowsum(dO ∘ O));
  // dQ = scale · dS K; dK = scale · dSᵀ Q. dK and dV sum over the query heads sharing a K/V head.
  Doubles o(q.size(), 0), lse(s.b * s.h * s.n), gq(q.size(), 0), gk(k.size(), 0), gv(v.size(), 0);
  for (int64_t bb = 0; bb < s.b; ++bb)
    for (int64_t hh = 0; hh < s.h; ++hh)
      for (int64_t i = 0; i < s.n; ++i) {
        const int64_t qi = s.q_at(bb, i, hh);
        Doubles p(s.nk, 0);
        double mx = -INFINITY, sum = 0, delta = 0;
        for (int64_t j = 0; j < s.nk; ++j)
          if (s.sees(i, j)) mx = std::max(mx, p[j] = scale * dot(&q[qi], &k[s.k_at(bb, j, hh)], s.d));
        for (int64_t j = 0; j < s.nk; ++j) sum += s.sees(i, j) ? std::exp(p[j] - mx) : 0;
        lse[(bb * s.h + hh) * s.n + i] = mx + std::log(sum);
        for (int64_t j = 0; j < s.nk; ++j) {
          p[j] = s.sees(i, j) ? std::exp(p[j] - mx) / sum : 0;
          for (int t = 0; t < s.d; ++t) o[qi + t] += p[j] * v[s.k_at(bb, j, hh) + t];
        }
        for (int t = 0; t < s.d; ++t) delta += dout[qi + t] * o[qi + t];
        for (int64_t j = 0; j < s.nk; ++j) {
          const int64_t kj = s.k_at(bb, j, hh);
          const double ds = p[j] * (dot(&dout[qi], &v[kj], s.d) - delta);
          for (int t = 0; t < s.d; ++t) {
            gv[kj + t] += p[j] * dout[qi + t];
            gq[qi + t] += scale * ds * k[kj + t];
            gk[kj + t] += scale * ds * q[qi + t];
          }
        }
      }
  expect_close("attention_forward O", from_bf16(dO.read()), o, 1e-2);
  expect_close("attention_forward LSE", dLse.read(), lse, 1e-4);
  expect_close("attention_backward dQ", from_bf16(dGradQ.read()), gq, 2e-2);
  expect_close("attention_backward dK", from_bf16(dGradK.read()), gk, 2e-2);
  expect_close("attention_backward dV", from_bf16(dGradV.read()), gv, 2e-2);
}

// ---- row operations over rows × cols fp32: LayerNorm, RMSNorm, softmax, forward and backward -----
constexpr int64_t kRows = 6, kCols = 300;

struct RowStats {
  double mean = 0, rstd = 0;
};
// Mean and 1/√(variance + eps) of a row; rms: of x² (no mean subtracted).
RowStats stats(const float* x, bool rms, double eps) {
  double mean = 0, var = 0;
  for (int64_t c = 0; c < kCols; ++c) mean += x[c] / double(kCols);
  if (rms) mean = 0;
  for (int64_t c = 0; c < kCols; ++c) var += (x[c] - mean) * (x[c] - mean) / double(kCols);
  return {mean, 1 / std::sqrt(var + eps)};
}

// Both norms: y = γ·x̂ (+ β), x̂ = (x − mean)·rstd; dx = rstd·(g − mean(g) − x̂·mean(g·x̂)) with g = γ·dy
// (RMSNorm: no mean, so no mean(g) term); dγ = Σ_rows dy·x̂, dβ = Σ_rows dy.
void check_norm(bool rms) {
  const double eps = rms ? 1e-6 : 1e-5;
  const Floats x = random_values(kRows * kCols, 7), dy = random_values(kRows * kCols, 8),
               gamma = random_values(kCols, 9), beta = random_values(kCols, 10);
  const Device<float> dX(x), dDy(dy), dGamma(gamma), dBeta(beta);
  Device<float> dY(x.size()), dMean(kRows), dRstd(kRows), dDx(x.size()), dDgamma(kCols), dDbeta(kCols);
  const char* name = rms ? "rmsnorm" : "layernorm";
  if (rms) {
    sol::RMSNormArgs f{.dtype = sol::DType::f32, .rows = kRows, .cols = kCols, .x = dX.ptr, .y = dY.ptr,
                       .gamma = dGamma.ptr, .rstd = dRstd.ptr};
    Workspace wf(sol::rmsnorm_forward_workspace_size(f));
    sol::rmsnorm_forward(f, wf.ptr(), wf.bytes, nullptr);
    sol::RMSNormBackwardArgs g{.dtype = sol::DType::f32, .rows = kRows, .cols = kCols, .x = dX.ptr, .dy = dDy.ptr,
                               .dx = dDx.ptr, .gamma = dGamma.ptr, .rstd = dRstd.ptr, .dgamma = dDgamma.ptr};
    Workspace wb(sol::rmsnorm_backward_workspace_size(g));
    sol::rmsnorm_backward(g, wb.ptr(), wb.bytes, nullptr);
  } else {
    sol::LayerNormArgs f{.dtype = sol::DType::f32, .rows = kRows, .cols = kCols, .x = dX.ptr, .y = dY.ptr,
                         .gamma = dGamma.ptr, .beta = dBeta.ptr, .mean = dMean.ptr, .rstd = dRstd.ptr};
    Workspace wf(sol::layernorm_forward_workspace_size(f));
    sol::layernorm_forward(f, wf.ptr(), wf.bytes, nullptr);
    sol::LayerNormBackwardArgs g{.dtype = sol::DType::f32, .rows = kRows, .cols = kCols, .x = dX.ptr,
                                 .dy = dDy.ptr, .dx = dDx.ptr, .gamma = dGamma.ptr, .mean = dMean.ptr,
                                 .rstd = dRstd.ptr, .dgamma = dDgamma.ptr, .dbeta = dDbeta.ptr};
    Workspace wb(sol::layernorm_backward_workspace_size(g));
    sol::layernorm_backward(g, wb.ptr(), wb.bytes, nullptr);
  }
  Doubles y(x.size()), dx(x.size()), rstd(kRows), dgamma(kCols, 0), dbeta(kCols, 0);
  for (int64_t r = 0; r < kRows; ++r) {
    const float* xr = &x[r * kCols];
    const RowStats st = stats(xr, rms, eps);
    rstd[r] = st.rstd;
    double mean_g = 0, mean_gx = 0;
    for (int64_t c = 0; c < kCols; ++c) {
      const double xhat = (xr[c] - st.mean) * st.rstd, g = gamma[c] * dy[r * kCols + c];
      y[r * kCols + c] = gamma[c] * xhat + (rms ? 0.0 : beta[c]);
      mean_g += (rms ? 0.0 : g) / kCols;
      mean_gx += g * xhat / kCols;
      dgamma[c] += dy[r * kCols + c] * xhat;
      dbeta[c] += dy[r * kCols + c];
    }
    for (int64_t c = 0; c < kCols; ++c) {
      const double xhat = (xr[c] - st.mean) * st.rstd, g = gamma[c] * dy[r * kCols + c];
      dx[r * kCols + c] = st.rstd * (g - mean_g - xhat * mean_gx);
    }
  }
  const std::string n = name;
  expect_close(n + "_forward y", dY.read(), y, 1e-5);
  expect_close(n + "_forward rstd", dRstd.read(), rstd, 1e-5);
  expect_close(n + "_backward dx", dDx.read(), dx, 1e-4);
  expect_close(n + "_backward dgamma", dDgamma.read(), dgamma, 1e-4);
  if (!rms) expect_close(n + "_backward dbeta", dDbeta.read(), dbeta, 1e-4);
}

// y = softmax(x) per row; dx = y ∘ (dy − Σ dy·y).
void check_softmax() {
  const Floats x = random_values(kRows * kCols, 11), dy = random_values(kRows * kCols, 12);
  const Device<float> dX(x), dDy(dy);
  Device<float> dY(x.size()), dDx(x.size());
  sol::SoftmaxArgs f{.dtype = sol::DType::f32, .rows = kRows, .cols = kCols, .x = dX.ptr, .y = dY.ptr};
  Workspace wf(sol::softmax_forward_workspace_size(f));
  sol::softmax_forward(f, wf.ptr(), wf.bytes, nullptr);
  sol::SoftmaxBackwardArgs g{.dtype = sol::DType::f32, .rows = kRows, .cols = kCols, .y = dY.ptr, .dy = dDy.ptr,
                             .dx = dDx.ptr};
  Workspace wb(sol::softmax_backward_workspace_size(g));
  sol::softmax_backward(g, wb.ptr(), wb.bytes, nullptr);
  Doubles y(x.size()), dx(x.size());
  for (int64_t r = 0; r < kRows; ++r) {
    const float* xr = &x[r * kCols];
    const double mx = *std::max_element(xr, xr + kCols);
    double sum = 0, dot_y = 0;
    for (int64_t c = 0; c < kCols; ++c) sum += std::exp(xr[c] - mx);
    for (int64_t c = 0; c < kCols; ++c) dot_y += dy[r * kCols + c] * (y[r * kCols + c] = std::exp(xr[c] - mx) / sum);
    for (int64_t c = 0; c < kCols; ++c) dx[r * kCols + c] = y[r * kCols + c] * (dy[r * kCols + c] - dot_y);
  }
  expect_close("softmax_forward y", dY.read(), y, 1e-5);
  expect_close("softmax_backward dx", dDx.read(), dx, 1e-4);
}

// loss = logsumexp(x) − x_label per row (row 2 ignored: 0), their mean over the rest, and
// dlogits = (softmax − onehot) / rows counted (0 on the ignored row).
void check_cross_entropy() {
  const Floats x = random_values(kRows * kCols, 14);
  std::vector<int64_t> labels(kRows);
  for (int64_t r = 0; r < kRows; ++r) labels[size_t(r)] = r == 2 ? -100 : (r * 37 + 5) % kCols;
  const Device<float> dX(x);
  const Device<int64_t> dL(labels);
  Device<float> dLoss(kRows), dMean(1), dDx(x.size());
  sol::CrossEntropyArgs a{.dtype = sol::DType::f32, .rows = kRows, .vocab = kCols, .logits = dX.ptr, .labels = dL.ptr,
                          .loss = dLoss.ptr, .loss_reduced = dMean.ptr, .dlogits = dDx.ptr};
  Workspace w(sol::cross_entropy_workspace_size(a));
  sol::cross_entropy(a, w.ptr(), w.bytes, nullptr);
  Doubles loss(kRows, 0.0), mean(1, 0.0), dx(x.size(), 0.0);
  for (int64_t r = 0; r < kRows; ++r) {
    if (labels[size_t(r)] < 0) continue;
    const float* xr = &x[r * kCols];
    const double mx = *std::max_element(xr, xr + kCols);
    double sum = 0;
    for (int64_t c = 0; c < kCols; ++c) sum += std::exp(xr[c] - mx);
    const double lse = mx + std::log(sum);
    loss[size_t(r)] = lse - xr[labels[size_t(r)]];
    mean[0] += loss[size_t(r)] / double(kRows - 1);
    for (int64_t c = 0; c < kCols; ++c)
      dx[r * kCols + c] = (std::exp(xr[c] - lse) - (c == labels[size_t(r)])) / double(kRows - 1);
  }
  expect_close("cross_entropy loss", dLoss.read(), loss, 1e-5);
  expect_close("cross_entropy mean", dMean.read(), mean, 1e-5);
  expect_close("cross_entropy dlogits", dDx.read(), dx, 1e-5);
}

// logits = h·Wᵀ (rounded to bf16), their cross-entropy as above (row 2 ignored), dh = dlogits·W and
// dW = dlogitsᵀ·h with dlogits rounded to bf16, in chunks of 4 rows (two chunks; dW accumulates).
void check_linear_cross_entropy() {
  const int64_t hidden = 40;
  const Floats h = random_values(kRows * hidden, 15), w = random_values(kCols * hidden, 16);
  std::vector<int64_t> labels(kRows);
  for (int64_t r = 0; r < kRows; ++r) labels[size_t(r)] = r == 2 ? -100 : (r * 53 + 11) % kCols;
  const Device<Bf16> dH(to_bf16(h)), dW(to_bf16(w));
  const Device<int64_t> dL(labels);
  Device<float> dLoss(kRows), dMean(1), dGradW(w.size());
  Device<Bf16> dGradH(h.size());
  sol::LinearCrossEntropyArgs a{.rows = kRows, .hidden = hidden, .vocab = kCols, .h = dH.ptr, .w = dW.ptr,
                                .labels = dL.ptr, .loss = dLoss.ptr, .loss_reduced = dMean.ptr, .dh = dGradH.ptr,
                                .dw = dGradW.ptr, .chunk_rows = 4};
  Workspace ws(sol::linear_cross_entropy_workspace_size(a));
  std::printf("linear_cross_entropy runs "), show(sol::explain_linear_cross_entropy(a));
  sol::linear_cross_entropy(a, ws.ptr(), ws.bytes, nullptr);
  Doubles loss(kRows, 0.0), mean(1, 0.0), dh(h.size(), 0.0), dw(w.size(), 0.0);
  for (int64_t r = 0; r < kRows; ++r) {
    if (labels[size_t(r)] < 0) continue;
    Doubles z(kCols);
    for (int64_t c = 0; c < kCols; ++c) {
      double dot = 0;
      for (int64_t k = 0; k < hidden; ++k) dot += double(h[r * hidden + k]) * w[c * hidden + k];
      z[size_t(c)] = from_bf16(to_bf16(float(dot)));
    }
    const double mx = *std::max_element(z.begin(), z.end());
    double sum = 0;
    for (double v : z) sum += std::exp(v - mx);
    const double lse = mx + std::log(sum);
    loss[size_t(r)] = lse - z[size_t(labels[size_t(r)])];
    mean[0] += loss[size_t(r)] / double(kRows - 1);
    for (int64_t c = 0; c < kCols; ++c) {
      const double g = from_bf16(to_bf16(float((std::exp(z[size_t(c)] - lse) - (c == labels[size_t(r)])) / double(kRows - 1))));
      for (int64_t k = 0; k < hidden; ++k) dh[r * hidden + k] += g * w[c * hidden + k], dw[c * hidden + k] += g * h[r * hidden + k];
    }
  }
  expect_close("linear_cross_entropy loss", dLoss.read(), loss, 1e-3);
  expect_close("linear_cross_entropy mean", dMean.read(), mean, 1e-3);
  expect_close("linear_cross_entropy dh", from_bf16(dGradH.read()), dh, 1e-2);
  expect_close("linear_cross_entropy dW", dGradW.read(), dw, 1e-2);
}

// ---- MX quantization: both orientations of a 40 × 70 bf16 tensor (blocks cut short at the edges) ----
void check_mx() {
  namespace fmt = sol::formats;
  const int64_t rows = 40, cols = 70;
  Floats x = random_values(rows * cols, 13);
  for (size_t i = 0; i < x.size(); i += 17) x[i] = from_bf16(to_bf16(x[i] * 300.f));  // blocks of mixed range
  const fmt::MxTensor row = fmt::mx_quantize(x, rows, cols, fmt::Format::e4m3, fmt::ScaleRule::Ceil, fmt::MxAxis::Rowwise);
  const fmt::MxTensor col = fmt::mx_quantize(x, rows, cols, fmt::Format::e4m3, fmt::ScaleRule::Ceil, fmt::MxAxis::Colwise);

  const Device<Bf16> dX(to_bf16(x));
  Device<uint8_t> dRowCodes(x.size()), dRowScales(row.scales.size()), dColCodes(x.size()), dColScales(col.scales.size());
  sol::MxQuantizeArgs q{.rows = rows, .cols = cols, .elem = sol::DType::fp8_e4m3, .rule = sol::MxScaleRule::Ceil,
                        .x = dX.ptr, .row_codes = dRowCodes.ptr, .row_scales = dRowScales.ptr,
                        .col_codes = dColCodes.ptr, .col_scales = dColScales.ptr};
  std::printf("mx_quantize runs "), show(sol::explain_mx_quantize(q));
  sol::mx_quantize(q, nullptr);
  expect_equal("mx_quantize rowwise codes", dRowCodes.read(), row.codes);
  expect_equal("mx_quantize rowwise scales", dRowScales.read(), row.scales);
  expect_equal("mx_quantize columnwise codes", dColCodes.read(), col.codes);
  expect_equal("mx_quantize columnwise scales", dColScales.read(), col.scales);

  // Dequantized values (code × 2^scale) are exact in bf16.
  Device<Bf16> dOut(x.size());
  sol::MxDequantizeArgs dq{.rows = rows, .cols = cols, .elem = sol::DType::fp8_e4m3, .columnwise = false,
                           .codes = dRowCodes.ptr, .scales = dRowScales.ptr, .out = dOut.ptr};
  sol::mx_dequantize(dq, nullptr);
  expect_equal("mx_dequantize rowwise", dOut.read(), to_bf16(fmt::mx_dequantize(row)));
}

// ---- copy: any byte count, any alignment ------------------------------------------------------------
void check_copy() {
  std::vector<uint8_t> src(1003);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 7 + 1);
  const Device<uint8_t> dSrc(src);
  Device<uint8_t> dDst(src.size());
  sol::copy({.src = dSrc.ptr + 3, .dst = dDst.ptr + 1, .bytes = 997}, nullptr);
  const std::vector<uint8_t> got = dDst.read();
  expect_equal("copy 997 bytes, offsets 3 -> 1", std::vector<uint8_t>(got.begin() + 1, got.begin() + 998),
               std::vector<uint8_t>(src.begin() + 3, src.begin() + 1000));
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("kernels: skipped: no CUDA device (%s)\n", status != cudaSuccess ? cudaGetErrorString(status) : "none found");
    return 77;
  }
  try {
    check_matmul();
    check_attention();
    check_norm(false);
    check_norm(true);
    check_softmax();
    check_cross_entropy();
    check_linear_cross_entropy();
    check_mx();
    check_copy();
    // An argument the API cannot serve is a sol::Error before anything launches.
    try {
      sol::matmul({.m = 0, .n = 1, .k = 1}, nullptr, 0, nullptr);
      std::printf("  a 0 x 1 x 1 matmul was accepted: FAILED\n");
      ++g_failures;
    } catch (const sol::Error& e) {
      std::printf("  bad input rejected               ok     (%s)\n", e.what());
    }
  } catch (const sol::Error& e) {
    std::printf("kernels: %s\n", e.line().c_str());
    return 1;
  }
  std::printf(g_failures ? "kernels: %d checks FAILED\n" : "kernels: every check passed\n", g_failures);
  return g_failures ? 1 : 0;
}

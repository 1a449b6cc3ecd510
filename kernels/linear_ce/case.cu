// Registry wrapper for linear_ce: one Case for both variants, bf16 h and W, int64 labels, the mean.
// v01 runs the unfused sol path (all rows × vocab logits in a buffer of the Case's), dispatch runs
// sol::linear_cross_entropy. The check reads the inputs back and recomputes in double:
//   sampled rows: their logits (rounded to bf16, as both paths store them), loss and dh row;
//   sampled vocabulary columns of dW: that column's logits of every row, each row's lse taken from
//     the loss the call wrote (lse = loss + (1 − ε)·x_label + (ε/V)·Σx), so that no other logits
//     are needed: a wrong loss shows as a wrong dW there too;
//   the mean against the per-row losses the call wrote; every element of the losses, dh and dW for
//   poison (unwritten) and non-finite values.
// W is scaled by 0.65/√hidden after its fill, so that the logits spread about ±2 (the fill's values
// have a mean square of about 3.1) and the softmax is neither flat nor one-hot.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/check.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/random.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/linear_ce/case.hpp"
#include "sol/kernels.hpp"

namespace sol::kernels::linear_ce {
namespace {

constexpr int64_t kIgnore = -100;
using Bf16 = Elem<__nv_bfloat16>;

__global__ void scale_kernel(__nv_bfloat16* p, int64_t n, float s) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16_rn(__bfloat162float(p[i]) * s);
}

double round_bf16(double x) { return double(__bfloat162float(__float2bfloat16_rn(float(x)))); }

// Σ_j d[j]·m(j, k) and Σ_j |d[j]·m(j, k)| for k < cols: a gradient's row (dh: d = dlogits of a row,
// m = W) or column (dW: d = dlogits of a vocabulary column, m = h) and the norm of its terms. The
// rows j of m are read in order, each thread a slice of k.
template <class M>
std::pair<std::vector<double>, std::vector<double>> weighted_rows(const std::vector<double>& d, int64_t cols, const M& m) {
  std::vector<double> sum(static_cast<size_t>(cols)), terms(static_cast<size_t>(cols));
  parallel_chunks(cols, [&](int64_t b, int64_t e, int) {
    for (int64_t j = 0; j < int64_t(d.size()); ++j) {
      if (d[size_t(j)] == 0) continue;
      for (int64_t k = b; k < e; ++k) {
        const double t = d[size_t(j)] * m(j, k);
        sum[size_t(k)] += t, terms[size_t(k)] += std::abs(t);
      }
    }
  }, host_chunks(int64_t(d.size()) * cols));
  return {std::move(sum), std::move(terms)};
}

class LceCase final : public Case {
 public:
  LceCase(Version v, const Shape& s, const CaseOptions& opts)
      : v_(v), rows_(s.at("rows")), hidden_(s.at("hidden")), vocab_(s.at("vocab")), chunk_(s.get("chunk", 0)),
        smooth_(double(s.get("smooth", 0)) / 1000), ignore_(s.get("ignore", 0)), labels_(rows_), loss_(rows_),
        reduced_(1), dh_(rows_ * hidden_), dw_(vocab_ * hidden_) {
    sets_ = rotating_sets(double(rows_ + vocab_) * double(hidden_) * 2, opts);
    for (int i = 0; i < sets_; ++i) {
      h_.emplace_back(rows_ * hidden_);
      w_.emplace_back(vocab_ * hidden_);
    }
    if (v_ == Version::dispatch) {
      work_ = DeviceBuffer<unsigned char>(int64_t(linear_cross_entropy_workspace_size(api_args(0))));
      return;
    }
    logits_ = DeviceBuffer<__nv_bfloat16>(rows_ * vocab_);
    size_t gemm = 0;
    for (const MatmulArgs& g : unfused_gemms(0)) gemm = std::max(gemm, matmul_workspace_size(g));
    work_ = DeviceBuffer<unsigned char>(int64_t(gemm));
    ce_work_ = DeviceBuffer<unsigned char>(int64_t(cross_entropy_workspace_size(ce_args())));
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    const float scale = float(0.65 / std::sqrt(double(hidden_)));
    for (int i = 0; i < sets_; ++i) {
      Bf16::fill(h_[size_t(i)].get(), rows_ * hidden_, set_seed(seed, 2 * i), Dist::Signed, nullptr);
      Bf16::fill(w_[size_t(i)].get(), vocab_ * hidden_, set_seed(seed, 2 * i + 1), Dist::Signed, nullptr);
      const int64_t n = vocab_ * hidden_;
      scale_kernel<<<unsigned(std::min<int64_t>((n + 255) / 256, 65536)), 256>>>(w_[size_t(i)].get(), n, scale);
      SOL_LAUNCH_CHECK();
    }
    label_host_.resize(size_t(rows_));
    for (int64_t r = 0; r < rows_; ++r)
      label_host_[size_t(r)] = ignored(r) ? kIgnore : int64_t(hash64(seed, 0x1ABE1000ull + uint64_t(r)) % uint64_t(vocab_));
    SOL_CUDA_CHECK(cudaMemcpy(labels_.get(), label_host_.data(), label_host_.size() * 8, cudaMemcpyHostToDevice));
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int) override {
    loss_.poison();
    reduced_.poison();
    dh_.poison();
    dw_.poison();
  }

  void run(int set, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    if (v_ == Version::dispatch) return linear_cross_entropy(api_args(set), work_.get(), size_t(work_.bytes()), st);
    const std::vector<MatmulArgs> g = unfused_gemms(set);
    matmul(g[0], work_.get(), size_t(work_.bytes()), st);
    cross_entropy(ce_args(), ce_work_.get(), size_t(ce_work_.bytes()), st);
    matmul(g[1], work_.get(), size_t(work_.bytes()), st);
    matmul(g[2], work_.get(), size_t(work_.bytes()), st);
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2, eps = smooth_, V = double(vocab_);
    const int64_t R = rows_, H = hidden_;
    const std::vector<uint16_t> hb = h_[0].to_host<uint16_t>(0, R * H), wb = w_[0].to_host<uint16_t>(0, vocab_ * H);
    const std::vector<uint32_t> loss = loss_.to_host<uint32_t>(0, R), reduced = reduced_.to_host<uint32_t>(0, 1);
    const std::vector<uint16_t> dh = dh_.to_host<uint16_t>(0, R * H);
    const std::vector<uint32_t> dw = dw_.to_host<uint32_t>(0, vocab_ * H);
    const auto h = [&](int64_t r, int64_t k) { return decode_bf16(hb[size_t(r * H + k)]); };
    const auto w = [&](int64_t c, int64_t k) { return decode_bf16(wb[size_t(c * H + k)]); };
    const auto logit = [&](int64_t r, int64_t c) {
      double z = 0;
      for (int64_t k = 0; k < H; ++k) z += h(r, k) * w(c, k);
      return round_bf16(z);
    };
    int64_t counted = 0;
    for (int64_t r = 0; r < R; ++r) counted += !ignored(r);
    const double scale = 1.0 / double(counted);  // the mean's, grad_scale 1
    const auto dlogit = [&](double z, double lse, int64_t c, int64_t label) {
      return round_bf16((std::exp(z - lse) - (c == label ? 1 - eps : 0) - eps / V) * scale);
    };
    // Sampled rows: the loss and dh against their reference from that row's logits.
    std::vector<int64_t> rows;
    for (int64_t r : {int64_t(0), int64_t(1), R / 3, R / 2, R - 2, R - 1})
      if (r >= 0 && r < R && std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
    std::vector<double> want_loss, got_loss, want_dh, got_dh, dh_terms;
    double lse2 = 0;
    for (int64_t r : rows) {
      const int64_t label = label_host_[size_t(r)];
      std::vector<double> z(static_cast<size_t>(vocab_)), dl(static_cast<size_t>(vocab_), 0.0);
      parallel_chunks(vocab_, [&](int64_t b, int64_t e, int) { for (int64_t c = b; c < e; ++c) z[size_t(c)] = logit(r, c); },
                      host_chunks(vocab_ * H));
      double lse = 0;
      if (label != kIgnore) {
        double mx = -INFINITY, sum = 0, sx = 0;
        for (double x : z) mx = std::max(mx, x);
        for (double x : z) sum += std::exp(x - mx), sx += x;
        lse = mx + std::log(sum);
        want_loss.push_back(lse - (1 - eps) * z[size_t(label)] - eps * sx / V);
        for (int64_t c = 0; c < vocab_; ++c) dl[size_t(c)] = dlogit(z[size_t(c)], lse, c, label);
      } else {
        want_loss.push_back(0);
      }
      got_loss.push_back(decode_f32(loss[size_t(r)]));
      lse2 += lse * lse;
      const auto [row, terms] = weighted_rows(dl, H, w);
      for (int64_t k = 0; k < H; ++k) {
        want_dh.push_back(round_bf16(row[size_t(k)]));
        got_dh.push_back(decode_bf16(dh[size_t(r * H + k)]));
        dh_terms.push_back(terms[size_t(k)]);
      }
    }
    // Sampled columns of dW: every row's logit there, its lse from the loss the call wrote.
    std::vector<double> wsum(size_t(H), 0.0);  // Σ_c W_c: Σx of a row is h·Σ_c W_c (up to the logits' roundings)
    if (eps > 0)
      for (int64_t c = 0; c < vocab_; ++c)
        for (int64_t k = 0; k < H; ++k) wsum[size_t(k)] += w(c, k);
    std::vector<double> lse_of(size_t(R), 0.0);
    parallel_chunks(R, [&](int64_t b, int64_t e, int) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t label = label_host_[size_t(r)];
        if (label == kIgnore) continue;
        double sx = 0;
        for (int64_t k = 0; eps > 0 && k < H; ++k) sx += h(r, k) * wsum[size_t(k)];
        lse_of[size_t(r)] = decode_f32(loss[size_t(r)]) + (1 - eps) * logit(r, label) + eps * sx / V;
      }
    }, host_chunks(R * H));
    std::vector<int64_t> cols;
    for (int64_t c : {label_host_[0], int64_t(0), vocab_ / 2, vocab_ - 1, label_host_[size_t(R - 1)]})
      if (c >= 0 && c < vocab_ && std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    std::vector<double> want_dw, got_dw, dw_terms;
    for (int64_t c : cols) {
      std::vector<double> dl(size_t(R), 0.0);
      parallel_chunks(R, [&](int64_t b, int64_t e, int) {
        for (int64_t r = b; r < e; ++r)
          if (label_host_[size_t(r)] != kIgnore) dl[size_t(r)] = dlogit(logit(r, c), lse_of[size_t(r)], c, label_host_[size_t(r)]);
      }, host_chunks(R * H));
      const auto [col, terms] = weighted_rows(dl, H, h);
      for (int64_t k = 0; k < H; ++k) {
        want_dw.push_back(col[size_t(k)]);
        got_dw.push_back(decode_f32(dw[size_t(c * H + k)]));
        dw_terms.push_back(terms[size_t(k)]);
      }
    }
    const auto sampled = [&](const std::vector<double>& got, const std::vector<double>& want, double floor2) {
      return compare_floored(int64_t(got.size()), floor2, tol, [&](int64_t i) { return Sample{got[size_t(i)], want[size_t(i)]}; });
    };
    const auto norm2 = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x * x;
      return s;
    };
    CheckResult out = sampled(got_loss, want_loss, lse2);
    out.detail = out.ok ? "" : "sampled losses: " + out.detail;
    merge(out, sampled(got_dh, want_dh, norm2(dh_terms)), "sampled dh rows");
    merge(out, sampled(got_dw, want_dw, norm2(dw_terms)), "sampled dW columns");
    // The mean against the per-row losses written (NaN when every row is ignored, as PyTorch's).
    double total = 0;
    for (int64_t r = 0; r < R; ++r) total += decode_f32(loss[size_t(r)]);
    const double have = decode_f32(reduced[0]);
    merge(out, compare(1, tol, [&](int64_t) {
            if (counted == 0) return Sample{std::isnan(have) ? 0.0 : 1.0, 0.0, is_poison(reduced[0])};
            return Sample{have, total / double(counted), is_poison(reduced[0])};
          }), "reduced loss");
    // Every element written and finite.
    merge(out, compare(R, tol, [&](int64_t i) { const double x = decode_f32(loss[size_t(i)]); return Sample{x, x, is_poison(loss[size_t(i)])}; }),
          "losses");
    merge(out, compare(R * H, tol, [&](int64_t i) { const double x = decode_bf16(dh[size_t(i)]); return Sample{x, x, is_poison(dh[size_t(i)])}; }),
          "dh");
    merge(out, compare(vocab_ * H, tol, [&](int64_t i) { const double x = decode_f32(dw[size_t(i)]); return Sample{x, x, is_poison(dw[size_t(i)])}; }),
          "dW");
    return out;
  }

 private:
  bool ignored(int64_t r) const { return ignore_ > 0 && r % ignore_ == ignore_ - 1; }

  LinearCrossEntropyArgs api_args(int set) const {
    return {.rows = rows_, .hidden = hidden_, .vocab = vocab_, .h = h_.at(size_t(set)).get(), .w = w_.at(size_t(set)).get(),
            .labels = labels_.get(), .ignore_index = kIgnore, .label_smoothing = float(smooth_), .loss = loss_.get(),
            .loss_reduced = reduced_.get(), .dh = dh_.get(), .dw = dw_.get(), .chunk_rows = chunk_};
  }
  // The unfused path's GEMMs: logits = h·Wᵀ, dh = dlogits·W, dW = dlogitsᵀ·h (dlogits over the logits).
  std::vector<MatmulArgs> unfused_gemms(int set) const {
    const void *h = h_.at(size_t(set)).get(), *w = w_.at(size_t(set)).get();
    return {{.m = rows_, .n = vocab_, .k = hidden_, .trans_a = Transpose::N, .trans_b = Transpose::T, .a = h, .b = w,
             .c = logits_.get()},
            {.m = rows_, .n = hidden_, .k = vocab_, .trans_a = Transpose::N, .trans_b = Transpose::N, .a = logits_.get(),
             .b = w, .c = dh_.get()},
            {.m = vocab_, .n = hidden_, .k = rows_, .c_type = DType::f32, .trans_a = Transpose::T,
             .trans_b = Transpose::N, .a = logits_.get(), .b = h, .c = dw_.get()}};
  }
  CrossEntropyArgs ce_args() const {
    return {.rows = rows_, .vocab = vocab_, .logits = logits_.get(), .labels = labels_.get(), .ignore_index = kIgnore,
            .label_smoothing = float(smooth_), .loss = loss_.get(), .loss_reduced = reduced_.get(), .dlogits = logits_.get()};
  }

  Version v_;
  int64_t rows_, hidden_, vocab_, chunk_;
  double smooth_;
  int64_t ignore_;
  int sets_ = 1;
  std::vector<DeviceBuffer<__nv_bfloat16>> h_, w_;
  DeviceBuffer<int64_t> labels_;
  DeviceBuffer<float> loss_, reduced_;
  DeviceBuffer<__nv_bfloat16> dh_;
  DeviceBuffer<float> dw_;
  DeviceBuffer<__nv_bfloat16> logits_;  // v01: all rows × vocab
  DeviceBuffer<unsigned char> work_, ce_work_;
  std::vector<int64_t> label_host_;
  bool randomized_ = false;
};

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input("linear_ce: " + why);
  return std::make_unique<LceCase>(v, s, opts);
}

}  // namespace sol::kernels::linear_ce

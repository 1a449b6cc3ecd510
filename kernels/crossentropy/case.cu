// Registry wrapper for crossentropy: one CeCase per logit type. The reference (sol/ref/rows.hpp)
// runs per row in double on the logits read back from the device (after the scale step, so exactly
// the values the kernel saw), and checks the dlogits, the per-row losses and the reduced loss.
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/api/entry_util.hpp"
#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/random.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/crossentropy/case.hpp"
#include "kernels/crossentropy/crossentropy.cuh"
#include "kernels/rows/prepare.cuh"
#include "sol/kernels.hpp"
#include "sol/ref/rows.hpp"

namespace sol::kernels::crossentropy {
namespace {

// Merges the checks of several outputs into one result (the worst error, every count).
CheckResult merge(const std::vector<std::pair<const char*, CheckResult>>& parts) {
  CheckResult out = parts.front().second;
  out.ok = true;
  out.detail.clear();
  out.rel_l2 = out.unwritten = out.nonfinite = 0;
  for (const auto& [name, r] : parts) kernels::merge(out, r, name);
  return out;
}

template <class T>
class CeCase final : public Case {
  using Bits = typename Elem<T>::Bits;

 public:
  CeCase(Version v, const Shape& s, const CaseOptions& opts)
      : in_(info(v)), rows_(s.at("rows")), vocab_(s.at("vocab")), smooth_(double(s.get("smooth", 0)) / 1000),
        ignore_(s.get("ignore", 0)), sum_(s.get("sum", 0) != 0), i32_(s.get("i32", 0) != 0), scale_(s.get("scale", 1)),
        loss_(rows_), reduced_(1), labels_(rows_), work_(ce_workspace_bytes(rows_)) {
    const int64_t n = rows_ * vocab_;
    sets_ = rotating_sets(2.0 * double(n) * sizeof(T), opts);
    for (int i = 0; i < sets_; ++i) {
      x_.emplace_back(n);
      y_.emplace_back(n);
    }
    if (in_.dispatch) {
      const size_t bytes = sol::cross_entropy_workspace_size(api_args(0));
      work_ = DeviceBuffer<unsigned char>(int64_t(bytes));
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    const int64_t n = rows_ * vocab_;
    for (int i = 0; i < sets_; ++i) {
      Elem<T>::fill(x_[size_t(i)].get(), n, set_seed(seed, i), Dist::Signed, nullptr);
      rows::prepare_inputs(x_[size_t(i)].get(), rows_, vocab_, scale_, false);
    }
    // Labels uniform over the vocabulary; every ignore-th row ignored.
    label_host_.resize(size_t(rows_));
    for (int64_t r = 0; r < rows_; ++r)
      label_host_[size_t(r)] = ignored(r) ? kIgnoreIndex : int64_t(hash64(seed, 0x1ABE1000ull + uint64_t(r)) % uint64_t(vocab_));
    if (i32_) {
      std::vector<int32_t> l32(label_host_.begin(), label_host_.end());
      SOL_CUDA_CHECK(cudaMemcpy(labels_.get(), l32.data(), l32.size() * 4, cudaMemcpyHostToDevice));
    } else {
      SOL_CUDA_CHECK(cudaMemcpy(labels_.get(), label_host_.data(), label_host_.size() * 8, cudaMemcpyHostToDevice));
    }
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override {
    y_.at(size_t(set)).poison();
    loss_.poison();
    reduced_.poison();
  }

  void run(int set, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    if (in_.dispatch) return sol::cross_entropy(api_args(set), work_.get(), size_t(work_.bytes()), st);
    const CeArgs<T> a = args(set);
    if (in_.one_read) return one_read_run(one_read_plan(a, api::current_cc("crossentropy")), a, st);
    passes_run(a, st);
  }

  LaunchInfo launch() const override {
    if (!in_.one_read) return {};
    return one_read_plan(args(0), api::current_cc("crossentropy")).main;
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(in_.fp32 ? Version::v03_one_read_fp32 : Version::v02_one_read).rel_l2;
    const int64_t n = rows_ * vocab_;
    const std::vector<Bits> xs = x_[0].template to_host<Bits>(0, n);
    const std::vector<Bits> got = y_[0].template to_host<Bits>(0, n);
    const std::vector<uint32_t> loss = loss_.template to_host<uint32_t>(0, rows_);
    const std::vector<uint32_t> reduced = reduced_.template to_host<uint32_t>(0, 1);
    int64_t counted = 0;
    for (int64_t r = 0; r < rows_; ++r) counted += !ignored(r);
    // Per-row references, rows split over the host cores.
    std::vector<RowRef> refs(static_cast<size_t>(rows_));
    RowRef* pRef = refs.data();
    const Bits* pX = xs.data();
    const CeCase* self = this;
    const std::function<void(int64_t, int64_t, int)> body = [pRef, pX, self](int64_t b, int64_t e, int) {
      for (int64_t r = b; r < e; ++r) pRef[r] = self->row_ref(pX, r);
    };
    parallel_chunks(rows_, body, host_chunks(n));
    const double scale = sum_ ? 1.0 : 1.0 / double(counted);
    // dlogits relative to max(‖dlogits‖, ‖their terms‖): p − (1 − ε) cancels where the label's p
    // is near 1, and fp32 rounds p itself (as any fp32 implementation does).
    double terms2 = 0;
    for (int64_t r = 0; r < rows_; ++r) terms2 += refs[size_t(r)].terms2 * scale * scale;
    const CheckResult dl = compare_floored(n, terms2, tol, [&](int64_t i) {
      const int64_t r = i / vocab_, c = i % vocab_;
      const double x = Elem<T>::decode(xs[size_t(i)]);
      const double want =
          ignored(r) ? 0 : ref::cross_entropy_dlogit(x, c, vocab_, label_host_[size_t(r)], smooth_, refs[size_t(r)].ce) * scale;
      return Sample{Elem<T>::decode(got[size_t(i)]), want, is_poison(got[size_t(i)])};
    });
    // Losses relative to max(‖loss‖, ‖lse‖): lse − x_label cancels where the label's p nears 1.
    double total = 0, lse2 = 0;
    for (int64_t r = 0; r < rows_; ++r) {
      if (ignored(r)) continue;
      total += refs[size_t(r)].ce.loss;
      lse2 += refs[size_t(r)].ce.lse * refs[size_t(r)].ce.lse;
    }
    const CheckResult lo = compare_floored(rows_, lse2, tol, [&](int64_t r) {
      return Sample{decode_f32(loss[size_t(r)]), ignored(r) ? 0 : refs[size_t(r)].ce.loss, is_poison(loss[size_t(r)])};
    });
    // Every row ignored under the mean: 0/0, NaN as PyTorch gives; checked as such, then as 0 = 0.
    const bool nan_mean = !sum_ && counted == 0;
    const double have = decode_f32(reduced[0]);
    const CheckResult re = compare(1, tol, [&](int64_t) {
      if (nan_mean) return Sample{std::isnan(have) ? 0.0 : 1.0, 0.0, is_poison(reduced[0])};
      return Sample{have, sum_ ? total : total / double(counted), is_poison(reduced[0])};
    });
    return merge({{"dlogits", dl}, {"per-row loss", lo}, {"reduced loss", re}});
  }

 private:
  bool ignored(int64_t r) const { return ignore_ > 0 && r % ignore_ == ignore_ - 1; }

  // Row r's reference from the logits read back, and the squared norm of its dlogits' terms
  // (Σ p² + (1 − ε)², unscaled); nothing for an ignored row.
  struct RowRef {
    ref::CrossEntropyRow ce;
    double terms2 = 0;
  };
  RowRef row_ref(const Bits* xs, int64_t r) const {
    if (ignored(r)) return {};
    std::vector<double> row(static_cast<size_t>(vocab_));
    for (int64_t c = 0; c < vocab_; ++c) row[size_t(c)] = Elem<T>::decode(xs[r * vocab_ + c]);
    RowRef out{ref::cross_entropy_row(row.data(), vocab_, label_host_[size_t(r)], smooth_), (1 - smooth_) * (1 - smooth_)};
    for (int64_t c = 0; c < vocab_; ++c) out.terms2 += std::exp(2 * (row[size_t(c)] - out.ce.lse));
    return out;
  }

  CeArgs<T> args(int set) const {
    CeArgs<T> a;
    const CeWorkspace w = ce_workspace(work_.get(), rows_);
    a.x = x_.at(size_t(set)).get();
    a.y = y_.at(size_t(set)).get();
    a.labels = labels_.get();
    a.labels64 = !i32_;
    a.loss = loss_.get();
    a.loss_reduced = reduced_.get();
    a.n_valid = w.n_valid;
    a.row_max = w.row_max;
    a.row_sum = w.row_sum;
    a.rows = rows_;
    a.cols = vocab_;
    a.ldx = a.ldy = vocab_;
    a.ignore_index = kIgnoreIndex;
    a.smoothing = float(smooth_);
    a.mean = !sum_;
    return a;
  }

  CrossEntropyArgs api_args(int set) const {
    return CrossEntropyArgs{.dtype = Elem<T>::dtype, .rows = rows_, .vocab = vocab_, .logits = x_.at(size_t(set)).get(),
                            .labels = labels_.get(), .label_type = i32_ ? IndexType::i32 : IndexType::i64,
                            .ignore_index = kIgnoreIndex, .label_smoothing = float(smooth_),
                            .reduction = sum_ ? Reduction::Sum : Reduction::Mean, .loss = loss_.get(),
                            .loss_reduced = reduced_.get(), .dlogits = y_.at(size_t(set)).get()};
  }

  Info in_;
  int64_t rows_, vocab_;
  double smooth_;
  int64_t ignore_;
  bool sum_, i32_;
  int64_t scale_;
  int sets_ = 1;
  std::vector<DeviceBuffer<T>> x_, y_;
  DeviceBuffer<float> loss_, reduced_;
  DeviceBuffer<int64_t> labels_;  // int32 labels use its first half
  DeviceBuffer<unsigned char> work_;
  std::vector<int64_t> label_host_;
  bool randomized_ = false;
};

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input("crossentropy: " + why);
  if (info(v).fp32) return std::make_unique<CeCase<float>>(v, s, opts);
  return std::make_unique<CeCase<__nv_bfloat16>>(v, s, opts);
}

}  // namespace sol::kernels::crossentropy

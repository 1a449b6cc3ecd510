// Registry wrapper for the backward row families: one RowBwdCase per element type. Inputs are
// what a training step hands the backward: x (norms, scaled) with the mean and rstd the forward
// saved — produced here by the forward's looped kernel — or y = softmax(x) (the forward run on the
// scaled, masked x), and a fresh dy. The reference (sol/ref/rows.hpp) runs in double over every row:
// the per-row sums and the dγ/dβ column sums (chunk partials, added in chunk order), then dx
// element by element. The check also runs the kernel a second time into poisoned outputs and
// requires bit-identical dx, dγ, dβ (no atomics: the column sums have a fixed order).
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/rows/backward.cuh"
#include "kernels/rows/case.hpp"
#include "kernels/rows/case_bwd.hpp"
#include "kernels/rows/forward.cuh"
#include "kernels/rows/prepare.cuh"
#include "sol/kernels.hpp"
#include "sol/ref/rows.hpp"

namespace sol::kernels::rows_bwd {
namespace {

// Per-row reference: the two means (or Σ dy·y) the output formula needs.
struct RowSums {
  double m1 = 0, m2 = 0;  // mean(dy·γ) (LayerNorm), mean(dy·γ·x̂); softmax: -, Σ dy·y
  double terms2 = 0;   // Σ over the row of (rstd·dy·γ)² (norms) or (y·dy)² (softmax)
  double gterms2 = 0;  // Σ over the row of (dy·x̂)² (+ dy² for LayerNorm)
};

template <class T>
class RowBwdCase final : public Case {
  using Bits = typename Elem<T>::Bits;

 public:
  RowBwdCase(Version v, const Shape& s, const CaseOptions& opts)
      : v_(v), in_(info(v)), rows_(s.at("rows")), cols_(s.at("cols")), scale_(s.get("scale", 1)), mask_(s.get("mask", 0) != 0) {
    const int64_t n = rows_ * cols_;
    sets_ = rotating_sets(3.0 * double(n) * sizeof(T), opts);
    for (int i = 0; i < sets_; ++i) {
      a_.emplace_back(n);
      dy_.emplace_back(n);
      dx_.emplace_back(n);
      if (in_.kind != Kind::Softmax) rstd_.emplace_back(rows_);
      if (in_.kind == Kind::LayerNorm) mean_.emplace_back(rows_);
    }
    if (in_.kind != Kind::Softmax) {
      gamma_ = DeviceBuffer<T>(cols_);
      dgamma_ = DeviceBuffer<T>(cols_);
    }
    if (in_.kind == Kind::LayerNorm) dbeta_ = DeviceBuffer<T>(cols_);
    if (in_.eager) {
      t0_ = DeviceBuffer<T>(n);
      r0_ = DeviceBuffer<float>(rows_);
      if (in_.kind != Kind::Softmax) {
        t1_ = DeviceBuffer<T>(n);
        t2_ = DeviceBuffer<T>(n);
        r1_ = DeviceBuffer<float>(rows_);
      }
    } else {
      plan_ = plan(args(0));
      work_ = DeviceBuffer<float>(in_.dispatch ? int64_t(api_workspace() / sizeof(float)) : plan_.work_floats);
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    const int64_t n = rows_ * cols_;
    gseed_ = hash64(seed, 0x6A);
    if (gamma_.get()) Elem<T>::fill(gamma_.get(), cols_, gseed_, Dist::Positive, nullptr);
    for (int i = 0; i < sets_; ++i) {
      const uint64_t s = set_seed(seed, i);
      Elem<T>::fill(dy_[size_t(i)].get(), n, hash64(s, 0xD1), Dist::Signed, nullptr);
      rows::RowArgs<T> f;  // the forward, for what it saves (norms) or its output y (softmax)
      f.rows = rows_;
      f.cols = cols_;
      f.ldx = f.ldy = cols_;
      f.eps = 1e-5f;  // any: the reference reads the saved statistics back
      if (in_.kind == Kind::Softmax) {
        T* gX = dx_[size_t(i)].get();  // x lives in dx's buffer until the backward overwrites it
        Elem<T>::fill(gX, n, s, Dist::Signed, nullptr);
        rows::prepare_inputs(gX, rows_, cols_, scale_, mask_);
        f.x = gX;
        f.y = a_[size_t(i)].get();
        rows::softmax_forward(rows::Impl::Looped, f, static_cast<T*>(nullptr), nullptr);
      } else {
        Elem<T>::fill(a_[size_t(i)].get(), n, s, Dist::Signed, nullptr);
        rows::prepare_inputs(a_[size_t(i)].get(), rows_, cols_, scale_, false);
        f.x = a_[size_t(i)].get();
        f.y = dx_[size_t(i)].get();  // y itself is not needed
        f.gamma = gamma_.get();
        f.stat1 = rstd_[size_t(i)].get();
        if (in_.kind == Kind::LayerNorm) {
          f.stat0 = mean_[size_t(i)].get();
          rows::layernorm_forward(rows::Impl::Looped, f, static_cast<T*>(nullptr), nullptr);
        } else {
          rows::rmsnorm_forward(rows::Impl::Looped, f, static_cast<T*>(nullptr), nullptr);
        }
      }
    }
    seed0_ = set_seed(seed, 0);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override {
    dx_.at(size_t(set)).poison();
    if (dgamma_.get()) dgamma_.poison();
    if (dbeta_.get()) dbeta_.poison();
  }

  void run(int set, void* stream) override {
    const rows::BwdArgs<T> a = args(set);
    const rows::BwdTemps<T> tmp{t0_.get(), t1_.get(), t2_.get(), r0_.get(), r1_.get()};
    const auto st = static_cast<cudaStream_t>(stream);
    if (in_.dispatch) return run_api(a, st);
    switch (in_.kind) {
      case Kind::LayerNorm: return rows::layernorm_bwd(in_.eager, a, plan_, tmp, st);
      case Kind::RMSNorm: return rows::rmsnorm_bwd(in_.eager, a, plan_, tmp, st);
      case Kind::Softmax: return rows::softmax_bwd(in_.eager, a, plan_, tmp, st);
    }
  }

  LaunchInfo launch() const override { return in_.eager ? LaunchInfo{} : plan_.main; }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const int64_t n = rows_ * cols_;
    const int np = params(in_.kind);
    const Outputs got = outputs();
    // Inputs of set 0 as the device holds them: x (scaled) or y read back, the saved statistics.
    a_h_ = a_[0].template to_host<Bits>(0, n);
    if (!rstd_.empty()) rstd_h_ = rstd_[0].template to_host<uint32_t>(0, rows_);
    if (!mean_.empty()) mean_h_ = mean_[0].template to_host<uint32_t>(0, rows_);

    // Pass 1 over every row, split over the host cores: the row sums, and each chunk's
    // partial dγ/dβ column sums (added in chunk order afterwards: deterministic).
    std::vector<RowSums> sums(static_cast<size_t>(rows_));
    const int chunks = host_chunks(n);
    std::vector<std::vector<double>> part(static_cast<size_t>(chunks));
    RowSums* pSums = sums.data();
    std::vector<double>* pPart = part.data();
    const RowBwdCase* self = this;
    const size_t width = size_t(np * cols_);
    // Explicit captures: nvcc's front end fails on this lambda with [&].
    const std::function<void(int64_t, int64_t, int)> body = [pSums, pPart, self, width](int64_t b, int64_t e, int c) {
      pPart[c].assign(width, 0.0);
      for (int64_t r = b; r < e; ++r) pSums[r] = self->row_pass(r, pPart[c].data());
    };
    const int used = parallel_chunks(rows_, body, chunks);
    std::vector<double> pref(static_cast<size_t>(np * cols_), 0.0);
    for (int c = 0; c < used; ++c)
      for (size_t i = 0; i < part[size_t(c)].size(); ++i) pref[i] += part[size_t(c)][i];

    const double tol = tolerance(v_).rel_l2;
    // Errors are judged relative to max(‖result‖, ‖terms‖), the terms being what a result is
    // computed from: rstd·dy·γ (norms) or y·dy (softmax) for dx, of which dx is a projection
    // (‖dx‖ ≤ ‖terms‖); dy·x̂ and dy for dγ/dβ. Where they cancel — RMSNorm at cols = 1 and
    // LayerNorm at cols = 2 (dx driven by eps alone), softmax on near one-hot rows (scale = 30), a
    // column sum that lands near 0 — an fp32 rounding of the terms is all the error there can be.
    double terms2 = 0, gterms2 = 0;
    for (const RowSums& q : sums) {
      terms2 += q.terms2;
      gterms2 += q.gterms2;
    }
    CheckResult out = compare_floored(n, terms2, tol, [&](int64_t i) {
      const int64_t r = i / cols_, c = i % cols_;
      return Sample{Elem<T>::decode(got.dx[size_t(i)]), dx_ref(r, c, sums[size_t(r)]), is_poison(got.dx[size_t(i)])};
    });
    if (np > 0) {
      CheckResult pg = compare_floored(np * cols_, gterms2, tol, [&](int64_t i) {
        const Bits b = i < cols_ ? got.dgamma[size_t(i)] : got.dbeta[size_t(i - cols_)];
        return Sample{Elem<T>::decode(b), pref[size_t(i)], is_poison(b)};
      });
      merge(out, pg, np == 2 ? "dγ/dβ" : "dγ");
    }
    // Determinism: a second run into poisoned outputs must give the same bits.
    poison(0);
    run(0, nullptr);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    const Outputs again = outputs();
    if (again.dx != got.dx || again.dgamma != got.dgamma || again.dbeta != got.dbeta) {
      out.ok = false;
      out.detail += (out.detail.empty() ? "" : "; ") + std::string("a second run gave different bits (not deterministic)");
    }
    a_h_.clear();
    a_h_.shrink_to_fit();
    return out;
  }

 private:
  struct Outputs {
    std::vector<Bits> dx, dgamma, dbeta;
  };
  Outputs outputs() const {
    Outputs o;
    o.dx = dx_[0].template to_host<Bits>(0, rows_ * cols_);
    if (dgamma_.get()) o.dgamma = dgamma_.template to_host<Bits>(0, cols_);
    if (dbeta_.get()) o.dbeta = dbeta_.template to_host<Bits>(0, cols_);
    return o;
  }

  rows::BwdPlan plan(const rows::BwdArgs<T>& a) const {
    switch (in_.kind) {
      case Kind::LayerNorm: return rows::layernorm_bwd_plan(a);
      case Kind::RMSNorm: return rows::rmsnorm_bwd_plan(a);
      case Kind::Softmax: return rows::softmax_bwd_plan(a);
    }
    return {};
  }

  rows::BwdArgs<T> args(int set) const {
    rows::BwdArgs<T> a;
    a.a = a_.at(size_t(set)).get();
    a.dy = dy_.at(size_t(set)).get();
    a.dx = dx_.at(size_t(set)).get();
    a.gamma = gamma_.get();
    a.mean = mean_.empty() ? nullptr : mean_.at(size_t(set)).get();
    a.rstd = rstd_.empty() ? nullptr : rstd_.at(size_t(set)).get();
    a.dgamma = dgamma_.get();
    a.dbeta = dbeta_.get();
    a.work = work_.get();
    a.rows = rows_;
    a.cols = cols_;
    a.lda = a.lddy = a.lddx = cols_;
    return a;
  }

  // The public entry's arguments on the same buffers (packed rows), its workspace and its run.
  template <class Fn>
  decltype(auto) with_api_args(const rows::BwdArgs<T>& a, Fn&& fn) const {
    const DType dt = std::is_same_v<T, float> ? DType::f32 : DType::bf16;
    switch (in_.kind) {
      case Kind::LayerNorm:
        return fn(LayerNormBackwardArgs{.dtype = dt, .rows = a.rows, .cols = a.cols, .x = a.a, .dy = a.dy, .dx = a.dx,
                                        .gamma = a.gamma, .mean = a.mean, .rstd = a.rstd, .dgamma = a.dgamma,
                                        .dbeta = a.dbeta});
      case Kind::RMSNorm:
        return fn(RMSNormBackwardArgs{.dtype = dt, .rows = a.rows, .cols = a.cols, .x = a.a, .dy = a.dy, .dx = a.dx,
                                      .gamma = a.gamma, .rstd = a.rstd, .dgamma = a.dgamma});
      default:
        return fn(SoftmaxBackwardArgs{.dtype = dt, .rows = a.rows, .cols = a.cols, .y = a.a, .dy = a.dy, .dx = a.dx});
    }
  }
  size_t api_workspace() const {
    return with_api_args(args(0), [](const auto& p) { return workspace_size(p); });
  }
  void run_api(const rows::BwdArgs<T>& a, cudaStream_t st) const {
    const size_t bytes = size_t(work_.bytes());
    with_api_args(a, [&](const auto& p) { backward(p, work_.get(), bytes, st); });
  }
  static size_t workspace_size(const LayerNormBackwardArgs& p) { return layernorm_backward_workspace_size(p); }
  static size_t workspace_size(const RMSNormBackwardArgs& p) { return rmsnorm_backward_workspace_size(p); }
  static size_t workspace_size(const SoftmaxBackwardArgs& p) { return softmax_backward_workspace_size(p); }
  static void backward(const LayerNormBackwardArgs& p, void* w, size_t n, cudaStream_t st) { layernorm_backward(p, w, n, st); }
  static void backward(const RMSNormBackwardArgs& p, void* w, size_t n, cudaStream_t st) { rmsnorm_backward(p, w, n, st); }
  static void backward(const SoftmaxBackwardArgs& p, void* w, size_t n, cudaStream_t st) { softmax_backward(p, w, n, st); }

  // Set 0's elements as the device holds them.
  double a(int64_t r, int64_t c) const { return Elem<T>::decode(a_h_[size_t(r * cols_ + c)]); }
  double dy(int64_t r, int64_t c) const {
    return Elem<T>::decode(Elem<T>::draw(hash64(seed0_, 0xD1), uint64_t(r * cols_ + c), Dist::Signed));
  }
  double gamma(int64_t c) const { return Elem<T>::decode(Elem<T>::draw(gseed_, uint64_t(c), Dist::Positive)); }
  double mean(int64_t r) const { return mean_h_.empty() ? 0.0 : decode_f32(mean_h_[size_t(r)]); }
  double rstd(int64_t r) const { return rstd_h_.empty() ? 0.0 : decode_f32(rstd_h_[size_t(r)]); }

  // The row's sums (sol::ref), and its dy·x̂ (and dy) added into pGrad[0 … cols) (and
  // [cols … 2·cols)): the reference's dγ (dβ) column sums, chunk by chunk.
  RowSums row_pass(int64_t r, double* pGrad) const {
    RowSums s;
    const double mu = mean(r), rs = rstd(r);
    std::vector<double> av(static_cast<size_t>(cols_)), d(av.size()), g(av.size());
    for (int64_t c = 0; c < cols_; ++c) {
      av[size_t(c)] = a(r, c);
      d[size_t(c)] = dy(r, c);
      g[size_t(c)] = in_.kind == Kind::Softmax ? 0.0 : gamma(c);
    }
    switch (in_.kind) {
      case Kind::Softmax: s.m2 = ref::softmax_bwd_sum(av.data(), d.data(), cols_); break;
      case Kind::LayerNorm: {
        const ref::NormBwdSums n = ref::layernorm_bwd_sums(av.data(), d.data(), g.data(), cols_, mu, rs);
        s.m1 = n.mean_g;
        s.m2 = n.mean_gx;
        break;
      }
      case Kind::RMSNorm: s.m2 = ref::rmsnorm_bwd_sums(av.data(), d.data(), g.data(), cols_, rs).mean_gx; break;
    }
    for (int64_t c = 0; c < cols_; ++c) {
      const double dc = d[size_t(c)];
      if (in_.kind == Kind::Softmax) {
        s.terms2 += (dc * av[size_t(c)]) * (dc * av[size_t(c)]);
        continue;
      }
      const double xh = ref::norm_xhat(av[size_t(c)], mu, rs), t = rs * dc * g[size_t(c)];
      s.terms2 += t * t;
      pGrad[c] += dc * xh;
      s.gterms2 += (dc * xh) * (dc * xh);
      if (in_.kind == Kind::LayerNorm) {
        pGrad[cols_ + c] += dc;
        s.gterms2 += dc * dc;
      }
    }
    return s;
  }

  double dx_ref(int64_t r, int64_t c, const RowSums& s) const {
    if (in_.kind == Kind::Softmax) return ref::softmax_dx(a(r, c), dy(r, c), s.m2);
    return ref::norm_dx(a(r, c), dy(r, c), gamma(c), mean(r), rstd(r), {s.m1, s.m2});
  }

  Version v_;
  Info in_;
  int64_t rows_, cols_, scale_;
  bool mask_;
  int sets_ = 1;
  std::vector<DeviceBuffer<T>> a_, dy_, dx_;
  std::vector<DeviceBuffer<float>> mean_, rstd_;
  DeviceBuffer<T> gamma_, dgamma_, dbeta_, t0_, t1_, t2_;
  DeviceBuffer<float> r0_, r1_, work_;
  rows::BwdPlan plan_;
  uint64_t seed0_ = 0, gseed_ = 0;
  bool randomized_ = false;
  std::vector<Bits> a_h_;  // set 0's x or y, during check()
  std::vector<uint32_t> mean_h_, rstd_h_;
};

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input(std::string(family_name(info(v).kind)) + ": " + why);
  if (info(v).fp32) return std::make_unique<RowBwdCase<float>>(v, s, opts);
  return std::make_unique<RowBwdCase<__nv_bfloat16>>(v, s, opts);
}

}  // namespace sol::kernels::rows_bwd

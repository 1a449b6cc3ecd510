// Registry wrapper for layernorm, rmsnorm and softmax: one RowCase per element type. The
// reference (sol/ref/rows.hpp) runs per row in double on the hashed inputs the device saw (after
// the same scale-and-mask step, rounded to T the same way), and the saved statistics (mean /
// max, rstd / 1/sum) are checked beside y. residual=1 (norms): a second hashed input res is
// added first; the reference normalizes round_T(x + res), and the written sum is checked too.
// fp8=1 (norms): y's e4m3 codes under kFp8Scale are checked bit for bit against the host's
// saturating encode of the y the kernel wrote; fp8=2 (codes alone, y not written): each is the
// encode of a y within y's tolerance of the reference (codes_alone).
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/rows/case.hpp"
#include "kernels/rows/forward.cuh"
#include "kernels/rows/prepare.cuh"
#include "sol/kernels.hpp"
#include "sol/formats/scalar.hpp"
#include "sol/ref/rows.hpp"

namespace sol::kernels::rows {
namespace {

constexpr double kEps = 1e-5;
// The e4m3 quantization scale of the fp8 shapes: |y| beyond 448 / 100 = 4.48 saturates (γ up to 2
// and |x̂| of a few σ reach it), so both the rounding and the saturation are checked.
constexpr float kFp8Scale = 100.f;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Host twin of from_f32: round to nearest even (finite inputs).
template <class T>
double round_host(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return decode_bf16(uint16_t(u >> 16));
  }
}

struct RowRef {
  double s0 = 0, s1 = 0;  // LayerNorm: mean, rstd; RMSNorm: -, rstd; softmax: max, sum
};

template <class T>
class RowCase final : public Case {
  using Bits = typename Elem<T>::Bits;

 public:
  RowCase(Version v, const Shape& s, const CaseOptions& opts)
      : v_(v), in_(info(v)), rows_(s.at("rows")), cols_(s.at("cols")), scale_(s.get("scale", 1)),
        mask_(s.get("mask", 0) != 0), residual_(s.get("residual", 0) != 0), fp8_(int(s.get(kFp8Key, 0))) {
    const int64_t n = rows_ * cols_;
    sets_ = rotating_sets((residual_ ? 4.0 : 2.0) * double(n) * sizeof(T) + (fp8_ ? double(n) : 0.0), opts);
    for (int i = 0; i < sets_; ++i) {
      x_.emplace_back(n);
      y_.emplace_back(n);
      if (residual_) {
        res_.emplace_back(n);
        sum_.emplace_back(n);
      }
      if (fp8_) y8_.emplace_back(n);
    }
    if (fp8_) {
      y8_scale_ = DeviceBuffer<float>(1);
      SOL_CUDA_CHECK(cudaMemcpy(y8_scale_.get(), &kFp8Scale, sizeof(float), cudaMemcpyHostToDevice));
    }
    if (in_.kind != Kind::Softmax) gamma_ = DeviceBuffer<T>(cols_);
    if (in_.kind == Kind::LayerNorm) beta_ = DeviceBuffer<T>(cols_);
    const bool saves = !(in_.dispatch && in_.kind == Kind::Softmax);
    if (saves && in_.kind != Kind::RMSNorm) stat0_ = DeviceBuffer<float>(rows_);
    if (saves) stat1_ = DeviceBuffer<float>(rows_);
    if (in_.impl == Impl::Eager) temp_ = DeviceBuffer<T>(n);
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    const int64_t n = rows_ * cols_;
    for (int i = 0; i < sets_; ++i) {
      Elem<T>::fill(x_[size_t(i)].get(), n, set_seed(seed, i), Dist::Signed, nullptr);
      prepare_inputs(x_[size_t(i)].get(), rows_, cols_, scale_, mask_);
      if (residual_) Elem<T>::fill(res_[size_t(i)].get(), n, hash64(set_seed(seed, i), 0x2E5), Dist::Signed, nullptr);
    }
    seed0_ = set_seed(seed, 0);
    rseed_ = hash64(seed0_, 0x2E5);
    if (gamma_.get()) Elem<T>::fill(gamma_.get(), cols_, hash64(seed, 0x6A), Dist::Positive, nullptr);
    if (beta_.get()) Elem<T>::fill(beta_.get(), cols_, hash64(seed, 0xBE), Dist::Signed, nullptr);
    gseed_ = hash64(seed, 0x6A);
    bseed_ = hash64(seed, 0xBE);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override {
    y_.at(size_t(set)).poison();
    if (residual_) sum_.at(size_t(set)).poison();
    if (fp8_) y8_.at(size_t(set)).poison();
    if (stat0_.get()) stat0_.poison();
    if (stat1_.get()) stat1_.poison();
  }

  void run(int set, void* stream) override {
    const RowArgs<T> a = args(set);
    const auto st = static_cast<cudaStream_t>(stream);
    if (in_.dispatch) return run_api(a, st);
    switch (in_.kind) {
      case Kind::LayerNorm: return layernorm_forward(in_.impl, a, temp_.get(), st);
      case Kind::RMSNorm: return rmsnorm_forward(in_.impl, a, temp_.get(), st);
      case Kind::Softmax: return softmax_forward(in_.impl, a, temp_.get(), st);
    }
  }

  LaunchInfo launch() const override {
    const RowArgs<T> a = args(0);
    switch (in_.kind) {
      case Kind::LayerNorm: return layernorm_plan(in_.impl, a);
      case Kind::RMSNorm: return rmsnorm_plan(in_.impl, a);
      case Kind::Softmax: return softmax_plan(in_.impl, a);
    }
    return {};
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2;
    // Per-row reference statistics, rows split over the host cores.
    std::vector<RowRef> ref(static_cast<size_t>(rows_));
    RowRef* pRef = ref.data();
    const RowCase* self = this;
    const std::function<void(int64_t, int64_t, int)> body = [pRef, self](int64_t b, int64_t e, int) {
      for (int64_t r = b; r < e; ++r) pRef[r] = self->row_ref(r);
    };
    parallel_chunks(rows_, body, host_chunks(rows_ * cols_));
    const std::vector<Bits> got = y_[0].template to_host<Bits>(0, rows_ * cols_);
    CheckResult y = fp8_ == 2 ? codes_alone(ref) : compare(rows_ * cols_, tol, [&](int64_t i) {
      const int64_t r = i / cols_, c = i % cols_;
      return Sample{Elem<T>::decode(got[size_t(i)]), expected(ref[size_t(r)], x(r, c), c), is_poison(got[size_t(i)])};
    });
    if (fp8_ == 1) {  // the codes of the y written, bit for bit
      const std::vector<uint8_t> codes = y8_[0].template to_host<uint8_t>(0, rows_ * cols_);
      const CheckResult q = compare(rows_ * cols_, 0.0, [&](int64_t i) {
        const double want = decode_code(encode_code(float(Elem<T>::decode(got[size_t(i)]))));
        return Sample{decode_code(codes[size_t(i)]), want, codes[size_t(i)] == kPoisonByte};
      });
      merge(y, q, "e4m3 codes of y");
    }
    if (residual_) {  // the sum, bit for bit: one fp32 add rounded to T
      const std::vector<Bits> sum = sum_[0].template to_host<Bits>(0, rows_ * cols_);
      const CheckResult s = compare(rows_ * cols_, 0.0, [&](int64_t i) {
        return Sample{Elem<T>::decode(sum[size_t(i)]), x(i / cols_, i % cols_), is_poison(sum[size_t(i)])};
      });
      merge(y, s, "sum x + res");
    }
    if (!stat1_.get()) return y;
    // Saved statistics, fp32: the same tolerance (they are at least as accurate as y).
    const std::vector<uint32_t> g0 = stat0_.get() ? stat0_.template to_host<uint32_t>(0, rows_) : std::vector<uint32_t>();
    const std::vector<uint32_t> g1 = stat1_.template to_host<uint32_t>(0, rows_);
    const int64_t per = stat0_.get() ? 2 : 1;
    CheckResult st = compare(per * rows_, tol, [&](int64_t i) {
      const int64_t r = i / per;
      const bool second = per == 1 || i % per == 1;
      const uint32_t bits = second ? g1[size_t(r)] : g0[size_t(r)];
      double want = second ? saved1(ref[size_t(r)]) : ref[size_t(r)].s0;
      double have = decode_f32(bits);
      if (want == kNegInf && have == kNegInf) want = have = 0;  // fully masked row: max is −inf
      return Sample{have, want, is_poison(bits)};
    });
    merge(y, st, "saved statistics");
    return y;
  }

 private:
  // The host's e4m3 code of y·kFp8Scale (fp32 product, round to nearest even, saturating), and a
  // code's value back in y's units.
  static uint8_t encode_code(float y) {
    const float v = y * kFp8Scale;
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return uint8_t(formats::encode(bits, formats::kE4m3, formats::Overflow::Saturate));
  }
  static double decode_code(uint8_t code) {
    const uint32_t bits = formats::decode(code, formats::kE4m3);
    float v;
    std::memcpy(&v, &bits, 4);
    return double(v) / double(kFp8Scale);
  }

  // fp8=2, y not written: each code must be that of a y the kernel may write, one within y's own
  // tolerance of the reference (relative, with an absolute floor of kCodesAbsFloor for values
  // near 0, where a norm's fp32 cancellation dominates). The encode is monotonic, so those are
  // the codes between the encodes of the interval's ends; any other code is wrong, and is judged
  // against the encode of the reference rounded to T (no slack beyond that: tolerance 0).
  static constexpr double kCodesAbsFloor = 1e-5;
  CheckResult codes_alone(const std::vector<RowRef>& ref) const {
    const std::vector<uint8_t> codes = y8_[0].template to_host<uint8_t>(0, rows_ * cols_);
    const double tol = tolerance(v_).rel_l2;
    return compare(rows_ * cols_, 0.0, [&](int64_t i) {
      const int64_t r = i / cols_, c = i % cols_;
      const double want = expected(ref[size_t(r)], x(r, c), c), slack = tol * std::fabs(want) + kCodesAbsFloor;
      const double got = decode_code(codes[size_t(i)]);
      const bool may = got >= decode_code(encode_code(float(want - slack))) &&
                       got <= decode_code(encode_code(float(want + slack)));
      return Sample{got, may ? got : decode_code(encode_code(float(round_host<T>(float(want))))),
                    codes[size_t(i)] == kPoisonByte};
    });
  }

  RowArgs<T> args(int set) const {
    RowArgs<T> a;
    a.x = x_.at(size_t(set)).get();
    a.y = fp8_ == 2 ? nullptr : y_.at(size_t(set)).get();
    if (fp8_) {
      a.y8 = y8_.at(size_t(set)).get();
      a.ldy8 = cols_;
      a.y8_scale = y8_scale_.get();
    }
    a.gamma = gamma_.get();
    a.beta = beta_.get();
    a.stat0 = stat0_.get();
    a.stat1 = stat1_.get();
    a.rows = rows_;
    a.cols = cols_;
    a.ldx = a.ldy = cols_;
    a.eps = float(kEps);
    if (residual_) {
      a.res = res_.at(size_t(set)).get();
      a.sum = sum_.at(size_t(set)).get();
      a.ldr = a.lds = cols_;
    }
    return a;
  }

  // The public entry of the op on the same buffers (the API's softmax saves no statistics).
  void run_api(const RowArgs<T>& a, cudaStream_t st) const {
    const DType dt = std::is_same_v<T, float> ? DType::f32 : DType::bf16;
    switch (in_.kind) {
      case Kind::LayerNorm:
        return sol::layernorm_forward(LayerNormArgs{.dtype = dt, .rows = a.rows, .cols = a.cols, .x = a.x, .y = a.y,
                                                    .gamma = a.gamma, .beta = a.beta, .eps = a.eps, .mean = a.stat0,
                                                    .rstd = a.stat1, .residual = a.res, .sum = a.sum, .y_fp8 = a.y8,
                                                    .fp8_scale = a.y8_scale},
                                      nullptr, 0, st);
      case Kind::RMSNorm:
        return sol::rmsnorm_forward(RMSNormArgs{.dtype = dt, .rows = a.rows, .cols = a.cols, .x = a.x, .y = a.y,
                                                .gamma = a.gamma, .eps = a.eps, .rstd = a.stat1, .residual = a.res,
                                                .sum = a.sum, .y_fp8 = a.y8, .fp8_scale = a.y8_scale},
                                    nullptr, 0, st);
      case Kind::Softmax:
        return sol::softmax_forward(SoftmaxArgs{.dtype = dt, .rows = a.rows, .cols = a.cols, .x = a.x, .y = a.y}, nullptr,
                                    0, st);
    }
  }

  // Element (r, c) of the row normalized, as the device holds it: x, or round_T(x + res).
  double x(int64_t r, int64_t c) const {
    if (mask_ && masked(r, c)) return kNegInf;
    const double v = Elem<T>::decode(Elem<T>::draw(seed0_, uint64_t(r * cols_ + c), Dist::Signed));
    const double xv = scale_ == 1 ? v : round_host<T>(float(v) * float(scale_));
    if (!residual_) return xv;
    const double rv = Elem<T>::decode(Elem<T>::draw(rseed_, uint64_t(r * cols_ + c), Dist::Signed));
    return round_host<T>(float(xv) + float(rv));
  }
  double gamma(int64_t c) const { return Elem<T>::decode(Elem<T>::draw(gseed_, uint64_t(c), Dist::Positive)); }
  double beta(int64_t c) const { return Elem<T>::decode(Elem<T>::draw(bseed_, uint64_t(c), Dist::Signed)); }

  // The row's statistics (sol::ref) from the row as the device holds it.
  RowRef row_ref(int64_t r) const {
    std::vector<double> row(static_cast<size_t>(cols_));
    for (int64_t c = 0; c < cols_; ++c) row[size_t(c)] = x(r, c);
    switch (in_.kind) {
      case Kind::LayerNorm: {
        const ref::LayerNormStats st = ref::layernorm_stats(row.data(), cols_, kEps);
        return {st.mean, st.rstd};
      }
      case Kind::RMSNorm: return {0, ref::rmsnorm_rstd(row.data(), cols_, kEps)};
      case Kind::Softmax: {
        const ref::SoftmaxStats st = ref::softmax_stats(row.data(), cols_);
        return {st.max, st.sum};
      }
    }
    return {};
  }

  double saved1(const RowRef& f) const {
    if (in_.kind != Kind::Softmax) return f.s1;
    return f.s1 > 0 ? 1 / f.s1 : 0;
  }

  double expected(const RowRef& f, double xv, int64_t c) const {
    switch (in_.kind) {
      case Kind::LayerNorm: return ref::layernorm_y(xv, {f.s0, f.s1}, gamma(c), beta(c));
      case Kind::RMSNorm: return ref::rmsnorm_y(xv, f.s1, gamma(c));
      case Kind::Softmax: return ref::softmax_y(xv, {f.s0, f.s1});
    }
    return 0;
  }

  Version v_;
  Info in_;
  int64_t rows_, cols_, scale_;
  bool mask_, residual_;
  int fp8_;  // kFp8Key: 0, 1 (codes beside y), 2 (codes alone)
  int sets_ = 1;
  std::vector<DeviceBuffer<T>> x_, y_, res_, sum_;  // res_, sum_: residual=1 only
  std::vector<DeviceBuffer<uint8_t>> y8_;           // fp8 ≥ 1 only
  DeviceBuffer<T> gamma_, beta_, temp_;
  DeviceBuffer<float> stat0_, stat1_, y8_scale_;
  uint64_t seed0_ = 0, rseed_ = 0, gseed_ = 0, bseed_ = 0;
  bool randomized_ = false;
};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::LayerNorm: return "layernorm";
    case Kind::RMSNorm: return "rmsnorm";
    case Kind::Softmax: return "softmax";
  }
  return "?";
}

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input(std::string(kind_name(info(v).kind)) + ": " + why);
  if (info(v).fp32) return std::make_unique<RowCase<float>>(v, s, opts);
  return std::make_unique<RowCase<__nv_bfloat16>>(v, s, opts);
}

}  // namespace sol::kernels::rows

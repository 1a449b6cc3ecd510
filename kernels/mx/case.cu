// Registry wrapper for mx. Quantize and dequantize Cases are checked bit for bit: the host
// recomputes every input from its hash (kernels/mx/inputs.cuh), runs the host implementation
// (formats::mx_quantize_block, formats::mx_value) on it and compares every code and scale byte;
// rel_l2 is then over the decoded values (0 when the bits agree). The GEMM Cases compare the
// dequantized operands bit for bit, the product with a double-precision GEMM of those operands
// on sampled rows, and report as rel_l2 the error against the exact product of the bf16 inputs.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/cublas_lib.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/mx/case.hpp"
#include "kernels/mx/inputs.cuh"
#include "kernels/mx/mx.cuh"
#include "sol/kernels.hpp"
#include "sol/model/cost.hpp"

namespace sol::kernels::mx {
namespace {

using formats::MxAxis;
constexpr int64_t kMaxElements = int64_t(1) << 40;
constexpr int kGemmSampleRows = 64;  // rows of C the host recomputes in double

bool flag(const Shape& s, const char* name) { return s.get(name, 0) != 0; }
Spec spec_of(const Shape& s) {
  return {flag(s, "e5m2") ? Elem::e5m2 : Elem::e4m3, flag(s, "ocp") ? formats::ScaleRule::Ocp : formats::ScaleRule::Ceil};
}
formats::Minifloat minifloat_of(Elem e) { return e == Elem::e4m3 ? formats::kE4m3 : formats::kE5m2; }
bool writes_row(Version v) {
  return v == Version::v01_rowwise_shared_code || v == Version::v02_rowwise || v == Version::v04_both ||
         v == Version::dispatch;
}
bool writes_col(Version v) { return v == Version::v03_columnwise || v == Version::v04_both || v == Version::dispatch; }
bool is_gemm(Version v) { return v == Version::v06_gemm_emulated || v == Version::peer_cublas_bf16_gemm; }
std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%02x", v);
  return b;
}

// ---- device fills: out[i] = gen(i) ------------------------------------------------------------
constexpr int kFillThreads = 256;
constexpr int64_t kFillMaxBlocks = 65536;

template <class T, class Gen>
__global__ void fill_kernel(T* gOut, int64_t n, Gen gen) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) gOut[i] = gen(i);
}

template <class T, class Gen>
void fill(T* p, int64_t n, Gen gen) {
  if (n == 0) return;
  fill_kernel<T, Gen><<<unsigned(std::min(blocks_for(n, kFillThreads), kFillMaxBlocks)), kFillThreads>>>(p, n, gen);
  SOL_LAUNCH_CHECK();
}

// ---- bit-exact comparison -------------------------------------------------------------------------
// Mismatching bytes (or bf16 words), the first one, and the error of the decoded values.
struct Diff {
  int64_t count = 0, unwritten = 0;
  int64_t first = -1;
  bool first_is_scale = false;
  uint32_t got = 0, want = 0;
  double err2 = 0, ref2 = 0;
  void bits(int64_t at, bool scale, uint32_t g, uint32_t w, uint32_t poison) {
    if (g == w) return;
    if (g == poison) ++unwritten;
    if (count++ == 0) first = at, first_is_scale = scale, got = g, want = w;
  }
  void values(double g, double w) {
    if (!std::isfinite(g) || !std::isfinite(w)) return;
    err2 += (g - w) * (g - w);
    ref2 += w * w;
  }
  void merge(const Diff& o) {
    if (o.count && !count) first = o.first, first_is_scale = o.first_is_scale, got = o.got, want = o.want;
    count += o.count;
    unwritten += o.unwritten;
    err2 += o.err2;
    ref2 += o.ref2;
  }
  double rel() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }
};

// Runs body(begin, end, part) over [0, n) on the host's cores and merges the parts in order.
template <class Body>
Diff parallel_diff(int64_t n, int64_t elements, const Body& body) {
  std::vector<Diff> parts(size_t(std::max<int64_t>(1, std::min<int64_t>(host_chunks(elements), n))));
  parallel_chunks(n, [&](int64_t b, int64_t e, int c) { body(b, e, parts[size_t(c)]); }, int(parts.size()));
  Diff all;
  for (const Diff& p : parts) all.merge(p);
  return all;
}

// One orientation of a quantization against the host, block by block.
Diff diff_quantized(MxAxis axis, int64_t rows, int64_t cols, Spec spec, const QuantInput& in,
                    const std::vector<uint8_t>& codes, const std::vector<uint8_t>& scales, const char* name,
                    std::string& where) {
  const formats::Minifloat fmt = minifloat_of(spec.elem);
  const bool rowwise = axis == MxAxis::Rowwise;
  const int64_t blocks = scale_count(rows, cols, axis), scale_cols = rowwise ? (cols + 31) / 32 : cols;
  Diff d = parallel_diff(blocks, rows * cols, [&](int64_t b, int64_t e, Diff& part) {
    uint8_t ref[formats::kMxBlock];
    for (int64_t s = b; s < e; ++s) {
      const int64_t sr = s / scale_cols, sc = s % scale_cols;
      const int64_t first = rowwise ? sr * cols + sc * formats::kMxBlock : sr * formats::kMxBlock * cols + sc;
      const int64_t step = rowwise ? 1 : cols;
      const int n = int(std::min<int64_t>(formats::kMxBlock, rowwise ? cols - sc * formats::kMxBlock : rows - sr * formats::kMxBlock));
      const uint8_t want = formats::mx_quantize_block(
          n, fmt, spec.rule, [&](int i) { return uint32_t(in(first + i * step)) << 16; },
          [&](int i, uint32_t c) { ref[i] = uint8_t(c); });
      const uint8_t got = scales[size_t(s)];
      part.bits(s, true, got, want, kPoisonByte);
      for (int i = 0; i < n; ++i) {
        const int64_t at = first + i * step;
        const uint8_t g = codes[size_t(at)];
        part.bits(at, false, g, ref[i], kPoisonByte);
        if (want != formats::kE8m0Nan)
          part.values(double(formats::f32_value(formats::mx_value(g, got, fmt))), double(formats::f32_value(formats::mx_value(ref[i], want, fmt))));
      }
    }
  });
  if (d.count && where.empty()) {
    const int64_t r = d.first_is_scale ? (rowwise ? d.first / scale_cols : d.first / scale_cols * 32) : d.first / cols;
    const int64_t c = d.first_is_scale ? (rowwise ? d.first % scale_cols * 32 : d.first % scale_cols) : d.first % cols;
    where = std::string(name) + (d.first_is_scale ? " scale of the block at [" : " code at [") + std::to_string(r) + ", " +
            std::to_string(c) + "]: got " + hex(d.got) + ", want " + hex(d.want);
  }
  return d;
}

CheckResult to_result(const Diff& d, const std::string& where) {
  CheckResult r;
  r.ok = d.count == 0;
  r.rel_l2 = d.rel();
  r.unwritten = d.unwritten;
  if (!r.ok) r.detail = std::to_string(d.count) + " value(s) differ from the host implementation's bits; first: " + where;
  return r;
}

// ---- quantize: v01–v04 --------------------------------------------------------------------------
class QuantCase final : public Case {
 public:
  QuantCase(Version v, const Shape& s, const CaseOptions& opts)
      : v_(v), rows_(s.at("rows")), cols_(s.at("cols")), spec_(spec_of(s)), special_(flag(s, "special")) {
    n_ = rows_ * cols_;
    const double bytes = 2.0 * double(n_) + (writes_row(v) ? double(n_ + scale_count(rows_, cols_, MxAxis::Rowwise)) : 0) +
                         (writes_col(v) ? double(n_ + scale_count(rows_, cols_, MxAxis::Colwise)) : 0);
    sets_ = rotating_sets(bytes, opts);
    for (int k = 0; k < sets_; ++k) {
      x_.emplace_back(n_);
      if (writes_row(v)) row_codes_.emplace_back(n_), row_scales_.emplace_back(scale_count(rows_, cols_, MxAxis::Rowwise));
      if (writes_col(v)) col_codes_.emplace_back(n_), col_scales_.emplace_back(scale_count(rows_, cols_, MxAxis::Colwise));
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int k = 0; k < sets_; ++k) fill(x_[size_t(k)].get(), n_, QuantInput{set_seed(seed, k), special_});
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    input0_ = QuantInput{set_seed(seed, 0), special_};
    randomized_ = true;
  }

  void poison(int set) override {
    if (writes_row(v_)) row_codes_.at(size_t(set)).poison(), row_scales_.at(size_t(set)).poison();
    if (writes_col(v_)) col_codes_.at(size_t(set)).poison(), col_scales_.at(size_t(set)).poison();
  }

  void run(int set, void* stream) override {
    const __nv_bfloat16* x = input(set);
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (v_) {
      case Version::v01_rowwise_shared_code: v01_rowwise_shared_code(x, rows_, cols_, spec_, row(set), st); break;
      case Version::v02_rowwise: v02_rowwise(x, rows_, cols_, spec_, row(set), st); break;
      case Version::v03_columnwise: v03_columnwise(x, rows_, cols_, spec_, col(set), st); break;
      case Version::v04_both: v04_both(x, rows_, cols_, spec_, row(set), col(set), st); break;
      case Version::dispatch: {
        MxQuantizeArgs a;
        a.rows = rows_;
        a.cols = cols_;
        a.elem = spec_.elem == Elem::e4m3 ? DType::fp8_e4m3 : DType::fp8_e5m2;
        a.rule = spec_.rule == formats::ScaleRule::Ceil ? MxScaleRule::Ceil : MxScaleRule::Floor;
        a.x = x;
        a.row_codes = row(set).codes;
        a.row_scales = row(set).scales;
        a.col_codes = col(set).codes;
        a.col_scales = col(set).scales;
        mx_quantize(a, st);
        break;
      }
      default: failure("not a quantize version");
    }
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    Diff all;
    std::string where;
    auto one = [&](MxAxis axis, const DeviceBuffer<uint8_t>& codes, const DeviceBuffer<uint8_t>& scales, const char* name) {
      all.merge(diff_quantized(axis, rows_, cols_, spec_, input0_, codes.to_host<uint8_t>(0, codes.count()),
                               scales.to_host<uint8_t>(0, scales.count()), name, where));
    };
    if (writes_row(v_)) one(MxAxis::Rowwise, row_codes_[0], row_scales_[0], "rowwise");
    if (writes_col(v_)) one(MxAxis::Colwise, col_codes_[0], col_scales_[0], "columnwise");
    return to_result(all, where);
  }

  LaunchInfo launch() const override {
    const __nv_bfloat16* x = reinterpret_cast<const __nv_bfloat16*>(x_[0].get());
    switch (v_) {
      case Version::v01_rowwise_shared_code: return v01_rowwise_shared_code_plan(rows_, cols_, spec_);
      case Version::v02_rowwise: return v02_rowwise_plan(x, rows_, cols_, spec_, row(0));
      case Version::v03_columnwise: return v03_columnwise_plan(x, rows_, cols_, spec_, col(0));
      case Version::v04_both:
      case Version::dispatch:  // both orientations on sm_89+: v04 (kernels/api/mx.cu)
        return v04_both_plan(x, rows_, cols_, spec_, row(0), col(0));
      default: return {};
    }
  }

 private:
  const __nv_bfloat16* input(int set) const { return reinterpret_cast<const __nv_bfloat16*>(x_.at(size_t(set)).get()); }
  Out row(int set) const { return writes_row(v_) ? Out{row_codes_.at(size_t(set)).get(), row_scales_.at(size_t(set)).get()} : Out{}; }
  Out col(int set) const { return writes_col(v_) ? Out{col_codes_.at(size_t(set)).get(), col_scales_.at(size_t(set)).get()} : Out{}; }

  Version v_;
  int64_t rows_, cols_, n_ = 0;
  Spec spec_;
  bool special_;
  int sets_ = 1;
  std::vector<DeviceBuffer<uint16_t>> x_;
  std::vector<DeviceBuffer<uint8_t>> row_codes_, row_scales_, col_codes_, col_scales_;
  QuantInput input0_;
  bool randomized_ = false;
};

// ---- dequantize: v05 ----------------------------------------------------------------------------
class DequantCase final : public Case {
 public:
  DequantCase(const Shape& s, const CaseOptions& opts)
      : rows_(s.at("rows")), cols_(s.at("cols")), elem_(spec_of(s).elem),
        axis_(flag(s, "colwise") ? MxAxis::Colwise : MxAxis::Rowwise), special_(flag(s, "special")) {
    n_ = rows_ * cols_;
    scales_n_ = scale_count(rows_, cols_, axis_);
    sets_ = rotating_sets(double(n_) * 3 + double(scales_n_), opts);
    for (int k = 0; k < sets_; ++k) codes_.emplace_back(n_), scales_.emplace_back(scales_n_), out_.emplace_back(n_);
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int k = 0; k < sets_; ++k) {
      fill(codes_[size_t(k)].get(), n_, CodeInput{set_seed(seed, k), elem_ == Elem::e5m2, special_});
      fill(scales_[size_t(k)].get(), scales_n_, ScaleInput{set_seed(seed, k), special_});
    }
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    codes0_ = CodeInput{set_seed(seed, 0), elem_ == Elem::e5m2, special_};
    scales0_ = ScaleInput{set_seed(seed, 0), special_};
    randomized_ = true;
  }

  void poison(int set) override { out_.at(size_t(set)).poison(); }

  void run(int set, void* stream) override {
    v05_dequantize(codes_.at(size_t(set)).get(), scales_.at(size_t(set)).get(), rows_, cols_, elem_, axis_,
                   reinterpret_cast<__nv_bfloat16*>(out_.at(size_t(set)).get()), static_cast<cudaStream_t>(stream));
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const std::vector<uint16_t> got = out_[0].to_host<uint16_t>(0, n_);
    const formats::Minifloat fmt = minifloat_of(elem_);
    const int64_t scale_cols = (cols_ + 31) / 32;
    const Diff d = parallel_diff(n_, n_, [&](int64_t b, int64_t e, Diff& part) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t r = i / cols_, c = i % cols_;
        const uint8_t s = scales0_(axis_ == MxAxis::Rowwise ? r * scale_cols + c / 32 : r / 32 * cols_ + c);
        const uint32_t want = formats::encode(formats::mx_value(codes0_(i), s, fmt), formats::kBf16, formats::Overflow::Plain);
        part.bits(i, false, got[size_t(i)], want, 0xFFFFu);
        part.values(double(formats::f32_value(uint32_t(got[size_t(i)]) << 16)), double(formats::f32_value(want << 16)));
      }
    });
    std::string where;
    if (d.count)
      where = "bf16 at [" + std::to_string(d.first / cols_) + ", " + std::to_string(d.first % cols_) + "]: got " +
              hex(d.got) + ", want " + hex(d.want) + " (code " + hex(codes0_(d.first)) + ")";
    return to_result(d, where);
  }

  LaunchInfo launch() const override {
    return v05_dequantize_plan(codes_[0].get(), scales_[0].get(), reinterpret_cast<const __nv_bfloat16*>(out_[0].get()),
                               rows_, cols_, elem_, axis_);
  }

 private:
  int64_t rows_, cols_, n_ = 0, scales_n_ = 0;
  Elem elem_;
  MxAxis axis_;
  bool special_;
  int sets_ = 1;
  std::vector<DeviceBuffer<uint8_t>> codes_, scales_;
  std::vector<DeviceBuffer<uint16_t>> out_;
  CodeInput codes0_;
  ScaleInput scales0_;
  bool randomized_ = false;
};

// ---- GEMM: v06 and the bf16 peer ----------------------------------------------------------------
class GemmCase final : public Case {
 public:
  GemmCase(Version v, const Shape& s, const CaseOptions& opts)
      : emulated_(v == Version::v06_gemm_emulated), m_(s.at("m")), n_(s.at("n")), k_(s.at("k")), spec_(spec_of(s)) {
    if (cublas::blas().cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) failure("cublasCreate failed");
    sets_ = rotating_sets(2.0 * double(m_ * k_ + k_ * n_) + 4.0 * double(m_ * n_), opts);
    for (int i = 0; i < sets_; ++i) a_.emplace_back(m_ * k_), b_.emplace_back(k_ * n_), c_.emplace_back(m_ * n_);
    if (emulated_) workspace_ = DeviceBuffer<uint8_t>(v06_workspace_bytes(m_, n_, k_));
  }
  ~GemmCase() override { (void)cublas::blas().cublasDestroy(handle_); }
  GemmCase(const GemmCase&) = delete;
  GemmCase& operator=(const GemmCase&) = delete;

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int i = 0; i < sets_; ++i) {
      fill(a_[size_t(i)].get(), m_ * k_, GemmInput{set_seed(seed, i)});
      fill(b_[size_t(i)].get(), k_ * n_, GemmInput{set_seed(seed ^ 0xB, i)});
    }
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    a0_ = GemmInput{set_seed(seed, 0)};
    b0_ = GemmInput{set_seed(seed ^ 0xB, 0)};
    randomized_ = true;
  }

  void poison(int set) override { c_.at(size_t(set)).poison(); }

  void run(int set, void* stream) override {
    const auto* a = reinterpret_cast<const __nv_bfloat16*>(a_.at(size_t(set)).get());
    const auto* b = reinterpret_cast<const __nv_bfloat16*>(b_.at(size_t(set)).get());
    float* c = c_.at(size_t(set)).get();
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    if (emulated_) v06_gemm_emulated(handle_, a, b, m_, n_, k_, spec_, workspace_.get(), c, st);
    else bf16_gemm(handle_, a, b, m_, n_, k_, c, st);
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    std::vector<float> a(size_t(m_ * k_)), b(size_t(k_ * n_));
    for (int64_t i = 0; i < m_ * k_; ++i) a[size_t(i)] = formats::f32_value(uint32_t(a0_(i)) << 16);
    for (int64_t i = 0; i < k_ * n_; ++i) b[size_t(i)] = formats::f32_value(uint32_t(b0_(i)) << 16);
    // The operands the GEMM multiplied: the bf16 inputs, or (emulated) their MXFP8 round trip,
    // which must equal the host's to the bit.
    std::vector<float> a_op = a, b_op = b;
    Diff bits;
    std::string where;
    if (emulated_) {
      const GemmOperands ops = v06_operands(workspace_.get(), m_, n_, k_);
      a_op = operand_bits(a, m_, k_, MxAxis::Rowwise, ops.a, "A (rowwise)", bits, where);
      b_op = operand_bits(b, k_, n_, MxAxis::Colwise, ops.b, "B (columnwise)", bits, where);
    }
    const std::vector<float> c = c_[0].to_host<float>(0, m_ * n_);
    // Sampled rows of C in double: against the operands multiplied, and against the exact product.
    const int samples = int(std::min<int64_t>(m_, kGemmSampleRows));
    std::vector<Diff> ops(static_cast<size_t>(samples)), exact(static_cast<size_t>(samples));
    std::vector<int64_t> nonfinite(static_cast<size_t>(samples), 0);  // NaN poison left in C reads as non-finite
    parallel_chunks(samples, [&](int64_t s0, int64_t s1, int) {
      std::vector<double> acc_op(static_cast<size_t>(n_)), acc_exact(static_cast<size_t>(n_));
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t r = s * m_ / samples;
        std::fill(acc_op.begin(), acc_op.end(), 0.0);
        std::fill(acc_exact.begin(), acc_exact.end(), 0.0);
        for (int64_t kk = 0; kk < k_; ++kk) {
          const double x_op = a_op[size_t(r * k_ + kk)], x = a[size_t(r * k_ + kk)];
          const float* b_op_row = &b_op[size_t(kk * n_)];
          const float* b_row = &b[size_t(kk * n_)];
          for (int64_t j = 0; j < n_; ++j) acc_op[size_t(j)] += x_op * b_op_row[j], acc_exact[size_t(j)] += x * b_row[j];
        }
        for (int64_t j = 0; j < n_; ++j) {
          const double g = c[size_t(r * n_ + j)];
          ops[size_t(s)].values(g, acc_op[size_t(j)]);
          exact[size_t(s)].values(g, acc_exact[size_t(j)]);
          nonfinite[size_t(s)] += !std::isfinite(g);
        }
      }
    }, std::max(1, std::min(samples, host_chunks(int64_t(samples) * k_ * n_))));
    Diff op_all, exact_all;
    int64_t bad = 0;
    for (int s = 0; s < samples; ++s) op_all.merge(ops[size_t(s)]), exact_all.merge(exact[size_t(s)]), bad += nonfinite[size_t(s)];

    CheckResult r;
    r.rel_l2 = exact_all.rel();
    r.unwritten = bits.unwritten;
    r.nonfinite = bad;
    const double tol_ops = 1e-4;  // fp32 accumulation over k of exact bf16 products
    const double tol = tolerance_for(emulated_, spec_.elem);
    r.ok = bits.count == 0 && bad == 0 && op_all.rel() <= tol_ops && r.rel_l2 <= tol;
    if (!r.ok) {
      std::string d;
      if (bits.count) d += std::to_string(bits.count) + " dequantized operand value(s) differ from the host's; first: " + where + "; ";
      if (bad) d += std::to_string(bad) + " non-finite value(s) in the sampled rows of C; ";
      if (op_all.rel() > tol_ops) d += "C differs from the double GEMM of its operands by rel_l2 " + std::to_string(op_all.rel()) + "; ";
      if (r.rel_l2 > tol) d += "error against the exact product " + std::to_string(r.rel_l2) + " > " + std::to_string(tol);
      r.detail = d;
    }
    return r;
  }

  static double tolerance_for(bool emulated, Elem e) {
    if (!emulated) return 1e-4;
    return e == Elem::e4m3 ? 0.08 : 0.16;
  }

 private:
  // The MXFP8 round trip of x (rows × cols) on the host, compared with the device's bf16 words.
  std::vector<float> operand_bits(const std::vector<float>& x, int64_t rows, int64_t cols, MxAxis axis,
                                  const __nv_bfloat16* device, const char* name, Diff& bits, std::string& where) {
    const std::vector<float> want = formats::mx_dequantize(formats::mx_quantize(x, rows, cols, format_of(spec_.elem), spec_.rule, axis));
    std::vector<uint16_t> got(x.size());
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    SOL_CUDA_CHECK(cudaMemcpy(got.data(), device, got.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost));
    std::vector<float> ops(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const uint32_t w = formats::encode(formats::f32_bits(want[i]), formats::kBf16, formats::Overflow::Plain);
      const int64_t before = bits.count;
      bits.bits(int64_t(i), false, got[i], w, 0xFFFFu);
      if (bits.count > before && where.empty())
        where = std::string(name) + " at [" + std::to_string(int64_t(i) / cols) + ", " + std::to_string(int64_t(i) % cols) +
                "]: got " + hex(got[i]) + ", want " + hex(w);
      ops[i] = formats::f32_value(uint32_t(got[i]) << 16);
    }
    return ops;
  }

  bool emulated_;
  int64_t m_, n_, k_;
  Spec spec_;
  cublasHandle_t handle_ = nullptr;
  int sets_ = 1;
  std::vector<DeviceBuffer<uint16_t>> a_, b_;
  std::vector<DeviceBuffer<float>> c_;
  DeviceBuffer<uint8_t> workspace_;
  GemmInput a0_, b0_;
  bool randomized_ = false;
};

std::string check_matrix(const Shape& s, const char* r, const char* c) {
  if (product_or_minus1({s.at(r), s.at(c)}, kMaxElements) < 0)
    return std::string(r) + "·" + c + " exceeds 2^40 elements";
  return {};
}

double scales_of(int64_t rows, int64_t cols, MxAxis axis) { return double(scale_count(rows, cols, axis)); }

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  const DimRule e5m2{"e5m2", 0, 1, false}, ocp{"ocp", 0, 1, false}, special{"special", 0, 1, false};
  std::string why;
  if (is_gemm(v)) {
    why = check_dims(s, {{"m", 1, INT_MAX}, {"n", 1, INT_MAX}, {"k", 1, INT_MAX}, e5m2, ocp});
    if (why.empty()) why = check_matrix(s, "m", "k");
    if (why.empty()) why = check_matrix(s, "k", "n");
    if (why.empty()) why = check_matrix(s, "m", "n");
    if (why.empty() && v == Version::peer_cublas_bf16_gemm && (flag(s, "e5m2") || flag(s, "ocp")))
      why = "the bf16 peer has no MX format: e5m2 and ocp do not apply";
    return why;
  }
  if (v == Version::v05_dequantize) why = check_dims(s, {{"rows"}, {"cols"}, e5m2, {"colwise", 0, 1, false}, special});
  else why = check_dims(s, {{"rows"}, {"cols"}, e5m2, ocp, special});
  if (why.empty()) why = check_matrix(s, "rows", "cols");
  return why;
}

model::Cost cost(Version v, const Shape& s) {
  const Spec spec = spec_of(s);
  const std::string fmt = formats::mx_format_name(format_of(spec.elem));
  if (is_gemm(v)) {
    const int64_t m = s.at("m"), n = s.at("n"), k = s.at("k");
    model::Cost c = model::matmul({.m = m, .n = n, .k = k, .dtype = DType::bf16});
    const double gemm_bytes = 2.0 * double(m * k + k * n) + 4.0 * double(m * n);
    c.notes = {"flops = 2·m·n·k on bf16 tensor cores; fp32 output: bytes = 2(mk + kn) + 4mn"};
    c.bytes = gemm_bytes;
    if (v == Version::v06_gemm_emulated) {
      const double sa = scales_of(m, k, MxAxis::Rowwise), sb = scales_of(k, n, MxAxis::Colwise);
      // quantize (2 B read, 1 B + scales written) then dequantize (1 B + scales read, 2 B written), per operand
      c.bytes += 6.0 * double(m * k + k * n) + 2 * (sa + sb);
      c.op = fmt + "-emulated GEMM " + std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k);
      c.notes.push_back("plus quantize and dequantize passes over A and B: 6 B per element and the scales twice");
    } else {
      c.op = "bf16 GEMM " + std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k) + " (cuBLAS)";
    }
    return c;
  }
  const int64_t rows = s.at("rows"), cols = s.at("cols");
  const double n = double(rows) * double(cols);
  const std::string shape = std::to_string(rows) + "×" + std::to_string(cols);
  if (v == Version::v05_dequantize) {
    const MxAxis axis = flag(s, "colwise") ? MxAxis::Colwise : MxAxis::Rowwise;
    return vector_cost("dequantize " + fmt + " " + shape + " to bf16", n, 3 * n + scales_of(rows, cols, axis), DType::bf16,
                       {"bytes = n × (1 code read + 2 bf16 written) + the scales read", "flops = n (one multiply per element)"});
  }
  const int orientations = (writes_row(v) ? 1 : 0) + (writes_col(v) ? 1 : 0);
  double bytes = 2 * n + double(orientations) * n;
  if (writes_row(v)) bytes += scales_of(rows, cols, MxAxis::Rowwise);
  if (writes_col(v)) bytes += scales_of(rows, cols, MxAxis::Colwise);
  const std::string what = writes_row(v) && writes_col(v) ? "rowwise + columnwise" : writes_row(v) ? "rowwise" : "columnwise";
  return vector_cost("quantize bf16 " + shape + " to " + fmt + " " + what + " (" + formats::scale_rule_name(spec.rule) + " rule)",
                     double(orientations) * n, bytes, DType::bf16,
                     {"bytes = n × 2 read + n × (1 code) and one e8m0 scale per 32 written, per orientation",
                      "flops = n per orientation (one multiply by the inverse scale; the amax comparisons are not counted)"});
}

Tolerance tolerance(Version v) {
  switch (v) {
    case Version::v06_gemm_emulated:
      return {GemmCase::tolerance_for(true, Elem::e5m2),
              "rel_l2 = MXFP8's error against the exact product of the bf16 operands (≈ 4 % e4m3, ≈ 8 % e5m2; the "
              "check allows 8 % / 16 %); the dequantized operands must equal the host's bits and C their double GEMM "
              "to 1e-4"};
    case Version::peer_cublas_bf16_gemm:
      return {GemmCase::tolerance_for(false, Elem::e4m3), "bf16 operands are exact; fp32 accumulation over k"};
    default:
      return {0.0, "bit-exact: every code and scale (bf16 word for dequantize) equals the host implementation's"};
  }
}

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (is_gemm(v)) return std::make_unique<GemmCase>(v, s, opts);
  if (v == Version::v05_dequantize) return std::make_unique<DequantCase>(s, opts);
  return std::make_unique<QuantCase>(v, s, opts);
}

}  // namespace sol::kernels::mx

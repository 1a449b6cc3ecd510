// Registry wrapper for the decode GEMM rungs: one GemvCase runs any of them on the same buffers.
// Operands are the GEMM families' hashed values (kernels/gemm/tc/inputs.cuh); with beta=1, C
// starts as hashed values of its own type. Reference (sol/ref/gemm.hpp): double accumulation over
// the stored inputs, alpha·Σ + beta·C_in. Every output is checked when m·n·k ≤ 2^27, else a
// fixed sample of 4096 plus the corners (kernels/gemm/tc/sampling.hpp); poisoned (beta=0) and
// non-finite outputs are counted over all of C, outputs that kept their input (beta=1) where the
// reference is known; every output bit goes into the digest (det=1).
#include <cmath>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/gemm/gemv/case.hpp"
#include "kernels/gemm/gemv/problem.cuh"
#include "kernels/gemm/tc/inputs.cuh"
#include "kernels/gemm/tc/sampling.hpp"
#include "sol/formats/cast.hpp"
#include "sol/ref/gemm.hpp"

namespace sol::kernels::gemm::gemv {
namespace {

using tc::InType;
using tc::operand_bits;
using tc::operand_value;

struct Dims {
  int64_t m, n, k, lda, ldw, ldc;
  bool tb, beta;
  DType out;
};
Dims dims_of(const Shape& s) {
  Dims d;
  d.m = s.at("m"), d.n = s.at("n"), d.k = s.at("k");
  d.tb = s.get("tb", 1) != 0;
  d.beta = s.get("beta", 0) != 0;
  d.out = s.get("c32", 0) ? DType::f32 : s.get("c16", 0) ? DType::f16 : DType::bf16;
  d.lda = s.get("lda", d.k), d.ldw = s.get("ldb", d.tb ? d.k : d.n), d.ldc = s.get("ldc", d.n);
  return d;
}

// C's initial values (beta=1) are hashed values of C's own 16-bit kind; f32 C holds bf16 values.
InType c_kind(DType out) { return out == DType::f16 ? InType::fp16 : InType::bf16; }

__global__ void fill_bits_kernel(uint16_t* gOut, int64_t n, InType t, uint64_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) gOut[i] = operand_bits(t, seed, uint64_t(i));
}

__global__ void fill_f32_kernel(uint32_t* gOut, int64_t n, uint64_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    gOut[i] = uint32_t(operand_bits(InType::bf16, seed, uint64_t(i))) << 16;
}

double decode_f16(uint16_t b) { return formats::decode_value(formats::Format::fp16, b); }

class GemvCase final : public Case {
 public:
  GemvCase(Version v, const Dims& d, const CaseOptions& opts) : v_(v), d_(d), ob_(d.out == DType::f32 ? 4 : 2) {
    const int64_t w_rows = d.tb ? d.n : d.k;
    sets_ = rotating_sets(2.0 * double(d.m * d.lda + w_rows * d.ldw) + double(ob_) * double(d.m * d.ldc), opts);
    for (int i = 0; i < sets_; ++i) {
      a_.emplace_back(d.m * d.lda);
      w_.emplace_back(w_rows * d.ldw);
      c_.emplace_back(d.m * d.ldc * ob_);
    }
    const size_t ws = workspace_bytes(v.rung, d.m, d.n, d.k);
    if (ws > 0) workspace_ = DeviceBuffer<uint8_t>(int64_t(ws));
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    seed_ = seed;
    for (int i = 0; i < sets_; ++i) {
      fill16(a_[size_t(i)].get(), d_.m * d_.lda, in_kind(), seed_of(i, 0xA));
      fill16(w_[size_t(i)].get(), (d_.tb ? d_.n : d_.k) * d_.ldw, in_kind(), seed_of(i, 0xB));
      if (d_.beta) fill_c(i);
    }
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  // beta = 0: C is write-only, poison it. beta = 1: C is an input; restore it (an element the
  // kernel skips then still holds its input bits, which the check counts as unwritten).
  void poison(int set) override {
    if (!d_.beta) return c_.at(size_t(set)).poison();
    fill_c(set);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run(int set, void* stream) override {
    const size_t ws = size_t(workspace_.bytes());
    gemv::launch(v_.rung, problem(set), ws ? workspace_.get() : nullptr, ws, static_cast<cudaStream_t>(stream));
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2;
    const std::vector<uint8_t> got = c_[0].to_host<uint8_t>(0, d_.m * d_.ldc * ob_);
    const uint64_t sa = seed_of(0, 0xA), sw = seed_of(0, 0xB), sc = seed_of(0, 0xC);
    const auto bits_at = [&](int64_t i) -> uint32_t {
      if (ob_ == 4) return uint32_t(got[size_t(4 * i)]) | uint32_t(got[size_t(4 * i + 1)]) << 8 |
                           uint32_t(got[size_t(4 * i + 2)]) << 16 | uint32_t(got[size_t(4 * i + 3)]) << 24;
      return uint32_t(got[size_t(2 * i)]) | uint32_t(got[size_t(2 * i + 1)]) << 8;
    };
    const auto value_of = [&](uint32_t b) {
      if (d_.out == DType::f32) return double(decode_f32(b));
      return d_.out == DType::f16 ? decode_f16(uint16_t(b)) : decode_bf16(uint16_t(b));
    };
    const auto input_bits = [&](int64_t i) -> uint32_t {
      const uint32_t b = operand_bits(c_kind(d_.out), sc, uint64_t(i));
      return d_.out == DType::f32 ? b << 16 : b;
    };
    // beta = 0: an element still poisoned was skipped. beta = 1: one that still holds C's input bits
    // was skipped only where the reference is at least 2 ulp of that input away from it (a written
    // alpha·Σ smaller than that can round back to the input's bits), so the sampled pass judges
    // it, with the reference at hand, and the whole pass only judges poison.
    const auto poisoned = [&](uint32_t b) { return !d_.beta && b == (ob_ == 4 ? 0xFFFFFFFFu : 0xFFFFu); };
    const auto kept_input = [&](int64_t i, uint32_t b, double ref) {
      if (!d_.beta || b != input_bits(i)) return false;
      const double in = value_of(b), ulp = std::abs(value_of(b + 1) - in);
      return std::abs(ref - in) >= 2 * ulp;
    };
    const std::vector<int64_t> picks = tc::sample_outputs(d_.m, d_.n, d_.k, int64_t(1) << 27, 4096);
    CheckResult err = compare(int64_t(picks.size()), tol, [&](int64_t j) {
      const int64_t r = picks[size_t(j)] / d_.n, c = picks[size_t(j)] % d_.n, at = r * d_.ldc + c;
      std::vector<double> a(size_t(d_.k)), w(size_t(d_.k));
      for (int64_t i = 0; i < d_.k; ++i) {
        a[size_t(i)] = operand_value(in_kind(), sa, uint64_t(r * d_.lda + i));
        w[size_t(i)] = operand_value(in_kind(), sw, uint64_t(d_.tb ? c * d_.ldw + i : i * d_.ldw + c));
      }
      const double c_in = d_.beta ? operand_value(c_kind(d_.out), sc, uint64_t(at)) : 0.0;
      const uint32_t b = bits_at(at);
      const double ref = ref::gemm_element(a.data(), 1, w.data(), 1, d_.k, double(kAlpha), d_.beta ? double(kBeta) : 0.0, c_in).value;
      return Sample{value_of(b), ref, poisoned(b) || kept_input(at, b, ref)};
    }, 2 * d_.k);  // each sample a k-long dot product: spread over the host's cores
    uint64_t digest = 0x6A09E667F3BCC908ull;
    const CheckResult whole = compare(d_.m * d_.n, tol, [&](int64_t i) {
      const uint32_t b = bits_at((i / d_.n) * d_.ldc + i % d_.n);
      const double v = value_of(b);
      return Sample{std::isfinite(v) ? 0.0 : v, 0.0, poisoned(b)};
    });
    for (int64_t i = 0; i < d_.m * d_.n; ++i) digest = hash64(digest, (uint64_t(i) << 32) ^ bits_at((i / d_.n) * d_.ldc + i % d_.n));
    CheckResult out = whole;
    out.rel_l2 = err.rel_l2;
    out.ok = whole.ok && err.rel_l2 <= tol;
    const std::string gap = tc::gap_written(d_.m, d_.n, d_.ldc, [&](int64_t i) {
      return d_.beta ? bits_at(i) == input_bits(i) : poisoned(bits_at(i));
    });
    if (!gap.empty() && out.ok) {
      out.ok = false;
      out.detail = gap;
    }
    if (err.rel_l2 > tol) out.detail += (out.detail.empty() ? "" : "; ") + err.detail.substr(err.detail.find("rel_l2"));
    out.output_digest = digest | 1;  // never 0 ("no digest")
    return out;
  }

 private:
  InType in_kind() const { return v_.fp16 ? InType::fp16 : InType::bf16; }
  uint64_t seed_of(int set, uint64_t which) const { return hash64(set_seed(seed_, set), which); }

  static void fill16(uint16_t* p, int64_t n, InType t, uint64_t seed) {
    fill_bits_kernel<<<unsigned(std::min<int64_t>(blocks_for(n, 256), 65536)), 256>>>(p, n, t, seed);
    SOL_LAUNCH_CHECK();
  }

  void fill_c(int set) {
    const int64_t n = d_.m * d_.ldc;
    void* p = c_[size_t(set)].get();
    if (ob_ == 4) {
      fill_f32_kernel<<<unsigned(std::min<int64_t>(blocks_for(n, 256), 65536)), 256>>>(static_cast<uint32_t*>(p), n,
                                                                                       seed_of(set, 0xC));
      SOL_LAUNCH_CHECK();
    } else {
      fill16(static_cast<uint16_t*>(p), n, c_kind(d_.out), seed_of(set, 0xC));
    }
  }

  Problem problem(int set) const {
    Problem p;
    p.m = d_.m, p.n = d_.n, p.k = d_.k;
    p.in = v_.fp16 ? DType::f16 : DType::bf16;
    p.out = d_.out;
    p.w_k_contiguous = d_.tb;
    p.A = a_[size_t(set)].get(), p.W = w_[size_t(set)].get(), p.C = c_[size_t(set)].get();
    p.lda = d_.lda, p.ldw = d_.ldw, p.ldc = d_.ldc;
    p.alpha = kAlpha, p.beta = d_.beta ? kBeta : 0.f;
    return p;
  }

  Version v_;
  Dims d_;
  int64_t ob_;
  int sets_ = 1;
  std::vector<DeviceBuffer<uint16_t>> a_, w_;
  std::vector<DeviceBuffer<uint8_t>> c_;
  DeviceBuffer<uint8_t> workspace_;
  uint64_t seed_ = 0;
  bool randomized_ = false;
};

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty())
    bad_input(std::string(v.fp16 ? "gemm_fp16" : "gemm_bf16") + ": " + why);
  return std::make_unique<GemvCase>(v, dims_of(s), opts);
}

}  // namespace sol::kernels::gemm::gemv

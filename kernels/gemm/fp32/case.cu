// Registry wrapper for gemm_fp32: one GemmCase runs any rung or a cuBLAS peer on rotating sets of
// A, B, C filled with hashed random values (±[0.25, 4), never zero). The check reads all of C
// back: every element is scanned for unwritten (still the poison, or for beta=1 still the input
// bits) and non-finite values; the values are compared in double against alpha·A·B + beta·C_in at
// every element for small C and at 8192 elements picked by a fixed hash otherwise (corners, last
// row and column always among them: that is where edge bugs live), so the 4096³ headline checks
// in well under a second.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/cublas_check.cuh"
#include "kernels/common/random.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/gemm/fp32/case.hpp"
#include "kernels/gemm/fp32/gemm.cuh"
#include "sol/kernels.hpp"
#include "sol/ref/gemm.hpp"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr float kAlpha = 1.25f;
constexpr int64_t kFullCheck = 16384;  // outputs up to this many are all compared
constexpr int64_t kSamples = 8192;     // otherwise this many, by a fixed hash
constexpr int64_t kEdgeSamples = 256;  // of which these lie on the last row and last column
constexpr uint64_t kSampleSeed = 0x5A3B1E;

bool is_peer(Version v) { return v == Version::peer_cublas_sgemm || v == Version::peer_cublas_tf32; }

// The tolerance the check applies at depth k (fp32 versions). A dot product of k random-sign
// terms summed in fp32 has a relative error of about u·sqrt(k/2) (u = 2^-24: each addition rounds
// with error ~u·|partial sum|, partial sums grow as sqrt(i)): 2.2e-6 at k = 8192. The check allows
// 1e-5·sqrt(k/8192) (≈ 4× that), clamped to [8.8e-7 at k ≤ 64, 1e-5 at k ≥ 8192] so that it never
// exceeds the declared tolerance.
double tol_at(Version v, int64_t k) {
  if (v == Version::peer_cublas_tf32) return tolerance(v).rel_l2;
  const double kk = double(std::clamp<int64_t>(k, 64, 8192));
  return tolerance(v).rel_l2 * std::sqrt(kk / 8192.0);
}

LaunchInfo plan(Version v, const GemmArgs& g) {
  switch (v) {
#define SOL_GEMM_FP32_PLAN_CASE(name, ...) \
  case Version::name: return name##_plan(g);
    SOL_GEMM_FP32_RUNGS(SOL_GEMM_FP32_PLAN_CASE)
#undef SOL_GEMM_FP32_PLAN_CASE
    default: return {};
  }
}

class GemmCase final : public Case {
 public:
  GemmCase(Version v, const Shape& s, const CaseOptions& opts)
      : v_(v), m_(s.at("m")), n_(s.at("n")), k_(s.at("k")), beta_(float(s.get("beta", 0))) {
    sets_ = rotating_sets(4.0 * double(m_ * k_ + k_ * n_ + m_ * n_), opts);
    for (int i = 0; i < sets_; ++i) a_.emplace_back(m_ * k_), b_.emplace_back(k_ * n_), c_.emplace_back(m_ * n_);
    if (v == Version::dispatch) {  // every set's workspace need is the same: allocated once, here
      size_t bytes = 0;
      for (int i = 0; i < sets_; ++i) bytes = std::max(bytes, sol::matmul_workspace_size(api_args(i)));
      api_workspace_ = DeviceBuffer<uint8_t>(int64_t(bytes));
    }
    if (is_peer(v)) {
      SOL_CUBLAS_CHECK(cublas::blas().cublasCreate(&handle_));
      // Stated explicitly: DEFAULT math keeps SGEMM in true fp32 (no TF32); the _tf32 peer opts in.
      SOL_CUBLAS_CHECK(cublas::blas().cublasSetMathMode(
          handle_, v == Version::peer_cublas_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    }
  }
  ~GemmCase() override {
    if (handle_) (void)cublas::blas().cublasDestroy(handle_);
  }
  GemmCase(const GemmCase&) = delete;
  GemmCase& operator=(const GemmCase&) = delete;

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    seed_ = seed;
    for (int i = 0; i < sets_; ++i) {
      fill_random_f32(a_[size_t(i)].get(), m_ * k_, seed_a(i), Dist::Signed, nullptr);
      fill_random_f32(b_[size_t(i)].get(), k_ * n_, seed_b(i), Dist::Signed, nullptr);
      if (beta_ != 0) fill_random_f32(c_[size_t(i)].get(), m_ * n_, seed_c(i), Dist::Signed, nullptr);
    }
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  // beta = 0: C is write-only, poison it. beta = 1: C is an input; restore it (an element the
  // kernel skips then still holds its input bits, which the check counts as unwritten).
  void poison(int set) override {
    if (beta_ == 0) return c_.at(size_t(set)).poison();
    fill_random_f32(c_.at(size_t(set)).get(), m_ * n_, seed_c(set), Dist::Signed, nullptr);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run(int set, void* stream) override {
    const GemmArgs g = args(set);
    const auto st = static_cast<cudaStream_t>(stream);
    if (v_ == Version::dispatch) return sol::matmul(api_args(set), api_workspace_.get(), size_t(api_workspace_.bytes()), st);
    if (!is_peer(v_)) return launch_gemm(plan(v_, g), g, st);
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B (n × k column-major, ld n) times A (ld k).
    SOL_CUBLAS_CHECK(cublas::blas().cublasSetStream(handle_, st));
    SOL_CUBLAS_CHECK(cublas::blas().cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &g.alpha, g.b, g.n,
                                                g.a, g.k, &g.beta, g.c, g.n));
  }

  LaunchInfo launch() const override {
    return is_peer(v_) || v_ == Version::dispatch ? LaunchInfo{} : plan(v_, args(0));
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const int64_t outputs = m_ * n_;
    const std::vector<uint32_t> got = c_[0].to_host<uint32_t>(0, outputs);
    // 1. Every element: written (not the poison / not the untouched input) and finite.
    const int chunks = host_chunks(outputs);
    std::vector<ComparePart> scan(static_cast<size_t>(chunks));
    parallel_chunks(
        outputs,
        [&](int64_t b, int64_t e, int c) {
          ComparePart& p = scan[size_t(c)];
          for (int64_t i = b; i < e; ++i) {
            const bool unwritten = beta_ == 0 ? got[size_t(i)] == 0xFFFFFFFFu
                                              : got[size_t(i)] == random_f32_bits(seed_c(0), uint64_t(i), Dist::Signed);
            if (unwritten) {
              if (p.unwritten++ == 0) p.first_unwritten = i;
            } else if (!std::isfinite(decode_f32(got[size_t(i)]))) {
              if (p.nonfinite++ == 0) p.first_nonfinite = i;
            }
          }
        },
        chunks);
    // 2. Values, against double at the sampled (or all) elements.
    // With beta = 1 the result α·A·B + C may cancel; fp32 rounds relative to the two terms, so the
    // error is judged against ‖|α·A·B| + |C|‖ where that exceeds ‖result‖ (never looser for beta = 0).
    const int64_t samples = outputs <= kFullCheck ? outputs : kSamples;
    std::vector<ref::GemmElement> refs(static_cast<size_t>(samples));
    parallel_chunks(
        samples,
        [&](int64_t b, int64_t e, int) {
          for (int64_t s = b; s < e; ++s) {
            const int64_t at = sample_at(s, outputs);
            refs[size_t(s)] = reference(at / n_, at % n_);
          }
        },
        host_chunks(samples));
    double terms2 = 0;
    for (const ref::GemmElement& f : refs) terms2 += f.terms * f.terms;
    CheckResult r = compare_floored(samples, terms2, tol_at(v_, k_), [&](int64_t s) {
      return Sample{decode_f32(got[size_t(sample_at(s, outputs))]), refs[size_t(s)].value, false};
    });
    int64_t unwritten = 0, first_unwritten = -1, nonfinite = 0, first_nonfinite = -1;
    for (const ComparePart& p : scan) {
      if (p.unwritten && first_unwritten < 0) first_unwritten = p.first_unwritten;
      if (p.nonfinite && first_nonfinite < 0) first_nonfinite = p.first_nonfinite;
      unwritten += p.unwritten, nonfinite += p.nonfinite;
    }
    r.unwritten = unwritten;
    r.nonfinite = nonfinite;
    auto where = [&](int64_t i) { return "C[" + std::to_string(i / n_) + ", " + std::to_string(i % n_) + "]"; };
    if (unwritten) r.detail += (r.detail.empty() ? "" : "; ") + std::string("first unwritten at ") + where(first_unwritten);
    if (nonfinite) r.detail += (r.detail.empty() ? "" : "; ") + std::string("first non-finite at ") + where(first_nonfinite);
    r.ok = r.ok && unwritten == 0 && nonfinite == 0;
    return r;
  }

 private:
  uint64_t seed_a(int set) const { return set_seed(seed_, set); }
  uint64_t seed_b(int set) const { return set_seed(seed_ ^ 0xB, set); }
  uint64_t seed_c(int set) const { return set_seed(seed_ ^ 0xC, set); }

  GemmArgs args(int set) const {
    GemmArgs g;
    g.a = a_.at(size_t(set)).get();
    g.b = b_.at(size_t(set)).get();
    g.c = c_.at(size_t(set)).get();
    g.m = int(m_), g.n = int(n_), g.k = int(k_);
    g.alpha = kAlpha;
    g.beta = beta_;
    return g;
  }

  // The public API's arguments for set `set`: f32, A m×k and B k×n row-major (NN), packed.
  MatmulArgs api_args(int set) const {
    const GemmArgs g = args(set);
    MatmulArgs a;
    a.m = m_, a.n = n_, a.k = k_;
    a.a_type = a.b_type = a.c_type = DType::f32;
    a.trans_a = a.trans_b = Transpose::N;
    a.a = g.a, a.b = g.b, a.c = g.c;
    a.alpha = g.alpha, a.beta = g.beta;
    return a;
  }

  // The output element the s-th check looks at: all of C when it is small; otherwise the four
  // corners, then kEdgeSamples on the last row and last column, then hashed positions.
  int64_t sample_at(int64_t s, int64_t outputs) const {
    if (outputs <= kFullCheck) return s;
    const uint64_t h = hash64(kSampleSeed, uint64_t(s));
    const int64_t corners[4] = {0, n_ - 1, (m_ - 1) * n_, m_ * n_ - 1};
    if (s < 4) return corners[s];
    if (s < 4 + kEdgeSamples)
      return s % 2 ? (m_ - 1) * n_ + int64_t(h % uint64_t(n_)) : int64_t(h % uint64_t(m_)) * n_ + n_ - 1;
    return int64_t(h % uint64_t(outputs));
  }

  // alpha·Σ A[r, i]·B[i, c] + beta·C_in[r, c] (sol::ref) from the hashed inputs of set 0.
  ref::GemmElement reference(int64_t r, int64_t c) const {
    std::vector<double> a(static_cast<size_t>(k_)), b(a.size());
    for (int64_t i = 0; i < k_; ++i) {
      a[size_t(i)] = decode_f32(random_f32_bits(seed_a(0), uint64_t(r * k_ + i), Dist::Signed));
      b[size_t(i)] = decode_f32(random_f32_bits(seed_b(0), uint64_t(i * n_ + c), Dist::Signed));
    }
    const double c_in = beta_ != 0 ? decode_f32(random_f32_bits(seed_c(0), uint64_t(r * n_ + c), Dist::Signed)) : 0.0;
    return ref::gemm_element(a.data(), 1, b.data(), 1, k_, double(kAlpha), double(beta_), c_in);
  }

  Version v_;
  int64_t m_, n_, k_;
  float beta_;
  int sets_ = 1;
  std::vector<DeviceBuffer<float>> a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer<uint8_t> api_workspace_;  // dispatch: sol::matmul's workspace
  uint64_t seed_ = 0;
  bool randomized_ = false;
};

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input("gemm_fp32: " + why);
  return std::make_unique<GemmCase>(v, s, opts);
}

}  // namespace sol::kernels::gemm::fp32

// Registry wrapper for coalescing. The sums get their own Case: the reference is a double sum
// of the same hashed inputs along the axis the version sums (rows for v01, columns for v02).
// The strided read is a GatherCase with source(j) = j·stride.
#include <algorithm>
#include <vector>

#include "kernels/coalescing/case.hpp"
#include "kernels/coalescing/coalescing.cuh"
#include "kernels/common/gather_case.cuh"

namespace sol::kernels::coalescing {
namespace {

class SumCase final : public Case {
 public:
  SumCase(Version v, int64_t rows, int64_t cols, const CaseOptions& opts)
      : v_(v), rows_(rows), cols_(cols), outs_(v == Version::v01_row_per_thread ? rows : cols) {
    sets_ = rotating_sets(4.0 * double(rows * cols + outs_), opts);
    for (int s = 0; s < sets_; ++s) {
      a_.emplace_back(rows * cols);
      out_.emplace_back(outs_);
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int s = 0; s < sets_; ++s) Elem<float>::fill(a_[size_t(s)].get(), rows_ * cols_, set_seed(seed, s), kDist, nullptr);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    const uint64_t seed0 = set_seed(seed, 0);
    const bool by_row = v_ == Version::v01_row_per_thread;
    const int64_t len = by_row ? cols_ : rows_;
    ref_.assign(size_t(outs_), 0.0);
    parallel_chunks(
        outs_,
        [&](int64_t begin, int64_t end, int) {
          for (int64_t j = begin; j < end; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < len; ++k)
              acc += Elem<float>::decode(Elem<float>::draw(seed0, uint64_t(by_row ? j * cols_ + k : k * cols_ + j), kDist));
            ref_[size_t(j)] = acc;
          }
        },
        int(std::min<int64_t>(outs_, host_chunks(rows_ * cols_))));  // split by work, not by outputs
  }

  void poison(int set) override { out_.at(size_t(set)).poison(); }

  void run(int set, void* stream) override {
    const float* a = a_.at(size_t(set)).get();
    float* out = out_.at(size_t(set)).get();
    if (v_ == Version::v01_row_per_thread)
      v01_row_per_thread(a, out, rows_, cols_, static_cast<cudaStream_t>(stream));
    else
      v02_col_per_thread(a, out, rows_, cols_, static_cast<cudaStream_t>(stream));
  }

  CheckResult check() override {
    if (ref_.empty()) failure("check() called before randomize()", "randomize the inputs first");
    const std::vector<uint32_t> got = out_[0].to_host<uint32_t>(0, outs_);
    return compare(outs_, tolerance(v_).rel_l2, [&](int64_t j) {
      return Sample{decode_f32(got[size_t(j)]), ref_[size_t(j)], is_poison(got[size_t(j)])};
    });
  }

  LaunchInfo launch() const override {
    return v_ == Version::v01_row_per_thread ? v01_row_per_thread_plan(rows_, cols_)
                                             : v02_col_per_thread_plan(rows_, cols_);
  }

 private:
  static constexpr Dist kDist = Dist::Positive;  // no cancellation: the relative error means something
  Version v_;
  int64_t rows_, cols_, outs_;
  int sets_ = 1;
  std::vector<DeviceBuffer<float>> a_, out_;
  std::vector<double> ref_;
};

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (v != Version::v03_strided) return std::make_unique<SumCase>(v, s.at("rows"), s.at("cols"), opts);
  const int64_t n = s.at("n"), stride = s.at("stride");
  GatherSpec<float> spec;
  spec.in_elems = (n - 1) * stride + 1;
  spec.out_elems = n;
  spec.tol = tolerance(v).rel_l2;
  spec.source = [stride](int64_t j) { return j * stride; };
  spec.run = [n, stride](const float* i, float* o, cudaStream_t st) { v03_strided(i, o, n, stride, st); };
  spec.plan = [n, stride](const float*, const float*) { return v03_strided_plan(n, stride); };
  return std::make_unique<GatherCase<float>>(std::move(spec), opts);
}

}  // namespace sol::kernels::coalescing

// Variants that test the harness itself: y = 2x + 1 over n fp32 elements, once right, once leaving
// the tail unwritten (poison detection must catch it), once with wrong values (the tolerance
// must), and once staged through 40 KiB of static shared memory (occupancy limited by it).
#include "bench/gpu.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/random.cuh"

namespace sol::bench {

namespace {

enum class Kind { Right, BrokenTail, BrokenValues, Staged };

constexpr int kBlock = 256;
constexpr int kStagedFloats = 10 * 1024;  // 40 KiB of static shared memory per block

__global__ void axpb_kernel(const float* __restrict__ gX, float* __restrict__ gY, int64_t n, int64_t written, float b) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < written; i += stride) gY[i] = 2.0f * gX[i] + b;
  (void)n;
}

// Each block stages a chunk of x in shared memory, then writes 2x + 1 from it.
__global__ void staged_kernel(const float* __restrict__ gX, float* __restrict__ gY, int64_t n) {
  __shared__ float sX[kStagedFloats];
  for (int64_t base = int64_t(blockIdx.x) * kStagedFloats; base < n; base += int64_t(gridDim.x) * kStagedFloats) {
    for (int i = threadIdx.x; i < kStagedFloats && base + i < n; i += blockDim.x) sX[i] = gX[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < kStagedFloats && base + i < n; i += blockDim.x) gY[base + i] = 2.0f * sX[i] + 1.0f;
    __syncthreads();
  }
}

class SelfTestCase : public Case {
 public:
  SelfTestCase(Kind kind, int64_t n, const CaseOptions& o) : kind_(kind), n_(n) {
    sets_ = kernels::rotating_sets(8.0 * double(n), o);
    for (int s = 0; s < sets_; ++s) {
      x_.emplace_back(n);
      y_.emplace_back(n);
    }
  }
  int sets() const override { return sets_; }
  void randomize(uint64_t seed) override {
    seed_ = seed;
    for (int s = 0; s < sets_; ++s)
      kernels::fill_random_f32(x_[size_t(s)].get(), n_, kernels::set_seed(seed, s), kernels::Dist::Signed, nullptr);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void poison(int set) override { y_[size_t(set)].poison(); }
  void run(int set, void* stream) override {
    const LaunchInfo li = launch();
    auto st = static_cast<cudaStream_t>(stream);
    const float* gX = x_[size_t(set)].get();
    float* gY = y_[size_t(set)].get();
    if (kind_ == Kind::Staged) {
      staged_kernel<<<unsigned(li.grid_blocks), kBlock, 0, st>>>(gX, gY, n_);
    } else {
      const int64_t written = kind_ == Kind::BrokenTail ? n_ - (n_ / 8 + 1) : n_;
      const float b = kind_ == Kind::BrokenValues ? 0.0f : 1.0f;
      axpb_kernel<<<unsigned(li.grid_blocks), kBlock, 0, st>>>(gX, gY, n_, written, b);
    }
    SOL_LAUNCH_CHECK();
  }
  CheckResult check() override {
    const std::vector<uint32_t> out = y_[0].to_host<uint32_t>(0, n_);
    const uint64_t seed0 = kernels::set_seed(seed_, 0);
    return kernels::compare(n_, 1e-6, [&](int64_t i) {
      kernels::Sample s;
      s.unwritten = out[size_t(i)] == 0xFFFFFFFFu;
      s.got = kernels::decode_f32(out[size_t(i)]);
      s.ref = 2.0 * kernels::decode_f32(kernels::random_f32_bits(seed0, uint64_t(i), kernels::Dist::Signed)) + 1.0;
      return s;
    });
  }
  LaunchInfo launch() const override {
    LaunchInfo li;
    li.block_threads = kBlock;
    if (kind_ == Kind::Staged) {
      li.func = reinterpret_cast<const void*>(&staged_kernel);
      li.grid_blocks = std::min<int64_t>((n_ + kStagedFloats - 1) / kStagedFloats, 4096);
    } else {
      li.func = reinterpret_cast<const void*>(&axpb_kernel);
      li.grid_blocks = std::min<int64_t>((n_ + kBlock - 1) / kBlock, 65535);
    }
    return li;
  }

 private:
  Kind kind_;
  int64_t n_;
  int sets_ = 1;
  uint64_t seed_ = 0;
  std::vector<kernels::DeviceBuffer<float>> x_, y_;
};

Variant selftest(Kind kind, int version, const char* name, const char* technique) {
  Variant v;
  v.family = "selftest";
  v.name = name;
  v.version = version;
  v.technique = technique;
  v.min_cc = 70;
  v.unsupported = [](const Shape& s) -> std::string {
    if (!s.has("n")) return "needs n";
    if (s.at("n") < 1) return "n must be ≥ 1";
    if (s.dims.size() != 1) return "only n is a dimension of selftest";
    return "";
  };
  v.cost = [](const Shape& s) {
    model::Cost c;
    const double n = double(s.at("n"));
    c.op = "y = 2x + 1 over " + std::to_string(s.at("n")) + " fp32";
    c.flops = 2 * n;
    c.bytes = 8 * n;
    c.unit = hw::Unit::Vector;
    c.dtype = DType::f32;
    c.notes = {"reads x once (4 B) and writes y once (4 B) per element"};
    return c;
  };
  v.bench_shapes = {Shape::parse("n=2^26"), Shape::parse("n=2^20")};
  v.test_shapes = {Shape::parse("n=1"), Shape::parse("n=1000003"), Shape::parse("n=4097")};
  v.tol = {1e-6, "fp32 output, one rounding per element"};
  v.make = [kind](const Shape& s, const CaseOptions& o) -> std::unique_ptr<Case> {
    return std::make_unique<SelfTestCase>(kind, s.at("n"), o);
  };
  return v;
}

}  // namespace

const std::vector<Variant>& selftest_variants() {
  static const std::vector<Variant> v = {
      selftest(Kind::Right, 1, "v01_axpb", "grid-stride y = 2x + 1"),
      selftest(Kind::Staged, 2, "v02_staged", "through 40 KiB of static shared memory per block"),
      selftest(Kind::BrokenTail, 90, "broken_tail", "deliberately leaves the last n/8 + 1 elements unwritten"),
      selftest(Kind::BrokenValues, 91, "broken_values", "deliberately computes 2x instead of 2x + 1"),
  };
  return v;
}

}  // namespace sol::bench

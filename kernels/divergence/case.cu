// Registry wrapper for divergence: a GatherCase with source(j) = j whose f adds thread j's
// exact increments (inputs are small integers, so the expected value is exact too).
#include "kernels/common/gather_case.cuh"
#include "kernels/divergence/case.hpp"
#include "kernels/divergence/divergence.cuh"

namespace sol::kernels::divergence {
namespace {

// Keeps x + (FMAs per thread) below 2^24, where every fp32 integer is exact (x ≤ 4096).
constexpr int64_t kMaxTrips = int64_t(1) << 23;

int64_t threads_of(const Shape& s) { return s.get("threads", kDefaultThreads); }

}  // namespace

int64_t sum_of_rank(int64_t threads, int64_t group) {
  const int64_t q = threads / group, r = threads % group, m = q % 32;
  const int64_t full_groups = (q / 32) * (31 * 32 / 2) + m * (m - 1) / 2;  // Σ_{w<q} w % 32
  return group * full_groups + r * m;
}

std::string unsupported(Version v, const Shape& s) {
  const DimRule threads{"threads", 1, int64_t(1) << 40, false};
  if (v == Version::v01_warp_split) return check_dims(s, {{"ways", 1, 32}, threads});
  std::string why = check_dims(s, {{"base", 0, kMaxTrips}, {"spread", 0, kMaxTrips}, threads});
  if (why.empty() && s.at("base") + 31 * s.at("spread") > kMaxTrips)
    why = "base + 31·spread > 2^23 FMAs: the exact-integer check needs results below 2^24";
  return why;
}

model::Cost cost(Version v, const Shape& s) {
  const int64_t threads = threads_of(s);
  double fmas = double(threads) * kChainFmas;
  std::string op = std::to_string(s.get("ways", 0)) + "-way split warps, " + std::to_string(threads) + " threads × " +
                   std::to_string(kChainFmas) + " fp32 FMAs";
  if (v != Version::v01_warp_split) {
    const int64_t group = v == Version::v02_loop_varied ? 1 : 32;
    fmas = double(threads) * double(s.at("base")) + double(s.at("spread")) * double(sum_of_rank(threads, group));
    op = std::string(v == Version::v02_loop_varied ? "varied" : "sorted") + " trip counts, " + std::to_string(threads) +
         " threads × (" + std::to_string(s.at("base")) + " + rank·" + std::to_string(s.at("spread")) + ") fp32 FMAs";
  }
  return vector_cost(op, 2 * fmas, 8.0 * double(threads), DType::f32,
                     {"flops = 2 per useful FMA (masked-off lanes do not count)",
                      "bytes = one fp32 read and one written per thread"});
}

Tolerance tolerance(Version) {
  return {0.0, "integer-valued fp32 below 2^24: every FMA in the chain is exact, so is the result"};
}

std::unique_ptr<Case> make(Version v, const Shape& s) {
  const int64_t threads = threads_of(s);
  GatherSpec<float> spec;
  spec.in_elems = spec.out_elems = threads;
  spec.dist = Dist::SmallInt;
  spec.tol = tolerance(v).rel_l2;
  switch (v) {
    case Version::v01_warp_split: {
      const int ways = int(s.at("ways"));
      spec.f = [ways](double x, int64_t t) { return x + double(kChainFmas) * double(1 + (t % 32) % ways); };
      spec.run = [threads, ways](const float* i, float* o, cudaStream_t st) { v01_warp_split(i, o, threads, ways, st); };
      spec.plan = [threads](const float*, const float*) { return v01_warp_split_plan(threads); };
      break;
    }
    case Version::v02_loop_varied:
    case Version::v03_loop_sorted: {
      const int64_t base = s.at("base"), spread = s.at("spread");
      const bool varied = v == Version::v02_loop_varied;
      spec.f = [=](double x, int64_t t) {  // trip count of thread t, as divergence.cuh states it
        return x + double(base + (varied ? t % 32 : (t / 32) % 32) * spread);
      };
      spec.run = [=](const float* i, float* o, cudaStream_t st) {
        (varied ? v02_loop_varied : v03_loop_sorted)(i, o, threads, base, spread, st);
      };
      spec.plan = [=](const float*, const float*) {
        return varied ? v02_loop_varied_plan(threads) : v03_loop_sorted_plan(threads);
      };
      break;
    }
  }
  return std::make_unique<GatherCase<float>>(std::move(spec));
}

}  // namespace sol::kernels::divergence

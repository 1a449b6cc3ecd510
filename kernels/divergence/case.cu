// Registry wrapper for divergence: a GatherCase with source(j) = j whose f adds thread j's
// exact increments (inputs are small integers, so the expected value is exact too).
#include "kernels/common/gather_case.cuh"
#include "kernels/divergence/case.hpp"
#include "kernels/divergence/divergence.cuh"

namespace sol::kernels::divergence {

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
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
  return std::make_unique<GatherCase<float>>(std::move(spec), opts);
}

}  // namespace sol::kernels::divergence

// divergence v02 — a loop whose trip count varies across the warp: lane i runs
// base + i·spread FMAs (variable-length sequences without padding, §7.1). Every warp runs
// base + 31·spread iterations while its lanes average base + 15.5·spread: useful FLOP/s is
// (base + 15.5·spread)/(base + 31·spread) of the fp32 peak — about ½ when spread ≫ base.
// Expected bottleneck: the FP32 pipe, half idle; memory is 8 B per thread.
#include "kernels/divergence/trip_loop.cuh"

namespace sol::kernels::divergence {
namespace {
struct LaneRank {
  __device__ int64_t operator()(int64_t t) const { return t % 32; }
};
}  // namespace

LaunchInfo v02_loop_varied_plan(int64_t threads) { return plan_trip_loop<LaneRank>(threads); }

void v02_loop_varied(const float* gX, float* gY, int64_t threads, int64_t base, int64_t spread, cudaStream_t stream) {
  trip_loop<LaneRank>(gX, gY, threads, base, spread, stream);
}

}  // namespace sol::kernels::divergence

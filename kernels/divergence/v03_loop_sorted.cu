// divergence v03 — the same work sorted so that a warp's lanes agree: thread t runs
// base + ((t / 32) % 32)·spread FMAs. Over any 1024 threads the trip counts are exactly v02's
// (each value 32 times), but a warp now runs only as long as its own lanes need: the fix for
// variable-length work is to bucket it by length before launching.
// Expected bottleneck: the FP32 pipe at full use; time ≈ (base + 15.5·spread)/(base + 31·spread)
// of v02's.
#include "kernels/divergence/trip_loop.cuh"

namespace sol::kernels::divergence {
namespace {
struct WarpRank {
  __device__ int64_t operator()(int64_t t) const { return (t / 32) % 32; }
};
}  // namespace

LaunchInfo v03_loop_sorted_plan(int64_t threads) { return plan_trip_loop<WarpRank>(threads); }

void v03_loop_sorted(const float* gX, float* gY, int64_t threads, int64_t base, int64_t spread, cudaStream_t stream) {
  trip_loop<WarpRank>(gX, gY, threads, base, spread, stream);
}

}  // namespace sol::kernels::divergence

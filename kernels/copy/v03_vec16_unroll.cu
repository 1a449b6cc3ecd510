// copy v03 — several 16-byte loads in flight: each thread issues 4 float4 loads (64 B) before
// its first store, so a block of 256 threads moves one contiguous 16 KiB chunk.
// What changed: memory-level parallelism no longer depends on occupancy: 4 independent
// loads per thread (up to 128 KiB per SM in flight, ~10× what Little's law asks for on H200),
// and 4× fewer blocks to schedule. This is the bandwidth ceiling itself: target ≥ 95 % of
// cudaMemcpy device-to-device in the same run.
// Expected bottleneck: HBM, 8 B/element (4 read + 4 written).
#include "kernels/common/vec16_map.cuh"
#include "kernels/copy/copy.cuh"

namespace sol::kernels::copy {

constexpr int kVectorsPerThread = 4;

LaunchInfo v03_vec16_unroll_plan(const float* gIn, const float* gOut, int64_t n) {
  return plan_map_vec16<float, Identity, kVectorsPerThread>(gIn, gOut, n);
}

void v03_vec16_unroll(const float* gIn, float* gOut, int64_t n, cudaStream_t stream) {
  map_vec16<float, Identity, kVectorsPerThread>(gIn, gOut, n, Identity{}, stream);
}

}  // namespace sol::kernels::copy

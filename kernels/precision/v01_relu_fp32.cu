// precision v01 — ReLU in fp32: the lecture's baseline, 8 bytes per FLOP (4 read + 4 written
// for one max per element).
// What changed: the element type only; the kernel is the 16-byte, 4-in-flight map of
// kernels/common/vec16_map.cuh (4 fp32 per vector, 512 B = 16 sectors per warp request).
// Expected bottleneck: HBM, 8 B/element; time ≈ the copy ceiling's time for n fp32.
#include "kernels/common/vec16_map.cuh"
#include "kernels/precision/precision.cuh"

namespace sol::kernels::precision {
namespace {
struct ReluF32 {
  __device__ float operator()(float x) const { return fmaxf(x, 0.0f); }
};
}  // namespace

LaunchInfo v01_relu_fp32_plan(const float* gIn, const float* gOut, int64_t n) {
  return plan_map_vec16<float, ReluF32, kVectorsPerThread>(gIn, gOut, n);
}

void v01_relu_fp32(const float* gIn, float* gOut, int64_t n, cudaStream_t stream) {
  map_vec16<float, ReluF32, kVectorsPerThread>(gIn, gOut, n, ReluF32{}, stream);
}

}  // namespace sol::kernels::precision

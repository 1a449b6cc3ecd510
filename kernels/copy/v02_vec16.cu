// copy v02 — 16-byte vectors: each thread moves one float4 (ld.global.v4 / st.global.v4).
// What changed: 4× fewer load/store instructions and 4× the bytes in flight per thread
// (16 B: 32 KiB per SM at full occupancy, above the ≈ 11 KiB Little's law asks for on H200);
// a warp request is 512 B = 16 sectors. Elements before the first 16-byte boundary and after
// the last whole float4 are copied one by one (kernels/common/vec16_map.cuh).
// Expected bottleneck: HBM, 8 B/element; expect close to the copy ceiling.
#include "kernels/common/vec16_map.cuh"
#include "kernels/copy/copy.cuh"

namespace sol::kernels::copy {

constexpr int kVectorsPerThread = 1;

LaunchInfo v02_vec16_plan(const float* gIn, const float* gOut, int64_t n) {
  return plan_map_vec16<float, Identity, kVectorsPerThread>(gIn, gOut, n);
}

void v02_vec16(const float* gIn, float* gOut, int64_t n, cudaStream_t stream) {
  map_vec16<float, Identity, kVectorsPerThread>(gIn, gOut, n, Identity{}, stream);
}

}  // namespace sol::kernels::copy

// precision v02 — ReLU in bf16: 4 bytes per FLOP, half of fp32's.
// What changed: 2-byte elements; a 16-byte vector now holds 8 of them, so the same number of
// load instructions moves twice the elements. The max is bf16 arithmetic, two lanes per
// instruction (__hmax2 on bf16x2, sm_80+).
// Expected bottleneck: HBM, 4 B/element (2 read + 2 written): time ≈ ½ of v01 at the same n.
#include "kernels/common/vec16_map.cuh"
#include "kernels/precision/precision.cuh"

namespace sol::kernels::precision {
namespace {
struct ReluBf16 {
  // +0 from its bits: __float2bfloat16 is inline asm the compiler would not fold.
  __device__ static __nv_bfloat162 zero2() { return __nv_bfloat162(__nv_bfloat162_raw{0, 0}); }
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 x) const { return __hmax(x, __low2bfloat16(zero2())); }
  __device__ uint4 pack(uint4 raw) const {
    return map_pairs<__nv_bfloat162>(raw, [](__nv_bfloat162 x2) { return __hmax2(x2, zero2()); });
  }
};
}  // namespace

LaunchInfo v02_relu_bf16_plan(const __nv_bfloat16* gIn, const __nv_bfloat16* gOut, int64_t n) {
  return plan_map_vec16<__nv_bfloat16, ReluBf16, kVectorsPerThread>(gIn, gOut, n);
}

void v02_relu_bf16(const __nv_bfloat16* gIn, __nv_bfloat16* gOut, int64_t n, cudaStream_t stream) {
  map_vec16<__nv_bfloat16, ReluBf16, kVectorsPerThread>(gIn, gOut, n, ReluBf16{}, stream);
}

}  // namespace sol::kernels::precision

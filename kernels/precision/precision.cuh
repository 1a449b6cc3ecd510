#pragma once
// precision: out[i] = max(in[i], 0) (ReLU) over n elements in fp32, bf16 and fp8 e4m3 (§7.2).
// Every version uses the same kernel — four 16-byte loads in flight per thread — so only the
// element size changes: 8, 4 and 2 bytes moved per element for the same n FLOPs.
// Device pointers, any n ≥ 0 (64-bit), any element alignment, in == out allowed.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"

namespace sol::kernels::precision {

void v01_relu_fp32(const float* gIn, float* gOut, int64_t n, cudaStream_t stream);
LaunchInfo v01_relu_fp32_plan(const float* gIn, const float* gOut, int64_t n);

void v02_relu_bf16(const __nv_bfloat16* gIn, __nv_bfloat16* gOut, int64_t n, cudaStream_t stream);
LaunchInfo v02_relu_bf16_plan(const __nv_bfloat16* gIn, const __nv_bfloat16* gOut, int64_t n);

void v03_relu_fp8_e4m3(const __nv_fp8_e4m3* gIn, __nv_fp8_e4m3* gOut, int64_t n, cudaStream_t stream);
LaunchInfo v03_relu_fp8_e4m3_plan(const __nv_fp8_e4m3* gIn, const __nv_fp8_e4m3* gOut, int64_t n);

// The vectors per thread all three versions use.
inline constexpr int kVectorsPerThread = 4;

}  // namespace sol::kernels::precision

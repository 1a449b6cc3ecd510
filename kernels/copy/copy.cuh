#pragma once
// copy: out[i] = in[i] over n fp32 elements — the bandwidth ceiling, approached in three steps.
// Device pointers, any n ≥ 0 (64-bit), any 4-byte alignment; asynchronous on `stream`.
// Each launcher has a *_plan twin giving the grid it launches (for the doctor).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"

namespace sol::kernels::copy {

// v01: one 4-byte load and store per thread.
void v01_scalar(const float* gIn, float* gOut, int64_t n, cudaStream_t stream);
LaunchInfo v01_scalar_plan(const float* gIn, const float* gOut, int64_t n);

// v02: one 16-byte (float4) load and store per thread, scalar head and tail.
void v02_vec16(const float* gIn, float* gOut, int64_t n, cudaStream_t stream);
LaunchInfo v02_vec16_plan(const float* gIn, const float* gOut, int64_t n);

// v03: four 16-byte loads in flight per thread before the stores.
void v03_vec16_unroll(const float* gIn, float* gOut, int64_t n, cudaStream_t stream);
LaunchInfo v03_vec16_unroll_plan(const float* gIn, const float* gOut, int64_t n);

}  // namespace sol::kernels::copy

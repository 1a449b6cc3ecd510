#pragma once
// coalescing (§9, §12): the same memory read in the order DRAM bursts like, and in the order
// it does not. A is rows × cols fp32, row-major. Device pointers, 64-bit sizes, asynchronous.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/coalescing/launch.hpp"
#include "kernels/common/launch.cuh"

namespace sol::kernels::coalescing {

// v01: out[r] = Σ_k A[r·cols + k], one thread per row: adjacent threads are cols·4 bytes apart.
void v01_row_per_thread(const float* gA, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream);
LaunchInfo v01_row_per_thread_plan(int64_t rows, int64_t cols);

// v02: out[c] = Σ_k A[k·cols + c], one thread per column: adjacent threads read adjacent words.
void v02_col_per_thread(const float* gA, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream);
LaunchInfo v02_col_per_thread_plan(int64_t rows, int64_t cols);

// v03: out[i] = in[i·stride] for i < n; `in` holds (n − 1)·stride + 1 elements.
void v03_strided(const float* gIn, float* gOut, int64_t n, int64_t stride, cudaStream_t stream);
LaunchInfo v03_strided_plan(int64_t n, int64_t stride);

}  // namespace sol::kernels::coalescing

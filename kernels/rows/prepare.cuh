#pragma once
// The inputs the row families' Cases share (forward and backward): the softmax mask pattern and
// the device step that scales the hashed fill and applies the mask.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/elem.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/elementwise/chain.cuh"

namespace sol::kernels::rows {

// Where element (r, c) is masked (softmax, mask=1).
__host__ __device__ inline bool masked(int64_t r, int64_t c) { return r % 3 == 2 || (r % 3 == 1 && c % 4 == 1); }

// x = round_T(float(x) · scale), −inf where masked: the device step after the hashed fill.
template <class T>
__global__ void prepare_kernel(T* gX, int64_t rows, int64_t cols, float scale, bool mask) {
  const int64_t n = rows * cols, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = elementwise::to_f32(gX[i]) * scale;
    if (mask && masked(i / cols, i % cols)) v = -INFINITY;
    gX[i] = elementwise::from_f32<T>(v);
  }
}

// Launches prepare_kernel over the tensor (nothing to do when scale is 1 and there is no mask).
template <class T>
void prepare_inputs(T* gX, int64_t rows, int64_t cols, int64_t scale, bool mask) {
  if (scale == 1 && !mask) return;
  const int64_t blocks = std::min<int64_t>(blocks_for(rows * cols, 256), 65536);
  if (blocks == 0) return;
  prepare_kernel<T><<<unsigned(blocks), 256>>>(gX, rows, cols, float(scale), mask);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::rows

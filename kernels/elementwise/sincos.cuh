#pragma once
// elementwise: y = sin²x + cos²x (lecture §8), eager and fused. Device pointers, any n ≥ 0,
// any element alignment. Accurate sinf/cosf (never the __sinf intrinsics: no fast-math).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"

namespace sol::kernels::elementwise {

// Five kernels, as eager PyTorch launches them: a = sin x; a = a²; c = cos x; c = c²; y = a + c.
// gA and gC are n-element temporaries.
void v01_eager5_fp32(const float* gX, float* gY, float* gA, float* gC, int64_t n, cudaStream_t stream);
// One kernel through run_chain.
void v02_fused_fp32(const float* gX, float* gY, int64_t n, cudaStream_t stream);
LaunchInfo v02_fused_fp32_plan(const float* gX, const float* gY, int64_t n);
void v03_fused_bf16(const __nv_bfloat16* gX, __nv_bfloat16* gY, int64_t n, cudaStream_t stream);
LaunchInfo v03_fused_bf16_plan(const __nv_bfloat16* gX, const __nv_bfloat16* gY, int64_t n);

}  // namespace sol::kernels::elementwise

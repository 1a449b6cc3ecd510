#pragma once
// mx (§7.2): MXFP8 quantization from bf16 at the memory roof, dequantization, and an
// MXFP8-emulated GEMM to measure what the format costs in accuracy. Layouts are those of
// include/sol/formats/mx.hpp: X is rows × cols bf16 row-major; codes keep that layout (one
// byte per element); scales are e8m0, row-major: rowwise (1×32 blocks along a row) rows ×
// ceil(cols/32), columnwise (32×1 blocks down a column) ceil(rows/32) × cols. Any rows, cols ≥ 0
// (partial last blocks take their amax over the elements they have); 64-bit indexing; device
// pointers; asynchronous on `stream`. Every output is bit for bit what the host
// implementation (sol::formats::mx_quantize / mx_dequantize) gives on the same input.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"
#include "sol/formats/mx.hpp"

namespace sol::kernels::mx {

enum class Elem { e4m3, e5m2 };

struct Spec {
  Elem elem = Elem::e4m3;
  formats::ScaleRule rule = formats::ScaleRule::Ceil;  // the training recipes' default
};

// Where one orientation's output goes; both null: that orientation is not written.
struct Out {
  uint8_t* codes = nullptr;
  uint8_t* scales = nullptr;
};

// v01: one thread per 1×32 block, every conversion through the shared scalar code
// (formats/mx_block.hpp): bit-exact by construction, integer work per element.
void v01_rowwise_shared_code(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row,
                             cudaStream_t stream);
LaunchInfo v01_rowwise_shared_code_plan(int64_t rows, int64_t cols, Spec spec);

// v02–v04: the 32-row tile kernel (quantize_tile.cuh): 16-byte loads, amax in bf16x2, the
// scale through the shared code, elements by the hardware's saturating fp32 → fp8x2 convert.
void v02_rowwise(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row, cudaStream_t stream);
LaunchInfo v02_rowwise_plan(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row);
void v03_columnwise(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out col, cudaStream_t stream);
LaunchInfo v03_columnwise_plan(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out col);
// One read of X, both outputs written.
void v04_both(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row, Out col, cudaStream_t stream);
LaunchInfo v04_both_plan(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row, Out col);

// v05: codes × 2^(scale − 127) → bf16 (round to nearest even; NaN blocks and NaN codes give
// bf16 NaN 0x7FC0, as the host's encode of a quiet NaN).
void v05_dequantize(const uint8_t* gCodes, const uint8_t* gScales, int64_t rows, int64_t cols, Elem elem,
                    formats::MxAxis axis, __nv_bfloat16* gOut, cudaStream_t stream);
LaunchInfo v05_dequantize_plan(const uint8_t* gCodes, const uint8_t* gScales, const __nv_bfloat16* gOut, int64_t rows,
                               int64_t cols, Elem elem, formats::MxAxis axis);

// v06: an MXFP8-emulated GEMM, to measure the format's accuracy in a matmul. C (m × n fp32,
// row-major) = deq(Q_row(A)) · deq(Q_col(B)) for A m × k and B k × n bf16 row-major: A in 1×32
// blocks along k (v02), B in 32×1 blocks along k (v03), both dequantized to bf16 (v05, exact:
// an fp8 value times a power of two is a bf16 value unless subnormal), then cuBLAS's bf16
// tensor-core GEMM with fp32 accumulation. Hopper's fp8 tensor cores take one scale per
// tensor or per 128-wide block, not MX's per 32, hence the emulation. The workspace keeps the
// codes, the scales and the two dequantized operands (v06_operands points at the latter).
int64_t v06_workspace_bytes(int64_t m, int64_t n, int64_t k);
struct GemmOperands {
  const __nv_bfloat16* a = nullptr;  // m × k
  const __nv_bfloat16* b = nullptr;  // k × n
};
GemmOperands v06_operands(const void* workspace, int64_t m, int64_t n, int64_t k);
void v06_gemm_emulated(cublasHandle_t handle, const __nv_bfloat16* gA, const __nv_bfloat16* gB, int64_t m, int64_t n,
                       int64_t k, Spec spec, void* workspace, float* gC, cudaStream_t stream);
// The reference it is compared with: the same cuBLAS GEMM on the bf16 operands themselves.
void bf16_gemm(cublasHandle_t handle, const __nv_bfloat16* gA, const __nv_bfloat16* gB, int64_t m, int64_t n, int64_t k,
               float* gC, cudaStream_t stream);

// Bytes of the scale array of one orientation.
inline int64_t scale_count(int64_t rows, int64_t cols, formats::MxAxis axis) {
  const int64_t b = formats::kMxBlock;
  return axis == formats::MxAxis::Rowwise ? rows * ((cols + b - 1) / b) : ((rows + b - 1) / b) * cols;
}

inline formats::Format format_of(Elem e) { return e == Elem::e4m3 ? formats::Format::e4m3 : formats::Format::e5m2; }

}  // namespace sol::kernels::mx

#pragma once
// The registry's view of the gemm_fp32 family (no CUDA types). Shape: m, n, k (1 … 2^30,
// each matrix ≤ 2^36 elements) and optional beta=1 (C holds random input data and the result is
// alpha·A·B + C; default beta=0: C is write-only). alpha is fixed at 1.25 so that a missing
// scale is caught.
#include <memory>
#include <string>

#include "sol/gemm_rungs.hpp"
#include "sol/registry.hpp"

namespace sol::kernels::gemm::fp32 {

enum class Version {
  peer_cublas_sgemm,  // cuBLAS SGEMM, CUBLAS_DEFAULT_MATH: true fp32, no TF32
  peer_cublas_tf32,   // cuBLAS SGEMM with CUBLAS_TF32_TENSOR_OP_MATH: fp32 data, TF32 tensor cores
  dispatch,           // sol::matmul through the public API (f32, NN): what its dispatcher picks
  // every rung of SOL_GEMM_FP32_RUNGS (sol/gemm_rungs.hpp) in ladder order
#define SOL_GEMM_FP32_RUNG_ENUM(name, ...) name,
  SOL_GEMM_FP32_RUNGS(SOL_GEMM_FP32_RUNG_ENUM)
#undef SOL_GEMM_FP32_RUNG_ENUM
};

// The Version of gemm_rungs::kFp32Rungs[i].
constexpr Version rung_at(int i) { return Version(int(Version::dispatch) + 1 + i); }

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::gemm::fp32

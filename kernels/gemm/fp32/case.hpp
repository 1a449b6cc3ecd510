#pragma once
// The registry's view of the gemm_fp32 family (no CUDA types). Shape: m, n, k (1 … 2^30,
// each matrix ≤ 2^36 elements) and optional beta=1 (C holds random input data and the result is
// alpha·A·B + C; default beta=0: C is write-only). alpha is fixed at 1.25 so that a missing
// scale is caught.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::gemm_fp32 {

enum class Version {
  peer_cublas_sgemm,  // cuBLAS SGEMM, CUBLAS_DEFAULT_MATH: true fp32, no TF32
  peer_cublas_tf32,   // cuBLAS SGEMM with CUBLAS_TF32_TENSOR_OP_MATH: fp32 data, TF32 tensor cores
  dispatch,           // sol::matmul through the public API (f32, NN): what its dispatcher picks
  v01_naive,
  v02_coalesced,
  v03_smem_tiled,
  v04_regblock_1d,
  v05_regblock_2d,
  v06_vectorized,
  v07_warptile_cp_async,
  v08_warptile_256x128,  // one kernel (v08_warptile.cuh), two tiles
  v08_warptile_128x256,
};

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::gemm_fp32

#pragma once
// The registry's view of the tensor-core GEMM families gemm_bf16, gemm_fp16, gemm_fp8 (no CUDA
// types): C[m×n] bf16 = alpha · A[m×k] · B[n×k]ᵀ (problem.cuh). Shape keys m, n, k and optional
// row pitches lda, ldb, ldc (elements; default k, k, n; each ≥ its row length).
// A Version is the input type (the family) and the rung; every rung plugs in through one
// gemm_tc::Launch (rungs.cuh), the cuBLASLt peer through peer_cublaslt.cuh.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::gemm_tc {

enum class InType;  // problem.cuh: bf16, fp16, fp8_e4m3

enum class Rung {
  peer_cublaslt,
  v01_mma_sync,
  v02_multistage,
  v03_wgmma_tma,
  v04_warp_specialized,
  v05_persistent,
  v06_cluster_multicast,
  v07_tma_store,
  v08_tile_choice,
  dispatch,  // sol::matmul through the public API (kernels/api/matmul.cu): the rung or cuBLASLt it picks
};

struct Version {
  InType in;
  Rung rung;
};

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::gemm_tc

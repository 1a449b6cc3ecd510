#pragma once
// The registry's view of the decode GEMM rungs (no CUDA types), listed in the gemm_bf16 and
// gemm_fp16 families: C[m×n] = 1.25 · A[m×k] · op(W) + beta · C with 1 ≤ m ≤ 64 (problem.cuh).
// Shape keys: m, n, k; optional pitches lda, ldb (W's), ldc (elements; default packed); tb=0 for
// W stored k×n (trans_b = N; default tb=1, W n×k); c16=1 or c32=1 for f16 or f32 C (default bf16);
// beta=1 for C = 1.25·A·op(W) + 0.5·C (C then holds random input); det=1 also checks that two runs
// give the same output bits (every rung here is deterministic).
#include <memory>
#include <string>

#include "kernels/gemm/gemv/plan.hpp"
#include "sol/registry.hpp"

namespace sol::kernels::gemm::gemv {

struct Version {
  bool fp16 = false;  // inputs f16 (family gemm_fp16), else bf16 (gemm_bf16)
  Rung rung = Rung::v09_warp_dot;
};

inline constexpr float kAlpha = 1.25f, kBeta = 0.5f;

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::gemm::gemv

#pragma once
// The registry's view of the tensor-core GEMM families gemm_bf16, gemm_fp16, gemm_fp8 (no CUDA
// types): C[m×n] bf16 = alpha · A[m×k] · B[n×k]ᵀ (problem.cuh). Shape keys m, n, k and optional
// row pitches lda, ldb, ldc (elements; default k, k, n; each ≥ its row length).
// A Version is the input type (the family) and the rung; every rung plugs in through one
// gemm::tc::Launch (rungs.cuh), the cuBLASLt peer through peer_cublaslt.cuh. The rungs are
// declared once, in sol/gemm_rungs.hpp.
#include <memory>
#include <string>

#include "sol/gemm_rungs.hpp"
#include "sol/registry.hpp"

namespace sol::kernels::gemm::tc {

enum class InType;  // problem.cuh: bf16, fp16, fp8_e4m3

// The peer, every rung of SOL_GEMM_TC_RUNGS in ladder order, the public entry.
enum class Rung {
  peer_cublaslt,
#define SOL_GEMM_TC_RUNG_ENUM(name, ...) name,
  SOL_GEMM_TC_RUNGS(SOL_GEMM_TC_RUNG_ENUM)
#undef SOL_GEMM_TC_RUNG_ENUM
  dispatch,  // sol::matmul through the public API (kernels/api/matmul.cu): the rung or cuBLASLt it picks
};

// The rung of gemm_rungs::kRungs[i].
constexpr Rung rung_at(int i) { return Rung(int(Rung::peer_cublaslt) + 1 + i); }

struct Version {
  InType in;
  Rung rung;
};

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::gemm::tc

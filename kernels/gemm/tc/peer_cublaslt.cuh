#pragma once
// cuBLASLt behind sol's row-major matmul: LtPlan describes any layout, type and beta (what
// sol::matmul hands to cuBLASLt), with the algorithm chosen once, at construction, never per run;
// LtGemm is the tensor-core GEMM's peer (the TN Problem, bf16 C), an LtPlan with its own handle
// and buffers.
#include <cublasLt.h>

#include <memory>
#include <string>

#include "kernels/gemm/tc/lt_rules.hpp"
#include "kernels/gemm/tc/lt_workspace.hpp"
#include "kernels/gemm/tc/problem.cuh"
#include "sol/core/dtype.hpp"

namespace sol::kernels::gemm::tc {

// Why cuBLASLt cannot run this problem (fp8: kernels/gemm/tc/lt_rules.hpp; bf16 C), or empty. The
// heuristic may still refuse; LtGemm's constructor then throws.
std::string lt_refusal(InType in, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc);

// C[m×n] = alpha · op(A) · op(B) + beta · C in sol's row-major terms (sol/kernels.hpp's matmul):
// trans_a = false stores A m×k (lda ≥ k), true k×m; trans_b = false stores B k×n, true n×k.
// in ∈ {bf16, f16, fp8_e4m3, f32}, out ∈ {bf16, f16, f32}; fp32 compute.
struct LtDesc {
  int64_t m = 0, n = 0, k = 0;
  DType in = DType::bf16, out = DType::bf16;
  bool trans_a = false, trans_b = true;
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool device_scalars = false;  // alpha and beta are device pointers
  size_t workspace_bytes = kLtWorkspaceBytes;  // the most the algorithm may use
  // The alignment in bytes (a power of two ≤ 256: lt_alignment) of the pointers the plan runs on:
  // A, B and C (= D). cuBLASLt's heuristic assumes 256 unless told, and an algorithm chosen for
  // 256-byte aligned operands may fault or be refused on a pointer into the middle of a tensor.
  int align_a = 256, align_b = 256, align_c = 256;
  bool operator<(const LtDesc& o) const;
};

// The largest power of two ≤ 256 that divides p's address: what LtDesc's align_* take.
int lt_alignment(const void* p);

class LtPlan {
 public:
  // nullptr when cuBLASLt's heuristic has no algorithm for d (*status says why).
  static std::unique_ptr<LtPlan> find(cublasLtHandle_t handle, const LtDesc& d, cublasStatus_t* status);
  ~LtPlan();
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;
  // alpha and beta: host floats, or device floats where d.device_scalars. workspace: at least
  // d.workspace_bytes on the device. a, b and c at least as aligned as the desc says (else
  // sol::Error, before anything is launched).
  void run(cublasLtHandle_t handle, const void* alpha, const void* a, const void* b, const void* beta, void* c,
           void* workspace, cudaStream_t stream) const;
  const LtDesc& desc() const { return d_; }

 private:
  explicit LtPlan(const LtDesc& d);
  struct Descriptors;
  LtDesc d_;
  std::unique_ptr<Descriptors> s_;
};

class LtGemm {
 public:
  // shape: m, n, k, pitches and types, and pointers (or nullptr) whose alignment every run's
  // share (lt_alignment; nullptr: 256 bytes); fp8: scale_a, scale_b are the per-tensor
  // scales (device scalars, alpha = 1); bf16/fp16: alpha = shape.alpha.
  LtGemm(const Problem& shape, float scale_a, float scale_b);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  // p must have the shape given at construction; its pointers may differ (rotating sets).
  void run(const Problem& p, cudaStream_t stream) const;

  struct State;  // cuBLASLt handle, the plan, device buffers (peer_cublaslt.cu)

 private:
  std::unique_ptr<State> s_;
};

}  // namespace sol::kernels::gemm::tc

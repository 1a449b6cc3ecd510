#pragma once
// The cuBLASLt peer of the tensor-core GEMM: the same Problem through cublasLtMatmul, with the
// algorithm chosen once per shape (at construction), never per run.
#include <memory>
#include <string>

#include "kernels/gemm/tc/problem.cuh"

namespace sol::kernels::gemm_tc {

// Why cuBLASLt cannot run this problem by its documented rules (fp8: TN, 16-byte aligned pitches,
// k % 16 == 0), or empty. The heuristic may still refuse; LtGemm's constructor then throws.
std::string lt_refusal(InType in, int64_t k, int64_t lda, int64_t ldb, int64_t ldc);

class LtGemm {
 public:
  // shape: m, n, k, pitches and types (pointers unused); fp8: scale_a, scale_b are the per-tensor
  // scales (device scalars, alpha = 1); bf16/fp16: alpha = shape.alpha.
  LtGemm(const Problem& shape, float scale_a, float scale_b);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  // p must have the shape given at construction; its pointers may differ (rotating sets).
  void run(const Problem& p, cudaStream_t stream) const;

  struct State;  // cuBLASLt handle, descriptors, chosen algorithm, device buffers (peer_cublaslt.cu)

 private:
  std::unique_ptr<State> s_;
};

}  // namespace sol::kernels::gemm_tc

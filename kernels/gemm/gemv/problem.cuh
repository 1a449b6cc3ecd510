#pragma once
// The decode GEMM's contract, shared by its rungs (kernels/gemm/gemv/v*.cu), its Case and
// sol::matmul:
//   C[m×n] = alpha · A[m×k] · op(W) + beta · C,   1 ≤ m ≤ 64
// A (the activations) row-major m×k; W either n×k, k contiguous (trans_b = T: nn.Linear's weight)
// or k×n, n contiguous (trans_b = N). bf16 or fp16 inputs, fp32 accumulation, C bf16, f16 or f32
// (read only when beta ≠ 0). Pitches in elements, anything ≥ the row length; pointers need only
// element alignment (16-byte loads where base and pitch allow, element loads elsewhere).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gemm/gemv/plan.hpp"
#include "sol/core/dtype.hpp"

namespace sol::kernels::gemm::gemv {

struct Problem {
  int64_t m = 0, n = 0, k = 0;
  DType in = DType::bf16;   // bf16 or f16, A and W alike
  DType out = DType::bf16;  // bf16, f16 or f32
  bool w_k_contiguous = true;
  const void* A = nullptr;  // m × k, pitch lda
  const void* W = nullptr;  // n × k (w_k_contiguous) or k × n, pitch ldw
  void* C = nullptr;        // m × n, pitch ldc
  int64_t lda = 0, ldw = 0, ldc = 0;
  float alpha = 1.f, beta = 0.f;
};

// Runs rung r on p. workspace: at least workspace_bytes(r, m, n, k) bytes of device memory
// (nullptr when that is 0). Throws sol::Error when r refuses p (refusal()) or the workspace is short.
void launch(Rung r, const Problem& p, void* workspace, size_t workspace_bytes, cudaStream_t stream);

}  // namespace sol::kernels::gemm::gemv

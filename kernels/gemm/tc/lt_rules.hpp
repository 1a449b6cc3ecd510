#pragma once
// What cuBLASLt's fp8 matmul asks of a row-major C[m×n] = A[m×k]·B[n×k]ᵀ (TN), stated once for the
// cuBLASLt peer and for sol::matmul: its documented rules (k % 16 == 0, pitches of whole 16-byte
// chunks) and one its heuristic shows: no fp8 algorithm for n % 16 ≠ 0 even where every pitch is
// aligned (m=130, n=301, k=64, ldc=304 on an H100; PyTorch's scaled matmul asks the same of its
// second operand). Host only.
#include <cstdint>
#include <string>

namespace sol::kernels::gemm::tc {

// Why cuBLASLt cannot run this fp8 product, or "". c_bytes: the size of C's elements.
inline std::string lt_fp8_refusal(int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc, int64_t c_bytes) {
  if (k % 16 != 0) return "cuBLASLt fp8 needs k % 16 == 0 (k=" + std::to_string(k) + ")";
  if (n % 16 != 0) return "cuBLASLt fp8 needs n % 16 == 0 (n=" + std::to_string(n) + ")";
  if (lda % 16 != 0 || ldb % 16 != 0 || (ldc * c_bytes) % 16 != 0)
    return "cuBLASLt fp8 needs pitches that are multiples of 16 bytes (lda=" + std::to_string(lda) +
           ", ldb=" + std::to_string(ldb) + ", ldc=" + std::to_string(ldc) + ")";
  return {};
}

}  // namespace sol::kernels::gemm::tc

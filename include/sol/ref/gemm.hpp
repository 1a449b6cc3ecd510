#pragma once
// Host reference for one output of a GEMM in double: C[r, c] = alpha·Σ_i A[r, i]·B[i, c] +
// beta·C_in[r, c], with the magnitude of its two terms |alpha·Σ| + |beta·C_in|: where the sum
// cancels, rounding in the kernel is relative to the terms, not to the result.
#include <cstdint>

namespace sol::ref {

struct GemmElement {
  double value = 0, terms = 0;
};

// a: row r of A, k elements a_step apart; b: column c of B, k elements b_step apart.
GemmElement gemm_element(const double* a, int64_t a_step, const double* b, int64_t b_step, int64_t k, double alpha,
                         double beta = 0, double c_in = 0);

}  // namespace sol::ref

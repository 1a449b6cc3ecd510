// Host reference for one GEMM output (include/sol/ref/gemm.hpp).
#include "sol/ref/gemm.hpp"

#include <cmath>
#include <string>

#include "sol/core/error.hpp"

namespace sol::ref {

GemmElement gemm_element(const double* a, int64_t a_step, const double* b, int64_t b_step, int64_t k, double alpha,
                         double beta, double c_in) {
  if (k < 0) bad_input("gemm reference: k must be ≥ 0 (got " + std::to_string(k) + ")");
  double acc = 0;
  for (int64_t i = 0; i < k; ++i) acc += a[i * a_step] * b[i * b_step];
  const double ab = alpha * acc, bc = beta != 0 ? beta * c_in : 0.0;
  return {ab + bc, std::fabs(ab) + std::fabs(bc)};
}

}  // namespace sol::ref

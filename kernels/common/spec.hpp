#pragma once
// Helpers for the registry side of a family, host C++ without CUDA: shape validation with one
// clear reason, bounded products, a vector-unit cost. A family's spec.cpp (unsupported, cost,
// tolerance) uses them in every build; its case.cu (the Case factory) only in a CUDA build.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "sol/model/cost.hpp"
#include "sol/registry.hpp"

namespace sol::kernels {

// One dimension a family accepts: its name, the valid range, whether it must be given.
struct DimRule {
  std::string name;
  int64_t lo = 1;
  int64_t hi = int64_t(1) << 62;
  bool required = true;
};

// Empty if every required dimension is present, no unknown one is, and every value lies in
// its range; otherwise the first problem as one line ("n=0 is out of range: need 1 ≤ n").
std::string check_dims(const Shape& s, const std::vector<DimRule>& rules);

// a·b·… with the result ≤ limit, else −1 (for unsupported(): sizes whose bytes overflow).
int64_t product_or_minus1(std::initializer_list<int64_t> factors, int64_t limit = int64_t(1) << 62);

// A cost on the vector unit (no tensor cores in these lessons).
model::Cost vector_cost(std::string op, double flops, double bytes, DType dtype, std::vector<std::string> notes);

// The dimensions of an elementwise op over n elements [, offset_in, offset_out] (gather_case.cuh's
// elementwise_spec reads them).
inline std::vector<DimRule> elementwise_dims() {
  return {{"n", 1, int64_t(1) << 58}, {"offset_in", 0, 64, false}, {"offset_out", 0, 64, false}};
}

}  // namespace sol::kernels

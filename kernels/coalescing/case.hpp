#pragma once
// The registry's view of the coalescing family (no CUDA types).
// v01/v02: shape rows, cols (A is rows × cols fp32). v03: shape n (useful elements), stride.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::coalescing {

enum class Version { v01_row_per_thread, v02_col_per_thread, v03_strided };

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::coalescing

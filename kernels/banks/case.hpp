#pragma once
// The registry's view of the banks family (no CUDA types): shape rows, cols of the input.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::banks {

enum class Version { v01_tile32, v02_padded, v03_swizzled };

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version, const Shape& s);
Tolerance tolerance(Version);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::banks

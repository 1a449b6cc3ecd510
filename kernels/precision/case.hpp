#pragma once
// The registry's view of the precision family (no CUDA types): shape n = elements, optional
// offset_in / offset_out (elements, 0…64) to run on misaligned pointers.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::precision {

enum class Version { v01_relu_fp32, v02_relu_bf16, v03_relu_fp8_e4m3 };

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::precision

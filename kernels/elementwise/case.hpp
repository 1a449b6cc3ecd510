#pragma once
// The registry's view of the elementwise family (no CUDA types): the lecture's sin²x + cos²x
// over n elements, optional offset_in / offset_out (elements, 0…64) for misaligned pointers.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::elementwise {

enum class Version { v01_eager5_fp32, v02_fused_fp32, v03_fused_bf16 };

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::elementwise

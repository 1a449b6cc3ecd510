#pragma once
// The registry's view of the row families layernorm, rmsnorm and softmax (no CUDA types).
// Shape: rows, cols (1 … 65536), optional scale (inputs multiplied by it, 1 … 1000) and, for
// softmax, mask=1 (rows r % 3 == 1 hold −inf at columns c % 4 == 1; rows r % 3 == 2 are fully
// masked).
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::rows {

enum class Version {
  ln_v01_eager, ln_v02_looped, ln_v03_registers, ln_v04_registers_fp32,
  rms_v01_eager, rms_v02_looped, rms_v03_registers, rms_v04_registers_fp32,
  sm_v01_eager, sm_v02_online, sm_v03_registers, sm_v04_registers_fp32,
};

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s);

}  // namespace sol::kernels::rows

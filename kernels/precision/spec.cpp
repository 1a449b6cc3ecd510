// The registry's description of the precision family, host C++ in every build: which shapes it
// takes, its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds
// only.
#include "kernels/precision/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"

namespace sol::kernels::precision {

namespace {

DType dtype_of(Version v) {
  switch (v) {
    case Version::v01_relu_fp32: return DType::f32;
    case Version::v02_relu_bf16: return DType::bf16;
    case Version::v03_relu_fp8_e4m3: return DType::fp8_e4m3;
  }
  return DType::f32;
}

}  // namespace

std::string unsupported(Version, const Shape& s) {
  return check_dims(s, elementwise_dims());
}

model::Cost cost(Version v, const Shape& s) {
  const DType t = dtype_of(v);
  const double n = double(s.at("n")), b = dtype_bytes(t);
  return vector_cost("relu of " + std::to_string(s.at("n")) + " " + dtype_name(t), n, 2 * b * n, t,
                     {"bytes = n × (" + std::to_string(int(b)) + " read + " + std::to_string(int(b)) + " written)",
                      "flops = n (one max per element, the lecture's count)"});
}

Tolerance tolerance(Version) { return {0.0, "ReLU is exact in every format: the output is the input or zero"}; }

}  // namespace sol::kernels::precision

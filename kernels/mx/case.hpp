#pragma once
// The registry's view of the mx family (no CUDA types). Shapes:
//   quantize (v01–v04)  rows, cols; optional e5m2=1 (elements; default e4m3), ocp=1 (the OCP
//                       floor rule; default ceil), special=1 (NaN, ±inf, ±0, subnormals, extreme
//                       magnitudes in the input)
//   dequantize (v05)    rows, cols; optional e5m2, colwise=1 (32×1 scales), special=1 (NaN codes
//                       and scales, the whole e8m0 range)
//   GEMM (v06, peer)    m, n, k; optional e5m2, ocp
//   dispatch            the quantize shapes: both orientations through sol::mx_quantize, the
//                       public entry (kernels/api/mx.cu)
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::mx {

enum class Version {
  v01_rowwise_shared_code,
  v02_rowwise,
  v03_columnwise,
  v04_both,
  v05_dequantize,
  v06_gemm_emulated,
  peer_cublas_bf16_gemm,
  dispatch,
};

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::mx

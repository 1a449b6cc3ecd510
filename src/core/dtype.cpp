#include "sol/core/dtype.hpp"

#include <algorithm>
#include <cctype>

#include "sol/core/error.hpp"

namespace sol {

int dtype_bytes(DType t) {
  switch (t) {
    case DType::f64: return 8;
    case DType::f32:
    case DType::tf32: return 4;
    case DType::bf16:
    case DType::f16: return 2;
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::int8: return 1;
  }
  return 0;
}

std::string dtype_name(DType t) {
  switch (t) {
    case DType::f64: return "fp64";
    case DType::f32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::bf16: return "bf16";
    case DType::f16: return "fp16";
    case DType::fp8_e4m3: return "fp8_e4m3";
    case DType::fp8_e5m2: return "fp8_e5m2";
    case DType::int8: return "int8";
  }
  return "?";
}

std::string dtype_peak_key(DType t) {
  if (t == DType::fp8_e4m3 || t == DType::fp8_e5m2) return "fp8";
  return dtype_name(t);
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v = {DType::f64,  DType::f32,      DType::tf32,     DType::bf16,
                                       DType::f16,  DType::fp8_e4m3, DType::fp8_e5m2, DType::int8};
  return v;
}

DType parse_dtype(const std::string& raw) {
  std::string s = raw;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  for (DType t : all_dtypes())
    if (s == dtype_name(t)) return t;
  if (s == "float64" || s == "double" || s == "f64") return DType::f64;
  if (s == "float32" || s == "float" || s == "f32") return DType::f32;
  if (s == "bfloat16") return DType::bf16;
  if (s == "float16" || s == "half" || s == "f16") return DType::f16;
  if (s == "fp8" || s == "e4m3" || s == "float8_e4m3fn") return DType::fp8_e4m3;
  if (s == "e5m2" || s == "float8_e5m2") return DType::fp8_e5m2;
  bad_input("unknown dtype '" + raw + "'",
            "use one of fp64, fp32, tf32, bf16, fp16, fp8 (= fp8_e4m3), fp8_e5m2, int8");
}

}  // namespace sol

#pragma once
// Element types sol reasons about. tf32 is a matrix-unit mode stored as 4-byte fp32.
#include <cstdint>
#include <string>
#include <vector>

namespace sol {

enum class DType { f64, f32, tf32, bf16, f16, fp8_e4m3, fp8_e5m2, int8 };

// Bytes one element occupies in memory.
int dtype_bytes(DType t);
// Canonical name: "fp64", "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "int8".
std::string dtype_name(DType t);
// The key under which a chip's peak rate for this type is stored ("fp8" for both fp8 formats).
std::string dtype_peak_key(DType t);
// Parses a name (also accepts "fp8" = e4m3, "float32", "half", "bfloat16", "e4m3", "e5m2").
// Throws sol::Error (BadInput) listing the valid names.
DType parse_dtype(const std::string& s);
const std::vector<DType>& all_dtypes();

}  // namespace sol

#pragma once
// The formats of formats/scalar.hpp by name, for host code and `sol cast`: parse a name,
// convert an fp32 value with the input checks the bit-level functions leave to their callers
// (e8m0 has no sign, e2m1 no NaN), decode, and describe an encoding field by field.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/formats/scalar.hpp"

namespace sol::formats {

enum class Format { bf16, fp16, e4m3, e5m2, e8m0, e2m1 };

// "bf16", "fp16", "e4m3", "e5m2", "e8m0", "e2m1" (also "fp8_e4m3", "fp8_e5m2", "fp4_e2m1",
// "bfloat16", "half"). Throws sol::Error (BadInput) listing the valid names.
Format parse_format(const std::string& name);
std::string format_name(Format f);
const std::vector<Format>& all_formats();
int format_bits(Format f);  // storage width: 16, 8 or 4

// The Minifloat of every format but e8m0 (throws sol::Error (Failure) for e8m0).
const Minifloat& minifloat(Format f);

// fp32 → code, round to nearest even. Throws sol::Error (BadInput) for a value the format
// cannot take at all: NaN into e2m1, a negative number into e8m0.
uint32_t encode_checked(Format f, float x, Overflow mode);
// code → its exact value (NaN for NaN codes).
float decode_value(Format f, uint32_t code);
// "0 1111 110": sign, exponent and mantissa fields (e8m0: its 8 exponent bits).
std::string fields(Format f, uint32_t code);
// The largest finite value.
double max_finite(Format f);

// fp32 ↔ bits without aliasing.
uint32_t f32_bits(float x);
float f32_value(uint32_t bits);

}  // namespace sol::formats

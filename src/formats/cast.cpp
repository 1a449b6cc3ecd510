// Format names, checked conversions and field strings over formats/scalar.hpp.
#include "sol/formats/cast.hpp"

#include <bit>
#include <cctype>
#include <cmath>

#include "sol/core/error.hpp"

namespace sol::formats {

namespace {
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

const std::vector<Format>& all_formats() {
  static const std::vector<Format> v = {Format::bf16, Format::fp16, Format::e4m3, Format::e5m2, Format::e8m0, Format::e2m1};
  return v;
}

std::string format_name(Format f) {
  switch (f) {
    case Format::bf16: return "bf16";
    case Format::fp16: return "fp16";
    case Format::e4m3: return "e4m3";
    case Format::e5m2: return "e5m2";
    case Format::e8m0: return "e8m0";
    case Format::e2m1: return "e2m1";
  }
  return "?";
}

Format parse_format(const std::string& name) {
  const std::string n = lower(name);
  for (Format f : all_formats())
    if (n == format_name(f) || n == "fp8_" + format_name(f) || n == "fp4_" + format_name(f)) return f;
  if (n == "bfloat16") return Format::bf16;
  if (n == "half" || n == "float16") return Format::fp16;
  std::string valid;
  for (Format f : all_formats()) valid += (valid.empty() ? "" : ", ") + format_name(f);
  bad_input("unknown format '" + name + "'", "use one of " + valid);
}

int format_bits(Format f) {
  switch (f) {
    case Format::bf16:
    case Format::fp16: return 16;
    case Format::e2m1: return 4;
    default: return 8;
  }
}

const Minifloat& minifloat(Format f) {
  switch (f) {
    case Format::bf16: return kBf16;
    case Format::fp16: return kFp16;
    case Format::e4m3: return kE4m3;
    case Format::e5m2: return kE5m2;
    case Format::e2m1: return kE2m1;
    case Format::e8m0: break;
  }
  failure("e8m0 is not a sign-exponent-mantissa format", "use encode_e8m0 / decode_e8m0");
}

uint32_t f32_bits(float x) { return std::bit_cast<uint32_t>(x); }
float f32_value(uint32_t bits) { return std::bit_cast<float>(bits); }

uint32_t encode_checked(Format f, float x, Overflow mode) {
  if (f == Format::e8m0) {
    if (std::signbit(x) && x != 0 && !std::isnan(x))
      bad_input("e8m0 has no sign bit, so a negative value cannot be encoded", "give a magnitude: a scale is positive");
    return encode_e8m0(f32_bits(x), mode);
  }
  if (f == Format::e2m1 && std::isnan(x))
    bad_input("e2m1 has no NaN encoding", "an MX block carries NaN in its e8m0 scale instead");
  return encode(f32_bits(x), minifloat(f), mode);
}

float decode_value(Format f, uint32_t code) {
  if (f == Format::e8m0) return f32_value(decode_e8m0(uint8_t(code)));
  return f32_value(decode(code, minifloat(f)));
}

std::string fields(Format f, uint32_t code) {
  auto bits = [code](int hi, int lo) {
    std::string s;
    for (int b = hi; b >= lo; --b) s += ((code >> b) & 1u) ? '1' : '0';
    return s;
  };
  if (f == Format::e8m0) return bits(7, 0);
  const Minifloat& t = minifloat(f);
  const int m = t.man_bits, e = t.exp_bits;
  std::string out = bits(m + e, m + e);
  for (const std::string& part : {bits(m + e - 1, m), bits(m - 1, 0)}) out += " " + part;
  return out;
}

double max_finite(Format f) {
  if (f == Format::e8m0) return std::ldexp(1.0, 127);
  return double(f32_value(decode(minifloat(f).max_code, minifloat(f))));
}

}  // namespace sol::formats

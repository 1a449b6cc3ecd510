#pragma once
// MX blocks (OCP Microscaling v1.0): 32 consecutive elements share one e8m0 scale X = 2^k, and
// element i stores V_i / X in a small format. Two rules choose k from the block's amax:
//   OCP   k = floor(log2 amax) − emax       (emax: exponent of the element's largest normal)
//   Ceil  k = ceil(log2(amax / max_elem))   (Mishra et al. 2025, the MXFP8 training recipes)
// On amax = 2^e · 1.f the second is the first plus one exactly when 1.f exceeds the largest
// element's significand (1.75 for e4m3 and e5m2, 1.5 for e2m1): the OCP rule then scales the
// block maximum to [max_elem, 2·2^emax) and it saturates; the Ceil rule never saturates it.
// Elements saturate; a NaN or infinity in a block makes its scale NaN (0xFF), and the whole
// block decodes as NaN (its elements hold the element NaN, or e2m1's largest code). k below
// −127 clamps to −127. All of it on fp32 bits, __host__ __device__, as formats/scalar.hpp.
#include <cstdint>

#include "sol/formats/scalar.hpp"

namespace sol::formats {

inline constexpr int kMxBlock = 32;
inline constexpr uint8_t kE8m0Nan = 0xFF;

enum class ScaleRule : uint8_t { Ocp, Ceil };

// Exponent of the element format's largest normal: 8 (e4m3), 15 (e5m2), 2 (e2m1).
SOL_HD constexpr int elem_emax(const Minifloat& t) { return int(t.max_code >> t.man_bits) - t.bias; }
// Fraction bits (23-bit fp32 field) of the largest normal's significand: 0.75 → 0x600000.
SOL_HD constexpr uint32_t elem_max_frac(const Minifloat& t) {
  return (t.max_code & ((1u << t.man_bits) - 1u)) << (23 - t.man_bits);
}

// |v| as fp32 bits; ordered like the magnitudes, NaN above infinity above every finite value,
// so an integer max over a block gives its amax, and a NaN anywhere wins.
SOL_HD constexpr uint32_t magnitude(uint32_t f) { return f & 0x7FFFFFFFu; }

// The block's e8m0 scale code from amax's bits.
SOL_HD constexpr uint8_t mx_scale(uint32_t amax, const Minifloat& elem, ScaleRule rule) {
  const uint32_t mag = magnitude(amax);
  if (mag >= 0x7F800000u) return kE8m0Nan;
  if (mag == 0) return 0;  // an all-zero block: any scale works; the smallest, as the OCP rule clamps
  const Normalized n = normalize(mag);
  int k = n.exp - elem_emax(elem);
  if (rule == ScaleRule::Ceil && (n.sig & 0x7FFFFFu) > elem_max_frac(elem)) ++k;
  if (k < -127) return 0;
  if (k > 127) return kE8m0Nan;  // the spec's rule; no finite fp32 amax reaches it
  return uint8_t(k + 127);
}

// mx_scale for an amax that is a bf16 value (its 16 bits), without branches, for kernels that
// compute one scale per 4 elements: e = biased exponent; zeros and subnormals (e = 0) give
// k < −127 → 0; normal amax give k + 127 = e − emax (+1 under Ceil), clamped at 0; e = 255
// (infinity, NaN) gives NaN. tests/host/test_mx.cpp holds it equal to mx_scale on all 2^16.
SOL_HD constexpr uint8_t mx_scale_bf16(uint32_t amax_bf16, const Minifloat& elem, ScaleRule rule) {
  const int e = int((amax_bf16 >> 7) & 0xFFu);
  const bool up = rule == ScaleRule::Ceil && ((amax_bf16 & 0x7Fu) << 16) > elem_max_frac(elem);
  const int biased_k = e - elem_emax(elem) + (up ? 1 : 0);
  return e == 0xFF ? kE8m0Nan : uint8_t(biased_k < 0 ? 0 : biased_k);
}

// The element code of fp32 bits v in a block whose scale code is `scale`.
SOL_HD constexpr uint32_t mx_element(uint32_t v, uint8_t scale, const Minifloat& elem) {
  if (scale == kE8m0Nan) return elem.special == Special::None ? elem.max_code : elem.nan_code;
  return encode(v, elem, Overflow::Saturate, 127 - int(scale));
}

// fp32 bits of 2^(scale − 127) (2^−127 is an fp32 subnormal); NaN for 0xFF.
SOL_HD constexpr uint32_t scale_bits(uint8_t scale) { return decode_e8m0(scale); }
// fp32 bits of 1 / X = 2^(127 − scale), what a fast kernel multiplies by (scale 254 gives the
// subnormal 2^−127); NaN for 0xFF. x · 2^(127 − scale) is exact in fp32 while it stays normal,
// so rounding that product is mx_element(x, scale) (tests/host/test_mx.cpp holds the two equal).
SOL_HD constexpr uint32_t inverse_scale_bits(uint8_t scale) {
  if (scale == kE8m0Nan) return kF32QuietNan;
  return scale == 254 ? 0x00400000u : uint32_t(254 - scale) << 23;
}

// The exact value of element `code` times its scale, as fp32 bits. Exact because an element
// has at most 4 significant bits and the product stays above 2^−149; beyond fp32's range
// (only for scales no finite input produces) it is ±infinity. NaN scale or element → NaN;
// an infinite element (e5m2 codes the quantizer never writes) stays infinite.
SOL_HD constexpr uint32_t mx_value(uint32_t code, uint8_t scale, const Minifloat& elem) {
  if (scale == kE8m0Nan || is_nan_code(code, elem)) return kF32QuietNan;
  const uint32_t v = decode(code, elem);
  const uint32_t sign = v & 0x80000000u, mag = magnitude(v);
  if (mag == 0 || mag == kF32Inf) return v;  // zeros; e5m2's infinity (never written by mx_element)
  const Normalized n = normalize(mag);
  const int e = n.exp + int(scale) - 127;
  if (e > 127) return sign | kF32Inf;
  if (e >= -126) return sign | (uint32_t(e + 127) << 23) | (n.sig & 0x7FFFFFu);
  return sign | (n.sig >> (-126 - e));  // fp32 subnormal; no bit is lost (see above)
}

// One block: n ≤ 32 values, element i read as fp32 bits by get(i), its code written by
// put(i, code); returns the scale code. Host reference and the shared-code GPU kernel both call it.
template <class Get, class Put>
SOL_HD constexpr uint8_t mx_quantize_block(int n, const Minifloat& elem, ScaleRule rule, const Get& get, const Put& put) {
  uint32_t amax = 0;
  for (int i = 0; i < n; ++i) {
    const uint32_t m = magnitude(get(i));
    amax = m > amax ? m : amax;
  }
  const uint8_t scale = mx_scale(amax, elem, rule);
  for (int i = 0; i < n; ++i) put(i, mx_element(get(i), scale, elem));
  return scale;
}

}  // namespace sol::formats

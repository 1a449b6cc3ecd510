#pragma once
// Exact small number formats — bf16, fp16, fp8 e4m3 (OCP "fn": no infinities, one NaN per sign,
// max 448), fp8 e5m2 (IEEE-like, max 57344), fp4 e2m1 (no infinities, no NaN, max 6) and the
// e8m0 scale (2^(e−127), 0xFF = NaN) — as one integer algorithm on an fp32 value's bits: round
// to nearest, ties to even, then overflow by the mode. No float arithmetic is used, and every
// function is __host__ __device__, so a kernel that calls them produces the host's bits by
// construction (include/sol/formats/mx_block.hpp builds the MX block rules on top).
#include <cstdint>

#if defined(__CUDACC__)
#define SOL_HD __host__ __device__
#else
#define SOL_HD
#endif

namespace sol::formats {

// What the all-ones exponent field means.
enum class Special : uint8_t {
  Ieee,       // infinities (mantissa 0) and NaNs: bf16, fp16, e5m2
  FiniteNan,  // finite values, except S.1111.111 = NaN; no infinity: e4m3 ("fn")
  None,       // finite values only, no NaN, no infinity: e2m1
};

// A sign-exponent-mantissa format. Codes are magnitudes (the sign is bit exp_bits + man_bits).
struct Minifloat {
  int exp_bits;
  int man_bits;
  int bias;
  Special special;
  uint32_t max_code;  // the largest finite magnitude
  uint32_t inf_code;  // Ieee only
  uint32_t nan_code;  // the canonical NaN this library writes (Ieee, FiniteNan)
  constexpr int sign_shift() const { return exp_bits + man_bits; }
  constexpr int emin() const { return 1 - bias; }  // exponent of the smallest normal
};

// NaN patterns are PyTorch's: bf16 and fp16 quiet NaN, e4m3 S.1111.111, e5m2 S.11111.11.
// A NaN keeps its sign (PyTorch drops it for bf16; nothing here depends on that).
// Device code takes the formats from these functions (a class-type constexpr variable has no
// device copy); host code may use the k* constants.
SOL_HD constexpr Minifloat fmt_bf16() { return {8, 7, 127, Special::Ieee, 0x7F7F, 0x7F80, 0x7FC0}; }
SOL_HD constexpr Minifloat fmt_fp16() { return {5, 10, 15, Special::Ieee, 0x7BFF, 0x7C00, 0x7E00}; }
SOL_HD constexpr Minifloat fmt_e4m3() { return {4, 3, 7, Special::FiniteNan, 0x7E, 0, 0x7F}; }
SOL_HD constexpr Minifloat fmt_e5m2() { return {5, 2, 15, Special::Ieee, 0x7B, 0x7C, 0x7F}; }
SOL_HD constexpr Minifloat fmt_e2m1() { return {2, 1, 1, Special::None, 0x7, 0, 0}; }
inline constexpr Minifloat kBf16 = fmt_bf16();
inline constexpr Minifloat kFp16 = fmt_fp16();
inline constexpr Minifloat kE4m3 = fmt_e4m3();
inline constexpr Minifloat kE5m2 = fmt_e5m2();
inline constexpr Minifloat kE2m1 = fmt_e2m1();

// What a value beyond the largest finite one becomes.
enum class Overflow : uint8_t {
  Plain,     // as PyTorch's casts: infinity where the format has one, else NaN (e4m3, e8m0)
  Saturate,  // the largest finite value, sign kept; infinities too; NaN stays NaN
};

// ---- float bits ---------------------------------------------------------------------------------
SOL_HD constexpr int count_leading_zeros(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(int(x));
#else
  return x == 0 ? 32 : __builtin_clz(x);
#endif
}

// A positive finite non-zero fp32 magnitude as 2^exp × sig / 2^23 with sig in [2^23, 2^24):
// subnormals are normalized, so every later step sees one shape.
struct Normalized {
  int exp;
  uint32_t sig;
};
SOL_HD constexpr Normalized normalize(uint32_t mag) {
  const uint32_t field = mag >> 23, frac = mag & 0x7FFFFFu;
  if (field != 0) return {int(field) - 127, frac | 0x800000u};
  const int lz = count_leading_zeros(frac) - 8;  // brings the top set bit to bit 23
  return {-126 - lz, frac << lz};
}

// ---- encode -------------------------------------------------------------------------------------
// fp32 bits `f`, multiplied by 2^exp_shift (exactly: the shift only moves the exponent), rounded
// to nearest-even into `t`, overflowing by `mode`. NaN → t's NaN (e2m1, which has none: its
// largest value with NaN's sign; host callers reject NaN before). e2m1 has no infinity either,
// so it saturates in both modes.
SOL_HD constexpr uint32_t encode(uint32_t f, const Minifloat& t, Overflow mode, int exp_shift = 0) {
  const uint32_t sign = (f >> 31) << t.sign_shift();
  const uint32_t mag = f & 0x7FFFFFFFu;
  const bool clamp = mode == Overflow::Saturate || t.special == Special::None;
  const uint32_t overflow = clamp ? t.max_code : t.special == Special::Ieee ? t.inf_code : t.nan_code;
  if (mag > 0x7F800000u) return sign | (t.special == Special::None ? t.max_code : t.nan_code);
  if (mag == 0x7F800000u) return sign | overflow;
  if (mag == 0) return sign;

  const Normalized n = normalize(mag);
  const int e = n.exp + exp_shift;
  const int emin = t.emin();
  // Bits of sig below the target's last mantissa bit; more where the target is subnormal.
  const int drop = 23 - t.man_bits + (e < emin ? emin - e : 0);
  uint32_t q = 0;
  if (drop < 25) {  // from 25 on, the value is below half the smallest subnormal: +0
    q = n.sig >> drop;
    const uint32_t rem = n.sig & ((1u << drop) - 1u), half = 1u << (drop - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // a carry may reach the next binade: still right
  }
  // Subnormal: the code is q (q = 2^man_bits is the smallest normal). Normal: biased exponent
  // e + bias above the mantissa q − 2^man_bits (its hidden bit removed).
  const uint32_t code = e < emin ? q : (uint32_t(e + t.bias) << t.man_bits) + q - (1u << t.man_bits);
  return sign | (code > t.max_code ? overflow : code);
}

// ---- decode -------------------------------------------------------------------------------------
inline constexpr uint32_t kF32QuietNan = 0x7FC00000u;
inline constexpr uint32_t kF32Inf = 0x7F800000u;

SOL_HD constexpr bool is_nan_code(uint32_t code, const Minifloat& t) {
  const uint32_t mag = code & ((1u << t.sign_shift()) - 1u);
  const uint32_t exp_ones = ((1u << t.exp_bits) - 1u) << t.man_bits;
  if (t.special == Special::Ieee) return (mag & exp_ones) == exp_ones && (mag & ((1u << t.man_bits) - 1u)) != 0;
  if (t.special == Special::FiniteNan) return mag == t.nan_code;
  return false;
}

// The exact fp32 bits of a code (every value of these formats is an fp32 value); NaN → quiet NaN.
SOL_HD constexpr uint32_t decode(uint32_t code, const Minifloat& t) {
  const uint32_t sign = ((code >> t.sign_shift()) & 1u) << 31;
  const uint32_t mag = code & ((1u << t.sign_shift()) - 1u);
  if (t.exp_bits == 8) return sign | (mag << (23 - t.man_bits));  // bf16: the top of an fp32
  if (is_nan_code(code, t)) return sign | kF32QuietNan;
  const uint32_t field = mag >> t.man_bits, m = mag & ((1u << t.man_bits) - 1u);
  if (t.special == Special::Ieee && field == (1u << t.exp_bits) - 1u) return sign | kF32Inf;
  if (field == 0) {
    if (m == 0) return sign;
    // m · 2^(emin − man_bits): normalize m (its top bit becomes the hidden bit).
    const int top = 31 - count_leading_zeros(m);
    const uint32_t frac = (m ^ (1u << top)) << (23 - top);
    return sign | (uint32_t(t.emin() - t.man_bits + top + 127) << 23) | frac;
  }
  return sign | (uint32_t(int(field) - t.bias + 127) << 23) | (m << (23 - t.man_bits));
}

// ---- e8m0: an unsigned power of two, 2^(code − 127), 0xFF = NaN -----------------------------------
// Round to the nearest power of two by value; halfway (1.5 · 2^e) rounds up, as PyTorch's
// float8_e8m0fnu cast does (both neighbours have significand 1, so "even" cannot decide). No
// zero: anything below 2^−127, zero included, becomes 2^−127. The sign is ignored (callers
// pass magnitudes; the host API rejects negative input). Plain overflow (≥ 1.5 · 2^127) and
// ±infinity give NaN; saturating, they give 2^127.
SOL_HD constexpr uint8_t encode_e8m0(uint32_t f, Overflow mode) {
  const uint32_t mag = f & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return 0xFF;
  const uint8_t overflow = mode == Overflow::Saturate ? 0xFE : 0xFF;
  if (mag == 0x7F800000u) return overflow;
  const uint32_t field = mag >> 23, frac = mag & 0x7FFFFFu;
  if (field == 0) return frac >= 0x600000u ? 1 : 0;  // fp32 subnormals: 2^−127 = frac 0x400000
  const uint32_t code = field + (frac >= 0x400000u ? 1u : 0u);
  return code >= 0xFF ? overflow : uint8_t(code);
}

SOL_HD constexpr uint32_t decode_e8m0(uint8_t code) {
  if (code == 0xFF) return kF32QuietNan;
  if (code == 0) return 0x00400000u;  // 2^−127 is an fp32 subnormal
  return uint32_t(code) << 23;
}

}  // namespace sol::formats

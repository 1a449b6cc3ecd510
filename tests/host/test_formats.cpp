// The scalar formats (include/sol/formats/scalar.hpp) against an independent oracle: every
// code's value from the textbook formula (−1)^s · 2^(E − bias) · (1 + m/2^M) in double, and
// rounding as "the nearest of those values, ties to the even code", found by search. The
// implementation works on integer bits; the oracle on values. Edge cases:
// zeros, subnormals, ties, max, overflow (both modes), NaN, infinity; plus bits the specs fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/formats/cast.hpp"

using namespace sol::formats;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Named {
  Format f;
  const Minifloat* t;
};
const std::vector<Named>& minifloats() {
  static const std::vector<Named> v = {{Format::bf16, &kBf16}, {Format::fp16, &kFp16}, {Format::e4m3, &kE4m3},
                                       {Format::e5m2, &kE5m2}, {Format::e2m1, &kE2m1}};
  return v;
}

// The textbook value of a code, in double.
double textbook(uint32_t code, const Minifloat& t) {
  const int m_bits = t.man_bits, e_bits = t.exp_bits;
  const bool neg = (code >> (m_bits + e_bits)) & 1u;
  const uint32_t field = (code >> m_bits) & ((1u << e_bits) - 1u), m = code & ((1u << m_bits) - 1u);
  double v;
  if (t.special == Special::Ieee && field == (1u << e_bits) - 1u) v = m ? kNan : kInf;
  else if (t.special == Special::FiniteNan && field == (1u << e_bits) - 1u && m == (1u << m_bits) - 1u) v = kNan;
  else if (field == 0) v = std::ldexp(double(m), 1 - t.bias - m_bits);
  else v = std::ldexp(1.0 + double(m) / double(1u << m_bits), int(field) - t.bias);
  return neg ? -v : v;
}

// Finite non-negative values of a format, ascending, with their codes.
struct Grid {
  std::vector<double> values;
  std::vector<uint32_t> codes;
};
Grid grid(const Minifloat& t) {
  Grid g;
  for (uint32_t c = 0; c < (1u << (t.exp_bits + t.man_bits)); ++c) {
    const double v = textbook(c, t);
    if (std::isfinite(v)) g.values.push_back(v), g.codes.push_back(c);
  }
  return g;  // codes ascend with value for the positive half of every format here
}

// Oracle: x (any double) rounded to nearest, ties to the even code, with the overflow rule.
uint32_t oracle(double x, const Minifloat& t, Overflow mode, const Grid& g) {
  const uint32_t sign = std::signbit(x) ? 1u << (t.exp_bits + t.man_bits) : 0u;
  const bool clamp = mode == Overflow::Saturate || t.special == Special::None;
  const uint32_t overflow = clamp ? t.max_code : t.special == Special::Ieee ? t.inf_code : t.nan_code;
  if (std::isnan(x)) return sign | (t.special == Special::None ? t.max_code : t.nan_code);
  const double a = std::fabs(x);
  const double max = g.values.back();
  // The value one step past the largest, as if the format went on (480 for e4m3, whose last
  // slot is NaN; 2^(emax+1) for the others, where it is infinity or nothing).
  const double beyond = max + (max - g.values[g.values.size() - 2]);
  if (a >= beyond) return sign | overflow;
  if (a > max) {
    const double mid = (max + beyond) / 2;
    const bool max_even = (g.codes.back() & 1u) == 0;
    if (a < mid || (a == mid && max_even)) return sign | g.codes.back();
    return sign | overflow;
  }
  const auto it = std::lower_bound(g.values.begin(), g.values.end(), a);
  const size_t hi = size_t(it - g.values.begin());
  if (g.values[hi] == a) return sign | g.codes[hi];
  const size_t lo = hi - 1;
  const double dl = a - g.values[lo], dh = g.values[hi] - a;
  if (dl < dh) return sign | g.codes[lo];
  if (dh < dl) return sign | g.codes[hi];
  return sign | ((g.codes[lo] & 1u) == 0 ? g.codes[lo] : g.codes[hi]);
}

// Inputs that probe every region: each value, each midpoint, and fp32 neighbours of both.
std::vector<float> probes(const Grid& g) {
  std::vector<float> xs = {0.0f, -0.0f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::min(), 1e-30f, 1e30f, 3.0e38f};
  auto near = [&](double v) {
    const float f = float(v);
    if (double(f) != v || !std::isfinite(f)) return;  // only values fp32 holds exactly
    for (float y : {f, std::nextafter(f, 0.0f), std::nextafter(f, float(kInf))}) xs.push_back(y), xs.push_back(-y);
  };
  for (size_t i = 0; i < g.values.size(); ++i) {
    near(g.values[i]);
    if (i + 1 < g.values.size()) near((g.values[i] + g.values[i + 1]) / 2);
  }
  const double max = g.values.back(), top = std::ldexp(1.0, std::ilogb(max) + 1);
  for (double v : {max, (max + top) / 2, top, 2 * top, std::ldexp(1.0, 127)}) near(v);
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 20000; ++i) {
    const float f = f32_value(bits(rng));
    if (!std::isnan(f)) xs.push_back(f);
  }
  return xs;
}

}  // namespace

TEST(Formats, DecodeIsTheTextbookValueForEveryCode) {
  for (const Named& n : minifloats()) {
    SCOPED_TRACE(format_name(n.f));
    const uint32_t codes = 1u << (n.t->exp_bits + n.t->man_bits + 1);
    for (uint32_t c = 0; c < codes; ++c) {
      const double want = textbook(c, *n.t);
      const float got = decode_value(n.f, c);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << c;
      } else {
        EXPECT_EQ(double(got), want) << "code " << c;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << "code " << c;
      }
    }
  }
}

TEST(Formats, EncodeIsNearestEvenInBothModes) {
  for (const Named& n : minifloats()) {
    const Grid g = grid(*n.t);
    for (Overflow mode : {Overflow::Plain, Overflow::Saturate}) {
      SCOPED_TRACE(format_name(n.f) + (mode == Overflow::Plain ? " plain" : " saturate"));
      int failures = 0;
      for (float x : probes(g)) {
        const uint32_t got = encode(f32_bits(x), *n.t, mode), want = oracle(double(x), *n.t, mode, g);
        if (got != want && failures++ < 5) ADD_FAILURE() << "x = " << x << ": got " << got << ", want " << want;
      }
      for (double x : {kInf, -kInf, kNan, -kNan}) {
        EXPECT_EQ(encode(f32_bits(float(x)), *n.t, mode), oracle(x, *n.t, mode, g)) << x;
      }
    }
  }
}

TEST(Formats, ExponentShiftIsExactScaling) {
  // encode(x, shift) rounds x · 2^shift, even where that product leaves fp32's range.
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_int_distribution<int> shifts(-140, 140);
  for (const Named& n : minifloats()) {
    SCOPED_TRACE(format_name(n.f));
    const Grid g = grid(*n.t);
    int failures = 0;
    for (int i = 0; i < 40000; ++i) {
      const float x = f32_value(bits(rng));
      if (!std::isfinite(x)) continue;
      const int shift = shifts(rng);
      const uint32_t got = encode(f32_bits(x), *n.t, Overflow::Saturate, shift);
      const uint32_t want = oracle(std::ldexp(double(x), shift), *n.t, Overflow::Saturate, g);
      if (got != want && failures++ < 5) ADD_FAILURE() << x << " · 2^" << shift << ": got " << got << ", want " << want;
    }
  }
}

TEST(Formats, BitsTheSpecsFix) {
  auto enc = [](Format f, float x, Overflow m = Overflow::Plain) { return encode_checked(f, x, m); };
  // bf16: the top half of fp32, rounded; 3.14159265 = 0x40490FDB keeps 0x4049.
  EXPECT_EQ(enc(Format::bf16, 1.0f), 0x3F80u);
  EXPECT_EQ(enc(Format::bf16, 3.14159265f), 0x4049u);
  EXPECT_EQ(enc(Format::bf16, f32_value(0x3F808000)), 0x3F80u);  // tie, even stays
  EXPECT_EQ(enc(Format::bf16, f32_value(0x3F818000)), 0x3F82u);  // tie, odd rounds up
  EXPECT_EQ(enc(Format::bf16, std::numeric_limits<float>::max()), 0x7F80u);  // rounds to inf
  EXPECT_EQ(enc(Format::bf16, std::numeric_limits<float>::max(), Overflow::Saturate), 0x7F7Fu);
  EXPECT_EQ(enc(Format::bf16, f32_value(0x00010000)), 0x0001u);  // bf16 subnormal
  // fp16: 65504 max, 65520 is the tie with 65536 and goes to infinity.
  EXPECT_EQ(enc(Format::fp16, 1.0f), 0x3C00u);
  EXPECT_EQ(enc(Format::fp16, 65504.0f), 0x7BFFu);
  EXPECT_EQ(enc(Format::fp16, 65519.0f), 0x7BFFu);
  EXPECT_EQ(enc(Format::fp16, 65520.0f), 0x7C00u);
  EXPECT_EQ(enc(Format::fp16, 65520.0f, Overflow::Saturate), 0x7BFFu);
  EXPECT_EQ(enc(Format::fp16, std::ldexp(1.0f, -24)), 0x0001u);
  EXPECT_EQ(enc(Format::fp16, std::ldexp(1.0f, -25)), 0x0000u);  // tie with 0: even
  // e4m3 (OCP "fn"): bias 7, 448 = S.1111.110, S.1111.111 = NaN, no infinity.
  EXPECT_EQ(enc(Format::e4m3, 1.0f), 0x38u);
  EXPECT_EQ(enc(Format::e4m3, -2.0f), 0xC0u);
  EXPECT_EQ(enc(Format::e4m3, 448.0f), 0x7Eu);
  EXPECT_EQ(enc(Format::e4m3, 464.0f), 0x7Eu);   // tie between 448 (even) and the NaN slot
  EXPECT_EQ(enc(Format::e4m3, 465.0f), 0x7Fu);   // plain overflow: NaN
  EXPECT_EQ(enc(Format::e4m3, -1e6f), 0xFFu);
  EXPECT_EQ(enc(Format::e4m3, 1e6f, Overflow::Saturate), 0x7Eu);
  EXPECT_EQ(enc(Format::e4m3, -kInf, Overflow::Saturate), 0xFEu);
  EXPECT_EQ(enc(Format::e4m3, kInf), 0x7Fu);
  EXPECT_EQ(enc(Format::e4m3, std::ldexp(1.0f, -9)), 0x01u);   // smallest subnormal
  EXPECT_EQ(enc(Format::e4m3, std::ldexp(1.0f, -10)), 0x00u);  // half of it: tie to 0
  EXPECT_EQ(enc(Format::e4m3, std::ldexp(3.0f, -11)), 0x01u);  // above half
  EXPECT_EQ(enc(Format::e4m3, std::ldexp(1.0f, -6)), 0x08u);   // smallest normal
  // e5m2: bias 15, 57344 max, S.11111.00 infinity.
  EXPECT_EQ(enc(Format::e5m2, 1.0f), 0x3Cu);
  EXPECT_EQ(enc(Format::e5m2, 57344.0f), 0x7Bu);
  EXPECT_EQ(enc(Format::e5m2, 61439.0f), 0x7Bu);
  EXPECT_EQ(enc(Format::e5m2, 61440.0f), 0x7Cu);  // tie with 65536: odd max, so infinity
  EXPECT_EQ(enc(Format::e5m2, 61440.0f, Overflow::Saturate), 0x7Bu);
  EXPECT_EQ(enc(Format::e5m2, -kInf), 0xFCu);
  EXPECT_EQ(enc(Format::e5m2, std::ldexp(1.0f, -16)), 0x01u);
  // e2m1: 0, 0.5, 1, 1.5, 2, 3, 4, 6; ties to the even code.
  EXPECT_EQ(enc(Format::e2m1, 0.25f), 0x0u);
  EXPECT_EQ(enc(Format::e2m1, 0.75f), 0x2u);
  EXPECT_EQ(enc(Format::e2m1, 2.5f), 0x4u);
  EXPECT_EQ(enc(Format::e2m1, 5.0f), 0x6u);
  EXPECT_EQ(enc(Format::e2m1, -7.0f), 0xFu);  // no infinity: clamps even in plain mode
  EXPECT_EQ(enc(Format::e2m1, kInf), 0x7u);
  // Signed zeros survive every format.
  for (Format f : {Format::bf16, Format::fp16, Format::e4m3, Format::e5m2, Format::e2m1}) {
    EXPECT_EQ(enc(f, 0.0f), 0u) << format_name(f);
    EXPECT_EQ(enc(f, -0.0f), 1u << (format_bits(f) - 1)) << format_name(f);
  }
}

TEST(Formats, NanStaysNanInBothModes) {
  for (Format f : {Format::bf16, Format::fp16, Format::e4m3, Format::e5m2}) {
    for (Overflow m : {Overflow::Plain, Overflow::Saturate}) {
      EXPECT_TRUE(std::isnan(decode_value(f, encode_checked(f, std::nanf(""), m)))) << format_name(f);
      EXPECT_TRUE(std::isnan(decode_value(f, encode_checked(f, -std::nanf(""), m)))) << format_name(f);
    }
  }
  EXPECT_EQ(encode_checked(Format::e4m3, std::nanf(""), Overflow::Plain), 0x7Fu);
  EXPECT_EQ(encode_checked(Format::e5m2, std::nanf(""), Overflow::Plain), 0x7Fu);
  EXPECT_EQ(encode_checked(Format::e8m0, std::nanf(""), Overflow::Saturate), 0xFFu);
  EXPECT_THROW(encode_checked(Format::e2m1, std::nanf(""), Overflow::Plain), sol::Error);
}

TEST(Formats, RoundTripOfEveryCode) {
  for (const Named& n : minifloats()) {
    const uint32_t codes = 1u << (n.t->exp_bits + n.t->man_bits + 1);
    for (uint32_t c = 0; c < codes; ++c) {
      if (is_nan_code(c, *n.t)) continue;
      EXPECT_EQ(encode(decode(c, *n.t), *n.t, Overflow::Plain), c) << format_name(n.f) << " code " << c;
    }
  }
}

TEST(Formats, E8m0IsTheNearestPowerOfTwoTiesUp) {
  // Values: 2^(c − 127), c = 0…254; 0xFF NaN.
  for (int c = 0; c < 255; ++c) EXPECT_EQ(double(decode_value(Format::e8m0, uint32_t(c))), std::ldexp(1.0, c - 127)) << c;
  EXPECT_TRUE(std::isnan(decode_value(Format::e8m0, 0xFF)));
  auto oracle_e8m0 = [](double x, Overflow m) -> uint32_t {
    if (std::isnan(x)) return 0xFF;
    if (x >= std::ldexp(1.5, 127)) return m == Overflow::Saturate ? 0xFE : 0xFF;
    int best = 0;
    for (int c = 1; c < 255; ++c) {
      const double d = std::fabs(x - std::ldexp(1.0, c - 127)), db = std::fabs(x - std::ldexp(1.0, best - 127));
      if (d <= db) best = c;  // "<=": the larger of two equally near powers (ties up)
    }
    return uint32_t(best);
  };
  std::mt19937 rng(3);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7F7FFFFF);  // non-negative finite
  std::vector<float> xs = {0.0f, 1.0f, 1.5f, 0.75f, 3.0f, 1.4999999f, std::ldexp(1.0f, -127), std::ldexp(1.5f, -127),
                           std::ldexp(1.4f, -127), std::ldexp(1.0f, -149), std::ldexp(1.0f, 127),
                           std::ldexp(1.4999999f, 127), std::ldexp(1.5f, 127), std::numeric_limits<float>::max()};
  for (int i = 0; i < 5000; ++i) xs.push_back(f32_value(bits(rng)));
  for (float x : xs)
    for (Overflow m : {Overflow::Plain, Overflow::Saturate})
      EXPECT_EQ(encode_checked(Format::e8m0, x, m), oracle_e8m0(x, m)) << x;
  EXPECT_EQ(encode_checked(Format::e8m0, 1.5f, Overflow::Plain), 128u);
  EXPECT_EQ(encode_checked(Format::e8m0, kInf, Overflow::Plain), 0xFFu);
  EXPECT_EQ(encode_checked(Format::e8m0, kInf, Overflow::Saturate), 0xFEu);
  EXPECT_THROW(encode_checked(Format::e8m0, -1.0f, Overflow::Plain), sol::Error);
  EXPECT_EQ(encode_checked(Format::e8m0, -0.0f, Overflow::Plain), 0u);
}

TEST(Formats, NamesFieldsAndLimits) {
  for (Format f : all_formats()) EXPECT_EQ(parse_format(format_name(f)), f);
  EXPECT_EQ(parse_format("FP8_E4M3"), Format::e4m3);
  EXPECT_EQ(parse_format("bfloat16"), Format::bf16);
  try {
    parse_format("fp7");
    ADD_FAILURE() << "fp7 parsed";
  } catch (const sol::Error& e) {
    EXPECT_EQ(e.kind(), sol::Error::Kind::BadInput);
    EXPECT_NE(e.line().find("e4m3"), std::string::npos) << "lists the valid names";
  }
  EXPECT_EQ(fields(Format::e4m3, 0x7E), "0 1111 110");
  EXPECT_EQ(fields(Format::e5m2, 0xFC), "1 11111 00");
  EXPECT_EQ(fields(Format::e2m1, 0x7), "0 11 1");
  EXPECT_EQ(fields(Format::e8m0, 127), "01111111");
  EXPECT_EQ(max_finite(Format::e4m3), 448.0);
  EXPECT_EQ(max_finite(Format::e5m2), 57344.0);
  EXPECT_EQ(max_finite(Format::e2m1), 6.0);
  EXPECT_EQ(max_finite(Format::fp16), 65504.0);
  EXPECT_EQ(max_finite(Format::bf16), double(f32_value(0x7F7F0000)));
}

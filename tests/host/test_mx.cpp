// MX blocks (include/sol/formats/mx_block.hpp, mx.hpp) against the rules written as math in
// double: OCP k = floor(log2 amax) − emax, Ceil k = the smallest k with amax ≤ max_elem · 2^k,
// k clamped to ≥ −127; elements = V / 2^k rounded to nearest even and saturated. Then the
// tensor level: rowwise and columnwise layouts, partial blocks, NaN and infinity, dequantization,
// and the §7.2 point that the columnwise quantization is not derivable from the rowwise one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/formats/mx.hpp"

using namespace sol::formats;

namespace {

double kInf() { return std::numeric_limits<double>::infinity(); }

const std::vector<Format> kElems = {Format::e4m3, Format::e5m2, Format::e2m1};

int emax_of(Format f) { return std::ilogb(max_finite(f)); }  // 8, 15, 2

// The scale exponent k by the rule, in double; nullopt-free: returns 128 for "NaN".
int rule_k(double amax, Format f, ScaleRule r) {
  if (!std::isfinite(amax)) return 128;
  if (amax == 0) return -127;
  int k;
  if (r == ScaleRule::Ocp) {
    k = std::ilogb(amax) - emax_of(f);
  } else {
    k = -300;
    while (amax > std::ldexp(max_finite(f), k)) ++k;  // smallest k with amax ≤ max · 2^k
  }
  return std::max(k, -127);
}

// Element code of v in a block of exponent k: saturating nearest-even of v / 2^k, by search
// over the format's values (independent of the bit algorithm).
uint32_t element_oracle(double v, int k, Format f) {
  const Minifloat& t = minifloat(f);
  const double x = std::ldexp(v, -k), a = std::fabs(x);
  const uint32_t sign = std::signbit(x) ? 1u << (t.exp_bits + t.man_bits) : 0u;
  uint32_t best = 0;
  double best_d = kInf();
  for (uint32_t c = 0; c <= t.max_code; ++c) {
    const double d = std::fabs(a - double(decode_value(f, c)));
    if (d < best_d || (d == best_d && (c & 1u) == 0)) best = c, best_d = d;
  }
  return sign | best;
}

std::vector<float> random_block(std::mt19937& rng, int n, int spread) {
  std::normal_distribution<float> z;
  std::uniform_int_distribution<int> e(-spread, spread);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = std::ldexp(z(rng), e(rng));
  return v;
}

MxTensor quantize_rows(const std::vector<float>& x, int64_t r, int64_t c, Format f, ScaleRule rule) {
  return mx_quantize(x, r, c, f, rule, MxAxis::Rowwise);
}

}  // namespace

TEST(Mx, ScaleFollowsTheRuleForEveryMagnitude) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits(1, 0x7F7FFFFF);  // positive finite, subnormals included
  std::vector<float> amaxes = {0.0f, 1.0f, 448.0f, 449.0f, 500.0f, 57344.0f, 6.0f, 7.0f, std::ldexp(1.0f, -140),
                               std::ldexp(1.0f, -119), std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::denorm_min()};
  for (int i = 0; i < 20000; ++i) amaxes.push_back(f32_value(bits(rng)));
  for (Format f : kElems)
    for (ScaleRule r : {ScaleRule::Ocp, ScaleRule::Ceil})
      for (float a : amaxes)
        ASSERT_EQ(int(mx_scale(f32_bits(a), minifloat(f), r)), rule_k(a, f, r) + 127)
            << format_name(f) << " " << scale_rule_name(r) << " amax " << a;
}

TEST(Mx, ScaleFactsOfTheRecipes) {
  const Minifloat& e4m3 = minifloat(Format::e4m3);
  EXPECT_EQ(mx_scale(f32_bits(448.0f), e4m3, ScaleRule::Ocp), 127);
  EXPECT_EQ(mx_scale(f32_bits(448.0f), e4m3, ScaleRule::Ceil), 127);
  EXPECT_EQ(mx_scale(f32_bits(449.0f), e4m3, ScaleRule::Ocp), 127);   // 449 then saturates to 448
  EXPECT_EQ(mx_scale(f32_bits(449.0f), e4m3, ScaleRule::Ceil), 128);  // 449 / 2 fits
  EXPECT_EQ(mx_scale(f32_bits(1.0f), e4m3, ScaleRule::Ocp), 127 - 8);
  EXPECT_EQ(mx_scale(f32_bits(1.0f), e4m3, ScaleRule::Ceil), 127 - 8);  // 1 ≤ 448 · 2^−8 = 1.75
  EXPECT_EQ(mx_scale(f32_bits(1.9f), e4m3, ScaleRule::Ceil), 127 - 7);
  EXPECT_EQ(mx_scale(f32_bits(0.0f), e4m3, ScaleRule::Ceil), 0);
  EXPECT_EQ(mx_scale(f32_bits(std::ldexp(1.0f, -130)), e4m3, ScaleRule::Ocp), 0);  // clamped at 2^−127
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), std::nanf("")})
    for (ScaleRule r : {ScaleRule::Ocp, ScaleRule::Ceil}) EXPECT_EQ(mx_scale(f32_bits(bad), e4m3, r), kE8m0Nan);
}

TEST(Mx, CeilIsTheTrainingRecipesFloatDivision) {
  // TE / torchao compute e8m0(amax / 448 in fp32) rounded up when the quotient's mantissa is not
  // zero. For every positive bf16 amax whose quotient stays an fp32 normal, that equals the exact rule.
  const Minifloat& e4m3 = minifloat(Format::e4m3);
  int checked = 0;
  for (uint32_t b = 0x0080; b < 0x7F80; ++b) {
    const float amax = f32_value(b << 16), q = amax / 448.0f;
    if (q < std::numeric_limits<float>::min()) continue;
    const uint32_t qb = f32_bits(q);
    const int recipe = int(qb >> 23) + ((qb & 0x7FFFFF) != 0 ? 1 : 0);
    ASSERT_EQ(int(mx_scale(f32_bits(amax), e4m3, ScaleRule::Ceil)), std::max(recipe, 0)) << amax;
    ++checked;
  }
  EXPECT_GT(checked, 30000);
}

TEST(Mx, ElementsAreTheScaledValuesRoundedAndSaturated) {
  std::mt19937 rng(9);
  for (Format f : kElems)
    for (ScaleRule r : {ScaleRule::Ocp, ScaleRule::Ceil})
      for (int spread : {0, 3, 12, 40}) {
        for (int trial = 0; trial < 40; ++trial) {
          const int n = 1 + trial % 32;
          const std::vector<float> v = random_block(rng, n, spread);
          std::vector<uint32_t> codes(static_cast<size_t>(n));
          const uint8_t s = mx_quantize_block(
              n, minifloat(f), r, [&](int i) { return f32_bits(v[size_t(i)]); },
              [&](int i, uint32_t c) { codes[size_t(i)] = c; });
          double amax = 0;
          for (float x : v) amax = std::max(amax, std::fabs(double(x)));
          const int k = rule_k(amax, f, r);
          ASSERT_EQ(int(s), k + 127);
          for (int i = 0; i < n; ++i)
            ASSERT_EQ(codes[size_t(i)], element_oracle(v[size_t(i)], k, f))
                << format_name(f) << " " << scale_rule_name(r) << " v=" << v[size_t(i)] << " k=" << k;
        }
      }
}

TEST(Mx, CeilNeverSaturatesTheBlockMaximumOcpDoes) {
  // Block maximum 500 (mantissa 1.953 > 1.75): OCP scales it to 500 and clamps to 448; Ceil
  // scales it to 250, which e4m3 rounds (not clamps) to 256, so it comes back as 512.
  std::vector<float> x(32, 1.0f);
  x[7] = 500.0f;
  const MxTensor ocp = quantize_rows(x, 1, 32, Format::e4m3, ScaleRule::Ocp);
  const MxTensor ceil = quantize_rows(x, 1, 32, Format::e4m3, ScaleRule::Ceil);
  EXPECT_EQ(mx_dequantize(ocp)[7], 448.0f);
  EXPECT_EQ(mx_dequantize(ceil)[7], 512.0f);
  EXPECT_GT(mx_error(x, ocp).saturated, 0.0);
  EXPECT_EQ(mx_error(x, ceil).saturated, 0.0);
  // Over random tensors too: nothing ever clamps under Ceil.
  for (Format f : kElems) {
    const std::vector<float> t = generate(Dist::StudentT, 64, 256, 42);
    EXPECT_EQ(mx_error(t, quantize_rows(t, 64, 256, f, ScaleRule::Ceil)).saturated, 0.0) << format_name(f);
    EXPECT_GT(mx_error(t, quantize_rows(t, 64, 256, f, ScaleRule::Ocp)).saturated, 0.0) << format_name(f);
  }
}

TEST(Mx, NanOrInfinityMakesTheWholeBlockNan) {
  for (float bad : {std::nanf(""), std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    std::vector<float> x(64, 2.0f);
    x[40] = bad;  // the second block of the row
    const MxTensor q = quantize_rows(x, 1, 64, Format::e4m3, ScaleRule::Ceil);
    EXPECT_NE(q.scales[0], kE8m0Nan);
    EXPECT_EQ(q.scales[1], kE8m0Nan);
    const std::vector<float> d = mx_dequantize(q);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(d[size_t(i)], 2.0f);
    for (int i = 32; i < 64; ++i) {
      EXPECT_TRUE(std::isnan(d[size_t(i)])) << i;
      EXPECT_EQ(q.codes[size_t(i)], 0x7Fu);  // the element NaN pattern
    }
  }
  std::vector<float> x(32, 1.0f);
  x[0] = std::nanf("");
  EXPECT_EQ(quantize_rows(x, 1, 32, Format::e2m1, ScaleRule::Ocp).codes[1], 0x7u);  // e2m1: its largest code
}

TEST(Mx, ZeroAndTinyBlocks) {
  std::vector<float> zeros = {0.0f, -0.0f, 0.0f};
  const MxTensor z = quantize_rows(zeros, 1, 3, Format::e4m3, ScaleRule::Ceil);
  EXPECT_EQ(z.scales[0], 0);
  EXPECT_EQ(z.codes[0], 0x00u);
  EXPECT_EQ(z.codes[1], 0x80u);
  // amax 2^−140: the scale clamps at 2^−127, the elements are 2^−13 times smaller than 1: subnormal or 0.
  std::vector<float> tiny = {std::ldexp(1.0f, -140), std::ldexp(1.0f, -136), std::ldexp(-1.0f, -149)};
  const MxTensor t = quantize_rows(tiny, 1, 3, Format::e4m3, ScaleRule::Ocp);
  EXPECT_EQ(t.scales[0], 0);
  EXPECT_EQ(t.codes[0], 0x00u);  // 2^−13 < half of e4m3's 2^−9
  EXPECT_EQ(t.codes[1], 0x01u);  // 2^−9 exactly
  EXPECT_EQ(t.codes[2], 0x80u);  // −0
  EXPECT_EQ(mx_dequantize(t)[1], std::ldexp(1.0f, -136));
}

TEST(Mx, DequantizedValueIsExactForEveryCodeAndScale) {
  for (Format f : kElems) {
    const Minifloat& t = minifloat(f);
    for (uint32_t c = 0; c < (1u << (t.exp_bits + t.man_bits + 1)); ++c)
      for (int s = 0; s < 256; ++s) {
        const float got = f32_value(mx_value(c, uint8_t(s), t));
        const double want = s == 0xFF ? std::nan("") : std::ldexp(double(decode_value(f, c)), s - 127);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got)) << c << " " << s;
        } else if (std::fabs(want) > std::numeric_limits<float>::max()) {
          ASSERT_EQ(double(got), std::copysign(kInf(), want)) << c << " " << s;
        } else {
          ASSERT_EQ(double(got), want) << format_name(f) << " code " << c << " scale " << s;
          ASSERT_EQ(std::signbit(got), std::signbit(want));
        }
      }
  }
}

// The GPU's fast paths replace the integer code by fp32 arithmetic plus one hardware rounding.
// Here the same arithmetic on the host (IEEE fp32, no flush to zero), with the rounding the
// hardware instruction specifies, against the shared code, for every bf16 input and scale.
TEST(Mx, FastQuantizeArithmeticEqualsTheSharedCode) {
  // quantize: cvt.rn.satfinite(x · 2^(127 − s)) for x bf16, s any finite scale.
  for (Format f : {Format::e4m3, Format::e5m2}) {
    const Minifloat& t = minifloat(f);
    int64_t failures = 0;
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const uint32_t x = b << 16;
      if ((x & 0x7FFFFFFFu) >= 0x7F800000u) continue;  // NaN and infinity only occur in NaN blocks
      for (int s = 0; s < 255; ++s) {
        const float product = f32_value(x) * f32_value(inverse_scale_bits(uint8_t(s)));
        const uint32_t fast = encode(f32_bits(product), t, Overflow::Saturate);
        if (fast != mx_element(x, uint8_t(s), t) && failures++ < 5)
          ADD_FAILURE() << format_name(f) << " x=" << f32_value(x) << " scale " << s << ": " << fast << " vs "
                        << mx_element(x, uint8_t(s), t);
      }
    }
    EXPECT_EQ(failures, 0);
  }
}

TEST(Mx, Bf16ScaleEqualsTheSharedCodeOnEveryBf16) {
  // The tile kernels' branch-free scale (amax is a bf16 there) against mx_scale, all 2^16 amax
  // bit patterns (signs, zeros, subnormals, infinities and NaNs included), every element format
  // and rule.
  for (Format f : kElems)
    for (ScaleRule r : {ScaleRule::Ocp, ScaleRule::Ceil})
      for (uint32_t b = 0; b < 0x10000; ++b)
        ASSERT_EQ(int(mx_scale_bf16(b, minifloat(f), r)), int(mx_scale(b << 16, minifloat(f), r)))
            << format_name(f) << " " << scale_rule_name(r) << " bf16 bits " << b;
}

TEST(Mx, FastDequantizeArithmeticEqualsTheSharedCode) {
  // dequantize: cvt.rn.bf16(float(code) · 2^(s − 127)), for the scales v05's fast path takes
  // (from 10 for e4m3, 17 for e5m2: no subnormal product) and every non-NaN code.
  for (auto [f, first] : {std::pair{Format::e4m3, 10}, std::pair{Format::e5m2, 17}}) {
    const Minifloat& t = minifloat(f);
    for (uint32_t c = 0; c < 256; ++c) {
      if (is_nan_code(c, t)) continue;
      for (int s = first; s < 255; ++s) {
        const float product = f32_value(decode(c, t)) * f32_value(scale_bits(uint8_t(s)));
        ASSERT_EQ(encode(f32_bits(product), kBf16, Overflow::Plain), encode(mx_value(c, uint8_t(s), t), kBf16, Overflow::Plain))
            << format_name(f) << " code " << c << " scale " << s;
        if (s == first && (c & 0x7F) != 0) {
          EXPECT_GE(std::fabs(product), std::numeric_limits<float>::min()) << "the fast path sees no subnormal";
        }
      }
    }
  }
}

TEST(Mx, LayoutsAndPartialBlocks) {
  const int64_t rows = 37, cols = 45;  // a 13-wide last rowwise block, a 5-tall last columnwise block
  std::vector<float> x = generate(Dist::Normal, rows, cols, 1);
  x[size_t(3 * cols + 40)] = 1000.0f;  // in row 3's last (partial) rowwise block, column 40's last columnwise block
  const MxTensor row = quantize_rows(x, rows, cols, Format::e4m3, ScaleRule::Ceil);
  const MxTensor col = mx_quantize(x, rows, cols, Format::e4m3, ScaleRule::Ceil, MxAxis::Colwise);
  EXPECT_EQ(row.scale_rows(), 37);
  EXPECT_EQ(row.scale_cols(), 2);
  EXPECT_EQ(col.scale_rows(), 2);
  EXPECT_EQ(col.scale_cols(), 45);
  EXPECT_EQ(row.scales.size(), size_t(74));
  EXPECT_EQ(col.scales.size(), size_t(90));
  const uint8_t big = mx_scale(f32_bits(1000.0f), minifloat(Format::e4m3), ScaleRule::Ceil);
  EXPECT_EQ(row.scales[size_t(row.scale_of(3, 40))], big);
  EXPECT_EQ(row.scale_of(3, 31), row.scale_of(3, 0));
  EXPECT_NE(row.scales[size_t(row.scale_of(3, 0))], big);  // the full block beside it does not see 1000
  EXPECT_EQ(col.scales[size_t(col.scale_of(3, 40))], big);  // rows 0…31 of column 40
  EXPECT_NE(col.scales[size_t(col.scale_of(33, 40))], big);  // rows 32…36: a 5-tall block of its own
  EXPECT_EQ(col.scale_of(36, 40), col.scale_of(32, 40));
  // Columnwise of X is rowwise of Xᵀ, transposed back: the same blocks.
  std::vector<float> xt(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) xt[size_t(c * rows + r)] = x[size_t(r * cols + c)];
  const MxTensor rt = quantize_rows(xt, cols, rows, Format::e4m3, ScaleRule::Ceil);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_EQ(col.codes[size_t(r * cols + c)], rt.codes[size_t(c * rows + r)]);
      ASSERT_EQ(col.scales[size_t(col.scale_of(r, c))], rt.scales[size_t(rt.scale_of(c, r))]);
    }
}

TEST(Mx, ColumnwiseIsNotTheRowwiseQuantizationTransposed) {
  // §7.2: the backward GEMMs contract over the other dimension, so they need 32×1 blocks. The
  // rowwise copy cannot provide them: its scales belong to other groups of elements, and
  // re-quantizing its values in 32×1 blocks rounds a second time.
  for (ScaleRule rule : {ScaleRule::Ocp, ScaleRule::Ceil}) {
    SCOPED_TRACE(scale_rule_name(rule));
    const int64_t rows = 256, cols = 256;
    const std::vector<float> x = generate(Dist::Outliers, rows, cols, 7);
    const MxTensor row = quantize_rows(x, rows, cols, Format::e4m3, rule);
    const MxTensor col = mx_quantize(x, rows, cols, Format::e4m3, rule, MxAxis::Colwise);
    // The scales differ: a 32×1 block's scale is not any of its elements' rowwise scales.
    int64_t scale_differs = 0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) scale_differs += row.scales[size_t(row.scale_of(r, c))] != col.scales[size_t(col.scale_of(r, c))];
    EXPECT_GT(scale_differs, 0);
    // So do values: elements of an outlier channel's row blocks lose their small neighbours.
    const std::vector<float> dr = mx_dequantize(row), dc = mx_dequantize(col);
    int64_t value_differs = 0;
    for (size_t i = 0; i < x.size(); ++i) value_differs += dr[i] != dc[i];
    EXPECT_GT(value_differs, 0);
    // Re-quantizing the rowwise values columnwise is worse than quantizing bf16 columnwise.
    const MxTensor requant = mx_quantize(round_to_bf16(dr), rows, cols, Format::e4m3, rule, MxAxis::Colwise);
    const MxError direct = mx_error(x, col), twice = mx_error(x, requant);
    EXPECT_GT(twice.rel_l2, direct.rel_l2);
    EXPECT_GE(twice.flushed, direct.flushed);
  }
}

TEST(Mx, OutlierChannelsHurtRowwiseBlocksOnly) {
  const std::vector<float> x = generate(Dist::Outliers, 512, 512, 3);
  const MxError row = mx_error(x, quantize_rows(x, 512, 512, Format::e4m3, ScaleRule::Ceil));
  const MxError col = mx_error(x, mx_quantize(x, 512, 512, Format::e4m3, ScaleRule::Ceil, MxAxis::Colwise));
  EXPECT_GT(row.flushed, 4 * col.flushed);
}

TEST(Mx, ErrorStatisticsOnKnownTensors) {
  // Values e4m3 holds exactly under one scale: no error at all.
  std::vector<float> exact = {1.0f, -1.5f, 0.5f, 448.0f / 256, 0.0f, 1.25f};
  const MxError e = mx_error(exact, quantize_rows(exact, 1, 6, Format::e4m3, ScaleRule::Ceil));
  EXPECT_EQ(e.rel_l2, 0.0);
  EXPECT_TRUE(std::isinf(e.snr_db));
  EXPECT_EQ(e.flushed, 0.0);
  EXPECT_EQ(e.elements, 6);
  // One element rounds: 1.0625 → 1.0 (tie to even), error 0.0625.
  std::vector<float> one = {1.0625f, 1.0f};
  const MxError r = mx_error(one, quantize_rows(one, 1, 2, Format::e4m3, ScaleRule::Ceil));
  EXPECT_NEAR(r.rel_l2, 0.0625 / std::sqrt(1.0625 * 1.0625 + 1), 1e-12);
  EXPECT_NEAR(r.max_rel, 0.0625 / 1.0625, 1e-12);
  EXPECT_NEAR(r.snr_db, 10 * std::log10((1.0625 * 1.0625 + 1) / (0.0625 * 0.0625)), 1e-9);
}

TEST(Mx, DistributionsAreBf16AndShaped) {
  for (Dist d : {Dist::Normal, Dist::StudentT, Dist::Outliers}) {
    const std::vector<float> x = generate(d, 128, 256, 99);
    EXPECT_EQ(x, generate(d, 128, 256, 99)) << "a pure function of the seed";
    EXPECT_NE(x, generate(d, 128, 256, 100));
    double s2 = 0, amax = 0;
    for (float v : x) {
      EXPECT_EQ(f32_bits(v) & 0xFFFFu, 0u) << "bf16 values";
      s2 += double(v) * v;
      amax = std::max(amax, std::fabs(double(v)));
    }
    const double rms = std::sqrt(s2 / double(x.size()));
    if (d == Dist::Normal) {
      EXPECT_NEAR(rms, 1.0, 0.03);
    } else if (d == Dist::StudentT) {
      EXPECT_GT(amax / rms, 8.0);  // heavy tails
    } else {
      EXPECT_GT(rms, 5.0);  // 1/64 of columns × 100: rms ≈ √(1 + 10⁴/64) ≈ 12.5
    }
  }
}

TEST(Mx, BadInputIsRejected) {
  EXPECT_THROW(mx_quantize({1.0f}, 1, 1, Format::bf16, ScaleRule::Ceil, MxAxis::Rowwise), sol::Error);
  EXPECT_THROW(mx_quantize({1.0f, 2.0f}, 1, 1, Format::e4m3, ScaleRule::Ceil, MxAxis::Rowwise), sol::Error);
  EXPECT_THROW(mx_quantize({}, 0, 1, Format::e4m3, ScaleRule::Ceil, MxAxis::Rowwise), sol::Error);
  EXPECT_THROW(parse_mx_format("mxfp6"), sol::Error);
  EXPECT_THROW(parse_scale_rule("even"), sol::Error);
  EXPECT_THROW(parse_dist("uniform"), sol::Error);
  EXPECT_EQ(parse_mx_format("MXFP8-E5M2"), Format::e5m2);
  EXPECT_EQ(mx_format_name(Format::e2m1), "mxfp4-e2m1");
}

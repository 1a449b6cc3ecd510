// sol::mx_quantize / mx_dequantize through the public API: the refusals (before any CUDA call,
// so they run without a GPU) and on a GPU every code and scale bit for bit against the host
// implementation sol::formats::mx_quantize, in each orientation and both at once, at odd sizes.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/api/choice.hpp"
#include "sol/formats/mx.hpp"
#include "sol/kernels.hpp"
#include "tests/gpu/api_test_util.hpp"

using namespace sol;
using sol::test::DevBuf;
using sol::test::fake_pointer;

namespace {

MxQuantizeArgs valid_quantize() {
  MxQuantizeArgs a;
  a.rows = 37;
  a.cols = 45;
  a.x = fake_pointer(1);
  a.row_codes = fake_pointer(2);
  a.row_scales = fake_pointer(3);
  return a;
}

}  // namespace

TEST(ApiMx, QuantizeRefusesBadArguments) {
  auto quantize = [](MxQuantizeArgs a) { mx_quantize(a, nullptr); };
  MxQuantizeArgs a = valid_quantize();
  a.rows = 0;
  SOL_EXPECT_BAD_INPUT(quantize(a), "rows = 0");
  a = valid_quantize();
  a.elem = DType::bf16;
  SOL_EXPECT_BAD_INPUT(quantize(a), "not an MXFP8 element");
  a = valid_quantize();
  a.x = nullptr;
  SOL_EXPECT_BAD_INPUT(quantize(a), "x is nullptr");
  a = valid_quantize();
  a.row_scales = nullptr;
  SOL_EXPECT_BAD_INPUT(quantize(a), "codes without scales");
  a = valid_quantize();
  a.row_codes = a.row_scales = nullptr;
  SOL_EXPECT_BAD_INPUT(quantize(a), "nothing to write");
  SOL_EXPECT_BAD_INPUT(explain_mx_quantize(MxQuantizeArgs{}), "rows = 0");
}

TEST(ApiMx, DequantizeRefusesBadArguments) {
  MxDequantizeArgs a;
  a.rows = 3;
  a.cols = -1;
  a.codes = fake_pointer(1);
  a.scales = fake_pointer(2);
  a.out = fake_pointer(3);
  SOL_EXPECT_BAD_INPUT(mx_dequantize(a, nullptr), "cols = -1");
  a.cols = 5;
  a.elem = DType::int8;
  SOL_EXPECT_BAD_INPUT(mx_dequantize(a, nullptr), "not an MXFP8 element");
  a.elem = DType::fp8_e5m2;
  a.scales = nullptr;
  SOL_EXPECT_BAD_INPUT(mx_dequantize(a, nullptr), "scales is nullptr");
}

TEST(ApiMx, QuantizeChoiceFollowsOrientationAndDevice) {
  MxQuantizeArgs a = valid_quantize();
  EXPECT_EQ(api::explain_mx_quantize_on(a, 90).implementation, "mx/v02_rowwise");
  EXPECT_EQ(api::explain_mx_quantize_on(a, 80).implementation, "mx/v01_rowwise_shared_code");  // no fp8 cvt
  a.col_codes = fake_pointer(4), a.col_scales = fake_pointer(5);
  EXPECT_EQ(api::explain_mx_quantize_on(a, 90).implementation, "mx/v04_both");
  a.row_codes = a.row_scales = nullptr;
  EXPECT_EQ(api::explain_mx_quantize_on(a, 89).implementation, "mx/v03_columnwise");
  SOL_EXPECT_FAILURE(api::explain_mx_quantize_on(a, 80), "sm_89");  // columnwise on sm_80
}

namespace {

struct MxCase {
  int64_t rows, cols;
  DType elem;
  MxScaleRule rule;
};

formats::Format format_of(DType t) { return t == DType::fp8_e4m3 ? formats::Format::e4m3 : formats::Format::e5m2; }
formats::ScaleRule rule_of(MxScaleRule r) { return r == MxScaleRule::Ceil ? formats::ScaleRule::Ceil : formats::ScaleRule::Ocp; }

const MxCase kCases[] = {{1, 1, DType::fp8_e4m3, MxScaleRule::Ceil},    {37, 45, DType::fp8_e4m3, MxScaleRule::Ceil},
                       {65, 31, DType::fp8_e5m2, MxScaleRule::Ceil},  {100, 1000, DType::fp8_e5m2, MxScaleRule::Floor},
                       {257, 1031, DType::fp8_e4m3, MxScaleRule::Floor}, {64, 512, DType::fp8_e4m3, MxScaleRule::Ceil}};

std::string name(const MxCase& c) {
  return std::to_string(c.rows) + "×" + std::to_string(c.cols) + " " + dtype_name(c.elem) +
         (c.rule == MxScaleRule::Ceil ? " ceil" : " floor");
}

}  // namespace

TEST(ApiMx, QuantizeMatchesHostBitForBitInEveryOrientation) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const MxCase& c : kCases) {
    const std::vector<float> x = formats::generate(formats::Dist::Outliers, c.rows, c.cols, 7);
    std::vector<uint16_t> bits(x.size());
    for (size_t i = 0; i < x.size(); ++i) bits[i] = uint16_t(test::f32_bits(x[i]) >> 16);
    const size_t n = x.size();
    const formats::MxTensor row = formats::mx_quantize(x, c.rows, c.cols, format_of(c.elem), rule_of(c.rule),
                                                       formats::MxAxis::Rowwise);
    const formats::MxTensor col = formats::mx_quantize(x, c.rows, c.cols, format_of(c.elem), rule_of(c.rule),
                                                       formats::MxAxis::Colwise);
    DevBuf dx(n * 2);
    dx.upload(bits);
    for (int orient = 1; orient <= 3; ++orient) {  // 1 rowwise, 2 columnwise, 3 both
      SCOPED_TRACE(name(c) + " orientation " + std::to_string(orient));
      DevBuf rc(n), rs(row.scales.size()), cc(n), cs(col.scales.size());
      MxQuantizeArgs a;
      a.rows = c.rows;
      a.cols = c.cols;
      a.elem = c.elem;
      a.rule = c.rule;
      a.x = dx.get();
      if (orient & 1) a.row_codes = rc.get(), a.row_scales = rs.get();
      if (orient & 2) a.col_codes = cc.get(), a.col_scales = cs.get();
      const Choice ch = explain_mx_quantize(a);
      EXPECT_EQ(ch.implementation, orient == 3 ? "mx/v04_both" : orient == 1 ? "mx/v02_rowwise" : "mx/v03_columnwise");
      mx_quantize(a, nullptr);
      if (orient & 1) {
        EXPECT_TRUE(rc.download<uint8_t>(n) == row.codes) << "rowwise codes";
        EXPECT_TRUE(rs.download<uint8_t>(row.scales.size()) == row.scales) << "rowwise scales";
      }
      if (orient & 2) {
        EXPECT_TRUE(cc.download<uint8_t>(n) == col.codes) << "columnwise codes";
        EXPECT_TRUE(cs.download<uint8_t>(col.scales.size()) == col.scales) << "columnwise scales";
      }
    }
  }
}

TEST(ApiMx, DequantizeMatchesHost) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const MxCase& c : kCases)
    for (const formats::MxAxis axis : {formats::MxAxis::Rowwise, formats::MxAxis::Colwise}) {
      SCOPED_TRACE(name(c) + (axis == formats::MxAxis::Colwise ? " columnwise" : " rowwise"));
      const std::vector<float> x = formats::generate(formats::Dist::StudentT, c.rows, c.cols, 11);
      const formats::MxTensor q = formats::mx_quantize(x, c.rows, c.cols, format_of(c.elem), rule_of(c.rule), axis);
      const std::vector<float> want = formats::round_to_bf16(formats::mx_dequantize(q));
      DevBuf codes(q.codes.size()), scales(q.scales.size()), out(x.size() * 2);
      codes.upload(q.codes);
      scales.upload(q.scales);
      MxDequantizeArgs a;
      a.rows = c.rows;
      a.cols = c.cols;
      a.elem = c.elem;
      a.columnwise = axis == formats::MxAxis::Colwise;
      a.codes = codes.get();
      a.scales = scales.get();
      a.out = out.get();
      EXPECT_EQ(explain_mx_dequantize(a).implementation, "mx/v05_dequantize");
      mx_dequantize(a, nullptr);
      const std::vector<uint16_t> got = out.download<uint16_t>(x.size());
      int64_t wrong = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const uint16_t w = std::isnan(want[i]) ? uint16_t(0x7FC0) : uint16_t(test::f32_bits(want[i]) >> 16);
        wrong += got[i] != w;
      }
      EXPECT_EQ(wrong, 0) << "bf16 words differ from the host's";
    }
}

#else
TEST(ApiMx, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif  // SOL_WITH_CUDA

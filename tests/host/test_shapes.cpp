// The GEMM shape model on cases worked by hand (the arithmetic is in each comment), the lecture's
// 1792³ against 1793³ first.
#include <gtest/gtest.h>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"
#include "sol/model/shapes.hpp"

using namespace sol;
using namespace sol::model;

namespace {
GemmShape square(int64_t size, DType t = DType::bf16, GemmTile tile = {128, 256, 64}) {
  return {size, size, size, t, tile, 1};
}
double floor_of(int64_t m, int64_t n, int64_t k, DType t, const hw::HwSpec& hw) {
  return roofline(matmul({m, n, k, t, MatmulImpl::Minimal, 0}), hw).t_floor_s;
}
}  // namespace

TEST(Shapes, LectureSeventeenNinetyTwo) {
  const hw::HwSpec& h200 = hw::find("h200");
  ASSERT_EQ(h200.compute_units, 132);
  // 1792 = 14·128 = 7·256 = 28·64: no padding; 98 tiles on 132 SMs = 0.742 of one wave.
  // Pitch 1792·2 = 3584 B = 28·128: 128-byte aligned, 16-byte loads.
  const GemmEstimate e = gemm_estimate(square(1792), h200);
  EXPECT_EQ(e.tiles, 98);
  EXPECT_DOUBLE_EQ(e.tile_efficiency, 1.0);
  EXPECT_NEAR(e.wave_efficiency, 98.0 / 132, 1e-12);
  for (const auto& a : e.alignment) {
    EXPECT_EQ(a.pitch_bytes, 3584);
    EXPECT_EQ(a.cls, AlignClass::B128);
  }
  EXPECT_DOUBLE_EQ(e.alignment_efficiency, 1.0);
  EXPECT_NEAR(e.predicted_s, floor_of(1792, 1792, 1792, DType::bf16, h200) / (98.0 / 132), 1e-15);
  EXPECT_EQ(e.bound, "compute");
}

TEST(Shapes, LectureSeventeenNinetyThree) {
  const hw::HwSpec& h200 = hw::find("h200");
  // 1793: ⌈1793/128⌉ = 15 (1920), ⌈1793/256⌉ = 8 (2048), ⌈1793/64⌉ = 29 (1856); 120 tiles.
  // Pitch 3586 B = 2·1793: only 2-byte loads stay aligned → 2/16.
  const GemmEstimate e = gemm_estimate(square(1793), h200);
  EXPECT_EQ(e.tiles_m, 15);
  EXPECT_EQ(e.tiles_n, 8);
  EXPECT_EQ(e.tiles_k, 29);
  EXPECT_EQ(e.tiles, 120);
  const double tile_eff = (1793.0 / 1920) * (1793.0 / 2048) * (1793.0 / 1856);
  EXPECT_NEAR(e.tile_efficiency, tile_eff, 1e-12);
  EXPECT_NEAR(e.wave_efficiency, 120.0 / 132, 1e-12);
  EXPECT_EQ(e.vector_bytes, 2);
  for (const auto& a : e.alignment) EXPECT_EQ(a.cls, AlignClass::Narrow);
  EXPECT_NEAR(e.efficiency, tile_eff * (120.0 / 132) * 0.125, 1e-12);
  // One more row and column costs far more than the 0.17 % extra work: the model says > 5× slower.
  const GemmEstimate even = gemm_estimate(square(1792), h200);
  EXPECT_GT(e.predicted_s / even.predicted_s, 5.0);
  EXPECT_LT(e.predicted_flops_per_s, even.predicted_flops_per_s / 5);
}

TEST(Shapes, AlignmentClasses) {
  const hw::HwSpec& h100 = hw::find("h100");
  // fp32, K = 1796: 7184 B = 56·128 + 16 → 16-byte aligned, not 128. N = 1792: 7168 = 56·128.
  GemmEstimate e = gemm_estimate({1792, 1792, 1796, DType::f32, {128, 128, 32}, 1}, h100);
  EXPECT_EQ(e.alignment[0].cls, AlignClass::B16);
  EXPECT_EQ(e.alignment[0].vector_bytes, 16);
  EXPECT_EQ(e.alignment[1].cls, AlignClass::B128);
  EXPECT_DOUBLE_EQ(e.alignment_efficiency, 1.0);
  // bf16, N = 1796: 3592 B = 8·449 → 8-byte loads; K = 1800: 3600 = 16·225 → 16.
  e = gemm_estimate({1024, 1796, 1800, DType::bf16, {128, 128, 64}, 1}, h100);
  EXPECT_EQ(e.alignment[0].vector_bytes, 16);
  EXPECT_EQ(e.alignment[1].vector_bytes, 8);
  EXPECT_EQ(e.alignment[1].cls, AlignClass::Narrow);
  EXPECT_DOUBLE_EQ(e.alignment_efficiency, 0.5);
  // fp8 and odd K: 1-byte loads.
  e = gemm_estimate({1024, 1024, 1001, DType::fp8_e4m3, {128, 128, 128}, 1}, h100);
  EXPECT_EQ(e.vector_bytes, 1);
}

TEST(Shapes, WaveQuantization) {
  const hw::HwSpec& h100 = hw::find("h100");
  // 4096² with 128×128 tiles: 32·32 = 1024 tiles / 132 = 7.76 waves → 8: efficiency 7.758/8.
  GemmEstimate e = gemm_estimate(square(4096, DType::bf16, {128, 128, 64}), h100);
  EXPECT_EQ(e.tiles, 1024);
  EXPECT_EQ(e.full_waves, 7);
  EXPECT_EQ(e.last_wave_tiles, 1024 - 7 * 132);
  EXPECT_NEAR(e.wave_efficiency, (1024.0 / 132) / 8, 1e-12);
  // Two tiles per SM: 264 per wave → 3.88 waves → 4.
  GemmShape two = square(4096, DType::bf16, {128, 128, 64});
  two.blocks_per_sm = 2;
  EXPECT_NEAR(gemm_estimate(two, h100).wave_efficiency, (1024.0 / 264) / 4, 1e-12);
}

TEST(Shapes, SweepHoldsFixedDimensions) {
  const hw::HwSpec& h200 = hw::find("h200");
  const auto curve = gemm_sweep({0, 0, 4096, DType::bf16, {128, 256, 64}, 1}, parse_sweep("1790:1794:2"), h200);
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_EQ(curve[0].shape.m, 1790);
  EXPECT_EQ(curve[2].shape.n, 1794);
  for (const auto& e : curve) EXPECT_EQ(e.shape.k, 4096);
  // 1792 is the only one of the three with 16-byte pitches (1790·2 and 1794·2 are 4 × an odd number).
  EXPECT_GT(curve[1].predicted_flops_per_s, curve[0].predicted_flops_per_s);
  EXPECT_GT(curve[1].predicted_flops_per_s, curve[2].predicted_flops_per_s);
}

TEST(Shapes, ParsingAndBadInput) {
  EXPECT_EQ(parse_tile("128x256x64").n, 256);
  EXPECT_EQ(parse_tile("64×64×32").k, 32);
  EXPECT_EQ(tile_str(parse_tile("128X128X64")), "128x128x64");
  for (const char* bad : {"128x256", "0x1x1", "axbxc", "", "128x256x64x1"}) EXPECT_THROW(parse_tile(bad), Error) << bad;
  for (const char* bad : {"1:2", "5:1:1", "1:10:0", "0:4:1", "1:1000000:1", "a:b:c"})
    EXPECT_THROW(parse_sweep(bad), Error) << bad;
  const hw::HwSpec& h100 = hw::find("h100");
  EXPECT_THROW(gemm_estimate(square(0), h100), Error);
  EXPECT_THROW(gemm_estimate({10, 10, -1, DType::bf16, {}, 1}, h100), Error);
  EXPECT_THROW(gemm_estimate({10, 10, 10, DType::bf16, {}, 0}, h100), Error);
  EXPECT_THROW(gemm_estimate({10, 10, 10, DType::bf16, {0, 1, 1}, 1}, h100), Error);
  for (const auto* s : hw::all_specs())
    if (s->vendor == "google") {
      EXPECT_THROW(gemm_estimate(square(1024), *s), Error) << s->name;
    }
}

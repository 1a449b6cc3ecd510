// The roofline arithmetic on made-up ceilings where every number is obvious, the hierarchical
// rows on a made-up three-level chip, and the unit fallback for types a matrix unit lacks.
#include <gtest/gtest.h>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/roofline.hpp"

using namespace sol;
using namespace sol::model;

namespace {

Cost cost(double flops, double bytes) {
  Cost c;
  c.flops = flops;
  c.bytes = bytes;
  return c;
}

// A chip with 1000 FLOP/s of bf16 matrix math, 100 of fp32 vector math, and three levels.
hw::HwSpec toy_chip() {
  hw::HwSpec s;
  s.name = "toy";
  s.full_name = "toy chip";
  hw::Peak m;
  m.units = 10;
  m.unit_label = "tensor cores";
  m.flops_per_clock_per_unit = 100;
  m.clock_hz = 1;
  m.flops_per_s = 1000;
  s.matrix_peaks["bf16"] = m;
  hw::Peak v = m;
  v.flops_per_clock_per_unit = 10;
  v.flops_per_s = 100;
  s.vector_peaks["fp32"] = v;
  s.vector_peaks["bf16"] = v;
  s.hbm_bytes_per_s = 10;
  s.levels = {{"smem/L1", 0, 400, "", ""}, {"L2", 0, 40, "", ""}, {"HBM", 0, 10, "", ""}};
  return s;
}

}  // namespace

TEST(Roofline, ComputeBound) {
  Estimate e = roofline(cost(1000, 10), Ceilings{100, 10, "", ""});
  EXPECT_DOUBLE_EQ(e.intensity, 100);
  EXPECT_DOUBLE_EQ(e.ridge, 10);
  EXPECT_EQ(e.bound, "compute");
  EXPECT_DOUBLE_EQ(e.t_compute_s, 10);
  EXPECT_DOUBLE_EQ(e.t_memory_s, 1);
  EXPECT_DOUBLE_EQ(e.t_floor_s, 10);
  EXPECT_DOUBLE_EQ(e.attainable_flops_per_s, 100);
  EXPECT_DOUBLE_EQ(e.fraction_of_peak, 1);
}

TEST(Roofline, MemoryBound) {
  Estimate e = roofline(cost(10, 100), Ceilings{100, 10, "", ""});
  EXPECT_DOUBLE_EQ(e.intensity, 0.1);
  EXPECT_EQ(e.bound, "memory");
  EXPECT_DOUBLE_EQ(e.t_floor_s, 10);
  EXPECT_DOUBLE_EQ(e.attainable_flops_per_s, 1);  // intensity × bandwidth
  EXPECT_DOUBLE_EQ(e.fraction_of_peak, 0.01);     // intensity / ridge
}

TEST(Roofline, AtTheRidgeIsMemoryBoundAsInTheLecture) {
  // The lecture's calculator says compute-bound only when I > I*.
  Estimate e = roofline(cost(100, 10), Ceilings{100, 10, "", ""});
  EXPECT_DOUBLE_EQ(e.intensity, e.ridge);
  EXPECT_EQ(e.bound, "memory");
  EXPECT_DOUBLE_EQ(e.fraction_of_peak, 1);
}

TEST(Roofline, ZeroFlopsIsAPureCopy) {
  Estimate e = roofline(cost(0, 100), Ceilings{100, 10, "", ""});
  EXPECT_EQ(e.bound, "memory");
  EXPECT_DOUBLE_EQ(e.t_floor_s, 10);
  EXPECT_DOUBLE_EQ(e.fraction_of_peak, 0);
}

TEST(Roofline, RejectsImpossibleInputs) {
  EXPECT_THROW(roofline(cost(1, 1), Ceilings{0, 10, "", ""}), Error);
  EXPECT_THROW(roofline(cost(1, 1), Ceilings{10, -1, "", ""}), Error);
  EXPECT_THROW(roofline(cost(1, 0), Ceilings{10, 10, "", ""}), Error);
  EXPECT_THROW(roofline(cost(-1, 1), Ceilings{10, 10, "", ""}), Error);
}

TEST(Roofline, DatasheetCeilingsFromTheSpec) {
  hw::HwSpec chip = toy_chip();
  Cost c = cost(1000, 10);
  c.unit = hw::Unit::Matrix;
  c.dtype = DType::bf16;
  Estimate e = roofline(c, chip);
  EXPECT_DOUBLE_EQ(e.ceilings.flops_per_s, 1000);
  EXPECT_DOUBLE_EQ(e.ceilings.bytes_per_s, 10);
  EXPECT_NE(e.ceilings.flops_label.find("datasheet"), std::string::npos);
  EXPECT_NE(e.ceilings.flops_label.find("matrix"), std::string::npos);
  chip.measured = true;
  EXPECT_NE(datasheet_ceilings(chip, DType::bf16, hw::Unit::Matrix).flops_label.find("measured"), std::string::npos);
  // A type the chip lacks is bad input naming it.
  c.dtype = DType::fp8_e4m3;
  try {
    roofline(c, chip);
    FAIL() << "no error for fp8 on a chip without it";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), Error::Kind::BadInput);
    EXPECT_NE(err.line().find("fp8"), std::string::npos);
  }
}

TEST(Roofline, PeakFallbacks) {
  hw::HwSpec chip = toy_chip();
  chip.vector_peaks.erase("bf16");
  PeakChoice p = resolve_peak(chip, DType::bf16, hw::Unit::Matrix);
  EXPECT_EQ(p.unit, hw::Unit::Matrix);
  EXPECT_EQ(p.dtype, DType::bf16);
  EXPECT_TRUE(p.why.empty());
  // fp32 has no matrix peak here: a matmul runs on the vector unit, and the note says so.
  p = resolve_peak(chip, DType::f32, hw::Unit::Matrix);
  EXPECT_EQ(p.unit, hw::Unit::Vector);
  EXPECT_EQ(p.dtype, DType::f32);
  EXPECT_NE(p.why.find("fp32"), std::string::npos);
  // bf16 data on a vector unit without bf16 math is computed in fp32.
  p = resolve_peak(chip, DType::bf16, hw::Unit::Vector);
  EXPECT_EQ(p.unit, hw::Unit::Vector);
  EXPECT_EQ(p.dtype, DType::f32);
  EXPECT_NE(p.why.find("converted"), std::string::npos);
  // A matmul in a type neither unit has stays as asked, for peak() to refuse.
  p = resolve_peak(chip, DType::fp8_e4m3, hw::Unit::Matrix);
  EXPECT_EQ(p.unit, hw::Unit::Matrix);
  EXPECT_EQ(p.dtype, DType::fp8_e4m3);
  EXPECT_THROW(chip.peak(p.dtype, p.unit), Error);
  // The roofline uses the math type's peak when the cost names one.
  Cost c = cost(100, 10);
  c.unit = hw::Unit::Vector;
  c.dtype = DType::bf16;
  c.math_dtype = DType::f32;
  EXPECT_DOUBLE_EQ(roofline(c, chip).ceilings.flops_per_s, 100);
  EXPECT_DOUBLE_EQ(hierarchical(c, chip).back().ridge, 10);
}

TEST(Hierarchical, RowsForKnownLevelsAndHbm) {
  hw::HwSpec chip = toy_chip();
  Cost c = cost(1000, 20);
  c.unit = hw::Unit::Matrix;
  c.levels = {{"SMEM/L1", 4000}, {"registers", 1e9}};  // registers: not a level of this chip
  std::vector<LevelEstimate> rows = hierarchical(c, chip);
  ASSERT_EQ(rows.size(), 2u);  // L2 traffic unknown: no row
  EXPECT_EQ(rows[0].level, "smem/L1");
  EXPECT_DOUBLE_EQ(rows[0].bytes, 4000);
  EXPECT_DOUBLE_EQ(rows[0].t_s, 10);
  EXPECT_DOUBLE_EQ(rows[0].intensity, 0.25);
  EXPECT_DOUBLE_EQ(rows[0].ridge, 1000.0 / 400);
  EXPECT_TRUE(rows[0].binding);
  EXPECT_EQ(rows[1].level, "HBM");
  EXPECT_DOUBLE_EQ(rows[1].bytes, 20);
  EXPECT_DOUBLE_EQ(rows[1].t_s, 2);
  EXPECT_FALSE(rows[1].binding);
  // With little shared-memory traffic HBM binds.
  c.levels = {{"smem/L1", 40}, {"L2", 60}};
  rows = hierarchical(c, chip);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows[0].binding);
  EXPECT_FALSE(rows[1].binding);
  EXPECT_TRUE(rows[2].binding);
}

TEST(Hierarchical, NaiveTiledAndMinimalMatmulOnH100) {
  // The tiled kernel of §10 (one output per thread) reads 2·M·N·K·b from shared memory: on
  // H100 that, not HBM, is its floor, which is why real kernels also tile registers.
  const hw::HwSpec& h100 = hw::find("h100");
  Cost tiled = matmul({.m = 4096, .n = 4096, .k = 4096, .impl = MatmulImpl::Tiled, .tile = 32});
  std::vector<LevelEstimate> rows = hierarchical(tiled, h100);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].level, "smem/L1");
  EXPECT_TRUE(rows[0].binding);
  EXPECT_GT(rows[0].t_s, roofline(tiled, h100).t_compute_s);
  EXPECT_EQ(rows[1].level, "HBM");
  EXPECT_DOUBLE_EQ(rows[1].bytes, tiled.bytes);
  Cost minimal = matmul({.m = 4096, .n = 4096, .k = 4096});
  rows = hierarchical(minimal, h100);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].binding);
  EXPECT_DOUBLE_EQ(rows[0].t_s, roofline(minimal, h100).t_memory_s);
}

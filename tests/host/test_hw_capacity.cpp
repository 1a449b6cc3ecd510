// Every capacity of the built-in rows in the unit the hardware has: binary sizes for registers,
// shared memory, L2 and HBM, checked against the driver's figures in the committed H200 results
// and against the vendors' "N GB" / "N MB" read as GiB / MiB.
#include <gtest/gtest.h>

#include <string>

#include "sol/hw/spec.hpp"
#include "sol/results.hpp"

using namespace sol;

namespace {
constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

const hw::HwSpec& row(const std::string& name) { return hw::find(name); }
}  // namespace

TEST(HwCapacity, HbmIsTheVendorsGbReadAsGiB) {
  EXPECT_DOUBLE_EQ(row("a100").hbm_bytes, 40 * kGiB);
  EXPECT_DOUBLE_EQ(row("a100-80gb").hbm_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(row("h100").hbm_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(row("h200").hbm_bytes, 141 * kGiB);
  EXPECT_DOUBLE_EQ(row("b200").hbm_bytes, 180 * kGiB);
  // Each source says how it reads "GB", so the number and the text shown beside it agree.
  for (const char* name : {"a100", "a100-80gb", "h100", "h200", "b200"})
    EXPECT_NE(row(name).hbm_source.find("GB (GiB"), std::string::npos) << name << ": " << row(name).hbm_source;
}

TEST(HwCapacity, H200RowAgreesWithTheDriverInTheCommittedResults) {
  const results::File f = results::read(std::string(SOL_SOURCE_DIR) + "/bench/results/h200/copy.json");
  ASSERT_EQ(f.device.database_row, "h200");
  const hw::HwSpec& h200 = row("h200");
  // The driver reports a little less than the stacks hold as usable: within 2 % below, never above.
  EXPECT_LE(f.device.memory_bytes, h200.hbm_bytes);
  EXPECT_GE(f.device.memory_bytes, 0.98 * h200.hbm_bytes);
  // 141e9 B (the "GB" read as decimal) would be less than the driver's usable memory.
  EXPECT_GT(f.device.memory_bytes, 141e9);
  EXPECT_DOUBLE_EQ(h200.l2_bytes, f.device.l2_bytes);
  EXPECT_DOUBLE_EQ(h200.l2_bytes, 60 * kMiB);
  EXPECT_DOUBLE_EQ(h200.levels[2].capacity_bytes, h200.l2_bytes);
}

TEST(HwCapacity, OnChipLevelsAreBinary) {
  EXPECT_DOUBLE_EQ(row("a100").l2_bytes, 40 * kMiB);
  EXPECT_DOUBLE_EQ(row("h100").l2_bytes, 50 * kMiB);
  for (const char* name : {"a100", "a100-80gb", "h100", "h200", "b200"}) {
    const hw::HwSpec& s = row(name);
    // 65536 32-bit registers per SM; shared memory a whole number of KiB, never above L1 + shared
    EXPECT_DOUBLE_EQ(s.register_bytes_per_unit, s.limits.registers_per_sm * 4.0) << name;
    EXPECT_DOUBLE_EQ(s.register_bytes_per_unit, 256 * kKiB) << name;
    EXPECT_EQ(s.limits.shared_bytes_per_sm % 1024, 0) << name;
    EXPECT_LE(s.limits.shared_bytes_per_sm, s.shared_bytes_per_unit) << name;
    EXPECT_DOUBLE_EQ(s.levels[0].capacity_bytes, s.compute_units * s.register_bytes_per_unit) << name;
    EXPECT_DOUBLE_EQ(s.levels[1].capacity_bytes, s.compute_units * s.shared_bytes_per_unit) << name;
  }
  EXPECT_EQ(row("h100").limits.shared_bytes_per_sm, 228 * 1024);
  EXPECT_EQ(row("a100").limits.shared_bytes_per_sm, 164 * 1024);
}

// The occupancy model against cases worked by hand (the arithmetic is in each comment), including
// the lecture's §12 example: 64 registers per thread on an A100 → 32 warps → 50 %.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/occupancy.hpp"

using namespace sol;
using namespace sol::model;

namespace {
// CUDA programming guide, compute capability table: cc 8.0 (A100) and 9.0 (H100/H200).
hw::SmLimits a100_limits() {
  hw::SmLimits s;
  s.warp_size = 32;
  s.max_warps_per_sm = 64;
  s.max_blocks_per_sm = 32;
  s.max_threads_per_block = 1024;
  s.registers_per_sm = 65536;
  s.max_registers_per_thread = 255;
  s.register_alloc_unit = 256;
  s.shared_bytes_per_sm = 164 * 1024;
  s.max_shared_bytes_per_block = 163 * 1024;
  s.shared_alloc_unit = 128;
  s.reserved_shared_bytes_per_block = 1024;
  return s;
}
hw::SmLimits h100_limits() {
  hw::SmLimits s = a100_limits();
  s.shared_bytes_per_sm = 228 * 1024;
  s.max_shared_bytes_per_block = 227 * 1024;
  return s;
}
}  // namespace

TEST(Occupancy, LectureSixtyFourRegistersIsHalf) {
  // 64 × 32 = 2048 registers per warp; 65536 / 2048 = 32 warps = 50 % of 64.
  for (int threads : {256, 1024}) {
    Occupancy o = occupancy(a100_limits(), {threads, 64, 0, 0});
    EXPECT_EQ(o.warps_per_sm, 32) << threads;
    EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
    EXPECT_EQ(o.limiter, OccupancyLimiter::Registers);
    EXPECT_EQ(o.registers_per_warp, 2048);
  }
  // ... and 32 registers reach 100 %: 1024 per warp, 64 warps, limited by warps (tie with registers).
  Occupancy full = occupancy(a100_limits(), {256, 32, 0, 0});
  EXPECT_EQ(full.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(full.occupancy, 1.0);
  EXPECT_EQ(full.limiter, OccupancyLimiter::Warps);
}

TEST(Occupancy, LectureCaseOnTheDatabaseRows) {
  // The same arithmetic on the database's own limits: a100 (the lecture's card) and h100.
  for (const char* gpu : {"a100", "h100"}) {
    Occupancy o = occupancy(hw::find(gpu).limits, {256, 64, 0, 0});
    EXPECT_EQ(o.warps_per_sm, 32) << gpu;
    EXPECT_DOUBLE_EQ(o.occupancy, 0.5) << gpu;
  }
  EXPECT_EQ(occupancy(hw::find("h100").limits, {256, 16, 48 * 1024, 0}).blocks_by_shared, 4);
}

TEST(Occupancy, RegisterAllocationGranularity) {
  // 33 × 32 = 1056 → rounded to 1280 per warp; 16384 per quarter / 1280 = 12 warps; ×4 = 48 warps;
  // 128-thread blocks (4 warps) → 12 blocks, 48 warps = 75 %. Ignoring the granule gives 62 warps.
  Occupancy o = occupancy(a100_limits(), {128, 33, 0, 0});
  EXPECT_EQ(o.registers_per_warp, 1280);
  EXPECT_EQ(o.blocks_by_registers, 12);
  EXPECT_EQ(o.warps_per_sm, 48);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.75);
}

TEST(Occupancy, WarpsLiveInOneSchedulerQuarter) {
  // 40 × 32 = 1280 per warp. Whole file: 65536 / 1280 = 51 warps → 17 blocks of 3 warps. But a warp
  // takes its registers from one quarter: 16384 / 1280 = 12 → 48 warps → 16 blocks of 3 warps.
  Occupancy o = occupancy(a100_limits(), {96, 40, 0, 0});
  EXPECT_EQ(o.warps_per_block, 3);
  EXPECT_EQ(o.blocks_by_registers, 16);
  EXPECT_EQ(o.blocks_by_warps, 21);  // 64 / 3
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_EQ(o.limiter, OccupancyLimiter::Registers);
}

TEST(Occupancy, SharedMemoryWithReservationAndGranule) {
  // H100, 48 KiB static: 49152 + 1024 reserved = 50176 B per block; 233472 / 50176 = 4 blocks
  // of 8 warps = 32 warps = 50 %, limited by shared memory.
  Occupancy o = occupancy(h100_limits(), {256, 16, 48 * 1024, 0});
  EXPECT_EQ(o.shared_per_block, 50176);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.limiter, OccupancyLimiter::SharedMemory);
  // 58000 B dynamic: + 1024 = 59024 → rounded to 59136; 233472 / 59136 = 3 (without the
  // reservation it would be 233472 / 58000 = 4).
  Occupancy r = occupancy(h100_limits(), {128, 16, 0, 58000});
  EXPECT_EQ(r.shared_per_block, 59136);
  EXPECT_EQ(r.blocks_by_shared, 3);
  // A100 has less shared memory per SM: the same 48 KiB gives 167936 / 50176 = 3 blocks.
  EXPECT_EQ(occupancy(a100_limits(), {256, 16, 48 * 1024, 0}).blocks_by_shared, 3);
}

TEST(Occupancy, SmallBlocksHitTheBlockCap) {
  // 32-thread blocks: warps would allow 64, the SM holds at most 32 blocks → 32 warps = 50 %.
  Occupancy o = occupancy(h100_limits(), {32, 16, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, OccupancyLimiter::Blocks);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  // Partial warps count as whole warps: 33 threads = 2 warps.
  EXPECT_EQ(occupancy(h100_limits(), {33, 16, 0, 0}).warps_per_block, 2);
}

TEST(Occupancy, ABlockThatCannotFit) {
  // 1024 threads × 255 registers: 8160 → 8192 per warp, 2 warps per quarter → 8 warps < 32 per block.
  Occupancy o = occupancy(a100_limits(), {1024, 255, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.occupancy, 0.0);
  EXPECT_EQ(o.limiter, OccupancyLimiter::Registers);
}

TEST(Occupancy, NoRegistersNoLimit) {
  Occupancy o = occupancy(a100_limits(), {256, 0, 0, 0});
  EXPECT_EQ(o.blocks_by_registers, INT_MAX);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.derivation.size(), 5u);  // one line per limit, and the carve-out
}

TEST(Occupancy, BadInputs) {
  auto expect_bad = [](const hw::SmLimits& s, KernelResources k) {
    try {
      occupancy(s, k);
      ADD_FAILURE() << "no throw for " << k.block_threads << " threads";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    }
  };
  expect_bad(a100_limits(), {0, 32, 0, 0});
  expect_bad(a100_limits(), {1025, 32, 0, 0});
  expect_bad(a100_limits(), {256, 256, 0, 0});
  expect_bad(a100_limits(), {256, 32, -1, 0});
  expect_bad(a100_limits(), {256, 32, 100 * 1024, 64 * 1024});  // 164 KiB > 163 KiB per block
  expect_bad(hw::SmLimits{}, {256, 32, 0, 0});                 // a TPU row: no SM limits
}

TEST(Occupancy, RegistersNeededForMoreBlocks) {
  // 8 blocks of 8 warps = 64 warps: 16 per quarter → ≤ 1024 per warp → ≤ 32 registers.
  EXPECT_EQ(max_registers_for_blocks(a100_limits(), 256, 8), 32);
  // 5 blocks = 40 warps: 10 per quarter → ≤ 1638 → 1536 = 48 × 32 (49 rounds to 1792 → 9 → 4 blocks).
  EXPECT_EQ(max_registers_for_blocks(a100_limits(), 256, 5), 48);
  EXPECT_EQ(occupancy(a100_limits(), {256, 48, 0, 0}).blocks_by_registers, 5);
  EXPECT_EQ(occupancy(a100_limits(), {256, 49, 0, 0}).blocks_by_registers, 4);
  // The register limit alone: 3 blocks of 32 warps = 96 warps, 24 per quarter → ≤ 682 → 512 per
  // warp = 16 registers (17 rounds up to 768 → 21 per quarter → 2 blocks).
  EXPECT_EQ(max_registers_for_blocks(a100_limits(), 1024, 3), 16);
  // Even one register (256 per warp → 256 warps) cannot hold 9 blocks of 32 warps.
  EXPECT_EQ(max_registers_for_blocks(a100_limits(), 1024, 9), 0);
}

// The carve-out rule, worked by hand on the h100 row (steps 0, 8, 16, 32, 64, 100, 132, 164, 196,
// 228 KiB; max 228 KiB = 233472 B; 1 KiB reserved per block, 128 B granule).
TEST(OccupancyCarveout, DatabaseSteps) {
  const std::vector<int> hopper = {0, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 100 << 10, 132 << 10, 164 << 10,
                                   196 << 10, 228 << 10};
  for (const char* gpu : {"h100", "h200", "b200"}) EXPECT_EQ(hw::find(gpu).limits.carveout_steps, hopper) << gpu;
  const std::vector<int> a100(hopper.begin(), hopper.begin() + 8);  // up to 164 KiB
  EXPECT_EQ(hw::find("a100").limits.carveout_steps, a100);
  for (const hw::HwSpec* s : hw::all_specs()) {
    if (!s->limits.carveout_steps.empty()) {
      EXPECT_EQ(s->limits.carveout_steps.back(), s->limits.shared_bytes_per_sm) << s->name;
    }
  }
}

TEST(OccupancyCarveout, DefaultIsTheLargestStep) {
  // 30000 + 1024 = 31024 → 31104 B per block; 233472 / 31104 = 7.5 → 7 blocks, as without a carve-out.
  const Occupancy o = occupancy(hw::find("h100").limits, {128, 32, 0, 30000});
  EXPECT_EQ(o.carveout_bytes, 228 * 1024);
  EXPECT_EQ(o.preferred_carveout_bytes, 228 * 1024);
  EXPECT_EQ(o.blocks_by_shared, 7);
}

TEST(OccupancyCarveout, PreferenceRoundsUpToTheNextStep) {
  const hw::SmLimits& h = hw::find("h100").limits;
  // 50 %: 116736 B → the 132 KiB step (135168 B); 31104 B per block → 4 blocks (7 by default).
  Occupancy o = occupancy(h, {128, 32, 0, 30000, 50});
  EXPECT_EQ(o.preferred_carveout_bytes, 132 * 1024);
  EXPECT_EQ(o.carveout_bytes, 132 * 1024);
  EXPECT_EQ(o.blocks_by_shared, 4);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, OccupancyLimiter::SharedMemory);
  // 100 %: the maximum; 1 %: 2334 B → the 8 KiB step.
  EXPECT_EQ(occupancy(h, {128, 32, 0, 30000, 100}).carveout_bytes, 228 * 1024);
  EXPECT_EQ(carveout_bytes(h, 1, 1024), 8 * 1024);
  // 28 % of 233472 B = 65372 B (floored), under 64 KiB = 65536 B → the 64 KiB step.
  EXPECT_EQ(carveout_bytes(h, 28, 1024), 64 * 1024);
  // 29 %: 67706 B > 64 KiB → the 100 KiB step.
  EXPECT_EQ(carveout_bytes(h, 29, 1024), 100 * 1024);
}

TEST(OccupancyCarveout, TooSmallAPreferenceGivesWayToOneBlock) {
  const hw::SmLimits& h = hw::find("h100").limits;
  // 10 %: 23347 B → the 32 KiB step; a block of 40000 B + 1 KiB rounds to 41088 B, which 32 KiB cannot
  // hold, so the driver takes the smallest step that can: 64 KiB → 1 block.
  Occupancy o = occupancy(h, {128, 32, 0, 40000, 10});
  EXPECT_EQ(o.preferred_carveout_bytes, 32 * 1024);
  EXPECT_EQ(o.carveout_bytes, 64 * 1024);
  EXPECT_EQ(o.blocks_by_shared, 1);
  // 0 % and no shared memory at all: the 1 KiB reservation still needs the 8 KiB step → 8 blocks,
  // so 128-thread blocks reach only 32 of 64 warps.
  Occupancy zero = occupancy(h, {128, 32, 0, 0, 0});
  EXPECT_EQ(zero.preferred_carveout_bytes, 0);
  EXPECT_EQ(zero.carveout_bytes, 8 * 1024);
  EXPECT_EQ(zero.blocks_per_sm, 8);
  EXPECT_EQ(zero.limiter, OccupancyLimiter::SharedMemory);
  EXPECT_DOUBLE_EQ(zero.occupancy, 0.5);
  // The largest block (227 KiB + 1 KiB) needs the largest step whatever the preference.
  for (int p : {0, 30, 99}) EXPECT_EQ(occupancy(h, {128, 32, 0, 227 * 1024, p}).blocks_per_sm, 1) << p;
}

TEST(OccupancyCarveout, MoreCarveoutNeverFewerBlocks) {
  // Monotone in the preference, and never above the default (the largest step).
  const hw::SmLimits& h = hw::find("h100").limits;
  for (int64_t dyn : {0, 1, 5000, 20000, 50000, 100000, 200000}) {
    const int by_default = occupancy(h, {64, 16, 0, dyn}).blocks_by_shared;
    int last = 0;
    for (int p = 0; p <= 100; ++p) {
      const Occupancy o = occupancy(h, {64, 16, 0, dyn, p});
      EXPECT_GE(o.blocks_by_shared, last) << dyn << " B at " << p << " %";
      EXPECT_LE(o.blocks_by_shared, by_default) << dyn << " B at " << p << " %";
      EXPECT_GE(o.carveout_bytes, o.shared_per_block) << dyn << " B at " << p << " %";
      last = o.blocks_by_shared;
    }
    EXPECT_EQ(last, by_default) << "100 % is the largest step";
  }
}

TEST(OccupancyCarveout, OneConfigurationWhenTheRowHasNoSteps) {
  hw::SmLimits s = h100_limits();  // no carveout_steps: a row from a file that does not list them
  EXPECT_EQ(occupancy(s, {128, 32, 0, 30000, 10}).carveout_bytes, 228 * 1024);
}

TEST(OccupancyCarveout, StepsSurviveTheHwFileFormat) {
  const hw::HwSpec& h = hw::find("h100");
  std::string text = hw::to_json(h);
  EXPECT_EQ(hw::from_json_text(text, "test").limits.carveout_steps, h.limits.carveout_steps);
  // Steps that do not end at shared_bytes_per_sm, or do not ascend, are one clear error.
  const std::string key = "\"carveout_steps\"";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const size_t open = text.find('[', at), close = text.find(']', at);
  for (const char* bad : {"[0, 8192, 4096, 233472]", "[0, 8192, 65536]", "[0, \"x\"]"}) {
    const std::string edited = text.substr(0, open) + bad + text.substr(close + 1);
    EXPECT_THROW(hw::validate(hw::from_json_text(edited, "test"), "test"), Error) << bad;
  }
}

TEST(OccupancyCarveout, BadPreference) {
  for (int p : {-2, 101, 1000})
    EXPECT_THROW(occupancy(hw::find("h100").limits, {128, 32, 0, 0, p}), Error) << p;
}

TEST(Waves, Quantization) {
  // 132 SMs × 4 blocks = 528 per wave.
  Waves w = waves(1000, 132, 4);
  EXPECT_EQ(w.blocks_per_wave, 528);
  EXPECT_EQ(w.full_waves, 1);
  EXPECT_EQ(w.last_wave_blocks, 472);
  EXPECT_NEAR(w.last_wave_fill, 472.0 / 528, 1e-12);
  EXPECT_NEAR(w.efficiency, 1000.0 / 1056, 1e-12);
  // One block over a whole wave: the second wave is nearly empty, half the slots idle.
  Waves tail = waves(529, 132, 4);
  EXPECT_EQ(tail.last_wave_blocks, 1);
  EXPECT_NEAR(tail.efficiency, 529.0 / 1056, 1e-12);
  Waves even = waves(528 * 3, 132, 4);
  EXPECT_EQ(even.last_wave_blocks, 0);
  EXPECT_DOUBLE_EQ(even.last_wave_fill, 1.0);
  EXPECT_DOUBLE_EQ(even.efficiency, 1.0);
  // Under one wave: the grid leaves most of the GPU idle.
  Waves small = waves(100, 132, 4);
  EXPECT_EQ(small.full_waves, 0);
  EXPECT_NEAR(small.efficiency, 100.0 / 528, 1e-12);
  EXPECT_THROW(waves(0, 132, 4), Error);
  EXPECT_THROW(waves(10, 0, 4), Error);
  EXPECT_THROW(waves(10, 132, 0), Error);
}

// Occupancy from the SM's limits and a kernel's resources, the way the hardware allocates them:
// registers per warp in granules, warps pinned to one of the SM's scheduler quarters, shared memory
// per block in granules plus a reservation the driver keeps for each resident block.
#include "sol/model/occupancy.hpp"

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>
#include <climits>
#include <cmath>

#include "sol/core/error.hpp"

namespace sol::model {

namespace {
// Since Volta an SM has 4 schedulers, each owning a quarter of the register file; a warp's
// registers come from its scheduler's quarter, so register-limited warps come in multiples of 4.
constexpr int kSchedulersPerSm = 4;

int64_t round_up(int64_t x, int64_t unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }

std::string str(int64_t v) { return std::to_string(v); }

int blocks_by_registers(const hw::SmLimits& sm, int warps_per_block, int regs_per_thread, int* regs_per_warp) {
  const int64_t per_warp = round_up(int64_t(regs_per_thread) * sm.warp_size, sm.register_alloc_unit);
  *regs_per_warp = int(std::min<int64_t>(per_warp, INT_MAX));
  if (regs_per_thread == 0) return INT_MAX;
  const int64_t warps_per_scheduler = (sm.registers_per_sm / kSchedulersPerSm) / per_warp;
  return int(warps_per_scheduler * kSchedulersPerSm / warps_per_block);
}
std::string kib(int64_t bytes) { return bytes % 1024 == 0 ? str(bytes / 1024) + " KiB" : str(bytes) + " B"; }

}  // namespace

int64_t carveout_bytes(const hw::SmLimits& sm, int carveout_percent, int64_t block_allocation, int64_t* preferred) {
  if (carveout_percent < -1 || carveout_percent > 100)
    bad_input("shared-memory carve-out of " + str(carveout_percent) + " %",
              "give 0..100 (percent of the maximum shared capacity) or -1 for the driver's default");
  std::vector<int64_t> steps(sm.carveout_steps.begin(), sm.carveout_steps.end());
  if (steps.empty()) steps.push_back(sm.shared_bytes_per_sm);  // a single configuration
  // The smallest step holding `bytes`; the largest when none does (then not one block fits anyway).
  auto step_at_least = [&](int64_t bytes) {
    for (int64_t s : steps)
      if (s >= bytes) return s;
    return steps.back();
  };
  const int64_t asked = carveout_percent < 0 ? steps.back()
                                             : step_at_least(int64_t(carveout_percent) * sm.shared_bytes_per_sm / 100);
  if (preferred) *preferred = asked;
  return asked >= block_allocation ? asked : step_at_least(block_allocation);
}

namespace {
std::string carveout_text(const hw::SmLimits& sm, int percent, const Occupancy& o) {
  std::string t = percent < 0 ? "default: the occupancy API assumes the largest step, " + kib(o.carveout_bytes)
                              : "preferred " + str(percent) + " % of " + kib(sm.shared_bytes_per_sm) + " = " +
                                    str(int64_t(percent) * sm.shared_bytes_per_sm / 100) + " B → step " +
                                    kib(o.preferred_carveout_bytes);
  if (o.carveout_bytes != o.preferred_carveout_bytes)
    t += "; one block needs " + str(o.shared_per_block) + " B, so the driver takes " + kib(o.carveout_bytes);
  return t;
}
}  // namespace

std::string limiter_name(OccupancyLimiter l) {
  switch (l) {
    case OccupancyLimiter::Warps: return "warps";
    case OccupancyLimiter::Blocks: return "blocks";
    case OccupancyLimiter::Registers: return "registers";
    case OccupancyLimiter::SharedMemory: return "shared memory";
  }
  return "?";
}

Occupancy occupancy(const hw::SmLimits& sm, const KernelResources& k) {
  if (sm.max_warps_per_sm <= 0 || sm.max_blocks_per_sm <= 0 || sm.registers_per_sm <= 0 || sm.warp_size <= 0)
    bad_input("this device has no SM limits in the database", "occupancy applies to GPUs with SM limits (not TPUs)");
  if (k.block_threads <= 0 || k.block_threads > sm.max_threads_per_block)
    bad_input("block of " + str(k.block_threads) + " threads",
              "a block has 1.." + str(sm.max_threads_per_block) + " threads");
  if (k.registers_per_thread < 0 || k.registers_per_thread > sm.max_registers_per_thread)
    bad_input(str(k.registers_per_thread) + " registers per thread",
              "a thread may use 0.." + str(sm.max_registers_per_thread));
  if (k.static_shared_bytes < 0 || k.dynamic_shared_bytes < 0) bad_input("negative shared memory per block");
  // Compared term by term: the sum of two huge sizes would wrap before the comparison.
  if (k.static_shared_bytes > sm.max_shared_bytes_per_block ||
      k.dynamic_shared_bytes > sm.max_shared_bytes_per_block - k.static_shared_bytes)
    bad_input(str(k.static_shared_bytes) + " static + " + str(k.dynamic_shared_bytes) +
                  " dynamic bytes of shared memory per block",
              "a block may use at most " + str(sm.max_shared_bytes_per_block));
  const int64_t asked = k.static_shared_bytes + k.dynamic_shared_bytes;

  Occupancy o;
  o.warps_per_block = (k.block_threads + sm.warp_size - 1) / sm.warp_size;
  o.blocks_by_warps = sm.max_warps_per_sm / o.warps_per_block;
  o.blocks_by_blocks = sm.max_blocks_per_sm;
  o.blocks_by_registers = blocks_by_registers(sm, o.warps_per_block, k.registers_per_thread, &o.registers_per_warp);
  o.shared_per_block = round_up(asked + sm.reserved_shared_bytes_per_block, sm.shared_alloc_unit);
  o.carveout_bytes = carveout_bytes(sm, k.carveout_percent, o.shared_per_block, &o.preferred_carveout_bytes);
  o.blocks_by_shared = o.shared_per_block > 0 ? int(o.carveout_bytes / o.shared_per_block) : INT_MAX;

  // Ties go to the first in this order: a full SM is "limited by warps", not by a tied resource.
  const std::pair<OccupancyLimiter, int> limits[] = {{OccupancyLimiter::Warps, o.blocks_by_warps},
                                                      {OccupancyLimiter::Blocks, o.blocks_by_blocks},
                                                      {OccupancyLimiter::Registers, o.blocks_by_registers},
                                                      {OccupancyLimiter::SharedMemory, o.blocks_by_shared}};
  o.blocks_per_sm = INT_MAX;
  for (const auto& [which, blocks] : limits)
    if (blocks < o.blocks_per_sm) {
      o.blocks_per_sm = blocks;
      o.limiter = which;
    }
  o.warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = double(o.warps_per_sm) / sm.max_warps_per_sm;

  auto blocks_text = [](int b) { return b == INT_MAX ? std::string("no limit") : str(b) + " blocks"; };
  o.derivation = {
      "warps: " + str(sm.max_warps_per_sm) + " per SM / " + str(o.warps_per_block) + " per block → " +
          blocks_text(o.blocks_by_warps),
      "blocks: at most " + str(sm.max_blocks_per_sm) + " resident per SM",
      k.registers_per_thread == 0
          ? "registers: none used"
          : "registers: " + str(k.registers_per_thread) + " × " + str(sm.warp_size) + " rounded to " +
                str(sm.register_alloc_unit) + " = " + str(o.registers_per_warp) + " per warp; " +
                str(sm.registers_per_sm / kSchedulersPerSm) + " per scheduler quarter → " +
                str(o.blocks_by_registers == INT_MAX ? 0 : o.blocks_by_registers * o.warps_per_block) +
                " warps → " + blocks_text(o.blocks_by_registers),
      "shared memory: " + str(asked) + " + " + str(sm.reserved_shared_bytes_per_block) + " reserved rounded to " +
          str(sm.shared_alloc_unit) + " = " + str(o.shared_per_block) + " B per block of " + str(o.carveout_bytes) +
          " B → " + blocks_text(o.blocks_by_shared),
      "carve-out: " + carveout_text(sm, k.carveout_percent, o),
  };
  return o;
}

int max_registers_for_blocks(const hw::SmLimits& sm, int block_threads, int blocks) {
  if (block_threads <= 0 || blocks <= 0 || sm.warp_size <= 0 || sm.registers_per_sm <= 0) return 0;
  const int warps_per_block = (block_threads + sm.warp_size - 1) / sm.warp_size;
  for (int r = sm.max_registers_per_thread; r >= 1; --r) {
    int per_warp = 0;
    if (blocks_by_registers(sm, warps_per_block, r, &per_warp) >= blocks) return r;
  }
  return 0;
}

Waves waves(int64_t grid_blocks, int sms, int blocks_per_sm) {
  if (grid_blocks <= 0) bad_input("a grid of " + str(grid_blocks) + " blocks", "a launch has at least one block");
  if (sms <= 0 || blocks_per_sm <= 0)
    bad_input("waves need SMs and resident blocks per SM above zero (got " + str(sms) + " SMs, " +
              str(blocks_per_sm) + " blocks/SM)");
  Waves w;
  w.blocks = grid_blocks;
  w.blocks_per_wave = int64_t(sms) * blocks_per_sm;
  w.full_waves = grid_blocks / w.blocks_per_wave;
  w.last_wave_blocks = grid_blocks % w.blocks_per_wave;
  w.waves = double(grid_blocks) / double(w.blocks_per_wave);
  w.last_wave_fill = w.last_wave_blocks == 0 ? 1.0 : double(w.last_wave_blocks) / double(w.blocks_per_wave);
  w.efficiency = w.waves / std::ceil(w.waves);
  return w;
}

std::string occupancy_json(const hw::HwSpec& hw, const KernelResources& k, const Occupancy& o) {
  using ojson = nlohmann::ordered_json;
  auto limit = [](int b) { return b == INT_MAX ? ojson(nullptr) : ojson(b); };
  ojson j;
  j["gpu"] = hw.name;
  j["threads_per_block"] = k.block_threads;
  j["registers_per_thread"] = k.registers_per_thread;
  j["static_shared_bytes"] = k.static_shared_bytes;
  j["dynamic_shared_bytes"] = k.dynamic_shared_bytes;
  j["carveout_fraction"] = k.carveout_percent < 0 ? ojson(nullptr) : ojson(k.carveout_percent / 100.0);
  j["fits"] = o.blocks_per_sm > 0;
  j["active_blocks_per_sm"] = o.blocks_per_sm;
  j["active_warps_per_sm"] = o.warps_per_sm;
  j["max_warps_per_sm"] = hw.limits.max_warps_per_sm;
  j["occupancy"] = o.occupancy;
  j["limiter"] = limiter_name(o.limiter);
  j["blocks_by"] = {{"warps", limit(o.blocks_by_warps)},
                    {"blocks", limit(o.blocks_by_blocks)},
                    {"registers", limit(o.blocks_by_registers)},
                    {"shared_memory", limit(o.blocks_by_shared)}};
  j["registers_per_warp"] = o.registers_per_warp;
  j["shared_bytes_per_block"] = o.shared_per_block;
  j["preferred_carveout_bytes"] = o.preferred_carveout_bytes;
  j["carveout_bytes"] = o.carveout_bytes;
  j["carveout_steps"] = hw.limits.carveout_steps;
  j["derivation"] = o.derivation;
  return j.dump();
}

}  // namespace sol::model

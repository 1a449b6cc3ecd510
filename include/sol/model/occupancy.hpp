#pragma once
// Occupancy (lecture §12, step 2): how many blocks of a kernel fit on one SM at once, and which
// resource runs out first. Four limits, each giving a number of resident blocks per SM:
//   warps      max warps per SM / warps per block
//   blocks     the SM's cap on resident blocks
//   registers  registers are allocated per warp in units of register_alloc_unit, and each of the
//              SM's 4 schedulers owns a quarter of the register file (a warp lives in one quarter)
//   shared     (static + dynamic + the per-block reservation) rounded up to shared_alloc_unit, against
//              the SM's shared capacity under the carve-out (the L1/shared split, see below)
// Occupancy = resident warps / max warps. Also wave quantization: blocks against SMs × blocks/SM.
//
// The carve-out rule (what cudaFuncAttributePreferredSharedMemoryCarveout does, and what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor assumes; the CUDA toolkit's cuda_occupancy.h spells
// the same rule out): the SM's shared capacity is one of the carve-out steps (Hopper: 0, 8, 16, 32,
// 64, 100, 132, 164, 196, 228 KiB).
//   default (−1)   the maximum step: the occupancy API assumes the largest shared configuration;
//   P in 0..100    the preferred capacity is ⌊P · max / 100⌋ bytes, rounded up to the next step
//                  (the guide: "if the exact percentage is not a supported capacity, the next larger
//                  one is used"); a preference is a hint, so when one block's allocation does not
//                  fit in it the driver takes the smallest step that holds one block instead.
// Resident blocks by shared memory = that capacity / the per-block allocation.
// A consequence worth knowing: P = 0 with a kernel using no shared memory still allocates the 1 KiB
// reservation per block, so the SM is configured to 8 KiB and at most 8 blocks are resident.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"

namespace sol::model {

// What one kernel asks of an SM, as cudaFuncGetAttributes reports it plus the launch's block size.
struct KernelResources {
  int block_threads = 0;
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t dynamic_shared_bytes = 0;
  int carveout_percent = -1;  // cudaFuncAttributePreferredSharedMemoryCarveout: −1 default, or 0..100
};

enum class OccupancyLimiter { Warps, Blocks, Registers, SharedMemory };
std::string limiter_name(OccupancyLimiter l);  // "warps", "blocks", "registers", "shared memory"

struct Occupancy {
  int warps_per_block = 0;
  int registers_per_warp = 0;       // after the allocation granularity
  int64_t shared_per_block = 0;     // static + dynamic + reservation, rounded to the granularity
  int64_t preferred_carveout_bytes = 0;  // the step the preference asks for (the maximum by default)
  int64_t carveout_bytes = 0;       // the SM's shared capacity the driver configures (a carve-out step)
  // Resident blocks per SM each limit alone would allow (INT32 max when a resource is unused).
  int blocks_by_warps = 0, blocks_by_blocks = 0, blocks_by_registers = 0, blocks_by_shared = 0;
  int blocks_per_sm = 0;            // the smallest of the four; 0: the block cannot run at all
  int warps_per_sm = 0;
  double occupancy = 0;             // warps_per_sm / max_warps_per_sm
  OccupancyLimiter limiter = OccupancyLimiter::Warps;  // the first limit reaching blocks_per_sm
  std::vector<std::string> derivation;  // one line per limit, e.g. "registers: 64 × 32 = 2048/warp ..."
};

// Throws sol::Error (BadInput) if the limits are empty (a TPU row) or the kernel asks for what no
// block may have (threads outside 1..max_threads_per_block, registers above the per-thread cap,
// negative shared memory, more shared memory than one block may use, a carve-out outside −1..100).
Occupancy occupancy(const hw::SmLimits& sm, const KernelResources& k);

// The document of `sol occupancy --json` (and sol.model.occupancy): the kernel's resources, what
// is resident on one SM of `hw` and which limit binds. JSON text.
std::string occupancy_json(const hw::HwSpec& hw, const KernelResources& k, const Occupancy& o);

// The carve-out rule alone: the SM's shared capacity (bytes) for a preference (−1 or 0..100) when
// each block allocates `block_allocation` bytes (reservation included, rounded). `preferred` gets the
// step the preference alone asks for. Throws sol::Error (BadInput) for a preference outside −1..100.
int64_t carveout_bytes(const hw::SmLimits& sm, int carveout_percent, int64_t block_allocation,
                       int64_t* preferred = nullptr);

// The largest registers-per-thread at which `blocks` blocks fit by the register limit alone;
// 0 if no register count achieves that (other limits are not considered).
int max_registers_for_blocks(const hw::SmLimits& sm, int block_threads, int blocks);

// Wave quantization: a grid runs in waves of sms × blocks_per_sm blocks; the last one may be partial.
struct Waves {
  int64_t blocks = 0;
  int64_t blocks_per_wave = 0;
  int64_t full_waves = 0;
  int64_t last_wave_blocks = 0;  // blocks in the final partial wave; 0 when the grid divides evenly
  double waves = 0;              // blocks / blocks_per_wave
  double last_wave_fill = 0;     // fill of the final wave, in (0, 1]
  double efficiency = 0;         // waves / ceil(waves): the fraction of SM-slots doing work
};
// Throws sol::Error (BadInput) for non-positive sizes.
Waves waves(int64_t grid_blocks, int sms, int blocks_per_sm);

}  // namespace sol::model

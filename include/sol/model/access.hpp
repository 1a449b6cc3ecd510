#pragma once
// How a warp touches memory (lecture §7.1, §9, §12), as three small models:
//  - coalescing: the 32-byte sectors one warp request touches in global memory, against the
//    bytes it uses (contiguous fp32: 128 B in 4 sectors; fully scattered: 32 sectors);
//  - shared-memory banks: 32 banks of 4 bytes; a request takes as many wavefronts as the
//    busiest bank has distinct words (lanes reading the same word share it: a broadcast);
//  - divergence: lanes on different paths run one path after another, and a loop runs as long
//    as its longest lane.
// Each returns the count, the efficiency (useful ÷ paid) and a line saying how it was counted.
#include <cstdint>
#include <string>
#include <vector>


namespace sol::model {

// ---- coalescing --------------------------------------------------------------------------------
struct Coalescing {
  int lanes = 0;
  int64_t elem_bytes = 0;
  int64_t sectors = 0;           // distinct 32-byte sectors the request touches
  int64_t lines = 0;             // distinct 128-byte cache lines
  int64_t useful_bytes = 0;      // distinct bytes the lanes asked for
  int64_t sector_bytes = 0;      // sectors × 32: what L1/L2 move
  int64_t dram_bytes = 0;        // distinct granules of `dram_granule` bytes × granule: what DRAM moves
  int64_t dram_granule = 0;
  double efficiency = 0;         // useful_bytes / sector_bytes
  int64_t ideal_sectors = 0;     // the fewest sectors that could hold the useful bytes
  std::string derivation;
};
// Lane i reads elem_bytes at byte address base + i·stride·elem_bytes (stride in elements; 0 = all
// lanes read one element). DRAM granule: the unit HBM is read in (64 B: the L2 fetches sector
// pairs by default on A100/H100-class parts), used only for dram_bytes.
// Throws sol::Error (BadInput) for elem_bytes outside 1..16 or not a power of two, lanes outside
// 1..32, a negative stride or base, or a granule that is not a multiple of 32.
Coalescing coalescing(int64_t elem_bytes, int64_t stride, int lanes = 32, int64_t base = 0,
                      int64_t dram_granule = 64);
// The same for an explicit list of byte addresses, one per lane (1..32 of them).
Coalescing coalescing_addresses(const std::vector<int64_t>& addresses, int64_t elem_bytes,
                                int64_t dram_granule = 64);

// ---- shared-memory banks -------------------------------------------------------------------------
constexpr int kBanks = 32;
constexpr int kBankBytes = 4;

// Lane i accesses logical element i·stride of a tile whose rows hold `row_elems` elements (0: no
// tile, the address is simply i·stride·elem_bytes). In a tile the element (r, c) lives at
// (r·(row_elems + pad) + c')·elem_bytes, with c' = c XOR (r mod row_elems) when xor_swizzle is set
// (row_elems then must be a power of two): the classic fixes for a column read, padding and swizzle.
struct BankPattern {
  int64_t elem_bytes = 4;
  int64_t stride = 1;
  int64_t row_elems = 0;
  int64_t pad = 0;
  bool xor_swizzle = false;
  int lanes = 32;
};
struct BankConflict {
  int phases = 1;           // an access wider than 4 B is served in 128-byte phases (8 B: 2, 16 B: 4)
  int wavefronts = 0;       // sum over phases of the busiest bank's distinct words
  int degree = 0;           // wavefronts / phases, rounded up: 1 = conflict-free, 32 = fully serialized
  double efficiency = 0;    // phases / wavefronts
  bool broadcast = false;   // some lanes shared a word
  std::vector<int64_t> byte_addresses;  // per lane
  std::string derivation;
};
// Throws sol::Error (BadInput) for elem_bytes not 1, 2, 4, 8 or 16, lanes outside 1..32, negative
// stride/pad/row, or a swizzle without a power-of-two row.
BankConflict bank_conflicts(const BankPattern& p);
// The same for explicit byte addresses, one per lane, each access elem_bytes wide.
BankConflict bank_conflicts_addresses(const std::vector<int64_t>& byte_addresses, int64_t elem_bytes);

// ---- divergence ----------------------------------------------------------------------------------
struct Divergence {
  double issued = 0;        // path (or iteration) slots the warp executes
  double useful = 0;        // lane-weighted useful slots / lanes
  double efficiency = 0;    // useful / issued: the fraction of lanes doing work
  double slowdown = 0;      // issued / (issued with every lane on the first path, or the mean trip count)
  std::string derivation;
};
// A warp whose 32 lanes split evenly over `ways` paths of equal length (1..32): efficiency 1/ways.
Divergence divergent_paths(int ways);
// Lanes taking paths of the given lengths: lanes_per_path[i] lanes run a path of length[i];
// the warp runs every path that has a lane on it.
Divergence divergent_paths(const std::vector<int>& lanes_per_path, const std::vector<double>& length);
// A loop whose trip count differs per lane: the warp runs max(trips) iterations, lanes do mean(trips).
Divergence loop_trips(const std::vector<int64_t>& trips_per_lane);
// The kernel's case: lane i runs base + i·spread trips (i = 0..31).
Divergence loop_linear(int64_t base, int64_t spread);

}  // namespace sol::model

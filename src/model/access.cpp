// Access-pattern models: count what a warp's addresses cost (sectors, bank wavefronts, issued
// path slots) and set it against what the lanes needed. Everything here is exact counting over
// 32 lanes; no hardware beyond sector size, bank count and DRAM granule is assumed.
#include "sol/model/access.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"

namespace sol::model {

namespace {
constexpr int64_t kSectorBytes = 32;
constexpr int64_t kLineBytes = 128;
// Addresses and counts are bounded so that the arithmetic on them (a + bytes, sums over 32 lanes,
// units × granule) stays far inside 64 bits: no GPU maps 2^56 bytes or loops 2^50 times per lane.
constexpr int64_t kMaxAddress = int64_t(1) << 56;
constexpr int64_t kMaxGranule = int64_t(1) << 20;
constexpr int64_t kMaxTrips = int64_t(1) << 50;

std::string str(int64_t v) { return std::to_string(v); }

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

void check_lanes(int64_t lanes) {
  if (lanes < 1 || lanes > 32) bad_input("a warp of " + str(lanes) + " lanes", "give 1..32 lanes (addresses)");
}

void check_elem(int64_t elem_bytes, const char* what) {
  if (!power_of_two(elem_bytes) || elem_bytes > 16)
    bad_input(std::string(what) + str(elem_bytes) + " bytes", "a lane accesses 1, 2, 4, 8 or 16 bytes");
}

void check_address(int64_t a, const char* what) {
  if (a < 0) bad_input("a negative " + std::string(what) + " (" + str(a) + ")");
  if (a >= kMaxAddress) bad_input("a " + std::string(what) + " of " + str(a), "addresses are below 2^56");
}

// Distinct units of `unit` bytes covered by [a, a + bytes) over all addresses.
int64_t distinct_units(const std::vector<int64_t>& addresses, int64_t bytes, int64_t unit) {
  std::set<int64_t> units;
  for (int64_t a : addresses)
    for (int64_t u = a / unit; u <= (a + bytes - 1) / unit; ++u) units.insert(u);
  return int64_t(units.size());
}
}  // namespace

Coalescing coalescing_addresses(const std::vector<int64_t>& addresses, int64_t elem_bytes, int64_t dram_granule) {
  check_lanes(int64_t(addresses.size()));
  check_elem(elem_bytes, "an element of ");
  if (dram_granule < kSectorBytes || dram_granule % kSectorBytes != 0 || dram_granule > kMaxGranule)
    bad_input("a DRAM granule of " + str(dram_granule) + " bytes", "give a multiple of 32 bytes up to 1 MiB");
  for (int64_t a : addresses) check_address(a, "address");
  Coalescing c;
  c.lanes = int(addresses.size());
  c.elem_bytes = elem_bytes;
  c.dram_granule = dram_granule;
  c.sectors = distinct_units(addresses, elem_bytes, kSectorBytes);
  c.lines = distinct_units(addresses, elem_bytes, kLineBytes);
  c.useful_bytes = distinct_units(addresses, elem_bytes, 1);
  c.sector_bytes = c.sectors * kSectorBytes;
  c.dram_bytes = distinct_units(addresses, elem_bytes, dram_granule) * dram_granule;
  c.efficiency = double(c.useful_bytes) / double(c.sector_bytes);
  c.ideal_sectors = (c.useful_bytes + kSectorBytes - 1) / kSectorBytes;
  c.derivation = str(c.lanes) + " lanes × " + str(elem_bytes) + " B: " + str(c.useful_bytes) + " useful bytes in " +
                 str(c.sectors) + " sectors of 32 B (" + str(c.sector_bytes) + " B moved, at best " +
                 str(c.ideal_sectors) + " sectors) → " + fixed(100 * c.efficiency, 1) + " % of the bytes used";
  return c;
}

Coalescing coalescing(int64_t elem_bytes, int64_t stride, int lanes, int64_t base, int64_t dram_granule) {
  check_lanes(lanes);
  check_elem(elem_bytes, "an element of ");
  if (stride < 0) bad_input("a negative stride", "strides are in elements, ≥ 0");
  if (stride > (int64_t(1) << 40)) bad_input("a stride of " + str(stride) + " elements", "give a stride below 2^40");
  check_address(base, "base address");
  std::vector<int64_t> addresses(lanes);
  for (int i = 0; i < lanes; ++i) addresses[i] = base + int64_t(i) * stride * elem_bytes;
  Coalescing c = coalescing_addresses(addresses, elem_bytes, dram_granule);
  c.derivation = "stride " + str(stride) + ": " + c.derivation;
  return c;
}

BankConflict bank_conflicts_addresses(const std::vector<int64_t>& byte_addresses, int64_t elem_bytes) {
  check_lanes(int64_t(byte_addresses.size()));
  check_elem(elem_bytes, "a shared-memory access of ");
  for (int64_t a : byte_addresses) {
    check_address(a, "shared-memory address");
    if (a % elem_bytes != 0)
      bad_input("address " + str(a) + " is not aligned to its " + str(elem_bytes) + "-byte access",
                "shared-memory accesses are naturally aligned");
  }
  BankConflict b;
  b.byte_addresses = byte_addresses;
  // One phase serves 128 bytes of requests: 32 lanes of ≤ 4 B, 16 of 8 B, 8 of 16 B.
  const int lanes_per_phase = int(kBanks * kBankBytes / std::max<int64_t>(elem_bytes, kBankBytes));
  const int lanes = int(byte_addresses.size());
  b.phases = (lanes + lanes_per_phase - 1) / lanes_per_phase;
  std::set<int64_t> all_words;
  int64_t word_requests = 0;
  for (int p = 0; p < b.phases; ++p) {
    std::map<int, std::set<int64_t>> words_of_bank;
    for (int i = p * lanes_per_phase; i < std::min(lanes, (p + 1) * lanes_per_phase); ++i) {
      const int64_t first = byte_addresses[i] / kBankBytes, last = (byte_addresses[i] + elem_bytes - 1) / kBankBytes;
      for (int64_t w = first; w <= last; ++w) {
        words_of_bank[int(w % kBanks)].insert(w);
        all_words.insert(w);
        ++word_requests;
      }
    }
    size_t busiest = 0;
    for (const auto& [bank, words] : words_of_bank) busiest = std::max(busiest, words.size());
    b.wavefronts += int(busiest);
  }
  b.degree = (b.wavefronts + b.phases - 1) / b.phases;
  b.efficiency = double(b.phases) / double(b.wavefronts);
  b.broadcast = elem_bytes >= kBankBytes ? int64_t(all_words.size()) < word_requests
                                         : std::set<int64_t>(byte_addresses.begin(), byte_addresses.end()).size() <
                                               byte_addresses.size();
  b.derivation = str(lanes) + " lanes × " + str(elem_bytes) + " B in " + str(b.phases) + " phase(s); busiest bank holds " +
                 str(b.wavefronts) + " distinct word(s) in all → " + str(b.degree) + "-way" +
                 (b.degree == 1 ? " (conflict-free)" : " conflict") + (b.broadcast ? "; shared words broadcast" : "");
  return b;
}

BankConflict bank_conflicts(const BankPattern& p) {
  check_lanes(p.lanes);
  check_elem(p.elem_bytes, "a shared-memory access of ");
  if (p.stride < 0 || p.pad < 0 || p.row_elems < 0) bad_input("a negative stride, pad or row length");
  if (p.xor_swizzle && !power_of_two(p.row_elems))
    bad_input("an XOR swizzle over a row of " + str(p.row_elems) + " elements", "give --row as a power of two");
  if (p.pad > 0 && p.row_elems == 0) bad_input("padding without a row length", "give --row with --pad");
  if (p.stride > (int64_t(1) << 30) || p.row_elems > (int64_t(1) << 30) || p.pad > (int64_t(1) << 30))
    bad_input("a stride, row or pad above 2^30 elements");
  std::vector<int64_t> addresses(p.lanes);
  for (int i = 0; i < p.lanes; ++i) {
    const int64_t index = int64_t(i) * p.stride;
    if (p.row_elems == 0) {
      addresses[i] = index * p.elem_bytes;
      continue;
    }
    const int64_t r = index / p.row_elems;
    int64_t c = index % p.row_elems;
    if (p.xor_swizzle) c ^= r % p.row_elems;
    // r · (row + pad) reaches 2^65 at the limits above: bound it before it is formed.
    if ((double(r) * double(p.row_elems + p.pad) + double(c)) * double(p.elem_bytes) >= double(kMaxAddress))
      bad_input("lane " + str(i) + " of this pattern lies past 2^56 bytes", "give a smaller stride, row or pad");
    addresses[i] = (r * (p.row_elems + p.pad) + c) * p.elem_bytes;
  }
  BankConflict b = bank_conflicts_addresses(addresses, p.elem_bytes);
  std::string how = "lane i → element i·" + str(p.stride);
  if (p.row_elems > 0)
    how += " of rows of " + str(p.row_elems) + (p.pad ? " + " + str(p.pad) + " pad" : std::string()) +
           (p.xor_swizzle ? ", column XOR row" : "");
  b.derivation = how + ": " + b.derivation;
  return b;
}

Divergence divergent_paths(const std::vector<int>& lanes_per_path, const std::vector<double>& length) {
  if (lanes_per_path.empty() || lanes_per_path.size() != length.size())
    bad_input("divergent paths need one length per path", "give as many lengths as paths");
  for (size_t i = 0; i < length.size(); ++i)
    if (lanes_per_path[i] < 0 || lanes_per_path[i] > 32 || !(length[i] > 0) || !std::isfinite(length[i]))
      bad_input("a path with lanes outside 0..32 or a length that is not a finite number > 0");
  const int lanes = std::accumulate(lanes_per_path.begin(), lanes_per_path.end(), 0);
  check_lanes(lanes);
  Divergence d;
  for (size_t i = 0; i < length.size(); ++i)
    if (lanes_per_path[i] > 0) {
      d.issued += length[i];
      d.useful += lanes_per_path[i] * length[i] / double(lanes);
    }
  d.efficiency = d.useful / d.issued;
  d.slowdown = 1.0 / d.efficiency;
  d.derivation = "the warp runs each taken path in turn: " + num(d.issued) + " slots issued, " + num(d.useful) +
                 " per lane useful → " + fixed(100 * d.efficiency, 1) + " % of lanes busy";
  return d;
}

Divergence divergent_paths(int ways) {
  if (ways < 1 || ways > 32) bad_input(str(ways) + " divergent paths", "a warp's 32 lanes take 1..32 distinct paths");
  // Lanes split as evenly as 32 allows; with equal lengths the split does not change the result.
  std::vector<int> lanes(ways, 32 / ways);
  for (int i = 0; i < 32 % ways; ++i) ++lanes[i];
  Divergence d = divergent_paths(lanes, std::vector<double>(ways, 1.0));
  d.derivation = str(ways) + " paths of equal length: " + d.derivation;
  return d;
}

Divergence loop_trips(const std::vector<int64_t>& trips) {
  check_lanes(int64_t(trips.size()));
  for (int64_t t : trips)
    if (t < 0 || t > kMaxTrips) bad_input("a trip count of " + str(t), "give 0..2^50 trips per lane");
  const int64_t longest = *std::max_element(trips.begin(), trips.end());
  if (longest == 0) bad_input("every lane runs 0 trips", "give at least one positive trip count");
  Divergence d;
  d.issued = double(longest);
  d.useful = double(std::accumulate(trips.begin(), trips.end(), int64_t(0))) / double(trips.size());
  d.efficiency = d.useful / d.issued;
  d.slowdown = 1.0 / d.efficiency;
  d.derivation = "the warp loops max = " + str(longest) + " times; lanes average " + num(d.useful) + " → " +
                 fixed(100 * d.efficiency, 1) + " % of lane-iterations useful";
  return d;
}

Divergence loop_linear(int64_t base, int64_t spread) {
  if (base < 0 || spread < 0 || base > (int64_t(1) << 40) || spread > (int64_t(1) << 35))
    bad_input("trip counts base = " + str(base) + ", spread = " + str(spread), "give 0 ≤ base < 2^40, 0 ≤ spread < 2^35");
  std::vector<int64_t> trips(32);
  for (int i = 0; i < 32; ++i) trips[i] = base + i * spread;
  Divergence d = loop_trips(trips);
  d.derivation = "lane i runs " + str(base) + " + i·" + str(spread) + ": " + d.derivation;
  return d;
}

}  // namespace sol::model

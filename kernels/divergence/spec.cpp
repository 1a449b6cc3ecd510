// The registry's description of the divergence family, host C++ in every build: which shapes it
// takes, its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds
// only.
#include "kernels/divergence/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"
#include "sol/model/access.hpp"

namespace sol::kernels::divergence {

namespace {

// Keeps x + (FMAs per thread) below 2^24, where every fp32 integer is exact (x ≤ 4096).
constexpr int64_t kMaxTrips = int64_t(1) << 23;

// Issue slots per trip of trip_loop_kernel's loop (PTX of sm_90a, `#pragma unroll 4`): per four
// trips four FFMAs, a 64-bit add and a 64-bit compare (two instructions each) and a branch.
constexpr double kSlotsPerTrip = 9.0 / 4.0;

}  // namespace

int64_t sum_of_rank(int64_t threads, int64_t group) {
  const int64_t q = threads / group, r = threads % group, m = q % 32;
  const int64_t full_groups = (q / 32) * (31 * 32 / 2) + m * (m - 1) / 2;  // Σ_{w<q} w % 32
  return group * full_groups + r * m;
}

std::string unsupported(Version v, const Shape& s) {
  const DimRule threads{"threads", 1, int64_t(1) << 40, false};
  if (v == Version::v01_warp_split) return check_dims(s, {{"ways", 1, 32}, threads});
  std::string why = check_dims(s, {{"base", 0, kMaxTrips}, {"spread", 0, kMaxTrips}, threads});
  if (why.empty() && s.at("base") + 31 * s.at("spread") > kMaxTrips)
    why = "base + 31·spread > 2^23 FMAs: the exact-integer check needs results below 2^24";
  return why;
}

model::Cost cost(Version v, const Shape& s) {
  const int64_t threads = threads_of(s);
  double fmas = double(threads) * kChainFmas;
  std::string op = std::to_string(s.get("ways", 0)) + "-way split warps, " + std::to_string(threads) + " threads × " +
                   std::to_string(kChainFmas) + " fp32 FMAs";
  if (v != Version::v01_warp_split) {
    const int64_t group = v == Version::v02_loop_varied ? 1 : 32;
    fmas = double(threads) * double(s.at("base")) + double(s.at("spread")) * double(sum_of_rank(threads, group));
    op = std::string(v == Version::v02_loop_varied ? "varied" : "sorted") + " trip counts, " + std::to_string(threads) +
         " threads × (" + std::to_string(s.at("base")) + " + rank·" + std::to_string(s.at("spread")) + ") fp32 FMAs";
  }
  model::Cost c = vector_cost(op, 2 * fmas, 8.0 * double(threads), DType::f32,
                              {"flops = 2 per useful FMA (masked-off lanes do not count)",
                               "bytes = one fp32 read and one written per thread"});
  // Issue slots: a warp runs every path one of its lanes takes (v01), or as many trips as its
  // longest lane (v02: lane i runs base + i·spread; v03: the lanes of a warp agree).
  c.exec.declared = true;
  if (v == Version::v01_warp_split) {
    const model::Divergence d = model::divergent_paths(int(s.at("ways")));
    c.exec.issue_slots = fmas / d.efficiency;  // the chain is unrolled: one FFMA per FMA
    c.exec.how = d.derivation;
  } else if (v == Version::v02_loop_varied) {
    const int64_t full = threads / 32, tail = threads % 32;
    const double longest = double(s.at("base")) + 31.0 * double(s.at("spread"));
    const double tail_longest = tail > 0 ? double(s.at("base")) + double(tail - 1) * double(s.at("spread")) : 0;
    c.exec.issue_slots = kSlotsPerTrip * 32 * (double(full) * longest + tail_longest);
    c.exec.how = "every lane of a warp waits for lane 31's base + 31·spread trips, 9 slots per 4 trips";
  } else {
    c.exec.issue_slots = kSlotsPerTrip * fmas;
    c.exec.how = "the lanes of a warp run the same trips, 9 slots per 4 trips";
  }
  return c;
}

Tolerance tolerance(Version) {
  return {0.0, "integer-valued fp32 below 2^24: every FMA in the chain is exact, so is the result"};
}

}  // namespace sol::kernels::divergence

#pragma once
// The registry's view of the divergence family (no CUDA types).
// v01: shape ways (1…32) [, threads]; v02/v03: shape base, spread [, threads]; threads
// defaults to 2^22 (16384 blocks of 256: many waves on any GPU).
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::divergence {

enum class Version { v01_warp_split, v02_loop_varied, v03_loop_sorted };

inline constexpr int64_t kDefaultThreads = int64_t(1) << 22;
inline int64_t threads_of(const Shape& s) { return s.get("threads", kDefaultThreads); }
// FMAs in each lane's path in v01: the same for every path, so useful FLOPs do not depend on ways.
inline constexpr int kChainFmas = 1024;

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

// Σ over t < threads of (t / group) % 32: group 1 gives v02's lane ranks, 32 v03's warp ranks.
int64_t sum_of_rank(int64_t threads, int64_t group);

}  // namespace sol::kernels::divergence

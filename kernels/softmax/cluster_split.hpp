#pragma once
// How kernels/softmax/cluster.cuh splits a row over a cluster, host C++ without CUDA so that the
// registry's shape rules (spec.cpp files) and the dispatchers read the same limits as the kernels.
#include <algorithm>
#include <cstdint>

namespace sol::kernels::rows {

// Threads per CTA; a slice's packs are strided over them (thread t holds t, t + kClusterThreads, …).
inline constexpr int kClusterThreads = 512;
// At most the portable cluster size; slices aim at kSliceTargetBytes so that three CTAs share an
// SM (three rows' slices in flight), and grow to the cap only when 8 slices are not enough.
inline constexpr int kClusterMaxSlices = 8;
inline constexpr int64_t kSliceTargetBytes = int64_t(64) << 10;

// The largest slice one CTA takes on a GPU of compute capability cc: what its opt-in shared memory
// leaves after the static arrays (227 KiB on sm_90, 163 KiB on sm_80/87, 99 KiB elsewhere).
constexpr int64_t slice_max_bytes(int cc) {
  return (cc >= 90 ? int64_t(192) : cc == 80 || cc == 87 ? int64_t(160) : int64_t(96)) << 10;
}
// Clusters exist from sm_90; below, a "cluster" of one CTA.
constexpr int max_slices(int cc) { return cc >= 90 ? kClusterMaxSlices : 1; }

// How one row is split: `slices` CTAs of at most `per` packs each; slices = 0 when the row does
// not fit (more than max_slices(cc) × slice_max_bytes(cc)).
struct ClusterSplit {
  int slices = 0;
  int64_t per = 0;            // packs per slice
  int64_t slice_bytes = 0;    // dynamic shared memory per CTA
};
constexpr ClusterSplit cluster_split(int64_t cols, int64_t elem_bytes, int64_t pack_elems, int cc) {
  const int64_t npack = (cols + pack_elems - 1) / pack_elems, pack_bytes = elem_bytes * pack_elems;
  const int64_t row_bytes = npack * pack_bytes;
  int64_t s = std::max<int64_t>(1, (row_bytes + kSliceTargetBytes - 1) / kSliceTargetBytes);
  s = std::min<int64_t>(s, max_slices(cc));
  const int64_t per = (npack + s - 1) / s;
  if (per * pack_bytes > slice_max_bytes(cc)) return {};
  return {int(s), per, per * pack_bytes};
}

// The longest row that fits, in elements of elem_bytes.
constexpr int64_t cluster_max_cols(int64_t elem_bytes, int cc) { return max_slices(cc) * slice_max_bytes(cc) / elem_bytes; }

// Vocabulary rows of 2^18 columns fit in every storage type on sm_90; bf16 rows of 151936 columns
// take 5 slices of under 64 KiB (three CTAs per SM).
static_assert(cluster_split(262144, 4, 4, 90).slices == 8 && cluster_split(262144, 4, 4, 90).slice_bytes == 128 << 10);
static_assert(cluster_split(262145, 2, 1, 90).slices == 8 && cluster_split(151936, 2, 8, 90).slices == 5);
static_assert(cluster_split(cluster_max_cols(4, 90) + 1, 4, 1, 90).slices == 0 && cluster_split(1, 2, 1, 80).slices == 1);

}  // namespace sol::kernels::rows

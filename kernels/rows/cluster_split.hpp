#pragma once
// How kernels/rows/v05_cluster.cuh splits a row over a cluster, host C++ without CUDA so that the
// registry's shape rules (spec.cpp files) and the dispatchers read the same limits as the kernels.
#include <algorithm>
#include <cstdint>

namespace sol::kernels::rows {

// Slices aim at kSliceTargetBytes and take kClusterThreadsSmall threads (five or six CTAs an SM,
// as many rows' slices in flight); slices past kSliceSmallMaxBytes (rows long enough to reach the
// 8-slice cap: 262144 bf16 columns take 64 KiB slices, of which three fit an SM) take
// kClusterThreadsLarge. A slice's packs are strided over the threads (thread t holds t, t + threads,
// …). Measured on an H200 (bench/results/h200/tuning/cluster-rows.txt, bench/tuning/cluster_rows.cu)
// at 4096 rows of 50257 to 262144 columns, bf16 and fp32: 256 threads beat 512 by 22–30 % on
// slices of 32–44 KiB (151936 bf16: 821 against 1070 µs) and lose by 3–4 % on 64–76 KiB ones;
// 16-CTA clusters (non-portable) were slower (1142 µs there), and so were two slice buffers a CTA
// (the next row's copies in flight) in an earlier experiment that is not committed.
inline constexpr int kClusterThreadsSmall = 256, kClusterThreadsLarge = 512;
inline constexpr int kClusterMaxSlices = 8;  // the portable cluster size
inline constexpr int64_t kSliceTargetBytes = int64_t(40) << 10;
inline constexpr int64_t kSliceSmallMaxBytes = int64_t(48) << 10;

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
  int threads = 0;            // per CTA
};
constexpr ClusterSplit cluster_split(int64_t cols, int64_t elem_bytes, int64_t pack_elems, int cc) {
  const int64_t npack = (cols + pack_elems - 1) / pack_elems, pack_bytes = elem_bytes * pack_elems;
  const int64_t row_bytes = npack * pack_bytes;
  int64_t s = std::max<int64_t>(1, (row_bytes + kSliceTargetBytes - 1) / kSliceTargetBytes);
  s = std::min<int64_t>(s, max_slices(cc));
  const int64_t per = (npack + s - 1) / s;
  if (per * pack_bytes > slice_max_bytes(cc)) return {};
  const int64_t bytes = per * pack_bytes;
  return {int(s), per, bytes, bytes <= kSliceSmallMaxBytes ? kClusterThreadsSmall : kClusterThreadsLarge};
}

// The longest row that fits, in elements of elem_bytes.
constexpr int64_t cluster_max_cols(int64_t elem_bytes, int cc) { return max_slices(cc) * slice_max_bytes(cc) / elem_bytes; }

// Vocabulary rows of 2^18 columns fit in every storage type on sm_90; bf16 rows of 151936 columns
// take 8 slices of 37984 bytes (256 threads each, five CTAs an SM), 262144 bf16 8 slices of 64 KiB
// (512 threads).
static_assert(cluster_split(262144, 4, 4, 90).slices == 8 && cluster_split(262144, 4, 4, 90).slice_bytes == 128 << 10);
static_assert(cluster_split(151936, 2, 8, 90).slices == 8 && cluster_split(151936, 2, 8, 90).slice_bytes == 37984 &&
              cluster_split(151936, 2, 8, 90).threads == kClusterThreadsSmall);
static_assert(cluster_split(262144, 2, 8, 90).threads == kClusterThreadsLarge && cluster_split(262145, 2, 1, 90).slices == 8);
static_assert(cluster_split(cluster_max_cols(4, 90) + 1, 4, 1, 90).slices == 0 && cluster_split(1, 2, 1, 80).slices == 1);

}  // namespace sol::kernels::rows

// Host half of the Hopper GEMM (kernels/gemm/tc/hopper.cuh): tensor maps, and how many CTAs
// (clusters) fit at once, per device.
#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "kernels/gemm/tc/hopper.cuh"
#include "sol/core/error.hpp"

namespace sol::kernels::gemm::tc::hopper {

static_assert(kRowBytes == 128, "cached_map_2d's boxes are one 128B swizzle row");

CUtensorMap cached_map(const void* base, InType in, int64_t rows, int64_t cols, int64_t pitch, int box_rows) {
  const CUtensorMapDataType type = in == InType::bf16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : in == InType::fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                        : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  return cached_map_2d(base, type, in_bytes(in), rows, cols, pitch, box_rows);
}

int resident_ctas(const void* kernel, int threads, int smem, int cluster, bool required) {
  int device = 0;
  SOL_CUDA_CHECK(cudaGetDevice(&device));
  // One occupancy query per (kernel, device, launch shape), kept under a lock; the launchers ask
  // on every launch, so a thread remembers its last few answers and takes no lock for them.
  using Key = std::tuple<const void*, int, int, int, int>;
  const Key key{kernel, device, threads, smem, cluster};
  const auto answer = [&](int ctas) {
    if (ctas < 1 && required) failure("no cluster of " + std::to_string(cluster) + " CTAs fits on this GPU");
    return ctas;
  };
  thread_local std::array<std::pair<Key, int>, 8> seen{};
  thread_local size_t next = 0;
  for (const auto& [k, ctas] : seen)
    if (k == key) return answer(ctas);
  const auto remember = [&](int ctas) {
    seen[next] = {key, ctas};
    next = (next + 1) % seen.size();
    return answer(ctas);
  };
  static std::mutex mutex;
  static std::map<Key, int> known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return remember(it->second);
  }
  int ctas = 0;
  if (cluster == 1) {
    int per_sm = 0;
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    ctas = std::max(1, per_sm) * sm_count();
  } else {
    // Clusters must fit inside one GPC, so not every SM can host one: ask the driver.
    const ClusterLaunch l(cluster * sm_count(), threads, smem, cluster, nullptr);
    int clusters = 0;
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &l.config));
    ctas = std::max(0, clusters) * cluster;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    known[key] = ctas;
  }
  return remember(ctas);
}

}  // namespace sol::kernels::gemm::tc::hopper

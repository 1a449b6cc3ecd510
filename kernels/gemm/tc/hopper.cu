// Host half of the Hopper GEMM (kernels/gemm/tc/hopper.cuh): tensor maps, the SM count the
// persistent rungs launch one CTA per, and how many CTAs (clusters) fit at once.
#include <algorithm>
#include <string>

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

int sm_count() {
  static const int count = [] {
    int dev = 0, n = 0;
    SOL_CUDA_CHECK(cudaGetDevice(&dev));
    SOL_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return count;
}

int resident_ctas(const void* kernel, int threads, int smem, int cluster, bool required) {
  if (cluster == 1) {
    int per_sm = 0;
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    return std::max(1, per_sm) * sm_count();
  }
  // Clusters must fit inside one GPC, so not every SM can host one: ask the driver.
  const ClusterLaunch l(cluster * sm_count(), threads, smem, cluster, nullptr);
  int clusters = 0;
  SOL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &l.config));
  if (clusters < 1 && required) failure("no cluster of " + std::to_string(cluster) + " CTAs fits on this GPU");
  return clusters * cluster;
}

}  // namespace sol::kernels::gemm::tc::hopper

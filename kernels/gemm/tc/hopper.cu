// Host half of the Hopper GEMM (kernels/gemm/tc/hopper.cuh): tensor maps, the SM count the
// persistent rungs launch one CTA per, and how many CTAs (clusters) fit at once.
#include <algorithm>
#include <string>

#include "kernels/gemm/tc/hopper.cuh"
#include "sol/core/error.hpp"

namespace sol::kernels::gemm_tc::hopper {

CUtensorMap make_map(const void* base, InType in, int64_t rows, int64_t cols, int64_t pitch, int box_rows) {
  const int eb = in_bytes(in);
  const CUtensorMapDataType type = in == InType::bf16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : in == InType::fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                        : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(pitch * eb)};
  const cuuint32_t box[2] = {cuuint32_t(kRowBytes / eb), cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map{};
  const CUresult r = encode_fn()(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    failure("cuTensorMapEncodeTiled failed (error " + std::to_string(int(r)) + ") for a " + std::to_string(rows) + "×" +
            std::to_string(cols) + " operand with pitch " + std::to_string(pitch));
  return map;
}

CUtensorMap cached_map(const void* base, InType in, int64_t rows, int64_t cols, int64_t pitch, int box_rows) {
  struct Entry {
    const void* base = nullptr;
    InType in{};
    int64_t rows = 0, cols = 0, pitch = 0;
    int box_rows = 0;
    CUtensorMap map{};
  };
  constexpr int kEntries = 64;  // ≥ 2 operands × the harness's 16 rotating sets, twice over
  thread_local Entry entries[kEntries];
  thread_local int next = 0;
  for (const Entry& e : entries)
    if (e.base == base && e.in == in && e.rows == rows && e.cols == cols && e.pitch == pitch && e.box_rows == box_rows)
      return e.map;
  Entry& e = entries[next];
  next = (next + 1) % kEntries;
  e = Entry{base, in, rows, cols, pitch, box_rows, make_map(base, in, rows, cols, pitch, box_rows)};
  return e.map;
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

int resident_ctas(const void* kernel, int threads, int smem, int cluster) {
  if (cluster == 1) {
    int per_sm = 0;
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    return std::max(1, per_sm) * sm_count();
  }
  // Clusters must fit inside one GPC, so not every SM can host one: ask the driver.
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(cluster * sm_count()));
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = size_t(smem);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(cluster);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  SOL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  if (clusters < 1) failure("no cluster of " + std::to_string(cluster) + " CTAs fits on this GPU");
  return clusters * cluster;
}

}  // namespace sol::kernels::gemm_tc::hopper

// The driver entry point every tensor map is encoded with, and the 2-D maps of the GEMMs
// (kernels/common/hopper/tma.cuh).
#include <string>

#include "kernels/common/check.cuh"
#include "kernels/common/hopper/tma.cuh"
#include "sol/core/error.hpp"

namespace sol::kernels::hopper {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    SOL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !p) failure("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs driver ≥ 12.0)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

CUtensorMap make_map_2d(const void* base, CUtensorMapDataType type, int elem_bytes, int64_t rows, int64_t cols,
                        int64_t pitch, int box_rows) {
  constexpr int kSwizzleRow = 128;  // bytes
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(pitch * elem_bytes)};
  const cuuint32_t box[2] = {cuuint32_t(kSwizzleRow / elem_bytes), cuuint32_t(box_rows)};
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

CUtensorMap cached_map_2d(const void* base, CUtensorMapDataType type, int elem_bytes, int64_t rows, int64_t cols,
                          int64_t pitch, int box_rows) {
  struct Key {
    const void* base;
    CUtensorMapDataType type;
    int elem_bytes;
    int64_t rows, cols, pitch;
    int box_rows;
    bool operator==(const Key&) const = default;
  };
  return cached_tensor_map(Key{base, type, elem_bytes, rows, cols, pitch, box_rows},
                           [&] { return make_map_2d(base, type, elem_bytes, rows, cols, pitch, box_rows); });
}

}  // namespace sol::kernels::hopper

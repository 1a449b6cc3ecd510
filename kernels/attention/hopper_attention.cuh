#pragma once
// What the Hopper attention kernels share (the forward v04/v05 in flash_wgmma.cu, the backward
// v03 in backward_wgmma.cu) beside the instructions of kernels/common/hopper (mbarrier, TMA,
// wgmma): a tile of 3-D TMA boxes, the tile byte layout TMA writes (kD/64 column blocks of
// [rows × 128 B], 128B-swizzled) with the PTX ISA's canonical K-major / MN-major layouts to check
// descriptors against at compile time, the MN-major descriptor, the register pin for wgmma
// operands, and the tensor maps.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/common/hopper/mbarrier.cuh"
#include "kernels/common/hopper/tma.cuh"
#include "kernels/common/hopper/wgmma.cuh"
#include "kernels/common/ptx.cuh"
#include "sol/core/error.hpp"

namespace sol::kernels::attention::hopper_attn {
// Internal linkage, as when these lived in flash_wgmma.cu alone (each .cu gets its own map cache).
namespace {

namespace hw = ::sol::kernels::hopper;
using hw::mbar_wait_bounded;  // the kernels' waits: a hang becomes a trap
using hw::tma_load_3d;
using hw::tma_reduce_add_3d;

constexpr int kSwizzleRow = 128;  // bytes: one 128B-swizzle row = 64 elements of 16 bits
constexpr int kBoxCols = kSwizzleRow / 2;
constexpr int kSbo = 1024;        // 8 rows × 128 B: one swizzle atom (K-major and MN-major)

// A tile of kColBlocks boxes (64 columns each, from column col0; rows row… of batch `batch`) into
// dst as [kColBlocks][rows][128 B], the layout tile_byte describes, counted on `bar`.
template <int kColBlocks>
__device__ __forceinline__ void tma_load_tile(uint8_t* dst, const CUtensorMap* map, uint64_t* bar, int rows, int col0,
                                              int row, int batch) {
#pragma unroll
  for (int cb = 0; cb < kColBlocks; ++cb) hw::tma_load_3d(dst + cb * rows * kSwizzleRow, map, bar, col0 + cb * kBoxCols, row, batch);
}

// Descriptor of an MN-major operand in the 128B swizzle: 8 k-rows of 128 bytes form one
// 1024-byte swizzle atom, the stride byte offset (8-row groups along k) is kSbo; the leading byte
// offset `lbo` is the distance between 64-element blocks along m or n, i.e. one column block of
// the tile (rows × 128 B). The mode bits are those of hopper::smem_desc (K-major).
__host__ __device__ constexpr uint64_t mn_major_desc(uint32_t smem_byte_addr, int lbo) {
  return ((uint64_t(smem_byte_addr) & 0x3FFFF) >> 4) | (uint64_t(lbo >> 4) << 16) | (uint64_t(kSbo >> 4) << 32) |
         (uint64_t(1) << 62);
}

// A descriptor moved by `bytes` (16-aligned) within shared memory: the start field is address / 16
// in the low 14 bits, and shared addresses stay below 2^18, so adding bytes / 16 to the whole
// descriptor never carries out of the field. Built once per tile and advanced by constants, a
// k-step's descriptor costs one add where rebuilding it from a pointer took about a dozen
// dependent instructions in front of every wgmma.
__host__ __device__ constexpr uint64_t desc_plus(uint64_t desc, int bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | uint32_t(uint32_t(desc) + uint32_t(bytes >> 4));  // a 32-bit add
}
// The same descriptor as one built at the moved address, across the 227 KiB a CTA can address.
constexpr bool desc_plus_matches_a_rebuilt_descriptor() {
  for (uint32_t addr = 0; addr < 227 * 1024; addr += 4096 + 16)
    for (int bytes = 0; addr + bytes < 227 * 1024; bytes += 8192 + 32)
      for (int lbo : {1024, 8192, 16384})
        if (desc_plus(mn_major_desc(addr, lbo), bytes) != mn_major_desc(addr + uint32_t(bytes), lbo)) return false;
  return true;
}
static_assert(desc_plus_matches_a_rebuilt_descriptor(), "desc_plus never carries out of the start-address field");

// Byte offsets of a wgmma operand's start inside its tile: a K-major k-step `step` (16 elements
// of d) for the 64 rows from `row0` of a tile of `rows` rows (Q·Kᵀ's Q and K); an MN-major
// k-step kk (rows 16kk…16kk+15) of any tile (P·V's V).
__host__ __device__ constexpr int qk_start(int rows, int row0, int step) {
  return (step / 4) * rows * kSwizzleRow + row0 * kSwizzleRow + (step % 4) * 32;
}
__host__ __device__ constexpr int pv_start(int kk) { return kk * 16 * kSwizzleRow; }

// The 16-bit wgmma forms by element type T (bf16 or fp16), D += A·B: both operands
// from descriptors (ss; kTransA / kTransB: 1 = MN-major; kScaleD = 0: D = A·B), or A from registers in the mma.sync
// A-fragment layout and B an MN-major descriptor (rs: P·V, Pᵀ·dO, dSᵀ·Q).
template <class T, int kTransA = 0, int kTransB = 0, int kScaleD = 1, int kN>
__device__ __forceinline__ void ss(float (&d)[kN], uint64_t desc_a, uint64_t desc_b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    hw::wgmma_bf16<kTransA, kTransB, kScaleD>(d, desc_a, desc_b);
  else
    hw::wgmma_fp16<kTransA, kTransB, kScaleD>(d, desc_a, desc_b);
}
template <class T, int kN>
__device__ __forceinline__ void rs(float (&d)[kN], const uint32_t (&a)[4], uint64_t desc_b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    hw::rs_bf16</*kTransB=*/1>(d, a, desc_b);
  else
    hw::rs_fp16</*kTransB=*/1>(d, a, desc_b);
}

// Where TMA put element (row, col) of a tile (before the swizzle, which TMA and wgmma both apply
// to the absolute address of 1024-byte aligned tiles), and the PTX ISA's canonical layouts
// (wgmma "Shared Memory Matrix Layout", 16-bit elements, T = 8 elements per 16 bytes):
//   K-major, 128B:  ((8,m),(T,2k))   : ((8T,SBO),(1,T))
//   MN-major, 128B: ((T,8,m),(8,k))  : ((1,T,LBO),(8T,SBO))
__host__ __device__ constexpr int tile_byte(int rows, int row, int col) { return (col / 64) * rows * kSwizzleRow + row * kSwizzleRow + (col % 64) * 2; }
__host__ __device__ constexpr int k_major_byte(int row, int k, int sbo) { return 2 * ((row % 8) * 64 + (k % 8) + (k / 8) * 8) + (row / 8) * sbo; }
__host__ __device__ constexpr int mn_major_byte(int k, int n, int lbo, int sbo) {
  return 2 * ((n % 8) + ((n / 8) % 8) * 8 + (k % 8) * 64) + (n / 64) * lbo + (k / 8) * sbo;
}

// Compile-time checks of operand starts against those layouts, for any tile geometry:
// the K-major operand of `m` rows from row0 of a [rows × d] tile, k-step by k-step (qk_start);
// and a [rows × cols] tile read as MN-major B with k = rows, n = cols (pv_start, LBO one column
// block of the tile).
__host__ __device__ constexpr bool k_major_steps_address(int rows, int row0, int m, int d) {
  for (int step = 0; step < d / 16; ++step)
    for (int r = 0; r < m; r += 3)
      for (int k = 0; k < 16; ++k)
        if (qk_start(rows, row0, step) + k_major_byte(r, k, kSbo) != tile_byte(rows, row0 + r, 16 * step + k)) return false;
  return true;
}
__host__ __device__ constexpr bool mn_major_steps_address(int rows, int cols) {
  for (int kk = 0; kk < rows / 16; ++kk)
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < cols; ++n)
        if (pv_start(kk) + mn_major_byte(k, n, rows * kSwizzleRow, kSbo) != tile_byte(rows, 16 * kk + k, n)) return false;
  return true;
}

// Pins registers an async wgmma reads or writes: no ordinary instruction touching them is moved
// across this point (after a wgmma.wait_group, before a wgmma.fence).
template <int kN>
__device__ __forceinline__ void fence_operands(float (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_operands(uint32_t (&r)[kN][4]) {
#pragma unroll
  for (int i = 0; i < kN; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(r[i][e])::"memory");
}

// ---- host side ----------------------------------------------------------------------------------
// A [b, rows, heads·d] tensor (BSHD) as a 3-D map {heads·d, rows, b}, read in boxes of 128 B
// (the swizzle span: 64 elements of 16 bits, 32 of fp32) × box_rows × 1 batch. Rows past `rows`
// of a batch are OOB (zero-filled on loads, dropped on stores and reductions), never the next
// batch's. Row and batch strides in elements (0: packed, cols and rows·cols); multiples of 16 bytes.
template <class T>
CUtensorMap make_map(const T* base, int64_t b, int64_t rows, int64_t cols, int box_rows, int64_t row_stride = 0,
                     int64_t batch_stride = 0) {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half> || std::is_same_v<T, float>);
  constexpr int64_t kBytes = sizeof(T);
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(b)};
  if (row_stride == 0) row_stride = cols;
  if (batch_stride == 0) batch_stride = rows * row_stride;
  const cuuint64_t strides[2] = {cuuint64_t(row_stride * kBytes), cuuint64_t(batch_stride * kBytes)};
  const cuuint32_t box[3] = {cuuint32_t(kSwizzleRow / kBytes), cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type = std::is_same_v<T, float>    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                               : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  CUtensorMap map{};
  const CUresult r = hw::encode_fn()(&map, type, 3, const_cast<T*>(base), dims, strides, box, element_strides,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    failure("attention (wgmma): cuTensorMapEncodeTiled failed (error " + std::to_string(int(r)) + ") for b=" +
            std::to_string(b) + ", rows=" + std::to_string(rows) + ", columns=" + std::to_string(cols));
  return map;
}

// make_map through hopper::cached_tensor_map, keyed by every argument (one cache per .cu and T).
template <class T>
CUtensorMap cached_map(const T* base, int64_t b, int64_t rows, int64_t cols, int box_rows, int64_t row_stride = 0,
                       int64_t batch_stride = 0) {
  struct Key {
    const void* base;
    int64_t b, rows, cols;
    int box_rows;
    int64_t row_stride, batch_stride;
    bool operator==(const Key&) const = default;
  };
  return hw::cached_tensor_map(Key{base, b, rows, cols, box_rows, row_stride, batch_stride},
                               [&] { return make_map(base, b, rows, cols, box_rows, row_stride, batch_stride); });
}

}  // namespace
}  // namespace sol::kernels::attention::hopper_attn

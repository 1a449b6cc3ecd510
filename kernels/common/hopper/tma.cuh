#pragma once
// The Tensor Memory Accelerator as sol's Hopper kernels use it (sm_90): a tensor map (encoded on
// the host by the driver) describes a 2-D or 3-D tensor in global memory and the box one copy
// moves; a load lands a box in shared memory and counts its bytes on an mbarrier
// (kernels/common/hopper/mbarrier.cuh), a multicast load lands it in several CTAs of a cluster,
// and a store or reduce-add writes a box of shared memory back, in the bulk async-group (commit,
// then wait_group.read before the buffer is rewritten, wait_group before the writes are visible).
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>

#include "kernels/common/ptx.cuh"

namespace sol::kernels::hopper {

// One box of a 2-D tensor map into shared memory; completion is counted on `bar` in bytes.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int col, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(col), "r"(row)
      : "memory");
}
// A box written to the same offset in every CTA of `mask`, each CTA's `bar` counting the bytes.
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, int col, int row,
                                                   uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(col), "r"(row), "h"(mask)
      : "memory");
}
// One box of a 3-D tensor map ({column, row, batch}) into shared memory, counted on `bar`.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, uint64_t* bar, int col, int row,
                                            int batch) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(
          smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(col), "r"(row), "r"(batch)
      : "memory");
}

// ---- shared → global ---------------------------------------------------------------------------
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }  // writes done too
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* src, int col, int row) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
               "r"(smem_addr(src)), "r"(col), "r"(row)
               : "memory");
}
// A box of shared memory added (fp32 +=) into a 3-D tensor map's box in global memory.
__device__ __forceinline__ void tma_reduce_add_3d(const CUtensorMap* map, const void* src, int col, int row, int batch) {
  asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(map),
               "r"(smem_addr(src)), "r"(col), "r"(row), "r"(batch)
               : "memory");
}

// ---- host side ------------------------------------------------------------------------------------
// The driver's cuTensorMapEncodeTiled, looked up once (kernels/common/hopper/tma.cu).
PFN_cuTensorMapEncodeTiled_v12000 encode_fn();

// A 2-D tensor map over a row-major [rows × cols] matrix of `type` (elem_bytes each) with a row
// pitch of `pitch` elements, read in boxes of box_rows × 128 bytes with the 128B swizzle (the span
// wgmma's descriptors and a swizzled ldmatrix expect). Rows and columns past the matrix are
// out of bounds: zero-filled on loads. Base and pitch·elem_bytes must be multiples of 16 bytes.
CUtensorMap make_map_2d(const void* base, CUtensorMapDataType type, int elem_bytes, int64_t rows, int64_t cols,
                        int64_t pitch, int box_rows);

// The map encode() gives for `key` (a struct with ==, holding everything encode reads), through a
// small per-thread cache of the latest keys: encoding a map is a driver call of several µs on the
// host, as long as a 1024³ GEMM runs on the GPU, and the same operands come back call after call
// (a training step, the harness's rotating input sets). One cache per Key type.
template <class Key, class Encode>
CUtensorMap cached_tensor_map(const Key& key, Encode&& encode) {
  struct Entry {
    Key key{};
    CUtensorMap map{};
    bool used = false;
  };
  constexpr int kEntries = 64;  // ≥ 3 operands × the harness's 16 rotating sets, with room
  thread_local Entry entries[kEntries];
  thread_local int next = 0;
  for (const Entry& e : entries)
    if (e.used && e.key == key) return e.map;
  Entry& e = entries[next];
  next = (next + 1) % kEntries;
  e = Entry{key, encode(), true};
  return e.map;
}

// make_map_2d through cached_tensor_map, keyed by every argument.
CUtensorMap cached_map_2d(const void* base, CUtensorMapDataType type, int elem_bytes, int64_t rows, int64_t cols,
                          int64_t pitch, int box_rows);

}  // namespace sol::kernels::hopper

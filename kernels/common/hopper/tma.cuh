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

}  // namespace sol::kernels::hopper

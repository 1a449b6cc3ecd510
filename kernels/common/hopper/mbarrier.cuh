#pragma once
// The barriers sol's Hopper kernels synchronise producers and consumers with (sm_90):
//   mbarrier     a 64-bit shared-memory barrier with a phase bit: init with the arrivals one
//                phase needs, arrive (optionally announcing bytes a TMA will complete), and
//                wait on a phase's parity; a remote arrive reaches the same barrier in another
//                CTA of the cluster
//   cluster      the CTA's rank in its cluster and a cluster-wide barrier
//   named        bar.sync on a barrier id other than 0 (__syncthreads) among a subset of warps
#include <cstdint>

#include "kernels/common/ptx.cuh"

namespace sol::kernels::hopper {

__device__ __forceinline__ void mbar_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_bytes(uint64_t* bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// mbar_wait with a bound: a barrier that never completes (a wrong byte count, a phase off by
// one) traps after 10 s instead of hanging the GPU. The clock is read only once a poll has
// failed, so a wait that succeeds at once costs one try_wait.
__device__ __forceinline__ bool mbar_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(smem_addr(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void mbar_wait_bounded(uint64_t* bar, uint32_t parity) {
  if (mbar_try_wait(bar, parity)) return;
  const uint64_t start = global_ns();
  while (!mbar_try_wait(bar, parity))
    if (global_ns() - start > 10'000'000'000ull) __trap();
}

// ---- clusters ------------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// Arrives on the barrier at the same shared-memory offset in CTA `rank` of the cluster. Default
// (.release.cta) semantics as for a local arrive: the consumer's wgmma reads of the stage are
// complete, and nothing else needs ordering. A .release.cluster arrive here cost the GEMM's
// cluster rung 40 % (H200).
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
}

// 16 bytes at this CTA's shared-memory address `local`, read at the same offset in CTA `rank` of
// the cluster (distributed shared memory; after a cluster_sync that made them visible).
__device__ __forceinline__ float4 ld_cluster_f4(const void* local, uint32_t rank) {
  float4 v;
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %4, %5;\n"
      "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "r"(smem_addr(local)), "r"(rank)
      : "memory");
  return v;
}
__device__ __forceinline__ uint32_t cluster_ctas() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

// ---- named barriers --------------------------------------------------------------------------------
// Barrier among the 128 threads of one consumer warpgroup (ids 1 and 2; 0 is __syncthreads).
__device__ __forceinline__ void consumer_sync(int consumer) {
  asm volatile("bar.sync %0, 128;" ::"r"(consumer + 1) : "memory");
}

}  // namespace sol::kernels::hopper

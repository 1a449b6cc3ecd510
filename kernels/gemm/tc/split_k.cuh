#pragma once
// v08's third decomposition — k split over a cluster. Where the output has too few tiles to fill
// the GPU even in 128×128 tiles (a prefill of 128–512 tokens: 512×4096×14336 makes 64 tiles of
// 128×256 for 132 SMs, 128×4096×14336 makes 16, 1024³ makes 32), the S CTAs of a cluster (S = 2,
// 4 or 8, where the k-steps saved outweigh the sum's cost: gemm_rungs::split_k) share one tile, each taking a contiguous S-th of its k-tiles
// through v04's main loop (a producer warpgroup, two consumers). Then the stages, free once the
// loop ends, hold each CTA's fp32 partial of the tile; every CTA sums the rows it owns over the
// cluster's partials through distributed shared memory, always in rank order (the same bits on
// every run, which cuBLAS does not promise), and stores them to C. No workspace and no second
// launch.
//   gA, gB --TMA--> stages --wgmma--> rAcc (k-tiles kt0 … kt1) --> sPart --DSMEM, Σ rank 0…S−1--> gC
// Expected: 128×4096×14336 on 128 CTAs of 28 k-tiles instead of 64 narrow ones of 224, ~2.4×;
// the price is the sum (the tile's 128 KiB of fp32 read across the cluster) and the wide tile's
// pipeline fill, which a CTA's shorter k loop does not shrink: at 1024³ (16 k-tiles) it outweighs
// the k-steps saved (measured on an H100: 4 ways 14.3 µs, the unsplit 128×128 tiles 11.4).
#include <algorithm>

#include "kernels/gemm/tc/hopper.cuh"

namespace sol::kernels::gemm::tc::hopper {

constexpr int kSplitN = kHopperWide.n;  // the tile is the wide one: 128 × kSplitN
// The partial: 128 rows of kSplitN fp32, each row padded by 8 floats so that a warp's fragment writes
// (8 rows × 4 column pairs) fall on 32 distinct banks and rows stay 16-byte aligned.
constexpr int kPartPitch = kSplitN + 8;
static_assert(kBlockM * kPartPitch * 4 <= TileN<kSplitN>::kStages * (kStageA + TileN<kSplitN>::kStageB),
              "the partial fits in the stages it reuses");

// One consumer's rAcc into rows consumer·64 … of sPart (the wgmma D fragment layout: warp w
// holds rows 16w … 16w+15, a lane (row l/4, columns 2(l%4), +1) of each 8-column chunk and the
// same 8 rows down).
__device__ __forceinline__ void write_partial(const float (&rAcc)[TileN<kSplitN>::kAcc], float* sPart, int consumer) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < TileN<kSplitN>::kAcc / 4; ++j)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = consumer * 64 + warp * 16 + lane / 4 + half * 8, col = j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(sPart + row * kPartPitch + col) =
          make_float2(rAcc[j * 4 + half * 2], rAcc[j * 4 + half * 2 + 1]);
    }
}

// Rows rank·128/S … of the tile: Σ over the cluster's partials in rank order, alpha, bf16, into C.
// All 384 threads of each CTA take part, four consecutive columns at a time; every peer's 16
// bytes are loaded before the first add.
__device__ __forceinline__ void sum_partials(float* sPart, uint32_t rank, uint32_t splits, __nv_bfloat16* gC,
                                             int64_t m, int64_t n, int64_t ldc, int64_t row0, int64_t col0,
                                             float alpha) {
  const int rows = kBlockM / int(splits), first = int(rank) * rows;
  for (int idx = threadIdx.x; idx < rows * (kSplitN / 4); idx += blockDim.x) {
    const int row = first + idx / (kSplitN / 4), col = 4 * (idx % (kSplitN / 4));
    const int64_t r = row0 + row, c = col0 + col;
    if (r >= m || c >= n) continue;
    const float* sAt = sPart + row * kPartPitch + col;
    float4 v[gemm_rungs::kMaxSplitK];
#pragma unroll
    for (int s = 0; s < gemm_rungs::kMaxSplitK; ++s)
      if (s < int(splits)) v[s] = ld_cluster_f4(sAt, uint32_t(s));
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int s = 0; s < gemm_rungs::kMaxSplitK; ++s)
      if (s < int(splits)) sum.x += v[s].x, sum.y += v[s].y, sum.z += v[s].z, sum.w += v[s].w;
    const __nv_bfloat162 lo = __floats2bfloat162_rn(alpha * sum.x, alpha * sum.y),
                         hi = __floats2bfloat162_rn(alpha * sum.z, alpha * sum.w);
    __nv_bfloat16* gAt = gC + r * ldc + c;
    if (c + 3 < n && reinterpret_cast<uintptr_t>(gAt) % 8 == 0) {
      uint2 packed;
      packed.x = *reinterpret_cast<const uint32_t*>(&lo);
      packed.y = *reinterpret_cast<const uint32_t*>(&hi);
      *reinterpret_cast<uint2*>(gAt) = packed;
    } else {
      const __nv_bfloat16 out[4] = {lo.x, lo.y, hi.x, hi.y};
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (c + e < n) gAt[e] = out[e];
    }
  }
}

template <InType kIn>
__global__ void __launch_bounds__(384, 1)
    split_k_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                   __nv_bfloat16* gC, int64_t m, int64_t n, int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  constexpr int kStages = TileN<kSplitN>::kStages;
  const Smem<kSplitN> smem = shared_stages<kSplitN>();
  const int consumer = int(threadIdx.x / 128) - 1;  // −1: the producer warpgroup
  const uint32_t rank = cluster_rank(), splits = cluster_ctas();
  if (threadIdx.x == 0) init_barriers(smem, 2);
  __syncthreads();

  // The cluster's tile, and this CTA's k-tiles of it (the launch gives every CTA at least one).
  int tm, tn;
  grid.at(int(blockIdx.x / splits), tm, tn);
  const int kt0 = int(int64_t(k_tiles) * rank / splits), kt1 = int(int64_t(k_tiles) * (rank + 1) / splits);
  float rAcc[TileN<kSplitN>::kAcc];
  if (consumer < 0) {
    if (threadIdx.x == 0)
      for (int kt = kt0, it = 0; kt < kt1; ++kt, ++it) {
        mbar_wait(&smem.empty[it % kStages], ((it / kStages) & 1) ^ 1);
        load_stage<kIn, kSplitN>(&mapA, &mapB, smem, it, tm, tn, kt);
      }
  } else {
    int it = 0;
    consume_tile<kIn>(rAcc, smem, kt1 - kt0, it, consumer);
  }
  __syncthreads();  // both consumers' last wgmmas have read their stages: the stages are free
  // The partial from the start of the stages; addressed off the __shared__ array itself so that
  // the compiler keeps the shared window (STS, not generic stores).
  extern __shared__ uint8_t smem_raw[];
  float* sPart = reinterpret_cast<float*>(smem_raw + (smem.base - smem_raw));
  if (consumer >= 0) write_partial(rAcc, sPart, consumer);
  cluster_sync();  // every CTA's partial written and visible to the cluster
  sum_partials(sPart, rank, splits, gC, m, n, ldc, int64_t(tm) * kBlockM, int64_t(tn) * kSplitN, alpha);
  cluster_sync();  // no CTA leaves (its shared memory with it) while a peer may still read its partial
}

// The launch, k split `splits` ways (gemm_rungs::decomposition): the operands packed and mapped
// as for every Hopper rung; S halved while the GPU cannot hold the clusters at once (a cluster
// lives inside one GPC).
template <InType kIn>
void launch_split_k(const Problem& p, Workspace& ws, int splits, cudaStream_t stream) {
  using T = TileN<kSplitN>;
  constexpr auto kKernel = split_k_kernel<kIn>;
  const Problem q = pack_operands(p, ws, kRowBytes, stream);
  const CUtensorMap mapA = cached_map(q.A, p.in, p.m, p.k, q.lda, kBlockM);
  const CUtensorMap mapB = cached_map(q.B, p.in, p.n, p.k, q.ldb, kSplitN);
  const TileGrid grid{int((p.m + kBlockM - 1) / kBlockM), int((p.n + kSplitN - 1) / kSplitN)};
  const int k_tiles = int(gemm_rungs::hopper_k_tiles(p.k, in_bytes(p.in)));
  opt_in_dynamic_smem(kKernel, T::kSmemBytes);
  // CTAs held at once in clusters of S (0: that cluster fits nowhere, so S halves past it).
  const auto held = [&](int s) {
    return resident_ctas(reinterpret_cast<const void*>(kKernel), 384, T::kSmemBytes, s, /*required=*/s == 1);
  };
  while (splits > 1 && held(splits) < grid.count() * splits) splits /= 2;
  if (splits > k_tiles)
    failure("split_k: " + std::to_string(splits) + " splits of " + std::to_string(k_tiles) + " k-tiles");
  const ClusterLaunch l(grid.count() * splits, 384, T::kSmemBytes, splits, stream);
  SOL_CUDA_CHECK(cudaLaunchKernelEx(&l.config, kKernel, mapA, mapB, static_cast<__nv_bfloat16*>(p.C), p.m, p.n, p.ldc,
                                    k_tiles, grid, p.alpha));
}

}  // namespace sol::kernels::gemm::tc::hopper

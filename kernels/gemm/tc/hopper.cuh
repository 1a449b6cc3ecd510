#pragma once
// The Hopper path (§3: only wgmma fed by TMA reaches the H200's tensor-core peak), shared by the
// rungs v03 (TMA + wgmma), v04 (+ a producer warpgroup), v05 (+ persistent tiles), v06 (+ B
// multicast in clusters of two), v07 (+ TMA-store epilogue) and v08 (+ a tile shape per problem):
//   gA, gB --TMA, 128B swizzle--> sA[stage], sB[stage] --wgmma--> rAcc (fp32) --> gC (bf16)
// One CTA tile is 128×256 outputs (v08: or 128×128), computed by two consumer warpgroups of
// 64×256 (64×128) each; k moves in steps of 128 bytes per row (64 bf16/fp16 or 128 fp8),
// kStages deep in shared memory.
// Each stage has a "full" mbarrier (TMA's bytes arrived) and an "empty" one (both consumers
// finished reading it), so loads run kStages − 1 tiles ahead of the tensor cores.
// Edges: TMA fills out-of-bounds rows and columns with zeros, so any m, n, k works; an operand
// whose base or row pitch is not a multiple of 128 bytes is first packed (kernels/gemm/tc/pack.cuh).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/check.cuh"
#include "kernels/common/hopper/mbarrier.cuh"
#include "kernels/common/hopper/tma.cuh"
#include "kernels/common/hopper/wgmma.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/gemm/tc/pack.cuh"
#include "kernels/gemm/tc/problem.cuh"
#include "sol/gemm_rungs.hpp"

namespace sol::kernels::gemm::tc::hopper {

// The instructions: mbarriers, TMA and wgmma as kernels/common/hopper names them.
using namespace ::sol::kernels::hopper;

using gemm_rungs::kHopperNarrow;
using gemm_rungs::kHopperWide;
constexpr int kBlockM = kHopperWide.m;          // two consumer warpgroups of 64 rows
constexpr int kRowBytes = kHopperWide.k_bytes;  // k extent of a stage, in bytes: one 128B swizzle row
constexpr int kStepBytes = 32;      // k extent of one wgmma (16 × 2 B or 32 × 1 B)
constexpr int kStageA = kBlockM * kRowBytes;   // 16 KiB
constexpr int kStageC = 64 * 128 * 2;           // one consumer's staging buffer for C, bf16: 16 KiB
constexpr int kGroupM = 16;         // tile order: 16 row-tiles share each column of B tiles in L2

// The CTA tile's n extent and what follows from it: 256 (one wgmma n = 256; every rung) or 128
// (v08 picks it where it gives fewer or fuller waves). As many stages as fit in 227 KiB beside
// the C staging buffers: 4 × 48 KiB or 6 × 32 KiB.
template <int kN>
struct TileN {
  static_assert(kN == kHopperNarrow.n || kN == kHopperWide.n, "wgmma n of 128 or 256");
  static constexpr int kAcc = kN / 2;           // fp32 accumulators per consumer thread (64 × kN / 128)
  static constexpr int kStageB = kN * kRowBytes;
  static constexpr int kStages = kN == kHopperWide.n ? kHopperWide.stages : kHopperNarrow.stages;
  static constexpr int kSmemBytes = kStages * (kStageA + kStageB) + 2 * kStageC + 1024 /* alignment */ +
                                    256 /* barriers */;
};

// One k-step of 32 bytes per row for the input type.
template <InType kIn, int kAcc>
__device__ __forceinline__ void wgmma_step(float (&rAcc)[kAcc], uint64_t desc_a, uint64_t desc_b) {
  if constexpr (kIn == InType::bf16)
    wgmma_bf16(rAcc, desc_a, desc_b);
  else if constexpr (kIn == InType::fp16)
    wgmma_fp16(rAcc, desc_a, desc_b);
  else
    wgmma_e4m3(rAcc, desc_a, desc_b);
}

// ---- tile order ---------------------------------------------------------------------------------
// A work unit is kCluster vertically adjacent tiles (one per CTA of a cluster; they share the
// B tile). Unit u → (row unit, column tile), walking kGroupM row units down one column of B
// tiles before moving right, so the CTAs running at once share B (and A) tiles in L2.
struct TileGrid {
  int units_m, tiles_n;
  __host__ __device__ int count() const { return units_m * tiles_n; }
  __device__ void at(int u, int& um, int& tn) const {
    const int per_group = kGroupM * tiles_n;
    const int group = u / per_group;
    const int first_m = group * kGroupM;
    const int rows = min(kGroupM, units_m - first_m);
    const int in_group = u - group * per_group;
    um = first_m + in_group % rows;
    tn = in_group / rows;
  }
};

// ---- epilogue: rAcc (the wgmma D fragment) → gC, bf16, alpha applied ----------------------------
// Fragment layout (PTX "wgmma D, m64nNk*"): warp w of the warpgroup owns rows 16w … 16w+15; in
// each 8-column chunk j a lane holds (row l/4, cols 2(l%4)+{0,1}) and the same columns 8 rows down.
template <int kAcc>
__device__ __forceinline__ void store_tile(const float (&rAcc)[kAcc], __nv_bfloat16* gC, int64_t ldc, int64_t m,
                                           int64_t n, int64_t row0, int64_t col0, float alpha) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int64_t r_top = row0 + warp * 16 + lane / 4;
  const bool pairs = (ldc % 2) == 0;  // bf16x2 stores need 4-byte alignment
#pragma unroll
  for (int j = 0; j < kAcc / 4; ++j) {
    const int64_t c = col0 + j * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t r = r_top + half * 8;
      if (r >= m || c >= n) continue;
      const float v0 = alpha * rAcc[j * 4 + half * 2], v1 = alpha * rAcc[j * 4 + half * 2 + 1];
      __nv_bfloat16* p = gC + r * ldc + c;
      if (pairs && c + 1 < n) {
        *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v0, v1);
      } else {
        p[0] = __float2bfloat16_rn(v0);
        if (c + 1 < n) p[1] = __float2bfloat16_rn(v1);
      }
    }
  }
}

// ---- epilogue through shared memory and TMA stores --------------------------------------------
// Writing rAcc straight to HBM stalls the consumers ~13 % of the time at 4096³ (H200: 805 TF/s
// with the stores removed, 710 with them): every CTA writes its tile at the same moment. Instead
// each consumer converts its 64×256 tile in two halves of 64×128 into a 16 KiB staging buffer
// (two 64×64 boxes, 128B-swizzled so the fragment writes hit 32 distinct banks) and hands each
// half to a TMA store, which drains while the next tile's wgmmas run. TMA clips at the matrix
// edge, so partial tiles need no guard.
template <int kAcc>
__device__ __forceinline__ void store_tile_tma(const float (&rAcc)[kAcc], uint8_t* sC, const CUtensorMap* mapC,
                                               int consumer, int64_t row0, int64_t col0, float alpha) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const bool issuer = threadIdx.x % 128 == 0;
#pragma unroll
  for (int half = 0; half < kAcc / 64; ++half) {  // 64×128 per half: two halves of 64×256, one of 64×128
    if (issuer) bulk_wait_read();  // the previous stores have finished reading sC
    consumer_sync(consumer);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const int col = j * 8 + (lane % 4) * 2;          // 0 … 127 within the half
      const int box = col / 64, col_in_box = col % 64;
#pragma unroll
      for (int r8 = 0; r8 < 2; ++r8) {
        const int row = warp * 16 + lane / 4 + r8 * 8;  // 0 … 63
        const int chunk = (col_in_box / 8) ^ (row % 8);  // the 128B swizzle: 16-byte chunk ^ row
        uint8_t* dst = sC + box * (64 * 128) + row * 128 + chunk * 16 + (col_in_box % 8) * 2;
        const int a = (half * 16 + j) * 4 + r8 * 2;
        *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(alpha * rAcc[a], alpha * rAcc[a + 1]);
      }
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes → visible to TMA
    consumer_sync(consumer);
    if (issuer) {
      tma_store(mapC, sC, int(col0 + half * 128), int(row0));
      tma_store(mapC, sC + 64 * 128, int(col0 + half * 128 + 64), int(row0));
      bulk_commit();
    }
  }
}

// ---- the kernel ---------------------------------------------------------------------------------
// kProducer: a third warpgroup only issues TMA (else thread 0 of the consumers refills a stage
// after everyone has finished with it). kPersistent: one CTA per SM walks work units (else one
// CTA per unit). kCluster = 2: two CTAs stacked along m each load half of the shared B tile and
// multicast it to both, so each CTA pulls 32 KiB per k-tile from L2 instead of 48.
template <InType kIn, bool kProducer, bool kPersistent, int kCluster, bool kTmaStore, int kN>
__global__ void __launch_bounds__(kProducer ? 384 : 256, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                const __grid_constant__ CUtensorMap mapC, bool c_by_tma, __nv_bfloat16* gC, int64_t m, int64_t n,
                int64_t ldc, int k_tiles, TileGrid grid, float alpha) {
  static_assert(kCluster == 1 || (kCluster == 2 && kProducer && kPersistent), "clusters need the producer schedule");
  using T = TileN<kN>;
  constexpr int kStages = T::kStages, kStageB = T::kStageB, kBlockN = kN;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* sA = smem;                              // [kStages][128 rows][128 B], swizzled
  uint8_t* sB = smem + kStages * kStageA;          // [kStages][kN rows][128 B], swizzled
  uint8_t* sC = sB + kStages * kStageB;           // [2 consumers][2 boxes][64 rows][128 B], swizzled
  uint64_t* full = reinterpret_cast<uint64_t*>(sC + 2 * kStageC);
  uint64_t* empty = full + kStages;

  const int wg = threadIdx.x / 128;
  const int consumer = kProducer ? wg - 1 : wg;    // −1 for the producer warpgroup
  const uint32_t rank = kCluster > 1 ? cluster_rank() : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 2 * kCluster);  // both consumers of every CTA that reads the stage's B
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (kCluster > 1)
    cluster_sync();  // the peer's barriers exist before anything is multicast into them
  else
    __syncthreads();

  const int first_unit = kPersistent ? blockIdx.x / kCluster : blockIdx.x;
  const int unit_step = kPersistent ? gridDim.x / kCluster : grid.count();
  constexpr int kStageBytes = kStageA + kStageB;
  constexpr int kBoxB = kBlockN / kCluster;        // rows of B this CTA fetches per stage

  auto load_stage = [&](int it, int tm, int tn, int kt) {
    const int s = it % kStages;
    mbar_expect_bytes(&full[s], kStageBytes);
    const int col = kt * (kRowBytes / (kIn == InType::fp8_e4m3 ? 1 : 2));
    tma_load(sA + s * kStageA, &mapA, &full[s], col, tm * kBlockM);
    if constexpr (kCluster > 1)
      tma_load_multicast(sB + s * kStageB + rank * kBoxB * kRowBytes, &mapB, &full[s], col, tn * kBlockN + rank * kBoxB,
                         uint16_t((1u << kCluster) - 1));
    else
      tma_load(sB + s * kStageB, &mapB, &full[s], col, tn * kBlockN);
  };

  if constexpr (kProducer) {
    if (consumer < 0) {
      if (threadIdx.x == 0) {
        int it = 0;
        for (int u = first_unit; u < grid.count(); u += unit_step) {
          int um, tn;
          grid.at(u, um, tn);
          for (int kt = 0; kt < k_tiles; ++kt, ++it) {
            mbar_wait(&empty[it % kStages], ((it / kStages) & 1) ^ 1);
            load_stage(it, um * kCluster + rank, tn, kt);
          }
        }
      }
      if constexpr (kCluster > 1) cluster_sync();  // stay resident while the peer may still signal us
      return;
    }
  }

  // Releases stage s: in every CTA whose B half we read (ours and, in a cluster, the peer's).
  auto release = [&](int s) {
    if (threadIdx.x % 128 != 0) return;
    if constexpr (kCluster > 1) {
      for (uint32_t r = 0; r < kCluster; ++r) mbar_arrive_cluster(&empty[s], r);
    } else {
      mbar_arrive(&empty[s]);
    }
  };

  float rAcc[T::kAcc];
  int it = 0;  // k-tiles consumed by this CTA so far, over all its tiles: picks stage and parity
  for (int u = first_unit; u < grid.count(); u += unit_step) {
    int um, tn;
    grid.at(u, um, tn);
    const int tm = um * kCluster + rank;
    if constexpr (!kProducer) {
      // Prologue: the first kStages − 1 tiles of k in flight before any math.
      if (threadIdx.x == 0)
        for (int kt = 0; kt < min(k_tiles, kStages - 1); ++kt) load_stage(it + kt, tm, tn, kt);
    }
#pragma unroll
    for (int i = 0; i < T::kAcc; ++i) rAcc[i] = 0.f;
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int s = it % kStages;
      mbar_wait(&full[s], (it / kStages) & 1);
      const uint8_t* sA_mine = sA + s * kStageA + consumer * 64 * kRowBytes;
      const uint8_t* sB_stage = sB + s * kStageB;
      wgmma_fence();
#pragma unroll
      for (int step = 0; step < kRowBytes / kStepBytes; ++step)
        wgmma_step<kIn, T::kAcc>(rAcc, smem_desc(sA_mine + step * kStepBytes), smem_desc(sB_stage + step * kStepBytes));
      wgmma_commit();
      if constexpr (kProducer) {
        // Keep one group in flight; the one before it is done, so its stage can be refilled.
        wgmma_wait<1>();
        if (kt > 0) release((it - 1) % kStages);
      } else {
        wgmma_wait<0>();
        __syncthreads();  // both consumers are done with stage s
        if (threadIdx.x == 0 && kt + kStages - 1 < k_tiles) load_stage(it + kStages - 1, tm, tn, kt + kStages - 1);
      }
    }
    if constexpr (kProducer) {
      wgmma_wait<0>();
      release((it - 1) % kStages);
    }
    const int64_t row0 = int64_t(tm) * kBlockM + consumer * 64, col0 = int64_t(tn) * kBlockN;
    if (kTmaStore && c_by_tma)
      store_tile_tma(rAcc, sC + consumer * kStageC, &mapC, consumer, row0, col0, alpha);
    else
      store_tile(rAcc, gC, ldc, m, n, row0, col0, alpha);
  }
  if (kTmaStore && c_by_tma && threadIdx.x % 128 == 0) bulk_wait_read();  // sC stays valid until read
  if constexpr (kCluster > 1) cluster_sync();
}

// ---- host side ----------------------------------------------------------------------------------
// An operand's 2-D tensor map (kernels/common/hopper/tma.cuh: 128B swizzle, boxes of box_rows ×
// 128 bytes), through the per-thread cache there.
CUtensorMap cached_map(const void* base, InType in, int64_t rows, int64_t cols, int64_t pitch, int box_rows);

// Sets up maps (packing first where needed) and launches gemm_kernel<...>.
template <InType kIn, bool kProducer, bool kPersistent, int kCluster, bool kTmaStore, int kN>
void launch(const Problem& p, Workspace& ws, cudaStream_t stream);

// The one dispatch every rung shares: picks the instantiation for p.in.
template <bool kProducer, bool kPersistent, int kCluster = 1, bool kTmaStore = false, int kN = kHopperWide.n>
void launch_any(const Problem& p, Workspace& ws, cudaStream_t stream) {
  switch (p.in) {
    case InType::bf16: return launch<InType::bf16, kProducer, kPersistent, kCluster, kTmaStore, kN>(p, ws, stream);
    case InType::fp16: return launch<InType::fp16, kProducer, kPersistent, kCluster, kTmaStore, kN>(p, ws, stream);
    case InType::fp8_e4m3: return launch<InType::fp8_e4m3, kProducer, kPersistent, kCluster, kTmaStore, kN>(p, ws, stream);
  }
}

int sm_count();
// How many CTAs of `kernel` (clusters of `cluster` CTAs, `smem` bytes each) fit on the GPU at once.
int resident_ctas(const void* kernel, int threads, int smem, int cluster);

template <InType kIn, bool kProducer, bool kPersistent, int kCluster, bool kTmaStore, int kN>
void launch(const Problem& p, Workspace& ws, cudaStream_t stream) {
  const int eb = in_bytes(kIn);
  // TMA at full speed wants 128-byte lines (kernels/gemm/tc/pack.cuh): anything else is packed.
  const Problem q = pack_operands(p, ws, kRowBytes, stream);
  const CUtensorMap mapA = cached_map(q.A, kIn, p.m, p.k, q.lda, kBlockM);
  using T = TileN<kN>;
  const CUtensorMap mapB = cached_map(q.B, kIn, p.n, p.k, q.ldb, kN / kCluster);
  const int tiles_m = int((p.m + kBlockM - 1) / kBlockM);
  const TileGrid grid{(tiles_m + kCluster - 1) / kCluster, int((p.n + kN - 1) / kN)};
  const int k_tiles = int((p.k * eb + kRowBytes - 1) / kRowBytes);
  // C through TMA needs what TMA needs: a 16-byte aligned base and pitch (else direct stores).
  const bool c_by_tma = kTmaStore && reinterpret_cast<uintptr_t>(p.C) % 16 == 0 && (p.ldc * 2) % 16 == 0;
  const CUtensorMap mapC = c_by_tma ? cached_map(p.C, InType::bf16, p.m, p.n, p.ldc, 64) : CUtensorMap{};
  auto kernel = gemm_kernel<kIn, kProducer, kPersistent, kCluster, kTmaStore, kN>;
  const int threads = kProducer ? 384 : 256;
  static int resident = 0;  // one attribute call and occupancy query per instantiation
  if (!resident) {
    SOL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes));
    if (kCluster > 1) SOL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    resident = resident_ctas(reinterpret_cast<const void*>(kernel), threads, T::kSmemBytes, kCluster);
  }
  const int blocks = kPersistent ? std::min(grid.count() * kCluster, resident) : grid.count() * kCluster;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(blocks));
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = T::kSmemBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kCluster;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  SOL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, mapA, mapB, mapC, c_by_tma, static_cast<__nv_bfloat16*>(p.C), p.m,
                                    p.n, p.ldc, k_tiles, grid, p.alpha));
}

}  // namespace sol::kernels::gemm::tc::hopper

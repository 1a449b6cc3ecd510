#pragma once
// The Hopper path (§3: only wgmma fed by TMA reaches the H200's tensor-core peak): the vocabulary
// the rungs v03–v08 build their kernels from. Each rung's file holds its own kernel, the skeleton
// of what it adds: v03 (TMA + wgmma, a __syncthreads per k-tile), v04 (+ a producer warpgroup),
// v05 (+ persistent CTAs), v06 (+ B multicast in clusters of two), v07 (+ the TMA-store epilogue,
// kernels/gemm/tc/v07_tma_store.cuh) and v08 (v07's kernel with a tile shape per problem).
//   gA, gB --TMA, 128B swizzle--> sA[stage], sB[stage] --wgmma--> rAcc (fp32) --> gC (bf16)
// One CTA tile is 128×256 outputs (v08: or 128×128, 128×64), computed by two consumer warpgroups
// of 64×256 (64×128, 64×64) each; k moves in steps of 128 bytes per row (64 bf16/fp16 or 128 fp8),
// kStages deep in shared memory.
// Each stage has a "full" mbarrier (TMA's bytes arrived) and an "empty" one (both consumers
// finished reading it), so loads run kStages − 1 tiles ahead of the tensor cores.
// Here: the tile constants (TileN), the tile order (TileGrid), the shared-memory layout (Smem),
// one k-tile's steps (load_stage, mma_stage, release_stage), the warpgroups' loops of the
// warp-specialized rungs (produce_tiles, consume_tile), the epilogues (store_tile from registers;
// store_tile_tma and store_tile_staged through shared memory) and the host side: tensor maps
// (cached_map), a cluster launch's configuration (ClusterLaunch) and one launch for every rung's
// kernel, which all take the same parameters (launch, with_input).
// Edges: TMA fills out-of-bounds rows and columns with zeros, so any m, n, k works; an operand
// whose base or row pitch is not a multiple of 128 bytes is first packed (kernels/gemm/tc/pack.cuh).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/common/check.cuh"
#include "kernels/common/launch.cuh"
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

// The CTA tile's n extent and what follows from it: 256 (one wgmma n = 256; every rung), 128 (v08
// picks it where it gives fewer or fuller waves) or 64 (v08, where a shape asks for it). As many
// stages as fit in 227 KiB beside the C staging buffers: 4 × 48 KiB, 6 × 32 KiB or 8 × 24 KiB.
template <int kN>
struct TileN {
  static_assert(gemm_rungs::hopper_tile(kN) != nullptr, "wgmma n of 64, 128 or 256");
  static constexpr int kAcc = kN / 2;           // fp32 accumulators per consumer thread (64 × kN / 128)
  static constexpr int kStageB = kN * kRowBytes;
  static constexpr int kStages = gemm_rungs::hopper_tile(kN)->stages;
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

// ---- shared memory ------------------------------------------------------------------------------
// A CTA's dynamic shared memory, aligned to 1024 bytes (the 128B swizzle's period), all but the
// barriers 128B-swizzled:
//   sA[kStages][128 rows][128 B] | sB[kStages][kN rows][128 B] | sC[2 consumers][2 boxes][64 rows][128 B]
//   | full[kStages] | empty[kStages]  (mbarriers)
template <int kN>
struct Smem {
  using T = TileN<kN>;
  uint8_t* base;    // the aligned start: sA[0]
  uint8_t* b_base;  // sB[0]
  uint64_t* full;
  uint64_t* empty;
  // Stage s's A tile from row `row` on; its B tile from row `row` on; a consumer's C buffer.
  __device__ uint8_t* sA(int s, int row = 0) const { return base + s * kStageA + row * kRowBytes; }
  __device__ uint8_t* sB(int s, uint32_t row = 0) const { return b_base + s * T::kStageB + row * kRowBytes; }
  __device__ uint8_t* sC(int consumer) const {
    return base + T::kStages * kStageA + T::kStages * T::kStageB + consumer * kStageC;
  }
};

// The CTA's Smem, from the dynamic shared memory the launch sizes as TileN<kN>::kSmemBytes.
template <int kN>
__device__ __forceinline__ Smem<kN> shared_stages() {
  using T = TileN<kN>;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* sB = base + T::kStages * kStageA;
  uint64_t* full = reinterpret_cast<uint64_t*>(sB + T::kStages * T::kStageB + 2 * kStageC);
  return {base, sB, full, full + T::kStages};
}

// Thread 0, before the CTA (cluster) syncs: each stage's "full" barrier completes with the
// producer's one arrival plus TMA's bytes, its "empty" one with `readers` consumer arrivals.
template <int kN>
__device__ __forceinline__ void init_barriers(const Smem<kN>& smem, int readers) {
  for (int s = 0; s < TileN<kN>::kStages; ++s) {
    mbar_init(&smem.full[s], 1);
    mbar_init(&smem.empty[s], readers);
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// ---- one k-tile ---------------------------------------------------------------------------------
// TMA loads k-tile kt of row tile tm and column tile tn into stage it % kStages, counted on its
// full barrier. In a cluster (kCluster = 2) this CTA fetches rows rank · kN/2 … of the B tile and
// multicasts them into the same stage of both CTAs; the peer fetches the other half.
template <InType kIn, int kN, int kCluster = 1>
__device__ __forceinline__ void load_stage(const CUtensorMap* mapA, const CUtensorMap* mapB, const Smem<kN>& smem,
                                           int it, int tm, int tn, int kt, uint32_t rank = 0) {
  using T = TileN<kN>;
  constexpr int kBoxB = kN / kCluster;  // rows of B this CTA fetches per stage
  const int s = it % T::kStages;
  mbar_expect_bytes(&smem.full[s], kStageA + T::kStageB);
  const int col = kt * (kRowBytes / (kIn == InType::fp8_e4m3 ? 1 : 2));
  tma_load(smem.sA(s), mapA, &smem.full[s], col, tm * kBlockM);
  if constexpr (kCluster > 1)
    tma_load_multicast(smem.sB(s, rank * kBoxB), mapB, &smem.full[s], col, tn * kN + rank * kBoxB,
                       uint16_t((1u << kCluster) - 1));
  else
    tma_load(smem.sB(s), mapB, &smem.full[s], col, tn * kN);
}

// One consumer's wgmmas on stage s: its 64 rows of A against the stage's kN rows of B, 128 bytes
// of k in four steps of 32, issued as one group.
template <InType kIn, int kN>
__device__ __forceinline__ void mma_stage(float (&rAcc)[TileN<kN>::kAcc], const Smem<kN>& smem, int s, int consumer) {
  const uint8_t* sA_mine = smem.sA(s, consumer * 64);
  const uint8_t* sB_stage = smem.sB(s);
  wgmma_fence();
#pragma unroll
  for (int step = 0; step < kRowBytes / kStepBytes; ++step)
    wgmma_step<kIn, TileN<kN>::kAcc>(rAcc, smem_desc(sA_mine + step * kStepBytes),
                                     smem_desc(sB_stage + step * kStepBytes));
  wgmma_commit();
}

// A consumer hands stage s back: one arrival per warpgroup on the empty barrier of every CTA whose
// B half it read (its own and, in a cluster, the peer's).
template <int kCluster, int kN>
__device__ __forceinline__ void release_stage(const Smem<kN>& smem, int s) {
  if (threadIdx.x % 128 != 0) return;
  if constexpr (kCluster > 1) {
    for (uint32_t r = 0; r < kCluster; ++r) mbar_arrive_cluster(&smem.empty[s], r);
  } else {
    mbar_arrive(&smem.empty[s]);
  }
}

// ---- the warpgroups' work, warp-specialized (v04 on) --------------------------------------------
// The producer's thread: every k-tile of the work units first, first + stride, … (row tile
// unit · kCluster + rank of each), each into the next stage once its consumers have emptied it.
// `it` counts the k-tiles loaded so far, across tiles: it picks stage and parity.
template <InType kIn, int kN, int kCluster = 1>
__device__ __forceinline__ void produce_tiles(const CUtensorMap* mapA, const CUtensorMap* mapB, const Smem<kN>& smem,
                                              TileGrid grid, int k_tiles, int first, int stride, uint32_t rank = 0) {
  constexpr int kStages = TileN<kN>::kStages;
  int it = 0;
  for (int u = first; u < grid.count(); u += stride) {
    int um, tn;
    grid.at(u, um, tn);
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      mbar_wait(&smem.empty[it % kStages], ((it / kStages) & 1) ^ 1);
      load_stage<kIn, kN, kCluster>(mapA, mapB, smem, it, um * kCluster + rank, tn, kt, rank);
    }
  }
}

// A consumer warpgroup, one tile: rAcc = its 64 rows of the tile, k-tile by k-tile as the stages
// fill (`it` as the producer counts). One wgmma group stays in flight; the one before it has
// finished, so its stage is released.
template <InType kIn, int kN, int kCluster = 1>
__device__ __forceinline__ void consume_tile(float (&rAcc)[TileN<kN>::kAcc], const Smem<kN>& smem, int k_tiles, int& it,
                                             int consumer) {
  constexpr int kStages = TileN<kN>::kStages;
#pragma unroll
  for (int i = 0; i < TileN<kN>::kAcc; ++i) rAcc[i] = 0.f;
  for (int kt = 0; kt < k_tiles; ++kt, ++it) {
    const int s = it % kStages;
    mbar_wait(&smem.full[s], (it / kStages) & 1);
    mma_stage<kIn>(rAcc, smem, s, consumer);
    wgmma_wait<1>();
    if (kt > 0) release_stage<kCluster>(smem, (it - 1) % kStages);
  }
  wgmma_wait<0>();
  release_stage<kCluster>(smem, (it - 1) % kStages);
}

// ---- epilogue: rAcc (the wgmma D fragment) → gC, bf16, alpha applied ----------------------------
// Fragment layout (PTX "wgmma D, m64nNk*"): warp w of the warpgroup owns rows 16w … 16w+15; in
// each 8-column chunk j a lane holds (row l/4, cols 2(l%4)+{0,1}) and the same columns 8 rows down.
template <int kAcc>
__device__ __forceinline__ void store_tile(const float (&rAcc)[kAcc], __nv_bfloat16* gC, int64_t ldc, int64_t m,
                                           int64_t n, int64_t row0, int64_t col0, float alpha) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int64_t r_top = row0 + warp * 16 + lane / 4;
  // bf16x2 stores need 4-byte alignment: every row's start is (c is even) where C's base is and
  // the pitch is even; a C that starts mid-pair (a column slice) is stored element by element.
  const bool pairs = ldc % 2 == 0 && reinterpret_cast<uintptr_t>(gC) % 4 == 0;
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

// The columns of a consumer's rAcc (kAcc / 2 of its 64 rows) staged and stored at once: 128 (two
// 64×64 boxes) of a 256- or 128-wide tile, all 64 of a 64-wide one.
template <int kAcc>
inline constexpr int kPartCols = 2 * kAcc < 128 ? 2 * kAcc : 128;

// Part `part` of a consumer's rAcc (64 rows × kPartCols columns), alpha applied, into sC as bf16:
// 64×64 boxes of 128-byte rows whose 16-byte chunks are XORed with the row (the 128B swizzle).
template <int kAcc>
__device__ __forceinline__ void stage_part(const float (&rAcc)[kAcc], uint8_t* sC, int part, float alpha) {
  constexpr int kChunks = kPartCols<kAcc> / 8;  // 8-column chunks of the fragment in a part
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    const int col = j * 8 + (lane % 4) * 2;  // 0 … kPartCols − 1 within the part
    const int box = col / 64, col_in_box = col % 64;
#pragma unroll
    for (int r8 = 0; r8 < 2; ++r8) {
      const int row = warp * 16 + lane / 4 + r8 * 8;  // 0 … 63
      const int chunk = (col_in_box / 8) ^ (row % 8);
      uint8_t* dst = sC + box * (64 * 128) + row * 128 + chunk * 16 + (col_in_box % 8) * 2;
      const int a = (part * kChunks + j) * 4 + r8 * 2;
      *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(alpha * rAcc[a], alpha * rAcc[a + 1]);
    }
  }
}

template <int kAcc>
__device__ __forceinline__ void store_tile_tma(const float (&rAcc)[kAcc], uint8_t* sC, const CUtensorMap* mapC,
                                               int consumer, int64_t row0, int64_t col0, float alpha) {
  const bool issuer = threadIdx.x % 128 == 0;
  constexpr int kCols = kPartCols<kAcc>;
#pragma unroll
  for (int part = 0; part < 2 * kAcc / kCols; ++part) {  // two parts of 64×256, one of 64×128 or 64×64
    if (issuer) bulk_wait_read();  // the previous stores have finished reading sC
    consumer_sync(consumer);
    stage_part(rAcc, sC, part, alpha);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes → visible to TMA
    consumer_sync(consumer);
    if (issuer) {
#pragma unroll
      for (int box = 0; box < kCols / 64; ++box)
        tma_store(mapC, sC + box * (64 * 128), int(col0 + part * kCols + box * 64), int(row0));
      bulk_commit();
    }
  }
}

// ---- epilogue through shared memory, stored by the warps (C that TMA cannot address) -------------
// A C base or pitch that is not 16-byte aligned, or rows that end mid-chunk, rule TMA out (launch's
// c_by_tma). store_tile's fragment stores then write 4 bytes to each of 8 rows per warp
// instruction: every 32-byte sector of C is written in pieces by several instructions. Staged as
// for TMA, a part of the tile leaves by rows instead: a warp writes 32 consecutive elements of one row per
// instruction (bf16x2 pairs, 64 of them, where the row's start is 4-byte aligned), whole sectors
// but at the row's ends.
template <int kAcc>
__device__ __forceinline__ void store_tile_staged(const float (&rAcc)[kAcc], uint8_t* sC, __nv_bfloat16* gC,
                                                  int64_t ldc, int64_t m, int64_t n, int consumer, int64_t row0,
                                                  int64_t col0, float alpha) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  constexpr int kCols = kPartCols<kAcc>;
#pragma unroll  // rAcc's indices must be constants (else it leaves the registers wgmma writes)
  for (int part = 0; part < 2 * kAcc / kCols; ++part) {
    consumer_sync(consumer);  // the previous part has left sC
    stage_part(rAcc, sC, part, alpha);
    consumer_sync(consumer);
    const int64_t c_part = col0 + part * kCols;
    const int64_t cols = n - c_part < kCols ? n - c_part : kCols;  // ≤ 0: this part lies past C's last column
#pragma unroll 1
    for (int row = warp * 16; row < warp * 16 + 16 && row0 + row < m; ++row) {
      __nv_bfloat16* gRow = gC + (row0 + row) * ldc + c_part;
      const uint8_t* sRow = sC + row * 128;
      // Element c of the part sits in box c / 64, 16-byte chunk (c % 64 / 8) ^ (row % 8).
      auto at = [&](int c) {
        return sRow + (c / 64) * (64 * 128) + ((((c % 64) / 8) ^ (row % 8)) * 16) + (c % 8) * 2;
      };
      if (reinterpret_cast<uintptr_t>(gRow) % 4 == 0) {
#pragma unroll
        for (int i = 0; i < kCols / 64; ++i) {
          const int c = i * 64 + lane * 2;
          if (c + 1 < cols)
            *reinterpret_cast<__nv_bfloat162*>(gRow + c) = *reinterpret_cast<const __nv_bfloat162*>(at(c));
          else if (c < cols)
            gRow[c] = *reinterpret_cast<const __nv_bfloat16*>(at(c));
        }
      } else {
#pragma unroll
        for (int i = 0; i < kCols / 32; ++i) {
          const int c = i * 32 + lane;
          if (c < cols) gRow[c] = *reinterpret_cast<const __nv_bfloat16*>(at(c));
        }
      }
    }
  }
}

// ---- host side ----------------------------------------------------------------------------------
// An operand's 2-D tensor map (kernels/common/hopper/tma.cuh: 128B swizzle, boxes of box_rows ×
// 128 bytes), through the per-thread cache there.
CUtensorMap cached_map(const void* base, InType in, int64_t rows, int64_t cols, int64_t pitch, int box_rows);

// How many CTAs of `kernel` (clusters of `cluster` CTAs, `smem` bytes each) fit on the current GPU
// at once, asked once per kernel, device and shape (its dynamic shared memory opted in first).
// Where no such cluster fits at all (a GPU partitioned below a GPC): sol::Error if `required`,
// else 0.
int resident_ctas(const void* kernel, int threads, int smem, int cluster, bool required = true);

// The launch configuration of `ctas` CTAs of `threads` threads and `smem` dynamic bytes in
// clusters of `cluster` along x (config.attrs points at attr: not copyable).
struct ClusterLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attr{};
  ClusterLaunch(int ctas, int threads, int smem, int cluster, cudaStream_t stream) {
    config.gridDim = dim3(unsigned(ctas));
    config.blockDim = dim3(unsigned(threads));
    config.dynamicSmemBytes = size_t(smem);
    config.stream = stream;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(cluster);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// How a rung's kernel runs: threads per CTA, CTAs per cluster, one CTA per tile or persistent
// (no more CTAs than fit at once), and whether its epilogue stores C through TMA.
struct LaunchShape {
  int threads, cluster;
  bool persistent, tma_store;
};

// Calls f(std::integral_constant<InType, in>{}): a launcher picks its kernel's instantiation.
template <class F>
void with_input(InType in, F&& f) {
  switch (in) {
    case InType::bf16: return f(std::integral_constant<InType, InType::bf16>{});
    case InType::fp16: return f(std::integral_constant<InType, InType::fp16>{});
    case InType::fp8_e4m3: return f(std::integral_constant<InType, InType::fp8_e4m3>{});
  }
}

// Sets up the maps (packing first where needed) and the tile walk, and launches kKernel for p.
// Every rung's kernel takes (mapA, mapB, mapC, c_by_tma, gC, m, n, ldc, k_tiles, grid, alpha);
// mapC and c_by_tma are read from v07 on. kN: the CTA tile's n; B's boxes are kN / cluster rows
// (each CTA of a cluster loads its share of the B tile).
template <auto kKernel, int kN>
void launch(LaunchShape shape, const Problem& p, Workspace& ws, cudaStream_t stream) {
  using T = TileN<kN>;
  // TMA at full speed wants 128-byte lines (kernels/gemm/tc/pack.cuh): anything else is packed.
  const Problem q = pack_operands(p, ws, kRowBytes, stream);
  const CUtensorMap mapA = cached_map(q.A, p.in, p.m, p.k, q.lda, kBlockM);
  const CUtensorMap mapB = cached_map(q.B, p.in, p.n, p.k, q.ldb, kN / shape.cluster);
  const int tiles_m = int((p.m + kBlockM - 1) / kBlockM);
  const TileGrid grid{(tiles_m + shape.cluster - 1) / shape.cluster, int((p.n + kN - 1) / kN)};
  const int k_tiles = int(gemm_rungs::hopper_k_tiles(p.k, in_bytes(p.in)));
  // C through TMA needs what TMA needs (gemm_rungs::c_rows_tma_storable and a 16-byte aligned
  // base); else the warps store C (store_tile_staged in v07 and v08).
  const bool c_by_tma = shape.tma_store && reinterpret_cast<uintptr_t>(p.C) % 16 == 0 &&
                        gemm_rungs::c_rows_tma_storable(p.n, p.ldc);
  const CUtensorMap mapC = c_by_tma ? cached_map(p.C, InType::bf16, p.m, p.n, p.ldc, 64) : CUtensorMap{};
  // The attributes and the occupancy query, once per kernel and device (cached where they live).
  opt_in_dynamic_smem(kKernel, T::kSmemBytes, /*max_carveout=*/false, /*nonportable_cluster=*/shape.cluster > 1);
  const int resident = resident_ctas(reinterpret_cast<const void*>(kKernel), shape.threads, T::kSmemBytes, shape.cluster);
  const int ctas = grid.count() * shape.cluster;
  const ClusterLaunch l(shape.persistent ? std::min(ctas, resident) : ctas, shape.threads, T::kSmemBytes, shape.cluster,
                        stream);
  SOL_CUDA_CHECK(cudaLaunchKernelEx(&l.config, kKernel, mapA, mapB, mapC, c_by_tma, static_cast<__nv_bfloat16*>(p.C), p.m,
                                    p.n, p.ldc, k_tiles, grid, p.alpha));
}

}  // namespace sol::kernels::gemm::tc::hopper

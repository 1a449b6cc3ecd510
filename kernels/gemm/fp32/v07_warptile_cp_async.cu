// v07_warptile_cp_async: the v06 tile (128×128 per block of 256 threads, 8×8 per thread) with
// three changes, after the structure Simon Boehm's SGEMM blog made well known (kernels 10–12,
// github.com/siboehm/SGEMM_CUDA; read for ideas, not copied):
//  1. Warp tiling: warp w owns a 64×32 sub-tile (2 warps along m × 4 along n); its lanes form an
//     8×4 grid and each lane's 8×8 results are 2×2 sub-tiles of 4×4, 32 rows / 16 columns apart.
//     Per k-step a warp's float4 shared reads touch 8 distinct A addresses (128 contiguous bytes)
//     and 4 distinct B addresses (64 bytes): one wavefront each, no bank conflicts (v06's sB reads
//     were 2-way conflicted).
//  2. Double buffering with cp.async: B's 16×128 tile goes global → shared with 16-byte
//     cp.async.cg copies (no registers, bypassing L1) into the buffer not being read, while the
//     block computes on the other; one __syncthreads per k-tile instead of two. A's tile must be
//     transposed (sA[k][m]), which cp.async cannot do: it is prefetched into registers with float4
//     loads during the compute and stored after it.
//  3. Bank-conflict-free transposed stores: column m of sA[k] is stored at m ^ ((k/4)·16), so
//     the 2 threads that share an A row (k groups 0–3 and 4–7) land in different banks (a warp's
//     32 stores cover rows r … r+15 twice: 32 distinct banks); float4 reads stay contiguous
//     because the XOR leaves the low 4 bits of m alone.
// Edges: a 16-byte copy is used only where all 4 floats lie inside and rows are 16-byte aligned
// (n % 4 == 0 for B, k % 4 == 0 for A); elsewhere guarded scalar loads fill zeros, never a
// rejected shape. BK = 8: 16 KiB of shared memory per block; __launch_bounds__(256, 2) → ≤ 128
// registers so that 2 blocks (16 warps) share an SM (ptxas, sm_90a: 128 registers, no spills;
// BK = 16 needed 8 more registers of A prefetch and spilled 44 bytes).
// Expected bottleneck: FP32 issue. 4 LDS.128 per 64 FFMA per thread per k-step; H200's FP32 peak
// is 132 SMs × 128 lanes × 2 × 1.98 GHz ≈ 67 TFLOP/s; cuBLAS reaches ~51 (76 %). Target: ≥ 90 % of
// cuBLAS, ~46+ TFLOP/s at 4096³. Tiled model T = 128: 4.4 GB through L2 at 4096³.
#include <cstdint>

#include "kernels/common/ptx.cuh"
#include "kernels/gemm/fp32/gemm.cuh"

namespace sol::kernels::gemm::fp32 {
namespace {

constexpr int kTileM = 128, kTileN = 128, kTileK = 8, kThreads = 256;
constexpr int kWarpM = 64, kWarpN = 32;                  // warp tile
constexpr int kWarpsN = kTileN / kWarpN;                 // 4 (and 2 along m)
constexpr int kLanesN = 4;                               // lanes: 8 along m × 4 along n
constexpr int kSubM = kWarpM / 2, kSubN = kWarpN / 2;    // 32, 16: a lane's 4×4 sub-tiles this far apart
constexpr int kCopiesA = kTileM * kTileK / 4 / kThreads;  // 2 float4 per thread
constexpr int kCopiesB = kTileK * kTileN / 4 / kThreads;  // 2 float4 per thread
static_assert((kTileM / kWarpM) * kWarpsN * 32 == kThreads, "8 warps");
static_assert(kCopiesA == 1 && kTileK == 8, "the swizzle assumes a warp stores 16 rows × 2 k-groups of A");

// Column of sA[k] where element m of A's tile lives (see 3. above).
__device__ __forceinline__ int swizzle(int k, int m) { return m ^ ((k >> 2) << 4); }


struct Tiles {
  float a[2][kTileK][kTileM];  // transposed and swizzled: a[k][swizzle(k, m)]
  float b[2][kTileK][kTileN];
};

__global__ void __launch_bounds__(kThreads, 2) warptile_kernel(GemmArgs g) {
  __shared__ __align__(16) Tiles s;
  const TileOrigin tile = tile_origin(g, kTileM, kTileN);
  const int row0 = tile.row0, col0 = tile.col0;
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int m0 = (warp / kWarpsN) * kWarpM + (lane / kLanesN) * 4;  // this lane's first row in the tile
  const int n0 = (warp % kWarpsN) * kWarpN + (lane % kLanesN) * 4;  // and first column
  const bool b_vec = (g.n & 3) == 0;

  // B's tile k0 … k0+15 into buffer `buf`: 16-byte cp.async where whole and aligned, else scalar.
  auto copy_b = [&](int k0, int buf) {
#pragma unroll
    for (int j = 0; j < kCopiesB; ++j) {
      const int idx = tid + j * kThreads, r = idx / (kTileN / 4), c = idx % (kTileN / 4) * 4;
      float* dst = &s.b[buf][r][c];
      if (b_vec && k0 + r < g.k && col0 + c + 3 < g.n) cp_async_16(dst, g.b + int64_t(k0 + r) * g.n + col0 + c);
      else *reinterpret_cast<float4*>(dst) = load4(g.b, g.k, g.n, k0 + r, col0 + c);
    }
    cp_async_commit();
  };
  // A's tile: 4 threads per row, float4 along k, into registers.
  float4 rNextA[kCopiesA];
  auto load_a = [&](int k0) {
#pragma unroll
    for (int j = 0; j < kCopiesA; ++j) {
      const int idx = tid + j * kThreads;
      rNextA[j] = load4(g.a, g.m, g.k, row0 + idx / (kTileK / 4), k0 + idx % (kTileK / 4) * 4);
    }
  };
  auto store_a = [&](int buf) {
#pragma unroll
    for (int j = 0; j < kCopiesA; ++j) {
      const int idx = tid + j * kThreads, m = idx / (kTileK / 4), k = idx % (kTileK / 4) * 4;
      s.a[buf][k + 0][swizzle(k + 0, m)] = rNextA[j].x;
      s.a[buf][k + 1][swizzle(k + 1, m)] = rNextA[j].y;
      s.a[buf][k + 2][swizzle(k + 2, m)] = rNextA[j].z;
      s.a[buf][k + 3][swizzle(k + 3, m)] = rNextA[j].w;
    }
  };

  float rAcc[8][8] = {};  // [sub_m·4 + i][sub_n·4 + j]
  const int k_tiles = (g.k + kTileK - 1) / kTileK;
  copy_b(0, 0);
  load_a(0);
  store_a(0);
  cp_async_wait_all();
  __syncthreads();
  for (int t = 0; t < k_tiles; ++t) {
    const int cur = t & 1;
    const bool more = t + 1 < k_tiles;
    if (more) {  // the next tile is in flight while this one is computed
      copy_b((t + 1) * kTileK, cur ^ 1);
      load_a((t + 1) * kTileK);
    }
#pragma unroll
    for (int d = 0; d < kTileK; ++d) {
      float rA[8], rB[8];
      *reinterpret_cast<float4*>(&rA[0]) = *reinterpret_cast<const float4*>(&s.a[cur][d][swizzle(d, m0)]);
      *reinterpret_cast<float4*>(&rA[4]) = *reinterpret_cast<const float4*>(&s.a[cur][d][swizzle(d, m0 + kSubM)]);
      *reinterpret_cast<float4*>(&rB[0]) = *reinterpret_cast<const float4*>(&s.b[cur][d][n0]);
      *reinterpret_cast<float4*>(&rB[4]) = *reinterpret_cast<const float4*>(&s.b[cur][d][n0 + kSubN]);
      outer_product_8x8(rAcc, rA, rB);
    }
    if (more) {
      store_a(cur ^ 1);  // buffer cur ^ 1 was last read before the previous __syncthreads
      cp_async_wait_all();
    }
    __syncthreads();  // buffer cur ^ 1 complete for everyone; everyone done reading buffer cur
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + m0 + (i / 4) * kSubM + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float* r = &rAcc[i][h * 4];
      store_c4(g, row, col0 + n0 + h * kSubN, make_float4(r[0], r[1], r[2], r[3]));
    }
  }
}

}  // namespace

LaunchInfo v07_warptile_cp_async_plan(const GemmArgs& g) {
  return tile_plan(reinterpret_cast<const void*>(warptile_kernel), g, kTileM, kTileN, kThreads);
}

}  // namespace sol::kernels::gemm::fp32

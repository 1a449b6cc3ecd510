// v14_tma_ring — decode GEMM on the tensor cores, W stored n×k, 1 ≤ m ≤ 64: v12's product with
// the memory system kept busy by the Tensor Memory Accelerator instead of by registers.
// At decode shapes the work is streaming W once; what held v12 back (ncu: 20–42 % of DRAM
// throughput, bench/results/h200/ncu/gemm_bf16-v12-decode.txt) was too few bytes in flight: a
// warp's W chunk had to sit in its registers, one CTA an SM, and nothing was in flight while it
// multiplied. Here
//   gW, gA --TMA (128B swizzle)--> sW[stage], sA[stage] --ldmatrix--> mma.sync --> fp32 acc
// one producer warp keeps `stages` chunks of kRingChunk k in flight per CTA (the CTA's W rows and
// its token rows, out-of-bounds rows and k zero-filled by TMA), each stage a "full" mbarrier
// (TMA's bytes arrived) and an "empty" one (the 8 consumer warps are done with it). Registers
// hold only accumulators and one k-step's fragments, so two CTAs fit an SM at m ≤ 16.
// The swapped product Cᵀ = W·Aᵀ as in v10 (N on the MMA's 16-row side), with the fragments in
// the PTX ISA's layout: ldmatrix.x4 of a 16-row W tile is the A operand, of 8 token rows the B
// operand of two k16 steps; the 128B swizzle (16-byte chunk c of row r stored at c ^ (r mod 8))
// makes each 8-row ldmatrix phase conflict-free. k is split over a cluster and summed on chip
// exactly as in v12 (hopper_cluster_sum.cuh).
// TMA needs 16-byte aligned bases and pitches: a call whose A or W is not (odd pitches) runs
// v12 instead, which takes any alignment.
#include <cuda.h>

#include <type_traits>

#include "kernels/common/check.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/hopper/mbarrier.cuh"
#include "kernels/common/hopper/tma.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/gemm/gemv/hopper_cluster_sum.cuh"

namespace sol::kernels::gemm::gemv {
namespace {

namespace hw = ::sol::kernels::hopper;
constexpr int kThreads = kRingWarps * 32;
constexpr int kRowBytes = kRingChunk * 2;  // a stage's row: one 128-byte swizzle row
static_assert(kRowBytes == 128, "the 128B swizzle's row");

// The shared-memory layout of one RingTiling (plan.hpp), in bytes from a 1024-aligned base.
template <int kNT, int kTN, int kStages>
struct Layout {
  static constexpr int kRows = kClusterWarps * 16 * kTN;  // W rows (C columns) of the CTA
  static constexpr int kTokens = 8 * kNT;                 // token rows a stage holds (past m: zeros)
  static constexpr int kStageW = kRows * kRowBytes;       // multiples of 1024: each stage stays
  static constexpr int kStageA = kTokens * kRowBytes;     // aligned to the swizzle's 8-row atom
  static constexpr int kRing = kStages * (kStageW + kStageA);
  static constexpr int kPartBytes = kTokens * part_pitch(kRows) * int(sizeof(float));  // hopper_cluster_sum.cuh
  static_assert(kPartBytes <= kRing, "the partial reuses the ring");
  static constexpr size_t kSmem = 1024 /* alignment */ + kRing + 2 * kStages * sizeof(uint64_t);
};

// Byte offset in a swizzled stage of 16-byte chunk `chunk` of row `row`.
__device__ __forceinline__ uint32_t swizzled(int row, int chunk) { return uint32_t(row * kRowBytes + ((chunk ^ (row & 7)) << 4)); }

template <class T, int kNT, int kTN, int kStages>
__global__ void __launch_bounds__(kThreads, kTN == 1 ? 2 : 1)
    tma_ring_kernel(const __grid_constant__ CUtensorMap mapW, const __grid_constant__ CUtensorMap mapA, Problem p,
                    int64_t k_slice) {
  using L = Layout<kNT, kTN, kStages>;
  constexpr int kRegs = kTN * kNT * 4;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* sW = smem;                           // [kStages][kRows][128 B], swizzled
  uint8_t* sA = smem + kStages * L::kStageW;    // [kStages][kTokens][128 B], swizzled
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + L::kRing);
  uint64_t* empty = full + kStages;
  auto* sPart = reinterpret_cast<float*>(smem);  // the partial (hopper_cluster_sum.cuh), after the k loop
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t n0 = int64_t(blockIdx.x) * L::kRows;
  const int64_t kb = int64_t(blockIdx.y) * k_slice, ke = min(p.k, kb + k_slice);
  const int chunks = int((ke - kb + kRingChunk - 1) / kRingChunk);  // the last may run past k: zeros

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      hw::mbar_init(&full[s], 1);
      hw::mbar_init(&empty[s], kClusterWarps);  // one arrival a consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  float acc[kRegs] = {};  // [W tile i][token tile j][4], the mma C fragment
  if (warp == kClusterWarps) {
    // The producer: chunk c into stage c mod kStages once its previous use is released.
    if (lane == 0) {
      for (int c = 0; c < chunks; ++c) {
        const int s = c % kStages;
        hw::mbar_wait_bounded(&empty[s], ((c / kStages) & 1) ^ 1);
        hw::mbar_expect_bytes(&full[s], L::kStageW + L::kStageA);
        const int col = int(kb + int64_t(c) * kRingChunk);
        hw::tma_load(sW + s * L::kStageW, &mapW, &full[s], col, int(n0));
        hw::tma_load(sA + s * L::kStageA, &mapA, &full[s], col, 0);
      }
    }
  } else {
    // A consumer: W tiles 16·(warp·kTN + i) … of the CTA's rows against every token tile.
    // ldmatrix lane L addresses row L mod 8 of matrix L / 8.
    const int r8 = lane & 7;
    for (int c = 0; c < chunks; ++c) {
      const int s = c % kStages;
      hw::mbar_wait_bounded(&full[s], (c / kStages) & 1);
      const uint32_t sWs = smem_addr(sW + s * L::kStageW), sAs = smem_addr(sA + s * L::kStageA);
#pragma unroll
      for (int u = 0; u < kRingChunk / 32; ++u) {  // 32 k: two k16 steps
        uint32_t b[kNT][4];  // token tile j: b[j][0..1] the first k16 step's B, b[j][2..3] the second's
#pragma unroll
        for (int j = 0; j < kNT; ++j) ldmatrix_x4(b[j], sAs + swizzled(8 * j + r8, 4 * u + lane / 8));
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int i = 0; i < kTN; ++i) {
            uint32_t a[4];  // rows +0/+8 (matrices 0, 1 and 2, 3), k +0/+8 (matrices 0, 2 and 1, 3)
            ldmatrix_x4(a, sWs + swizzled(16 * (warp * kTN + i) + r8 + 8 * ((lane / 8) & 1), 2 * (2 * u + h) + lane / 16));
#pragma unroll
            for (int j = 0; j < kNT; ++j) {
              float(&d)[4] = *reinterpret_cast<float(*)[4]>(&acc[(i * kNT + j) * 4]);
              mma_k32bytes<T>(d, a, b[j][2 * h], b[j][2 * h + 1]);
            }
          }
      }
      __syncwarp();
      if (lane == 0) hw::mbar_arrive(&empty[s]);
    }
  }
  __syncthreads();  // every stage consumed: the ring may hold the partial

  finish_cluster_tile<kTN, kNT, L::kRows, kThreads>(p, acc, warp < kClusterWarps, warp, lane, n0, sPart);
}

template <class T, RingTiling kT>
void launch_tiling(const Problem& p, const Geometry& g, cudaStream_t stream) {
  using L = Layout<kT.token_tiles, kT.w_tiles, kT.stages>;
  static_assert(L::kRows == kT.rows(), "plan.hpp's tiling");
  static_assert(kT.ctas_per_sm() == 1 || 2 * (L::kSmem + 1024) <= 228 * 1024, "two CTAs an SM (H200: 228 KB)");
  auto* kernel = tma_ring_kernel<T, kT.token_tiles, kT.w_tiles, kT.stages>;
  opt_in_dynamic_smem(kernel, int64_t(L::kSmem));  // once per device, before its first launch there
  constexpr CUtensorMapDataType kType =
      std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  // One token row needs no pitch (TMA reads row 0 only): any k then, rounded up to 16 bytes.
  const int64_t lda = p.m == 1 ? (p.k + 7) / 8 * 8 : p.lda;
  const CUtensorMap mapW = hw::cached_map_2d(p.W, kType, 2, p.n, p.k, p.ldw, L::kRows);
  const CUtensorMap mapA = hw::cached_map_2d(p.A, kType, 2, p.m, p.k, lda, L::kTokens);
  launch_on_clusters(kernel, g, L::kSmem, stream, mapW, mapA, p, g.k_slice);
}

template <class T>
void launch_typed(const Problem& p, const Geometry& g, cudaStream_t stream) {
  switch (ring_tiling(p.m).token_tiles) {
    case 1: launch_tiling<T, ring_tiling(8)>(p, g, stream); break;
    case 2: launch_tiling<T, ring_tiling(16)>(p, g, stream); break;
    case 4: launch_tiling<T, ring_tiling(32)>(p, g, stream); break;
    default: launch_tiling<T, ring_tiling(64)>(p, g, stream); break;
  }
}

// What TMA takes: a 16-byte aligned base and a pitch of whole 16-byte units (A's pitch unused at m = 1).
bool tma_ok(const Problem& p) { return vec_ok(p.W, p.ldw) && vec_ok(p.A, p.m == 1 ? 8 : p.lda); }

}  // namespace

void launch_v14_tma_ring(const Problem& p, const Geometry& g, cudaStream_t stream) {
  if (!tma_ok(p)) {
    launch_cluster_split_k(p, geometry(Rung::v12_cluster_split_k, p.m, p.n, p.k), /*prefetch=*/false, stream);
    return;
  }
  if (p.in == DType::f16) launch_typed<__half>(p, g, stream);
  else launch_typed<__nv_bfloat16>(p, g, stream);
}

}  // namespace sol::kernels::gemm::gemv

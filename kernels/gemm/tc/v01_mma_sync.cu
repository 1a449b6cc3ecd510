// v01_mma_sync — the HMMA of lecture §3: one warp-wide mma.sync.m16n8k16 does 16·8·16 = 2048
// multiply-adds (4096 FLOPs), fed by ldmatrix from shared memory. A 128×128 block tile over
// 8 warps (64×32 each), k in steps of 32, one shared buffer: load a tile (global → registers →
// shared), sync, two k16 steps of mma, sync, repeat. Rows are padded to 40 elements (80 bytes)
// so the 8 rows an ldmatrix phase reads fall in 8 different 16-byte bank groups.
// Edges: a 16-byte chunk is one vector load when it lies inside the matrix and its address is
// 16-byte aligned (pitch % 8 == 0); otherwise 8 guarded element loads, zeros outside. So any m,
// n, k and any pitch (1793) are handled, the unaligned ones slowly.
// Expected bottleneck: latency. Nothing overlaps the global loads with the math (one buffer,
// two __syncthreads per 32-wide k step): at 4096³ expect well under half of mma.sync's peak
// (~660 TFLOP/s dense bf16 on H200 through HMMA is optimistic; wgmma is needed for 989).
// measured: pending H200 run
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/check.cuh"
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/gemm/tc/tile.cuh"

namespace sol::kernels::gemm_tc {
namespace {

constexpr int kPitch = kBlockK + 8;  // shared row pitch in elements (80 bytes)

// One 16-byte chunk (8 elements) of row `row`, columns k0 … k0+7, of a rows × k operand with
// the given pitch; zeros outside. `vec`: 16-byte loads allowed (aligned base and pitch).
__device__ __forceinline__ uint4 load_chunk(const uint16_t* g, int64_t row, int64_t rows, int64_t k0, int64_t k,
                                            int64_t pitch, bool vec) {
  if (row < rows && vec && k0 + 8 <= k) return *reinterpret_cast<const uint4*>(g + row * pitch + k0);
  uint16_t e[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) e[i] = (row < rows && k0 + i < k) ? g[row * pitch + k0 + i] : uint16_t(0);
  uint4 v;
  v.x = e[0] | (uint32_t(e[1]) << 16);
  v.y = e[2] | (uint32_t(e[3]) << 16);
  v.z = e[4] | (uint32_t(e[5]) << 16);
  v.w = e[6] | (uint32_t(e[7]) << 16);
  return v;
}

template <class T>
__global__ void __launch_bounds__(kThreads, 2) mma_sync_kernel(Problem p) {
  __shared__ __align__(16) uint16_t sA[kBlockM * kPitch];
  __shared__ __align__(16) uint16_t sB[kBlockN * kPitch];
  const int tid = threadIdx.x, lane = tid % 32;
  const WarpTile w = warp_tile(tid / 32);
  const int64_t m0 = int64_t(blockIdx.y) * kBlockM, n0 = int64_t(blockIdx.x) * kBlockN;
  const auto* gA = static_cast<const uint16_t*>(p.A);
  const auto* gB = static_cast<const uint16_t*>(p.B);
  const bool vecA = p.lda % 8 == 0 && reinterpret_cast<uintptr_t>(p.A) % 16 == 0;
  const bool vecB = p.ldb % 8 == 0 && reinterpret_cast<uintptr_t>(p.B) % 16 == 0;
  const auto chunk_addr = [](uint32_t base, int row, int chunk) { return base + uint32_t(row * kPitch * 2 + chunk * 16); };

  float acc[kFragM][kFragN][4] = {};
  for (int64_t k0 = 0; k0 < p.k; k0 += kBlockK) {
    // 128 rows × 4 chunks per operand = 512 chunks: 2 per thread for A, 2 for B.
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int q = tid + j * kThreads, row = q / kChunks, c = q % kChunks;
      *reinterpret_cast<uint4*>(&sA[row * kPitch + c * 8]) = load_chunk(gA, m0 + row, p.m, k0 + c * 8, p.k, p.lda, vecA);
      *reinterpret_cast<uint4*>(&sB[row * kPitch + c * 8]) = load_chunk(gB, n0 + row, p.n, k0 + c * 8, p.k, p.ldb, vecB);
    }
    __syncthreads();
#pragma unroll
    for (int step = 0; step < kBlockK / 16; ++step) warp_k16<T>(acc, smem_addr(sA), smem_addr(sB), step, w, lane, chunk_addr);
    __syncthreads();  // the next tile overwrites the buffer
  }
  store_pairs(p, acc, m0, n0, w, lane);
}

}  // namespace

void launch_v01_mma_sync(const Problem& p, Workspace&, cudaStream_t stream) {
  const dim3 grid(unsigned((p.n + kBlockN - 1) / kBlockN), unsigned((p.m + kBlockM - 1) / kBlockM));
  if (p.in == InType::fp16)
    mma_sync_kernel<__half><<<grid, kThreads, 0, stream>>>(p);
  else
    mma_sync_kernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(p);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::gemm_tc

// v01_mma_sync — the HMMA of lecture §3: one warp-wide mma.sync.m16n8k16 does 16·8·16 = 2048
// multiply-adds (4096 FLOPs), fed by ldmatrix from shared memory. A 128×128 block tile over
// 8 warps (64×32 each), k in steps of 64 bytes (32 bf16/fp16, 64 e4m3 through m16n8k32), one
// shared buffer: load a tile (global → registers → shared), sync, two mma k steps, sync, repeat.
// Rows are padded to 80 bytes so the 8 rows an ldmatrix phase reads fall in 8 different 16-byte
// bank groups.
// Edges: a 16-byte chunk is one vector load when it lies inside the matrix and its address is
// 16-byte aligned (pitch a multiple of 16 bytes); otherwise guarded element loads, zeros outside.
// So any m, n, k and any pitch (1793) are handled, the unaligned ones slowly.
// Expected bottleneck: latency. Nothing overlaps the global loads with the math (one buffer,
// two __syncthreads per 64-byte k step, 2 blocks per SM at 128 registers): at 4096³ expect well
// under half of what mma.sync can issue on Hopper (itself short of the 989 TFLOP/s dense bf16
// that needs wgmma). A thread's four chunks of a k step are all loaded into registers before
// any is stored to shared memory, so a k step waits on one round trip to L2 or HBM. Loaded and
// stored one chunk at a time (each chunk's choice between one vector load and guarded element
// loads kept them apart in the SASS), the four round trips ran in series: 1.57–1.80× slower on
// an H100 at 1024³–8192³ (bench/results/h100/tuning/v01-load-hoist/: before and after; the
// change is v01-hoist.patch there), and that is the v01 of bench/results/h200's GEMM records.
// Loads first, v01 runs within 14–15 % of the model's one-latency k step at 4096³ and 8192³.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/common/check.cuh"
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/gemm/tc/tile.cuh"

namespace sol::kernels::gemm::tc {
namespace {

constexpr int kPitchBytes = kRowBytes + 16;  // shared row pitch: 80 bytes

// One 16-byte chunk of row `row`, elements k0 … k0+15/sizeof(E)−1, of a rows × k operand of
// storage type E with the given pitch; zeros outside. `vec`: 16-byte loads allowed.
template <class E>
__device__ __forceinline__ uint4 load_chunk(const E* g, int64_t row, int64_t rows, int64_t k0, int64_t k, int64_t pitch,
                                            bool vec) {
  constexpr int kElems = 16 / int(sizeof(E));
  if (row < rows && vec && k0 + kElems <= k) return *reinterpret_cast<const uint4*>(g + row * pitch + k0);
  union {
    uint4 v;
    E e[kElems];
  } u;
#pragma unroll
  for (int i = 0; i < kElems; ++i) u.e[i] = (row < rows && k0 + i < k) ? g[row * pitch + k0 + i] : E(0);
  return u.v;
}

template <class T>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>) mma_sync_kernel(Problem p) {
  using E = Bits<T>;
  constexpr int kElems = kChunkElems<T>;
  __shared__ __align__(16) unsigned char sA[kBlockM * kPitchBytes];
  __shared__ __align__(16) unsigned char sB[kBlockN * kPitchBytes];
  const int tid = threadIdx.x, lane = tid % 32;
  const WarpTile w = warp_tile(tid / 32);
  const int64_t m0 = int64_t(blockIdx.y) * kBlockM, n0 = int64_t(blockIdx.x) * kBlockN;
  const auto* gA = static_cast<const E*>(p.A);
  const auto* gB = static_cast<const E*>(p.B);
  const bool vecA = p.lda % kElems == 0 && reinterpret_cast<uintptr_t>(p.A) % 16 == 0;
  const bool vecB = p.ldb % kElems == 0 && reinterpret_cast<uintptr_t>(p.B) % 16 == 0;
  const auto chunk_addr = [](uint32_t base, int row, int chunk) { return base + uint32_t(row * kPitchBytes + chunk * 16); };

  float acc[kFragM][kFragN][4] = {};
  for (int64_t k0 = 0; k0 < p.k; k0 += kBlockK<T>) {
    // 128 rows × 4 chunks per operand = 512 chunks: 2 per thread for A, 2 for B.
    // All four chunks in registers first, then to shared memory: one round trip per k step.
    uint4 rA[2], rB[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int q = tid + j * kThreads, row = q / kChunks, c = q % kChunks;
      const int64_t kc = k0 + c * kElems;
      rA[j] = load_chunk(gA, m0 + row, p.m, kc, p.k, p.lda, vecA);
      rB[j] = load_chunk(gB, n0 + row, p.n, kc, p.k, p.ldb, vecB);
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int q = tid + j * kThreads, row = q / kChunks, c = q % kChunks;
      *reinterpret_cast<uint4*>(&sA[row * kPitchBytes + c * 16]) = rA[j];
      *reinterpret_cast<uint4*>(&sB[row * kPitchBytes + c * 16]) = rB[j];
    }
    __syncthreads();
#pragma unroll
    for (int step = 0; step < kSteps; ++step) warp_kstep<T>(acc, smem_addr(sA), smem_addr(sB), step, w, lane, chunk_addr);
    __syncthreads();  // the next tile overwrites the buffer
  }
  store_pairs(p, acc, m0, n0, w, lane);
}

}  // namespace

void launch_v01_mma_sync(const Problem& p, Workspace&, cudaStream_t stream) {
  const dim3 grid(unsigned((p.n + kBlockN - 1) / kBlockN), unsigned((p.m + kBlockM - 1) / kBlockM));
  switch (p.in) {
    case InType::bf16: mma_sync_kernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(p); break;
    case InType::fp16: mma_sync_kernel<__half><<<grid, kThreads, 0, stream>>>(p); break;
    case InType::fp8_e4m3: mma_sync_kernel<__nv_fp8_e4m3><<<grid, kThreads, 0, stream>>>(p); break;
  }
  SOL_LAUNCH_CHECK();
}

LaunchInfo plan_v01_mma_sync(const Problem& p) {
  LaunchInfo k;
  switch (p.in) {
    case InType::bf16: k.func = reinterpret_cast<const void*>(mma_sync_kernel<__nv_bfloat16>); break;
    case InType::fp16: k.func = reinterpret_cast<const void*>(mma_sync_kernel<__half>); break;
    case InType::fp8_e4m3: k.func = reinterpret_cast<const void*>(mma_sync_kernel<__nv_fp8_e4m3>); break;
  }
  k.block_threads = kThreads;
  k.grid_blocks = ((p.n + kBlockN - 1) / kBlockN) * ((p.m + kBlockM - 1) / kBlockM);
  return k;
}

}  // namespace sol::kernels::gemm::tc

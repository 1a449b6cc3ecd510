// v02_multistage — v01's warp tiling behind a 4-stage cp.async pipeline (lecture §3/§9: keep
// the tensor cores fed while the next tiles are in flight). Each stage holds a 128-row × 64-byte
// tile of A and of B (16 KiB; 32 bf16/fp16 or 64 e4m3 of k); loads for tile t+3 are issued while tile t is multiplied, and cp.async
// writes shared memory without passing through registers. Out-of-bounds rows and the k tail are
// zero-filled by cp.async's src-size operand, so edges cost no separate path.
// Shared rows are 64 bytes (4 chunks of 16 B) with chunk c of row r stored at c ^ ((r/2) % 4):
// the 8 rows an ldmatrix phase reads then cover all 8 16-byte bank groups (unswizzled, rows r
// and r+2 would collide: 4-way conflicts).
// cp.async needs 16-byte aligned sources: an operand whose pitch is not a multiple of 16 bytes
// (1793) is first packed into an aligned copy in the Workspace (kernels/gemm/tc/pack.cuh: one
// read + one write of the operand, 26 MB at 1793³).
// Epilogue: the 128×128 tile goes through shared memory so each row leaves as 16-byte stores
// (when ldc % 8 == 0), else guarded element stores.
// Expected bottleneck: mma.sync issue rate. Hopper runs HMMA at a fraction of wgmma's rate, so
// even fully fed this rung should plateau near 50–70 % of cuBLAS at 4096³.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "kernels/common/check.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/gemm/tc/pack.cuh"
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/gemm/tc/tile.cuh"

namespace sol::kernels::gemm::tc {
namespace {

constexpr int kStages = gemm_rungs::kMmaSyncStaged.stages;
static_assert(gemm_rungs::kMmaSyncStaged.k_bytes == kRowBytes && gemm_rungs::kMmaSyncStaged.m == kBlockM,
              "v02 stages v01's tile");
constexpr int kTileBytes = kBlockM * kRowBytes;         // one operand's stage: 8 KiB
constexpr int kStageBytes = 2 * kTileBytes;             // A then B
constexpr int kCPitch = kBlockN + 8;                    // epilogue row pitch (elements): 272 B
constexpr int kSmemBytes = kStages * kStageBytes;       // 64 KiB ≥ the epilogue's 128 × 272 B
static_assert(kBlockM * kCPitch * 2 <= kSmemBytes, "the epilogue tile reuses the pipeline's shared memory");
static_assert(kBlockM == kBlockN, "one chunk loop serves A and B");

__device__ __forceinline__ uint32_t swizzled(uint32_t base, int row, int chunk) {
  return base + uint32_t(row * kRowBytes + ((chunk ^ ((row >> 1) & 3)) << 4));
}

// Issues the cp.asyncs of k tile `kt` into stage `stage`: 2 chunks of A and 2 of B per thread.
template <class T>
__device__ __forceinline__ void load_stage(const Problem& p, uint32_t sStage, int64_t m0, int64_t n0, int64_t kt,
                                           int tid) {
  using E = Bits<T>;
  constexpr int kElems = kChunkElems<T>;
  const auto* gA = static_cast<const E*>(p.A);
  const auto* gB = static_cast<const E*>(p.B);
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int q = tid + j * kThreads, row = q / kChunks, c = q % kChunks;
    const int64_t k0 = kt * kBlockK<T> + c * kElems;
    const int kbytes = k0 < p.k ? int(min(int64_t(kElems), p.k - k0)) * int(sizeof(E)) : 0;
    const int64_t ra = m0 + row, rb = n0 + row;
    const bool inA = ra < p.m && kbytes > 0, inB = rb < p.n && kbytes > 0;
    cp_async_16(swizzled(sStage, row, c), inA ? gA + ra * p.lda + k0 : gA, inA ? kbytes : 0);
    cp_async_16(swizzled(sStage + kTileBytes, row, c), inB ? gB + rb * p.ldb + k0 : gB, inB ? kbytes : 0);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>) multistage_kernel(Problem p) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid % 32;
  const WarpTile w = warp_tile(tid / 32);
  const int64_t m0 = int64_t(blockIdx.y) * kBlockM, n0 = int64_t(blockIdx.x) * kBlockN;
  const uint32_t sBase = smem_addr(smem);
  const int64_t tiles = (p.k + kBlockK<T> - 1) / kBlockK<T>;

  // Prologue: tiles 0 … kStages−2 in flight; one commit group per tile (empty past the end) so
  // that "tile t has landed" is always "at most kStages−2 groups pending".
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) load_stage<T>(p, sBase + s * kStageBytes, m0, n0, s, tid);
    cp_async_commit();
  }
  float acc[kFragM][kFragN][4] = {};
  for (int64_t t = 0; t < tiles; ++t) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // tile t visible to all; every warp is done with tile t−1's stage
    const int64_t next = t + kStages - 1;
    if (next < tiles) load_stage<T>(p, sBase + int(next % kStages) * kStageBytes, m0, n0, next, tid);
    cp_async_commit();
    const uint32_t sA = sBase + int(t % kStages) * kStageBytes;
#pragma unroll
    for (int step = 0; step < kSteps; ++step) warp_kstep<T>(acc, sA, sA + kTileBytes, step, w, lane, swizzled);
  }
  cp_async_wait<0>();
  __syncthreads();  // the pipeline's shared memory becomes the epilogue tile

  auto* sC = reinterpret_cast<uint32_t*>(smem);  // bf16 pairs, row pitch kCPitch / 2 words
  for_each_pair(acc, p.alpha, w, lane,
                [&](int r, int c, float v0, float v1) { sC[(r * kCPitch + c) / 2] = pack2<__nv_bfloat16>(v0, v1); });
  __syncthreads();
  auto* gC = static_cast<uint16_t*>(p.C);
  const auto* sC16 = reinterpret_cast<const uint16_t*>(smem);
  const bool vecC = p.ldc % 8 == 0 && reinterpret_cast<uintptr_t>(p.C) % 16 == 0;
  constexpr int kRowChunks = kBlockN / 8;  // 16 chunks of 8 bf16 per tile row
#pragma unroll 4
  for (int q = tid; q < kBlockM * kRowChunks; q += kThreads) {
    const int r = q / kRowChunks, c = (q % kRowChunks) * 8;
    const int64_t gr = m0 + r, gc = n0 + c;
    if (gr >= p.m || gc >= p.n) continue;
    uint16_t* dst = gC + gr * p.ldc + gc;
    if (vecC && gc + 8 <= p.n) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(sC16 + r * kCPitch + c);
    } else {
      for (int e = 0; e < 8 && gc + e < p.n; ++e) dst[e] = sC16[r * kCPitch + c + e];
    }
  }
}

// 64 KiB of dynamic shared memory is over the default 48 KiB: opt in (once per device).
template <class T>
const void* configured_kernel() {
  opt_in_dynamic_smem(multistage_kernel<T>, kSmemBytes);
  return reinterpret_cast<const void*>(multistage_kernel<T>);
}

// Packs the operands whose pitch cp.async cannot read into the Workspace, then runs the kernel.
template <class T>
void run(Problem p, Workspace& ws, cudaStream_t stream) {
  p = pack_operands(p, ws, 16, stream);  // cp.async reads 16-byte aligned chunks
  (void)configured_kernel<T>();
  const dim3 grid(unsigned((p.n + kBlockN - 1) / kBlockN), unsigned((p.m + kBlockM - 1) / kBlockM));
  multistage_kernel<T><<<grid, kThreads, kSmemBytes, stream>>>(p);
  SOL_LAUNCH_CHECK();
}

}  // namespace

void launch_v02_multistage(const Problem& p, Workspace& ws, cudaStream_t stream) {
  switch (p.in) {
    case InType::bf16: return run<__nv_bfloat16>(p, ws, stream);
    case InType::fp16: return run<__half>(p, ws, stream);
    case InType::fp8_e4m3: return run<__nv_fp8_e4m3>(p, ws, stream);
  }
}

LaunchInfo plan_v02_multistage(const Problem& p) {
  LaunchInfo k;
  switch (p.in) {
    case InType::bf16: k.func = configured_kernel<__nv_bfloat16>(); break;
    case InType::fp16: k.func = configured_kernel<__half>(); break;
    case InType::fp8_e4m3: k.func = configured_kernel<__nv_fp8_e4m3>(); break;
  }
  k.block_threads = kThreads;
  k.grid_blocks = ((p.n + kBlockN - 1) / kBlockN) * ((p.m + kBlockM - 1) / kBlockM);
  k.dynamic_smem_bytes = kSmemBytes;
  return k;
}

}  // namespace sol::kernels::gemm::tc

// tune_mma_sync_rates: the FLOP rate of mma.sync on this GPU by shape and type, each warp issuing
// into independent accumulators whose operands change every step (XORed with the step: fragments
// fresh from ldmatrix would not be loop-invariant either). Per type: m16n8k16 (f16, bf16), m16n8k8
// (f16, bf16, tf32: the shape of CUTLASS's s1688 kernels, which cuBLAS runs for unaligned rows),
// e4m3 m16n8k32, and the warp tile of kernels/gemm/tc (v01, v02): 4 A by 4 B fragments, 16 MMAs a
// k step, in f16 and in e4m3. On sm_90 the e4m3 mma.sync is emulated: two fp16 HMMAs, their sums
// added by FADDs, the fragments converted by F2FP (per 4 × 4 tile step 48 F2FP, 32 HMMA, 64 FADD,
// as in v02's SASS); "e4m3 m16n8k32" alone shares one A and one B among its 8 accumulators, so the
// compiler emulates it once and adds 8 times: that row is no GEMM's rate, the 4 × 4 tile's is.
// Timed with events, median of 7, at 2, 4 and 8 warps per scheduler. Its H100 run:
// bench/results/h100/tuning/mma-sync-rates/mma-sync-rates.txt (sol/predict.hpp reads the e4m3 tile's
// share of the f16 tile's rate from it).
//     cmake --build build --target tune_mma_sync_rates && build/tune_mma_sync_rates
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t e, int line) {
  if (e == cudaSuccess) return;
  std::printf("tune_mma_sync_rates: CUDA %s at line %d\n", cudaGetErrorString(e), line);
  std::exit(1);
}
#define CK(x) check((x), __LINE__)

constexpr int kQ = 8;  // independent accumulators per warp

#define ACC(q) "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
#define BODY(INSTR, A_OPS, B_OPS)                                                                                \
  uint32_t a0 = threadIdx.x * 0x01000193u, a1 = a0 * 3, a2 = a0 * 5, a3 = a0 * 7, b0 = a0 * 11, b1 = a0 * 13;     \
  float d[kQ][4] = {};                                                                                           \
  for (int i = 0; i < iters; ++i) {                                                                              \
    const uint32_t m = uint32_t(i) * 0x00010001u & 0x3c3c3c3cu;                                                  \
    a0 ^= m; a1 ^= m; a2 ^= m; a3 ^= m; b0 ^= m; b1 ^= m;                                                        \
    _Pragma("unroll") for (int q = 0; q < kQ; ++q) asm volatile(INSTR : ACC(q) : A_OPS, B_OPS);                 \
  }                                                                                                              \
  float s = 0;                                                                                                   \
  for (int q = 0; q < kQ; ++q)                                                                                   \
    for (int j = 0; j < 4; ++j) s += d[q][j];                                                                    \
  if (s == 1.2345f) sink[0] = s;
#define A4 "r"(a0), "r"(a1), "r"(a2), "r"(a3)
#define A2 "r"(a0), "r"(a1)
#define B2 "r"(b0), "r"(b1)
#define B1 "r"(b0)
__global__ void f16_16816(int iters, float* sink) { BODY("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", A4, B2) }
__global__ void bf16_16816(int iters, float* sink) { BODY("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", A4, B2) }
__global__ void bf16_1688(int iters, float* sink) { BODY("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};", A2, B1) }
__global__ void f16_1688(int iters, float* sink) { BODY("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};", A2, B1) }
__global__ void tf32_1688(int iters, float* sink) { BODY("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", A4, B2) }
__global__ void e4m3_16832(int iters, float* sink) { BODY("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", A4, B2) }

// The warp tile of kernels/gemm/tc: 4 A fragments × 4 B fragments = 16 MMAs a k step.
#define TILE44(INSTR, AW, BW)                                                                                    \
  uint32_t ra[4][4], rb[4][2];                                                                                   \
  for (int x = 0; x < 4; ++x) {                                                                                  \
    for (int y = 0; y < 4; ++y) ra[x][y] = (threadIdx.x + 17 * x + 5 * y) * 0x01000193u;                         \
    for (int y = 0; y < 2; ++y) rb[x][y] = (threadIdx.x + 29 * x + 3 * y) * 0x01000193u;                         \
  }                                                                                                              \
  float d[16][4] = {};                                                                                           \
  for (int i = 0; i < iters; ++i) {                                                                              \
    const uint32_t m = uint32_t(i) * 0x00010001u & 0x3c3c3c3cu;                                                  \
    _Pragma("unroll") for (int x = 0; x < 4; ++x) {                                                              \
      _Pragma("unroll") for (int y = 0; y < AW; ++y) ra[x][y] ^= m;                                              \
      _Pragma("unroll") for (int y = 0; y < BW; ++y) rb[x][y] ^= m;                                              \
    }                                                                                                            \
    _Pragma("unroll") for (int mi = 0; mi < 4; ++mi) _Pragma("unroll") for (int ni = 0; ni < 4; ++ni)            \
      asm volatile(INSTR : "+f"(d[mi * 4 + ni][0]), "+f"(d[mi * 4 + ni][1]), "+f"(d[mi * 4 + ni][2]),            \
                   "+f"(d[mi * 4 + ni][3])                                                                       \
                   : "r"(ra[mi][0]), "r"(ra[mi][1]), "r"(ra[mi][2]), "r"(ra[mi][3]), "r"(rb[ni][0]), "r"(rb[ni][1])); \
  }                                                                                                              \
  float s = 0;                                                                                                   \
  for (int q = 0; q < 16; ++q)                                                                                   \
    for (int j = 0; j < 4; ++j) s += d[q][j];                                                                    \
  if (s == 1.2345f) sink[0] = s;
__global__ void f16_tile(int iters, float* sink) { TILE44("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", 4, 2) }
__global__ void e4m3_tile(int iters, float* sink) { TILE44("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", 4, 2) }

using Kernel = void (*)(int, float*);
struct Case {
  const char* name;
  Kernel kernel;
  double flops;  // per warp per accumulator step (kQ of them; the tiles count 16 as 2 × kQ)
};

}  // namespace

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  float* sink;
  CK(cudaMalloc(&sink, 64));
  const Case cases[] = {{"f16 m16n8k16", f16_16816, 16 * 8 * 16 * 2.0},   {"bf16 m16n8k16", bf16_16816, 16 * 8 * 16 * 2.0},
                        {"bf16 m16n8k8", bf16_1688, 16 * 8 * 8 * 2.0},     {"f16 m16n8k8", f16_1688, 16 * 8 * 8 * 2.0},
                        {"tf32 m16n8k8", tf32_1688, 16 * 8 * 8 * 2.0},     {"e4m3 m16n8k32", e4m3_16832, 16 * 8 * 32 * 2.0},
                        {"f16 tile 4x4", f16_tile, 16 * 8 * 16 * 2.0 * 2}, {"e4m3 tile 4x4", e4m3_tile, 16 * 8 * 32 * 2.0 * 2}};
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int wps : {2, 4, 8}) {  // warps per scheduler (SMSP)
    const int blocks = p.multiProcessorCount * wps / 2, threads = 256, iters = 4096;
    for (const Case& t : cases) {
      t.kernel<<<blocks, threads>>>(64, sink);
      CK(cudaDeviceSynchronize());
      std::vector<float> v;
      for (int r = 0; r < 7; ++r) {
        CK(cudaEventRecord(a));
        t.kernel<<<blocks, threads>>>(iters, sink);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        v.push_back(ms);
      }
      std::sort(v.begin(), v.end());
      const double fl = double(blocks) * threads / 32 * iters * kQ * t.flops;
      std::printf("warps/SMSP %d  %-14s %8.1f us  %7.1f TFLOP/s\n", wps, t.name, 1000 * v[3], fl / v[3] / 1e9);
    }
  }
  return 0;
}

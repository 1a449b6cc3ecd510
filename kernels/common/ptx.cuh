#pragma once
// The warp-level PTX the cp.async and tensor-core kernels share (sm_80+; e4m3 mma.sync sm_89+):
//   cp.async.cg   16 bytes global → shared without registers, zero-filled past src_bytes
//   cp.async.ca   4 bytes, the same through L1 (element-wise copies: transposes, unaligned rows)
//   ldmatrix.x4   four 8×8 b16 matrices from shared memory, one 16-byte row address per lane
//   mma.sync      m16n8k16 bf16 / fp16, or m16n8k32 e4m3: one warp-wide MMA over 32 bytes of k
// Fragment layouts (PTX ISA, "mma.m16n8k16"): lane = 4·g + t (g = lane/4, t = lane%4);
//   A (16×16, row): a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B (16×8, col):  b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
//   C (16×8):       c0,c1 (g, 2t..2t+1), c2,c3 (g+8, 2t..2t+1)
// For e4m3 (m16n8k32) the same registers hold 4 elements each: in bytes the fragments are
// identical, so one ldmatrix addressing serves all three types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

namespace sol::kernels {

__device__ __forceinline__ uint32_t smem_addr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// 16 bytes global → shared, bypassing L1 (.cg); bytes past src_bytes (0 … 16) are written as
// zeros, so out-of-bounds rows and the k tail need no separate path. src must be 16-byte
// aligned and valid even when src_bytes is 0 (nothing is read then).
__device__ __forceinline__ void cp_async_16(uint32_t sDst, const void* gSrc, int src_bytes = 16) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sDst), "l"(gSrc), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_16(void* sDst, const void* gSrc, int src_bytes = 16) {
  cp_async_16(smem_addr(sDst), gSrc, src_bytes);
}
// 4 bytes global → shared through L1 (.ca: the only form below 16 bytes), zero-filled when
// src_bytes is 0: for copies that scatter as they land (a transpose) or whose source is only
// 4-byte aligned. src must be 4-byte aligned and valid even when src_bytes is 0.
__device__ __forceinline__ void cp_async_4(void* sDst, const void* gSrc, int src_bytes = 4) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(sDst)), "l"(gSrc), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most N committed groups are still in flight. A copy issued since the last
// cp_async_commit belongs to no group and is not waited on: commit before waiting for it.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { cp_async_wait<0>(); }  // every committed group

// Lane L gives the address of row L%8 of matrix L/8; r[j] receives matrix j (.trans: transposed).
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t sAddr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sAddr));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* sP) { ldmatrix_x4(r, smem_addr(sP)); }
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* sP) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(sP)));
}

// The transpose of ldmatrix_x4_trans: lane L gives the address of stored row L%8 of matrix L/8,
// r[j] holds matrix j in the mma fragment layout (lane l: row l/4, columns 2(l%4), +1), and
// stored row c is fragment column c: 8 elements, one per fragment row, 16 contiguous bytes.
__device__ __forceinline__ void stmatrix_x4_trans(void* sP, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_addr(sP)),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// 2^x on the MUFU alone (exp2f adds a range test and two multiplies for results below 2^−126):
// ≤ 2 ulp, results below 2^−126 flush to 0, 2^−∞ = 0.
__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// tanh(x) on the MUFU alone (tanh.approx.f32, sm_75+; relative error about 2^−11): the softcap's
// cap·tanh(s / cap), which FlashAttention-3 computes the same way.
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// d += a·b over one 32-byte k slice: m16n8k16 for T = __nv_bfloat16 / __half, m16n8k32 for
// T = __nv_fp8_e4m3.
template <class T>
__device__ __forceinline__ void mma_k32bytes(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    __trap();  // e4m3 mma.sync is sm_89+: the e4m3 rungs' min_cc keeps them off older GPUs
#else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
  } else if constexpr (std::is_same_v<T, __half>) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    static_assert(std::is_same_v<T, __nv_bfloat16>, "bf16, fp16 or e4m3");
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Two floats → one register of two T (bf16 or fp16), the lower column in the low half.
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  } else {
    static_assert(std::is_same_v<T, __half>, "bf16 or fp16");
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

}  // namespace sol::kernels

#pragma once
// Warp-level tensor-core building blocks shared by the attention kernels (sm_80+), on top of the
// PTX wrappers in kernels/common/ptx.cuh (cp.async, ldmatrix, mma.sync): an XOR-swizzled
// [rows × kD] shared-memory tile layout, tile loads, and the fragment moves of S and P.
// Fragment ownership (PTX m16n8k16): lane = 4·g + t. A (16×16, row-major): a[0] = (row g,
// cols 2t..2t+1), a[1] = row g + 8, a[2] = row g at cols + 8, a[3] = row g + 8 at cols + 8.
// B (16×8, k-major per column n): b0 = (k 2t..2t+1, n g), b1 = k + 8. C (16×8): c[0..1] =
// (row g, cols 2t, 2t+1), c[2..3] = row g + 8.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/ptx.cuh"

namespace sol::kernels::attention {

// Element offset of 16-byte chunk `chunk` of row `row` in a [rows × kD] tile. The chunk index
// is XORed with row % 8 so that the 8 row addresses of one ldmatrix land in 8 different bank
// groups (unswizzled, a 128- or 256-byte row pitch puts them all in the same 4 banks).
template <int kD>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * kD + ((chunk ^ (row & 7)) << 3);
}

// Two 8-wide n blocks from one ldmatrix.x4 B load: c0 += a·(b[0], b[1]), c1 += a·(b[2], b[3]).
template <class T>
__device__ __forceinline__ void mma_pair(float (&c0)[4], float (&c1)[4], const uint32_t (&a)[4], const uint32_t (&b)[4]) {
  mma_k32bytes<T>(c0, a, b[0], b[1]);
  mma_k32bytes<T>(c1, a, b[2], b[3]);
}

// Rows [0, valid) of a [kRows × kD] tile from global (row pitch ld elements) into swizzled
// shared memory; rows ≥ valid become zeros (a zero V row times a zero P is 0, never NaN).
template <int kRows, int kD, int kThreads, class T>
__device__ __forceinline__ void load_tile(T* sTile, const T* gTile, int64_t ld, int64_t valid) {
  constexpr int kChunks = kD / 8;
  for (int idx = threadIdx.x; idx < kRows * kChunks; idx += kThreads) {
    const int row = idx / kChunks, chunk = idx % kChunks;
    const bool inside = row < valid;
    const T* src = inside ? gTile + row * ld + chunk * 8 : gTile;
    cp_async_16(sTile + swizzled<kD>(row, chunk), src, inside ? 16 : 0);
  }
}

// Operand loads from a swizzled [rows × kD] tile, one ldmatrix.x4 each (lane = threadIdx.x % 32).
// A (16×16) at rows row0…row0+15, k columns 16·kk…16·kk+15 of a row-major tile.
template <int kD, class T>
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const T* sTile, int row0, int kk, int lane) {
  const int mat = lane / 8;
  ldmatrix_x4(a, sTile + swizzled<kD>(row0 + (mat & 1) * 8 + lane % 8, 2 * kk + (mat >> 1)));
}
// B for two 8-wide n blocks (b[0..1]: n0…n0+7, b[2..3]: n0+8…n0+15) from a tile stored [n][k]
// (K for Q·Kᵀ): k columns 16·kk…16·kk+15.
template <int kD, class T>
__device__ __forceinline__ void load_b_nk(uint32_t (&b)[4], const T* sTile, int n0, int kk, int lane) {
  const int mat = lane / 8;
  ldmatrix_x4(b, sTile + swizzled<kD>(n0 + (mat >> 1) * 8 + lane % 8, 2 * kk + (mat & 1)));
}
// B for two 8-wide n blocks (columns 16·np…16·np+15) from a tile stored [k][n] (V for P·V):
// k rows k0…k0+15, transposed on the way by ldmatrix.trans.
template <int kD, class T>
__device__ __forceinline__ void load_b_kn(uint32_t (&b)[4], const T* sTile, int k0, int np, int lane) {
  const int mat = lane / 8;
  ldmatrix_x4_trans(b, sTile + swizzled<kD>(k0 + (mat & 1) * 8 + lane % 8, 2 * np + (mat >> 1)));
}
// Max and sum over the 4 lanes of a quad (lane / 4 equal): the lanes that share an accumulator
// row, in mma.sync's C fragment and, per warp, in wgmma's D fragment.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// The register trick: accumulators of n blocks 2·kk and 2·kk+1 (16 columns) are, packed to 16
// bits, exactly the A fragment whose k columns are those 16.
template <class T, int kBlocks>
__device__ __forceinline__ void pack_a(uint32_t (&a)[4], const float (&acc)[kBlocks][4], int kk) {
  a[0] = pack2<T>(acc[2 * kk][0], acc[2 * kk][1]);
  a[1] = pack2<T>(acc[2 * kk][2], acc[2 * kk][3]);
  a[2] = pack2<T>(acc[2 * kk + 1][0], acc[2 * kk + 1][1]);
  a[3] = pack2<T>(acc[2 * kk + 1][2], acc[2 * kk + 1][3]);
}

}  // namespace sol::kernels::attention

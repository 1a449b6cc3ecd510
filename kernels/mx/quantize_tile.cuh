#pragma once
// The MXFP8 quantizer that v02 (rowwise), v03 (columnwise) and v04 (both) share. A block of 128
// threads owns a tile of 32 rows × 512 columns; each thread holds 4 consecutive columns of all
// 32 rows in registers: one 8-byte load per row (a warp reads 256 contiguous bytes, whole
// sectors), all in flight before any arithmetic. Columnwise, a thread owns four whole 32×1
// blocks; rowwise, 8 neighbouring lanes share each 1×32 block and combine their maxima with
// three xor-shuffles. So one read of X serves both. (8 columns and 16-byte loads per thread
// need ~240 registers for the same tile: half the warps per SM to hide the load phase.)
// amax: bf16x2 max of |x| (NaN-propagating; |x| orders like its bits). Scale: the shared
// formats::mx_scale_bf16 (equal to mx_scale on every bf16 amax, branch-free). Elements: x · 2^−k in fp32 — exact, k is a power of two and the
// product stays within range — then one saturating round-to-nearest-even cvt per pair, which is
// the host's encode(x, Saturate, −k) by IEEE's definition of both; a NaN scale writes the
// element NaN. Rows and columns outside X load as zeros (no effect on an amax) and are not
// stored. kAligned (cols % 4 == 0, pointers aligned): vector loads and stores; otherwise the
// same arithmetic with per-element guarded loads and stores, for any shape.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "kernels/common/check.cuh"
#include "kernels/mx/mx.cuh"

namespace sol::kernels::mx {

inline constexpr int kTileThreads = 128;
inline constexpr int kColsPerThread = 4;                          // one 8-byte load per row
inline constexpr int kWords = kColsPerThread / 2;                 // bf16x2 words per row
inline constexpr int kTileRows = formats::kMxBlock;              // one columnwise block tall
inline constexpr int kTileCols = kTileThreads * kColsPerThread;  // 512
inline constexpr int kLanesPerRowBlock = formats::kMxBlock / kColsPerThread;  // 8
// 4 blocks of 128 threads per SM: at most 128 registers a thread (64 hold the tile), 16 warps
// to interleave load and compute phases; 128 KiB of loads in flight per SM, several times what
// Little's law asks for at H200's bandwidth.
inline constexpr int kTileBlocksPerSm = 4;
static_assert(kWords == 2, "the loads, stores and packing below are written for 4 columns");
static_assert(formats::kMxBlock % kColsPerThread == 0, "a rowwise block is whole lanes");
static_assert(32 % kLanesPerRowBlock == 0 && kTileThreads % 32 == 0, "a rowwise block stays inside one warp");
static_assert(kTileRows % 2 == 0, "rows are reduced in pairs");

template <Elem E>
__device__ inline formats::Minifloat elem_format() {
  return E == Elem::e4m3 ? formats::fmt_e4m3() : formats::fmt_e5m2();
}

// The element NaN code (0x7F for both fp8 formats) in all four bytes.
template <Elem E>
__device__ inline uint32_t nan_codes4() {
  return elem_format<E>().nan_code * 0x01010101u;
}

__device__ inline float inverse_scale(uint8_t s) { return __uint_as_float(formats::inverse_scale_bits(s)); }

__device__ inline uint32_t abs2(uint32_t w) { return w & 0x7FFF7FFFu; }

__device__ inline uint32_t max2(uint32_t a, uint32_t b) {
  const __nv_bfloat162 m = __hmax2_nan(*reinterpret_cast<const __nv_bfloat162*>(&a), *reinterpret_cast<const __nv_bfloat162*>(&b));
  return *reinterpret_cast<const uint32_t*>(&m);
}

// Four bf16 (one row's two words) × their inverse scales → four codes, element 0 in the low byte.
template <Elem E>
__device__ inline uint32_t quantize4(uint32_t w0, uint32_t w1, float i0, float i1, float i2, float i3) {
  constexpr __nv_fp8_interpretation_t kKind = E == Elem::e4m3 ? __NV_E4M3 : __NV_E5M2;
  const uint32_t p0 = __nv_cvt_float2_to_fp8x2(
      make_float2(__uint_as_float(w0 << 16) * i0, __uint_as_float(w0 & 0xFFFF0000u) * i1), __NV_SATFINITE, kKind);
  const uint32_t p1 = __nv_cvt_float2_to_fp8x2(
      make_float2(__uint_as_float(w1 << 16) * i2, __uint_as_float(w1 & 0xFFFF0000u) * i3), __NV_SATFINITE, kKind);
  return p0 | (p1 << 16);
}

// Four columns (c0…c0+3) of one row at p = &X[row][c0]; `avail` = columns of the row from c0 on
// (≥ 1); columns beyond it load as zeros (no effect on an amax). The caller walks p down the
// rows by `cols`: no 64-bit multiply per row. [gBegin, gEnd) is X, for the unaligned path.
template <bool kAligned>
__device__ inline void load4(const uint16_t* p, int64_t avail, const uint16_t* gBegin, const uint16_t* gEnd,
                             uint32_t (&rRow)[kWords]) {
  if constexpr (kAligned) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    rRow[0] = v.x, rRow[1] = v.y;
  } else {
    // Odd widths put a row's start anywhere in an 8-byte word: load the aligned 8 bytes that
    // hold column c0 and, unless c0 starts them, the next 8, then shift the 4 columns out (two
    // 8-byte loads, neighbouring lanes share the second one in L1, instead of four 2-byte loads).
    // Per element only where that window would leave X (its first and last few bytes).
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    const uintptr_t base = at & ~uintptr_t(7);
    const uint32_t shift = uint32_t(at - base) * 8;  // 0, 16, 32 or 48 bits
    const uintptr_t need = shift ? 16 : 8;
    if (base >= reinterpret_cast<uintptr_t>(gBegin) && base + need <= reinterpret_cast<uintptr_t>(gEnd)) {
      const uint2* window = reinterpret_cast<const uint2*>(p - (at - base) / 2);  // from p: stays a global load
      const uint2 lo = window[0];
      const uint2 hi = shift ? window[1] : make_uint2(0, 0);
      const bool upper = shift >= 32;  // start in lo's second word
      const uint32_t x0 = upper ? lo.y : lo.x, x1 = upper ? hi.x : lo.y, x2 = upper ? hi.y : hi.x;
      rRow[0] = __funnelshift_r(x0, x1, shift % 32);
      rRow[1] = __funnelshift_r(x1, x2, shift % 32);
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j)
        if (j >= avail) rRow[j / 2] &= ~(0xFFFFu << (16 * (j % 2)));
    } else {
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j)
        if (j < avail) rRow[j / 2] |= uint32_t(p[j]) << (16 * (j % 2));
    }
  }
}

// Four bytes (c0 in the low byte) at p = &Out[row][c0]; bytes beyond `avail` columns dropped.
template <bool kAligned>
__device__ inline void store4(uint8_t* p, int64_t avail, uint32_t bytes) {
  if constexpr (kAligned) {
    *reinterpret_cast<uint32_t*>(p) = bytes;
  } else {
    // Odd widths: the widest naturally aligned stores that cover exactly this thread's bytes
    // (4; 2 + 2; or 1 + 2 + 1), never a neighbour's.
    const uint32_t offset = uint32_t(reinterpret_cast<uintptr_t>(p) % 4);
    if (avail >= kColsPerThread && offset == 0) {
      *reinterpret_cast<uint32_t*>(p) = bytes;
    } else if (avail >= kColsPerThread && offset == 2) {
      reinterpret_cast<uint16_t*>(p)[0] = uint16_t(bytes);
      reinterpret_cast<uint16_t*>(p)[1] = uint16_t(bytes >> 16);
    } else if (avail >= kColsPerThread) {
      p[0] = uint8_t(bytes);
      *reinterpret_cast<uint16_t*>(p + 1) = uint16_t(bytes >> 8);
      p[3] = uint8_t(bytes >> 24);
    } else {
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j)
        if (j < avail) p[j] = uint8_t(bytes >> (8 * j));
    }
  }
}

// Rows a thread holds at once: the whole tile in every orientation. A 32×1 block needs all 32;
// rowwise alone fits them too (117 registers) since the scale lost its branches, and then has
// v03's 256 B of loads in flight per thread instead of two dependent passes of 128 B.
template <bool kCol>
inline constexpr int kRowsHeld = kTileRows;

// Per row and thread, the work is a few dozen instructions for 4 elements, so the instruction
// count decides whether the kernel reaches the memory roof: the scale is the branch-free
// formats::mx_scale_bf16 (mx_scale's branches and clz cost ~30 instructions, paid once per row
// by all 8 lanes of a rowwise block), and addresses advance by one 64-bit add per row.
template <Elem E, bool kRow, bool kCol, bool kAligned>
__global__ void __launch_bounds__(kTileThreads, kTileBlocksPerSm)
    quantize_tile_kernel(const uint16_t* __restrict__ gX, int64_t rows, int64_t cols, int64_t tiles_across,
                         formats::ScaleRule rule, Out row, Out col) {
  constexpr int kHeld = kRowsHeld<kCol>;
  static_assert(kTileRows % kHeld == 0 && kHeld % 2 == 0, "whole passes of row pairs");
  const formats::Minifloat fmt = elem_format<E>();
  const int64_t tile_r0 = int64_t(blockIdx.x) / tiles_across * kTileRows;
  const int64_t c0 = int64_t(blockIdx.x) % tiles_across * kTileCols + int64_t(threadIdx.x) * kColsPerThread;
  const int64_t avail = cols - c0;  // this thread's columns inside X: ≥ 4 but at the right edge
  const bool in_cols = avail > 0;
  const uint16_t* gX_end = gX + rows * cols;
  const int64_t row_scale_cols = (cols + formats::kMxBlock - 1) / formats::kMxBlock;
  const bool leader = threadIdx.x % kLanesPerRowBlock == 0;

#pragma unroll 1
  for (int64_t r0 = tile_r0; r0 < tile_r0 + kTileRows && r0 < rows; r0 += kHeld) {
    const int live = int(rows - r0 < kHeld ? rows - r0 : kHeld);  // rows of this pass inside X
    uint32_t rX[kHeld][kWords];
    const uint16_t* gXr = gX + r0 * cols + c0;
#pragma unroll
    for (int r = 0; r < kHeld; ++r, gXr += cols) {
      rX[r][0] = rX[r][1] = 0;
      if (in_cols && r < live) load4<kAligned>(gXr, avail, gX, gX_end, rX[r]);
    }

    // Maxima first, while all held rows are live; then one pass over the rows that quantizes
    // and stores each row in both orientations, so that registers free up row by row.
    uint32_t rColMax[kWords] = {0, 0};
    if constexpr (kCol) {
#pragma unroll
      for (int r = 0; r < kHeld; ++r)
#pragma unroll
        for (int w = 0; w < kWords; ++w) rColMax[w] = max2(rColMax[w], abs2(rX[r][w]));
    }
    // Rowwise: each row's words to one pair of candidates, two rows packed into one word, then
    // the 8 lanes of the block: rRowMax[i] = {lo: amax of row 2i, hi: amax of row 2i + 1}.
    uint32_t rRowMax[kHeld / 2];
    if constexpr (kRow) {
#pragma unroll
      for (int i = 0; i < kHeld / 2; ++i) {
        const uint32_t(&a)[kWords] = rX[2 * i];
        const uint32_t(&b)[kWords] = rX[2 * i + 1];
        const uint32_t ma = max2(abs2(a[0]), abs2(a[1])), mb = max2(abs2(b[0]), abs2(b[1]));
        uint32_t m = max2(__byte_perm(ma, mb, 0x5410), __byte_perm(ma, mb, 0x7632));
#pragma unroll
        for (int lane_bit = 1; lane_bit < kLanesPerRowBlock; lane_bit *= 2)
          m = max2(m, __shfl_xor_sync(0xFFFFFFFFu, m, lane_bit));
        rRowMax[i] = m;
      }
    }

    float rColInv[kColsPerThread];
    uint32_t col_nan = 0;  // 0xFF in the bytes of NaN columns
    if constexpr (kCol) {
      uint32_t scales = 0;
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j) {
        const uint32_t amax = j % 2 ? rColMax[j / 2] >> 16 : rColMax[j / 2] & 0xFFFFu;
        const uint8_t s = formats::mx_scale_bf16(amax, fmt, rule);
        rColInv[j] = inverse_scale(s);
        scales |= uint32_t(s) << (8 * j);
        if (s == formats::kE8m0Nan) col_nan |= 0xFFu << (8 * j);
      }
      if (in_cols) store4<kAligned>(col.scales + r0 / kTileRows * cols + c0, avail, scales);
    }

    uint8_t* gColCodes = kCol ? col.codes + r0 * cols + c0 : nullptr;
    uint8_t* gRowCodes = kRow ? row.codes + r0 * cols + c0 : nullptr;
    uint8_t* gRowScales = kRow ? row.scales + r0 * row_scale_cols + c0 / formats::kMxBlock : nullptr;
#pragma unroll
    for (int r = 0; r < kHeld; ++r) {
      if (r >= live) break;
      if constexpr (kCol) {
        const uint32_t q = quantize4<E>(rX[r][0], rX[r][1], rColInv[0], rColInv[1], rColInv[2], rColInv[3]);
        if (in_cols) store4<kAligned>(gColCodes, avail, (q & ~col_nan) | (nan_codes4<E>() & col_nan));
        gColCodes += cols;
      }
      if constexpr (kRow) {
        const uint32_t m = rRowMax[r / 2];
        const uint8_t s = formats::mx_scale_bf16(r % 2 ? m >> 16 : m & 0xFFFFu, fmt, rule);
        const float inv = inverse_scale(s);
        const uint32_t q = quantize4<E>(rX[r][0], rX[r][1], inv, inv, inv, inv);
        if (in_cols) {
          store4<kAligned>(gRowCodes, avail, s == formats::kE8m0Nan ? nan_codes4<E>() : q);
          if (leader) *gRowScales = s;
        }
        gRowCodes += cols;
        gRowScales += row_scale_cols;
      }
    }
  }
}

// Vector paths need whole 8-element groups per row and aligned pointers.
inline bool tile_aligned(const void* gX, int64_t cols, Out row, Out col) {
  auto at = [](const void* p, uintptr_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; };
  return cols % kColsPerThread == 0 && at(gX, 8) && at(row.codes, 4) && at(col.codes, 4) && at(col.scales, 4);
}

template <Elem E, bool kRow, bool kCol, bool kAligned>
const void* tile_kernel_ptr() {
  return reinterpret_cast<const void*>(&quantize_tile_kernel<E, kRow, kCol, kAligned>);
}

template <bool kRow, bool kCol>
LaunchInfo plan_tile(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row, Out col) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  LaunchInfo p;
  if (rows == 0 || cols == 0) return p;
  const int64_t tiles_across = (cols - 1) / kTileCols + 1;
  p.grid_blocks = blocks_for(((rows - 1) / kTileRows + 1) * tiles_across, 1);
  p.block_threads = kTileThreads;
  const bool aligned = tile_aligned(gX, cols, row, col);
  if (spec.elem == Elem::e4m3)
    p.func = aligned ? tile_kernel_ptr<Elem::e4m3, kRow, kCol, true>() : tile_kernel_ptr<Elem::e4m3, kRow, kCol, false>();
  else
    p.func = aligned ? tile_kernel_ptr<Elem::e5m2, kRow, kCol, true>() : tile_kernel_ptr<Elem::e5m2, kRow, kCol, false>();
  return p;
}

template <bool kRow, bool kCol>
void launch_tile(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row, Out col, cudaStream_t stream) {
  if ((kRow && (!row.codes || !row.scales)) || (kCol && (!col.codes || !col.scales)))
    bad_input("an MX output pointer is null", "pass codes and scales for every orientation written");
  const LaunchInfo p = plan_tile<kRow, kCol>(gX, rows, cols, spec, row, col);
  if (p.grid_blocks == 0) return;
  const int64_t tiles_across = (cols - 1) / kTileCols + 1;
  const uint16_t* x = reinterpret_cast<const uint16_t*>(gX);
  const bool aligned = tile_aligned(gX, cols, row, col);
  const dim3 grid(unsigned(p.grid_blocks)), block(p.block_threads);
  if (spec.elem == Elem::e4m3 && aligned)
    quantize_tile_kernel<Elem::e4m3, kRow, kCol, true><<<grid, block, 0, stream>>>(x, rows, cols, tiles_across, spec.rule, row, col);
  else if (spec.elem == Elem::e4m3)
    quantize_tile_kernel<Elem::e4m3, kRow, kCol, false><<<grid, block, 0, stream>>>(x, rows, cols, tiles_across, spec.rule, row, col);
  else if (aligned)
    quantize_tile_kernel<Elem::e5m2, kRow, kCol, true><<<grid, block, 0, stream>>>(x, rows, cols, tiles_across, spec.rule, row, col);
  else
    quantize_tile_kernel<Elem::e5m2, kRow, kCol, false><<<grid, block, 0, stream>>>(x, rows, cols, tiles_across, spec.rule, row, col);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::mx

// mx v05 — dequantize MXFP8 to bf16: code × 2^(scale − 127), rounded to nearest even (exact
// unless the product is a bf16 subnormal or beyond bf16's range). Rowwise or columnwise scales.
// Fast path (cols % 16 == 0, aligned pointers): a thread turns one 16-byte vector of codes into
// two 16-byte vectors of bf16 with the hardware's exact fp8x2 → f16x2 convert, an fp32
// multiply by the power of two (exact), and cvt.rn.bf16x2.f32. A vector holding a NaN code or
// a NaN scale (found with a few SWAR instructions) or a scale small enough for subnormal
// results, and every element of an unaligned tensor, go through the shared scalar code instead
// (formats::mx_value, then formats::encode to bf16), which writes the host's canonical NaN.
// Expected bottleneck: HBM, 1 B + 1/32 B read and 2 B written per element (3.03 B).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "kernels/common/check.cuh"
#include "kernels/mx/mx.cuh"

namespace sol::kernels::mx {
namespace {

constexpr int kThreads = 256;
constexpr int kCodesPerVec = 16;
constexpr int64_t kMaxScalarBlocks = 65536;
static_assert(formats::kMxBlock % kCodesPerVec == 0, "a vector lies in one rowwise block");

template <Elem E>
__device__ inline formats::Minifloat elem_format() {
  return E == Elem::e4m3 ? formats::fmt_e4m3() : formats::fmt_e5m2();
}

// The shared scalar path: one element, exactly as the host computes it.
template <Elem E>
__device__ inline uint16_t dequantize_one(uint8_t code, uint8_t scale) {
  const formats::Minifloat fmt = elem_format<E>();
  return uint16_t(formats::encode(formats::mx_value(code, scale, fmt), formats::fmt_bf16(), formats::Overflow::Plain));
}

// Nonzero iff a byte of w is a NaN code: e4m3 S.1111.111 (low 7 bits 0x7F), e5m2 S.11111.{01,10,11}
// (low 7 bits ≥ 0x7D). Adding 0x80 − first NaN to the low 7 bits carries into bit 7 exactly then.
template <Elem E>
__device__ inline uint32_t has_nan_code(uint32_t w) {
  constexpr uint32_t kToTop = (E == Elem::e4m3 ? 0x01u : 0x03u) * 0x01010101u;
  return ((w & 0x7F7F7F7Fu) + kToTop) & 0x80808080u;
}
// Nonzero iff a byte of w is 0xFF (the e8m0 NaN).
__device__ inline uint32_t has_ff(uint32_t w) { return ((w & 0x7F7F7F7Fu) + 0x01010101u) & w & 0x80808080u; }

// Below this scale a product can be an fp32/bf16 subnormal (smallest code 2^−9 for e4m3, 2^−16
// for e5m2, times 2^(scale − 127) < 2^−126): those vectors take the shared code too, so no
// hardware convert ever sees a subnormal.
template <Elem E>
inline constexpr uint8_t kFirstFastScale = E == Elem::e4m3 ? 10 : 17;

template <Elem E>
__device__ inline uint32_t dequantize2(uint16_t codes2, float m0, float m1) {
  const __half2 h = __half2(__nv_cvt_fp8x2_to_halfraw2(codes2, E == Elem::e4m3 ? __NV_E4M3 : __NV_E5M2));
  float2 f = __half22float2(h);
  f.x *= m0;
  f.y *= m1;
  const __nv_bfloat162 b = __float22bfloat162_rn(f);
  return *reinterpret_cast<const uint32_t*>(&b);
}

template <Elem E, bool kColwise>
__global__ void __launch_bounds__(kThreads)
    dequantize_vec_kernel(const uint8_t* __restrict__ gCodes, const uint8_t* __restrict__ gScales, int64_t rows,
                          int64_t cols, uint16_t* __restrict__ gOut) {
  const int64_t v = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= rows * cols / kCodesPerVec) return;
  const int64_t e0 = v * kCodesPerVec, r = e0 / cols, c = e0 % cols;
  const uint4 codes = *reinterpret_cast<const uint4*>(gCodes + e0);
  uint8_t rScale[kCodesPerVec];
  uint32_t special = has_nan_code<E>(codes.x) | has_nan_code<E>(codes.y) | has_nan_code<E>(codes.z) | has_nan_code<E>(codes.w);
  if constexpr (kColwise) {
    const uint4 s = *reinterpret_cast<const uint4*>(gScales + r / formats::kMxBlock * cols + c);
    memcpy(rScale, &s, sizeof s);
    special |= has_ff(s.x) | has_ff(s.y) | has_ff(s.z) | has_ff(s.w);
#pragma unroll
    for (int j = 0; j < kCodesPerVec; ++j) special |= rScale[j] < kFirstFastScale<E>;
  } else {
    const uint8_t s = gScales[r * ((cols + formats::kMxBlock - 1) / formats::kMxBlock) + c / formats::kMxBlock];
#pragma unroll
    for (int j = 0; j < kCodesPerVec; ++j) rScale[j] = s;
    special |= s == formats::kE8m0Nan || s < kFirstFastScale<E>;
  }
  uint8_t rCode[kCodesPerVec];
  memcpy(rCode, &codes, sizeof codes);
  uint32_t rOut[kCodesPerVec / 2];
  if (special) {
#pragma unroll
    for (int j = 0; j < kCodesPerVec; j += 2)
      rOut[j / 2] = dequantize_one<E>(rCode[j], rScale[j]) | uint32_t(dequantize_one<E>(rCode[j + 1], rScale[j + 1])) << 16;
  } else {
#pragma unroll
    for (int j = 0; j < kCodesPerVec; j += 2)
      rOut[j / 2] = dequantize2<E>(uint16_t(rCode[j] | rCode[j + 1] << 8), __uint_as_float(formats::scale_bits(rScale[j])),
                                   __uint_as_float(formats::scale_bits(rScale[j + 1])));
  }
  uint4* gOut16 = reinterpret_cast<uint4*>(gOut + e0);
  gOut16[0] = make_uint4(rOut[0], rOut[1], rOut[2], rOut[3]);
  gOut16[1] = make_uint4(rOut[4], rOut[5], rOut[6], rOut[7]);
}

// Any shape and alignment: one element per thread along a grid-stride loop, shared code only.
template <Elem E, bool kColwise>
__global__ void __launch_bounds__(kThreads)
    dequantize_scalar_kernel(const uint8_t* __restrict__ gCodes, const uint8_t* __restrict__ gScales, int64_t rows,
                             int64_t cols, uint16_t* __restrict__ gOut) {
  const int64_t n = rows * cols, stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t scale_cols = (cols + formats::kMxBlock - 1) / formats::kMxBlock;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t r = i / cols, c = i % cols;
    const int64_t s = kColwise ? r / formats::kMxBlock * cols + c : r * scale_cols + c / formats::kMxBlock;
    gOut[i] = dequantize_one<E>(gCodes[i], gScales[s]);
  }
}

bool vec_aligned(const uint8_t* codes, const uint8_t* scales, const void* out, int64_t cols, formats::MxAxis axis) {
  auto at16 = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return cols % kCodesPerVec == 0 && at16(codes) && at16(out) && (axis == formats::MxAxis::Rowwise || at16(scales));
}

template <bool kVec, Elem E, bool kColwise>
const void* kernel_ptr() {
  return kVec ? reinterpret_cast<const void*>(&dequantize_vec_kernel<E, kColwise>)
              : reinterpret_cast<const void*>(&dequantize_scalar_kernel<E, kColwise>);
}

template <bool kVec>
const void* pick(Elem e, formats::MxAxis axis) {
  const bool col = axis == formats::MxAxis::Colwise;
  if (e == Elem::e4m3) return col ? kernel_ptr<kVec, Elem::e4m3, true>() : kernel_ptr<kVec, Elem::e4m3, false>();
  return col ? kernel_ptr<kVec, Elem::e5m2, true>() : kernel_ptr<kVec, Elem::e5m2, false>();
}

LaunchInfo plan(const uint8_t* gCodes, const uint8_t* gScales, const void* gOut, int64_t rows, int64_t cols, Elem elem,
                formats::MxAxis axis) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  LaunchInfo p;
  if (rows == 0 || cols == 0) return p;
  p.block_threads = kThreads;
  if (vec_aligned(gCodes, gScales, gOut, cols, axis)) {
    p.grid_blocks = blocks_for(rows * cols / kCodesPerVec, kThreads);
    p.func = pick<true>(elem, axis);
  } else {
    p.grid_blocks = std::min(blocks_for(rows * cols, kThreads), kMaxScalarBlocks);
    p.func = pick<false>(elem, axis);
  }
  return p;
}

}  // namespace

LaunchInfo v05_dequantize_plan(const uint8_t* gCodes, const uint8_t* gScales, const __nv_bfloat16* gOut, int64_t rows,
                               int64_t cols, Elem elem, formats::MxAxis axis) {
  return plan(gCodes, gScales, gOut, rows, cols, elem, axis);
}

void v05_dequantize(const uint8_t* gCodes, const uint8_t* gScales, int64_t rows, int64_t cols, Elem elem,
                    formats::MxAxis axis, __nv_bfloat16* gOut, cudaStream_t stream) {
  const LaunchInfo p = plan(gCodes, gScales, gOut, rows, cols, elem, axis);
  if (p.grid_blocks == 0) return;
  // The plan picked the kernel; launch it through its pointer with the common argument list.
  uint16_t* out = reinterpret_cast<uint16_t*>(gOut);
  void* args[] = {&gCodes, &gScales, &rows, &cols, &out};
  SOL_CUDA_CHECK(cudaLaunchKernel(p.func, dim3(unsigned(p.grid_blocks)), dim3(p.block_threads), args, 0, stream));
}

}  // namespace sol::kernels::mx

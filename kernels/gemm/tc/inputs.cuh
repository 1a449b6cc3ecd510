#pragma once
// The GEMM Case's random operands, element i = a pure function of (seed, i), the same on host
// and device (kernels/common/random.cuh): never zero, magnitudes in [0.25, 4) so that k-long
// sums neither overflow nor cancel to nothing, bit patterns built from integers only.
//   bf16  random_bf16_bits (Dist::Signed)
//   fp16  sign | exponent 13…16 (2^-2 … 2^1) | 10 random mantissa bits
//   e4m3  sign | exponent 5…8 (2^-2 … 2^1) | 3 random mantissa bits; with the per-tensor scales
//         below every product is exact in fp32 and no partial sum comes near fp32's range
#include <cstdint>

#include "kernels/common/random.cuh"
#include "kernels/gemm/tc/problem.cuh"

namespace sol::kernels::gemm::tc {

// Per-tensor scales of the fp8 family (powers of two: alpha = their product is exact).
inline constexpr float kScaleA = 0.5f, kScaleB = 0.25f;

__host__ __device__ inline uint16_t operand_bits(InType t, uint64_t seed, uint64_t i) {
  if (t == InType::bf16) return random_bf16_bits(seed, i, Dist::Signed);
  const uint64_t h = hash64(seed, i);
  const uint32_t sign = uint32_t(h >> 63), exp = uint32_t(h >> 32) % 4u;
  if (t == InType::fp16) return uint16_t((sign << 15) | ((13u + exp) << 10) | (uint32_t(h) & 0x3FFu));
  return uint16_t((sign << 7) | ((5u + exp) << 3) | (uint32_t(h) & 7u));
}

// Host: the stored value of operand_bits (exact; only the normal numbers drawn above occur).
inline double operand_value(InType t, uint64_t seed, uint64_t i) {
  const uint32_t b = operand_bits(t, seed, i);
  switch (t) {
    case InType::bf16: return decode_bf16(uint16_t(b));
    case InType::fp16:  // a normal fp16 is the float of the same sign, mantissa and unbiased exponent
      return decode_f32(((b & 0x8000u) << 16) | ((((b >> 10) & 0x1Fu) + (127u - 15u)) << 23) | ((b & 0x3FFu) << 13));
    case InType::fp8_e4m3: return decode_e4m3(uint8_t(b));
  }
  return 0;
}

}  // namespace sol::kernels::gemm::tc

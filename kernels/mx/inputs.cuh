#pragma once
// Inputs of the mx Cases: element i of a set is a pure function of (seed, i) built from integer
// bits, so the device fills the buffers and the host recomputes the very same values for its
// reference (nothing is copied back but the outputs). __host__ __device__ functors.
#include <cstdint>

#include "kernels/common/random.cuh"
#include "sol/formats/scalar.hpp"

namespace sol::kernels::mx {

// bf16 bits to quantize: random sign and mantissa; exponent 127 ± 6 around a regional offset
// drawn per run of 61 elements (runs straddle block edges, so blocks see different and mixed
// magnitudes). special = false: offsets within ±8 (data as a layer would hold it). special =
// true: offsets within ±125, which reach the clamped scale 2^−127 and fp32's top, and 1 in 1024
// elements is a special value — NaN, ±infinity, ±0, a bf16 subnormal or bf16's largest value.
struct QuantInput {
  uint64_t seed = 0;
  bool special = false;
  SOL_HD uint16_t operator()(int64_t i) const {
    const uint64_t h = hash64(seed, uint64_t(i));
    const uint64_t region = hash64(seed ^ 0xB10Cull, uint64_t(i) / 61);
    const uint16_t sign = uint16_t((h >> 63) << 15);
    if (special) {
      switch (h & 0x3FF) {
        case 0: return uint16_t(sign | 0x7FC1u);                     // NaN
        case 1: return uint16_t(sign | 0x7F80u);                     // infinity
        case 2: return sign;                                         // ±0
        case 3: return uint16_t(sign | (((h >> 10) & 0x7Fu) | 1u));  // subnormal
        case 4: return uint16_t(sign | 0x7F7Fu);                     // largest finite
        default: break;
      }
    }
    const int spread = special ? 125 : 8;
    int e = 127 + int((h >> 12) % 13) - 6 + int(region % uint64_t(2 * spread + 1)) - spread;
    e = e < 1 ? 1 : e > 254 ? 254 : e;
    return uint16_t(sign | uint16_t(e << 7) | uint16_t((h >> 20) & 0x7Fu));
  }
};

// GEMM operands: ±[0.125, 2) with random mantissas (bf16 bits), sums of products without
// the one huge term that would hide every other error.
struct GemmInput {
  uint64_t seed = 0;
  SOL_HD uint16_t operator()(int64_t i) const {
    const uint64_t h = hash64(seed, uint64_t(i));
    return uint16_t(((h >> 63) << 15) | ((124u + uint32_t(h >> 32) % 4u) << 7) | uint32_t((h >> 8) & 0x7Fu));
  }
};

// MXFP8 codes to dequantize: any byte; without `special` NaN codes (and e5m2's infinities)
// become finite ones.
struct CodeInput {
  uint64_t seed = 0;
  bool e5m2 = false, special = false;
  SOL_HD uint8_t operator()(int64_t i) const {
    const uint8_t b = uint8_t(hash64(seed, uint64_t(i)));
    const uint8_t first_special = e5m2 ? 0x7C : 0x7F;
    if (!special && (b & 0x7F) >= first_special) return uint8_t(b & 0xBF);  // clears the top exponent bit
    return b;
  }
};

// e8m0 scales: 2^±20 around 1, or with `special` any byte (2^−127 … 2^127 and NaN).
struct ScaleInput {
  uint64_t seed = 0;
  bool special = false;
  SOL_HD uint8_t operator()(int64_t i) const {
    const uint64_t h = hash64(seed ^ 0x5CA1Eull, uint64_t(i));
    return special ? uint8_t(h) : uint8_t(127 + int(h % 41) - 20);
  }
};

}  // namespace sol::kernels::mx

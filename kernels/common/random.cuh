#pragma once
// Fresh random inputs, never zero, from a counter-based hash: element i of a set is a pure
// function of (seed, i). The device fills buffers with it and the host recomputes the same
// bits for the CPU reference, so no input is copied back. Values are built from integer bits
// (no float arithmetic), hence bit-identical on host and device.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace sol::kernels {

// What the values look like; every distribution excludes zero, NaN and infinities.
enum class Dist {
  Signed,    // ±[0.25, 4): random sign, exponent and mantissa (ReLU sees both sides)
  Positive,  // [0.5, 2): sums of many terms without cancellation
  SmallInt,  // integers 1 … 4096: sums and FMA chains stay exact in fp32 below 2^24
};

// splitmix64: a bijective mixer; (seed, i) → 64 well-spread bits.
__host__ __device__ inline uint64_t hash64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Seed of input set `set` derived from the seed the harness gives.
__host__ __device__ inline uint64_t set_seed(uint64_t seed, int set) { return hash64(seed, 0x5E7000ull + uint64_t(set)); }

// fp32 bits.
__host__ __device__ inline uint32_t random_f32_bits(uint64_t seed, uint64_t i, Dist d) {
  const uint64_t h = hash64(seed, i);
  const uint32_t mant = uint32_t(h) & 0x7FFFFFu;
  switch (d) {
    case Dist::Signed: return (uint32_t(h >> 63) << 31) | ((125u + uint32_t(h >> 32) % 4u) << 23) | mant;
    case Dist::Positive: return ((126u + uint32_t(h >> 32) % 2u) << 23) | mant;
    case Dist::SmallInt: {
      const float v = float(1 + (h >> 32) % 4096);  // integer → float is exact below 2^24
      uint32_t bits;
      memcpy(&bits, &v, 4);
      return bits;
    }
  }
  return 0x3F800000u;
}

// bf16 bits: the top half of an fp32 draw (exponent kept, so never zero).
__host__ __device__ inline uint16_t random_bf16_bits(uint64_t seed, uint64_t i, Dist d) {
  return uint16_t(random_f32_bits(seed, i, d) >> 16);
}

// fp8 e4m3 bits: exponent field 1…14 (normal numbers 2^-6 … 240; field 15 holds the NaN),
// random 3-bit mantissa; Positive and SmallInt both give positive values.
__host__ __device__ inline uint8_t random_e4m3_bits(uint64_t seed, uint64_t i, Dist d) {
  const uint64_t h = hash64(seed, i);
  const uint32_t sign = d == Dist::Signed ? uint32_t(h >> 63) : 0u;
  const uint32_t exp = 1u + uint32_t(h >> 32) % 14u;
  return uint8_t((sign << 7) | (exp << 3) | (uint32_t(h) & 7u));
}

// Host decoders: element bits → value (exact).
double decode_f32(uint32_t bits);
double decode_bf16(uint16_t bits);
double decode_e4m3(uint8_t bits);

// Device fills of `n` elements at p (any alignment), element i = random_*_bits(seed, i, d).
void fill_random_f32(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t stream);
void fill_random_bf16(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t stream);
void fill_random_e4m3(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t stream);

}  // namespace sol::kernels

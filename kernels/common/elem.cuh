#pragma once
// The element types the memory lessons move, each with its raw storage bits, its random draw,
// its host decoder and its device fill, so that a Case is written once for all of them.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "kernels/common/random.cuh"
#include "sol/core/dtype.hpp"

namespace sol::kernels {

template <class T>
struct Elem;

template <>
struct Elem<float> {
  using Bits = uint32_t;
  static constexpr DType dtype = DType::f32;
  static Bits draw(uint64_t seed, uint64_t i, Dist d) { return random_f32_bits(seed, i, d); }
  static double decode(Bits b) { return decode_f32(b); }
  static void fill(float* p, int64_t n, uint64_t seed, Dist d, cudaStream_t s) { fill_random_f32(p, n, seed, d, s); }
};

template <>
struct Elem<__nv_bfloat16> {
  using Bits = uint16_t;
  static constexpr DType dtype = DType::bf16;
  static Bits draw(uint64_t seed, uint64_t i, Dist d) { return random_bf16_bits(seed, i, d); }
  static double decode(Bits b) { return decode_bf16(b); }
  static void fill(__nv_bfloat16* p, int64_t n, uint64_t seed, Dist d, cudaStream_t s) { fill_random_bf16(p, n, seed, d, s); }
};

template <>
struct Elem<__nv_fp8_e4m3> {
  using Bits = uint8_t;
  static constexpr DType dtype = DType::fp8_e4m3;
  static Bits draw(uint64_t seed, uint64_t i, Dist d) { return random_e4m3_bits(seed, i, d); }
  static double decode(Bits b) { return decode_e4m3(b); }
  static void fill(__nv_fp8_e4m3* p, int64_t n, uint64_t seed, Dist d, cudaStream_t s) { fill_random_e4m3(p, n, seed, d, s); }
};

// All bits set: the poison pattern (kernels/common/buffer.cuh) read back as one element.
template <class Bits>
constexpr bool is_poison(Bits b) {
  return b == Bits(~Bits(0));
}

}  // namespace sol::kernels

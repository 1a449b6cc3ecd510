#pragma once
// Host storage of the kernel API's element types (fp32, bf16, fp16) for the GPU tests: bytes,
// round-to-nearest-even, stores and loads through doubles, and deterministic inputs. CUDA builds
// only (cuda_bf16.h, cuda_fp16.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

#include "sol/core/dtype.hpp"

namespace sol::test {

inline int bytes_of(DType d) { return d == DType::f32 ? 4 : 2; }

// v rounded to d (nearest even), as a double.
inline double round_to(DType d, double v) {
  const float f = float(v);
  if (d == DType::f32) return f;
  if (d == DType::bf16) return double(__bfloat162float(__float2bfloat16_rn(f)));
  return double(__half2float(__float2half_rn(f)));
}
inline void store(DType d, unsigned char* p, double v) {
  const float f = float(v);
  if (d == DType::f32) {
    std::memcpy(p, &f, 4);
  } else if (d == DType::bf16) {
    const __nv_bfloat16 b = __float2bfloat16_rn(f);
    std::memcpy(p, &b, 2);
  } else {
    const __half h = __float2half_rn(f);
    std::memcpy(p, &h, 2);
  }
}
inline double load(DType d, const unsigned char* p) {
  if (d == DType::f32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (d == DType::bf16) {
    __nv_bfloat16 b;
    std::memcpy(&b, p, 2);
    return __bfloat162float(b);
  }
  __half h;
  std::memcpy(&h, p, 2);
  return __half2float(h);
}

// Deterministic values in [−1, 1).
struct Lcg {
  uint64_t s;
  double next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return double(s >> 11) / double(uint64_t(1) << 53) * 2 - 1;
  }
};

}  // namespace sol::test

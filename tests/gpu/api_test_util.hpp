#pragma once
// Pieces the tests of the public kernel entries (test_api_*.cpp) share: device buffers, 16-bit
// element encodings, the relative L2 error, and the check that a call is refused as bad input.
// CUDA builds only (the entries' header needs the CUDA runtime's).
#ifdef SOL_WITH_CUDA
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/kernels.hpp"

namespace sol::test {

// A device allocation of `bytes`, freed on scope exit; zero-filled.
class DevBuf {
 public:
  explicit DevBuf(size_t bytes) : bytes_(bytes) {
    if (bytes_ && cudaMalloc(&p_, bytes_) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
    if (bytes_) cudaMemset(p_, 0, bytes_);
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() { cudaFree(p_); }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(p_);
  }
  size_t bytes() const { return bytes_; }
  template <class T>
  void upload(const std::vector<T>& v, size_t offset_bytes = 0) const {
    ASSERT_EQ(cudaMemcpy(static_cast<char*>(p_) + offset_bytes, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  template <class T>
  std::vector<T> download(size_t count, size_t offset_bytes = 0) const {
    std::vector<T> v(count);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(v.data(), static_cast<const char*>(p_) + offset_bytes, count * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return v;
  }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// 16-bit encodings of values exact in both bf16 and fp16 (zero or normal, ≤ 8 significant bits).
inline uint16_t half_bits(double x, bool fp16) {
  const uint32_t u = f32_bits(float(x));
  if (!fp16) return uint16_t(u >> 16);
  if ((u & 0x7FFFFFFFu) == 0) return uint16_t(u >> 16);
  const uint32_t sign = (u >> 16) & 0x8000u, e = ((u >> 23) & 0xFFu) - 127 + 15, m = (u >> 13) & 0x3FFu;
  return uint16_t(sign | (e << 10) | m);
}
inline double half_value(uint16_t b, bool fp16) {
  if (!fp16) return f32_of(uint32_t(b) << 16);
  const int e = (b >> 10) & 0x1F, m = b & 0x3FF;
  const double mag = e == 0 ? std::ldexp(double(m), -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1.0 + m / 1024.0, e - 15);
  return (b >> 15) ? -mag : mag;
}

// ‖got − want‖ / max(‖want‖, √floor2) (absolute when both are zero); any non-finite got gives
// infinity. floor2: the squared norm of the terms a result cancels from, whose rounding it keeps.
inline double rel_l2(const std::vector<double>& got, const std::vector<double>& want, double floor2 = 0) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  den = std::max(den, floor2);
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// A well-aligned address that is never dereferenced: the validation tests throw before any access.
inline void* fake_pointer(uintptr_t i = 1) { return reinterpret_cast<void*>(uintptr_t(1) << 20 | i << 12); }

// Attention arguments of this shape with distinct fake pointers for q, k, v, o and lse: enough
// for the host-side validation and explain, which never dereference them.
inline AttentionArgs fake_attention_args(int64_t b, int64_t h, int64_t h_kv, int64_t n, int64_t nk, int d) {
  AttentionArgs a;
  a.b = b, a.h = h, a.h_kv = h_kv, a.n = n, a.nk = nk, a.d = d;
  a.q = fake_pointer(1);
  a.k = fake_pointer(2);
  a.v = fake_pointer(3);
  a.o = fake_pointer(4);
  a.lse = static_cast<float*>(fake_pointer(5));
  return a;
}

// For its scope, lets the dispatchers choose implementations the committed tables have not
// measured yet (SOL_DISPATCH_UNMEASURED=1, kernels/api/unmeasured.hpp); the value before is restored.
struct UnmeasuredOptIn {
  std::string saved;
  bool was = false;
  UnmeasuredOptIn() {
    if (const char* v = std::getenv("SOL_DISPATCH_UNMEASURED")) was = true, saved = v;
    setenv("SOL_DISPATCH_UNMEASURED", "1", 1);
  }
  ~UnmeasuredOptIn() { was ? setenv("SOL_DISPATCH_UNMEASURED", saved.c_str(), 1) : unsetenv("SOL_DISPATCH_UNMEASURED"); }
  UnmeasuredOptIn(const UnmeasuredOptIn&) = delete;
  UnmeasuredOptIn& operator=(const UnmeasuredOptIn&) = delete;
};

}  // namespace sol::test

// `call` throws sol::Error of kind `which` (BadInput, Failure) whose message contains `text`.
#define SOL_EXPECT_ERROR(call, which, text)                                                       \
  do {                                                                                            \
    try {                                                                                         \
      call;                                                                                       \
      ADD_FAILURE() << #call << " did not throw";                                                 \
    } catch (const ::sol::Error& e) {                                                             \
      EXPECT_EQ(e.kind(), ::sol::Error::Kind::which) << e.line();                                 \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.line() << " lacks: " << (text); \
    }                                                                                             \
  } while (0)
#define SOL_EXPECT_BAD_INPUT(call, text) SOL_EXPECT_ERROR(call, BadInput, text)
#define SOL_EXPECT_FAILURE(call, text) SOL_EXPECT_ERROR(call, Failure, text)

#endif  // SOL_WITH_CUDA

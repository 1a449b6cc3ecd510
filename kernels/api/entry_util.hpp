#pragma once
// Small pieces the public entries share: the current device's compute capability and database row, the storage type
// of a dtype, workspace alignment, the loss's argument checks, times in reasons.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

#include "sol/core/dtype.hpp"
#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/kernels.hpp"

namespace sol::api {

// The caller's current device and its compute capability (major·10 + minor); id −1 and cc 0
// when there is no usable device (the CUDA error is cleared, not left for the caller).
struct Device {
  int id = -1, cc = 0;
  cudaError_t error = cudaSuccess;
};
// A device's compute capability does not change: it is asked of the runtime once per device (the
// first 64 ids) and read without a lock after that, so a call costs one cudaGetDevice.
inline Device current_device() {
  static std::atomic<int> known[64] = {};  // 0: not asked yet
  Device d;
  int id = 0, cc = 0;
  cudaError_t e = cudaGetDevice(&id);
  const bool cached = e == cudaSuccess && id >= 0 && id < 64;
  if (cached) cc = known[id].load(std::memory_order_relaxed);
  if (e == cudaSuccess && cc == 0) {
    int major = 0, minor = 0;
    e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, id);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, id);
    cc = major * 10 + minor;
    if (e == cudaSuccess && cached) known[id].store(cc, std::memory_order_relaxed);
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    d.error = e;
    return d;
  }
  d.id = id;
  d.cc = cc;
  return d;
}

// Device id's row of the hardware database (hw::match_builtin on its compute capability, SM count
// and memory), asked of the runtime once per device (the first 64 ids) and read without a lock after
// that; the H200's where no device is visible or it matches no row (the GPU explain assumes).
inline const hw::HwSpec& device_row(int id) {
  static std::atomic<const hw::HwSpec*> known[64] = {};
  static const hw::HwSpec& fallback = hw::find("h200");
  if (id < 0) return fallback;
  const bool cached = id < 64;
  if (cached)
    if (const hw::HwSpec* s = known[id].load(std::memory_order_relaxed)) return *s;
  const hw::HwSpec* row = &fallback;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, id) == cudaSuccess) {
    if (const hw::HwSpec* m = hw::match_builtin(prop.major * 10 + prop.minor, prop.multiProcessorCount,
                                                double(prop.totalGlobalMem)))
      row = m;
  } else {
    (void)cudaGetLastError();
  }
  if (cached) known[id].store(row, std::memory_order_relaxed);
  return *row;
}

// The current device's compute capability; a sol::Error when there is no usable device.
inline int current_cc(const char* op) {
  const Device d = current_device();
  if (d.id < 0)
    failure(std::string(op) + ": no usable CUDA device (" + cudaGetErrorName(d.error) + ": " + cudaGetErrorString(d.error) +
                ")",
            "run on a machine with an NVIDIA GPU and its driver");
  return d.cc;
}

// fn(T{}) for the storage type of an entry's dtype, validated before as f32, bf16 or f16.
template <class Fn>
decltype(auto) with_type(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::f32: return fn(float{});
    case DType::f16: return fn(__half{});
    default: return fn(__nv_bfloat16{});
  }
}

inline std::string cc_text(int cc) { return "sm_" + std::to_string(cc); }

// Bytes rounded up to 256, so that consecutive workspace pieces stay aligned.
constexpr size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The labels and the loss's parameters, as cross_entropy and linear_cross_entropy take them: a
// sol::Error (BadInput) whose message starts with `op` for the first one that is wrong.
inline void check_loss_args(const char* op, const void* labels, IndexType label_type, Reduction reduction,
                            float label_smoothing, float grad_scale) {
  const auto refuse = [op](const std::string& what, const std::string& fix) { bad_input(std::string(op) + ": " + what, fix); };
  if (!labels) refuse("labels is nullptr", "pass a device pointer for labels (rows of int32 or int64)");
  if (label_type != IndexType::i32 && label_type != IndexType::i64) refuse("label_type is not i32 or i64", "use IndexType");
  if (reduction != Reduction::Mean && reduction != Reduction::Sum) refuse("reduction is not Mean or Sum", "use Reduction");
  if (!(label_smoothing >= 0.f && label_smoothing <= 1.f))
    refuse("label_smoothing = " + std::to_string(label_smoothing) + " is outside [0, 1]", "give ε in [0, 1] (0: none)");
  if (!std::isfinite(grad_scale)) refuse("grad_scale is not finite", "give the upstream gradient (1 for the loss itself)");
}

// "12.5 µs": a time for a reason line.
inline std::string us_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, seconds < 1e-4 ? "%.1f µs" : "%.0f µs", seconds * 1e6);
  return buf;
}

}  // namespace sol::api

#pragma once
// Small pieces the public entries of attention, MX and copy share: the current device's compute
// capability, workspace alignment, times in reasons.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "sol/core/error.hpp"

namespace sol::api {

// The compute capability of the caller's current device (major·10 + minor); a sol::Error when
// there is no usable device.
inline int current_cc(const char* op) {
  int dev = 0, major = 0, minor = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky: leave no error behind for the caller's next check
    failure(std::string(op) + ": no usable CUDA device (" + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")",
            "run on a machine with an NVIDIA GPU and its driver");
  }
  return major * 10 + minor;
}

inline std::string cc_text(int cc) { return "sm_" + std::to_string(cc); }

// Bytes rounded up to 256, so that consecutive workspace pieces stay aligned.
constexpr size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// "12.5 µs": a time for a reason line.
inline std::string us_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, seconds < 1e-4 ? "%.1f µs" : "%.0f µs", seconds * 1e6);
  return buf;
}

}  // namespace sol::api

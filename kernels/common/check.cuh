#pragma once
// Every CUDA and library call is checked; a failure throws sol::Error naming the call, file and line.
#include <cuda_runtime.h>

#include <string>

#include "sol/core/error.hpp"

namespace sol::cuda {

[[noreturn]] inline void throw_cuda(const char* call, const char* file, int line, const std::string& msg) {
  sol::failure(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + msg);
}

}  // namespace sol::cuda

#define SOL_CUDA_CHECK(call)                                                                 \
  do {                                                                                       \
    cudaError_t sol_err_ = (call);                                                           \
    if (sol_err_ != cudaSuccess)                                                             \
      ::sol::cuda::throw_cuda(#call, __FILE__, __LINE__,                                     \
                              std::string(cudaGetErrorName(sol_err_)) + " " + cudaGetErrorString(sol_err_)); \
  } while (0)

// After a launch: catches bad launch configurations at once (asynchronous faults surface at the
// next synchronizing call, which is checked too).
#define SOL_LAUNCH_CHECK() SOL_CUDA_CHECK(cudaGetLastError())

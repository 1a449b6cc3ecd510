#pragma once
// cuBLAS and cuBLASLt calls are checked like CUDA calls (kernels/common/check.cuh): a failure
// throws sol::Error naming the call, file, line and the library's status name.
#include <cublas_v2.h>

#include <string>

#include "kernels/common/check.cuh"

#define SOL_CUBLAS_CHECK(call)                                                                     \
  do {                                                                                             \
    cublasStatus_t sol_status_ = (call);                                                           \
    if (sol_status_ != CUBLAS_STATUS_SUCCESS)                                                      \
      ::sol::cuda::throw_cuda(#call, __FILE__, __LINE__,                                           \
                              std::string(cublasGetStatusName(sol_status_)) + " " +                \
                                  cublasGetStatusString(sol_status_));                             \
  } while (0)

#pragma once
// cuBLAS and cuBLASLt calls are checked like CUDA calls (kernels/common/check.cuh): a failure
// throws sol::Error naming the call, file, line and the library's status name. The calls go
// through the tables of cublas_lib.cuh (loaded at first use).
#include <string>

#include "kernels/common/check.cuh"
#include "kernels/common/cublas_lib.cuh"

#define SOL_CUBLAS_CHECK(call)                                                                     \
  do {                                                                                             \
    cublasStatus_t sol_status_ = (call);                                                           \
    if (sol_status_ != CUBLAS_STATUS_SUCCESS)                                                      \
      ::sol::cuda::throw_cuda(#call, __FILE__, __LINE__, ::sol::cublas::status_text(sol_status_)); \
  } while (0)

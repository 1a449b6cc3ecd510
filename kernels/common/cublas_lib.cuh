#pragma once
// cuBLAS and cuBLASLt, loaded at their first call instead of at program start. Linked in, their
// static initialisers cost every process about 80 ms (a program that links libcublasLt.so and
// calls nothing starts in 80 ms; without it, in under 5), which every CLI command, test process
// and `import sol` paid whether or not it ran a GEMM. sol calls them through the tables below:
// each entry is resolved by dlsym from the library the toolkit's headers name
// (libcublasLt.so.<CUBLAS_VER_MAJOR>, libcublas.so.<CUBLAS_VER_MAJOR>), found by the loader's own
// search (LD_LIBRARY_PATH, run paths, ld.so.cache, or a copy already in the process, e.g.
// PyTorch's), else in the toolkit sol was built with. A library that cannot be loaded throws
// sol::Error naming it and the loader's reason.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <string>

// The functions sol calls, each library's list once. A name that cublas_v2.h maps to a versioned
// symbol (cublasCreate → cublasCreate_v2) is resolved and called under that symbol.
#define SOL_CUBLASLT_FUNCTIONS(X)                                                             \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtMatmul) X(cublasLtMatmulAlgoGetHeuristic)   \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute) \
  X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)                        \
  X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy)
#define SOL_CUBLAS_FUNCTIONS(X)                                                               \
  X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSetMathMode) X(cublasSgemm)      \
  X(cublasGetStatusName) X(cublasGetStatusString)

namespace sol::cublas {

#define SOL_CUBLAS_ENTRY(name) decltype(&::name) name = nullptr;
struct LtLibrary {
  SOL_CUBLASLT_FUNCTIONS(SOL_CUBLAS_ENTRY)
};
struct BlasLibrary {
  SOL_CUBLAS_FUNCTIONS(SOL_CUBLAS_ENTRY)
  // Typed by hand: cublas_api.h overloads the name in C++ (a static inline wrapper taking a
  // cudaDataType compute type); the library's symbol is the one taking cublasComputeType_t.
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                 const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                 cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};
#undef SOL_CUBLAS_ENTRY

// The loaded library's table (loaded on the first call; thread-safe). Throws sol::Error when the
// library or one of its functions cannot be found; the next call tries again.
const LtLibrary& lt();
const BlasLibrary& blas();

// "CUBLAS_STATUS_NAME description", from libcublas when it loads, else the status's number.
std::string status_text(cublasStatus_t status);

}  // namespace sol::cublas

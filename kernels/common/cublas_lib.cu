// cuBLAS and cuBLASLt loaded at first use (cublas_lib.cuh says why).
#include <dlfcn.h>

#include "kernels/common/cublas_lib.cuh"
#include "sol/core/error.hpp"

#define SOL_CUBLAS_STRING(x) #x
// After macro expansion: SOL_CUBLAS_NAME(cublasCreate) is "cublasCreate_v2".
#define SOL_CUBLAS_NAME(x) SOL_CUBLAS_STRING(x)

namespace sol::cublas {
namespace {

struct Library {
  void* handle;
  std::string soname;
};

// By soname first (the loader's search, and a copy already loaded), then in the build's toolkit.
// Never closed: handles and plans may outlive any scope that could close it.
Library open_library(const char* base) {
  const std::string soname = std::string(base) + ".so." SOL_CUBLAS_NAME(CUBLAS_VER_MAJOR);
  if (void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return {h, soname};
  const char* err = dlerror();
  std::string why = err ? err : "not found";
#ifdef SOL_CUDA_LIBRARY_DIR
  const std::string path = std::string(SOL_CUDA_LIBRARY_DIR) + "/" + soname;
  if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return {h, soname};
  why += "; not in " SOL_CUDA_LIBRARY_DIR " either";
#endif
  failure("cuBLAS: " + soname + " could not be loaded (" + why + "); sol's GEMM peers and its matmul fallback call it",
          "put the directory that holds " + soname +
              " (the CUDA toolkit's lib64, or PyTorch's nvidia/cu" SOL_CUBLAS_NAME(CUBLAS_VER_MAJOR) "/lib) on "
              "LD_LIBRARY_PATH");
}

template <class Fn>
void resolve(const Library& lib, const char* symbol, Fn*& entry) {
  void* p = dlsym(lib.handle, symbol);
  if (!p)
    failure("cuBLAS: " + lib.soname + " has no " + symbol,
            "use a cuBLAS at least as new as the headers sol was built with (" SOL_CUBLAS_NAME(
                CUBLAS_VER_MAJOR) "." SOL_CUBLAS_NAME(CUBLAS_VER_MINOR) ")");
  entry = reinterpret_cast<Fn*>(p);
}

#define SOL_CUBLAS_RESOLVE(name) resolve(lib, SOL_CUBLAS_NAME(name), table.name);

LtLibrary load_lt() {
  const Library lib = open_library("libcublasLt");
  LtLibrary table;
  SOL_CUBLASLT_FUNCTIONS(SOL_CUBLAS_RESOLVE)
  return table;
}

BlasLibrary load_blas() {
  const Library lib = open_library("libcublas");
  BlasLibrary table;
  SOL_CUBLAS_FUNCTIONS(SOL_CUBLAS_RESOLVE)
  SOL_CUBLAS_RESOLVE(cublasGemmEx)
  return table;
}

}  // namespace

// Function-local statics: initialised once, under the compiler's guard; an initialiser that
// throws leaves its static uninitialised, so the next call tries again.
const LtLibrary& lt() {
  static const LtLibrary table = load_lt();
  return table;
}

const BlasLibrary& blas() {
  static const BlasLibrary table = load_blas();
  return table;
}

std::string status_text(cublasStatus_t status) {
  try {
    const BlasLibrary& b = blas();
    return std::string(b.cublasGetStatusName(status)) + " " + b.cublasGetStatusString(status);
  } catch (const Error&) {
    return "cuBLAS status " + std::to_string(int(status));
  }
}

}  // namespace sol::cublas

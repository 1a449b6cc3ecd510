// cuBLAS and cuBLASLt load at their first call (kernels/common/cublas_lib.cuh), not at program
// start. The test runs this program once more, alone, so that no earlier test has loaded them:
// there, libcublasLt and libcublas must be absent until sol::cublas::lt() / blas() are called,
// and present with every entry resolved afterwards. Needs no GPU (dlopen only).
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "kernels/common/cublas_lib.cuh"

namespace {

#define SOL_TEST_STRING(x) #x
#define SOL_TEST_NAME(x) SOL_TEST_STRING(x)
const std::string kMajor = SOL_TEST_NAME(CUBLAS_VER_MAJOR);

bool loaded(const std::string& soname) {
  void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);  // drops only the reference NOLOAD added
  return h != nullptr;
}

// The part that runs in the fresh process.
void check_in_fresh_process() {
  const std::string lt_name = "libcublasLt.so." + kMajor, blas_name = "libcublas.so." + kMajor;
  EXPECT_FALSE(loaded(lt_name)) << lt_name << " is loaded before any cuBLAS call";
  EXPECT_FALSE(loaded(blas_name)) << blas_name << " is loaded before any cuBLAS call";
#define SOL_TEST_RESOLVED(name) EXPECT_NE(table.name, nullptr) << #name;
  {
    const sol::cublas::LtLibrary& table = sol::cublas::lt();
    EXPECT_TRUE(loaded(lt_name));
    EXPECT_FALSE(loaded(blas_name)) << "the cuBLASLt path loaded libcublas too";
    SOL_CUBLASLT_FUNCTIONS(SOL_TEST_RESOLVED)
    EXPECT_EQ(&sol::cublas::lt(), &table) << "loaded once";
  }
  {
    const sol::cublas::BlasLibrary& table = sol::cublas::blas();
    EXPECT_TRUE(loaded(blas_name));
    SOL_CUBLAS_FUNCTIONS(SOL_TEST_RESOLVED)
    SOL_TEST_RESOLVED(cublasGemmEx)
  }
#undef SOL_TEST_RESOLVED
  EXPECT_EQ(sol::cublas::status_text(CUBLAS_STATUS_NOT_SUPPORTED).rfind("CUBLAS_STATUS_NOT_SUPPORTED", 0), 0u);
}

}  // namespace

TEST(CublasLib, LoadsAtFirstCall) {
  if (std::getenv("SOL_CUBLAS_LIB_CHILD")) {
    check_in_fresh_process();
    return;
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  const std::string cmd = std::string("SOL_CUBLAS_LIB_CHILD=1 '") + self +
                          "' --gtest_filter=CublasLib.LoadsAtFirstCall --gtest_brief=1 > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "in a fresh process: " << cmd << " (run it to see which check failed)";
}
#endif

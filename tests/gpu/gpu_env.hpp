#pragma once
// GPU tests skip with a visible reason when no device is present, and fail instead when the
// environment says a GPU is required (SOL_REQUIRE_GPU=1, for runs on a GPU machine).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace sol::test {

inline bool gpu_required() {
  const char* v = std::getenv("SOL_REQUIRE_GPU");
  return v && std::string(v) == "1";
}

}  // namespace sol::test

// `reason_available(&why)` → bool; skips (or fails under SOL_REQUIRE_GPU=1) with why.
#define SOL_SKIP_UNLESS(available_call, why)                                              \
  do {                                                                                    \
    if (!(available_call)) {                                                              \
      if (::sol::test::gpu_required()) FAIL() << (why) << " (SOL_REQUIRE_GPU=1)";         \
      GTEST_SKIP() << (why);                                                              \
    }                                                                                     \
  } while (0)

#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#define SOL_REQUIRE_GPU_OR_SKIP()                                   \
  do {                                                              \
    std::string sol_why_;                                           \
    SOL_SKIP_UNLESS(::sol::bench::gpu_available(&sol_why_), sol_why_); \
  } while (0)
#else
#define SOL_REQUIRE_GPU_OR_SKIP() \
  SOL_SKIP_UNLESS(false, std::string("no CUDA device: this sol was built without CUDA (nvcc not found)"))
#endif

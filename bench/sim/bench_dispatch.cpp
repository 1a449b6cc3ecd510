// Host cost of sol::matmul's decision (kernels/api/matmul_dispatch): validate() and plan() per
// call, with no GPU and nothing launched, at the shapes where that cost shows (decode: m = 1, 8).
// Prints µs per call; the rest of a call's host time is the CUDA runtime's and cuBLASLt's.
//   bench_dispatch [calls]   (default 200000)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "kernels/api/matmul_dispatch.hpp"

namespace {

using sol::kernels::api::MatmulCall;

MatmulCall tn(int64_t m, int64_t n, int64_t k) {
  MatmulCall c;
  c.m = m, c.n = n, c.k = k;
  c.a = reinterpret_cast<const void*>(uintptr_t(1) << 40);  // aligned fake addresses: never dereferenced
  c.b = reinterpret_cast<const void*>(uintptr_t(2) << 40);
  c.c = reinterpret_cast<const void*>(uintptr_t(3) << 40);
  return c;
}

template <class F>
double us_per_call(long calls, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) f();
  const std::chrono::duration<double, std::micro> dt = std::chrono::steady_clock::now() - t0;
  return dt.count() / double(calls);
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 200000;
  if (calls < 1) {
    std::fprintf(stderr, "bench_dispatch: give a number of calls ≥ 1\n");
    return 2;
  }
  std::printf("%-22s %12s %12s %14s  %s\n", "shape (bf16, TN)", "validate µs", "plan µs", "explain µs", "choice");
  for (const MatmulCall& c : {tn(1, 768, 768), tn(8, 4096, 4096), tn(1, 50257, 768), tn(4096, 4096, 4096)}) {
    volatile size_t sink = 0;
    const MatmulCall v = sol::kernels::api::validate(c);
    const double t_validate = us_per_call(calls, [&] { sink = sink + size_t(sol::kernels::api::validate(c).lda); });
    const double t_plan = us_per_call(calls, [&] { sink = sink + sol::kernels::api::plan(v, 90, false).pack_bytes; });
    const double t_explain = us_per_call(calls / 10 + 1, [&] { sink = sink + sol::kernels::api::plan(v, 90).reason.size(); });
    const auto p = sol::kernels::api::plan(v, 90, false);
    char shape[64];
    std::snprintf(shape, sizeof shape, "m=%lld,n=%lld,k=%lld", (long long)c.m, (long long)c.n, (long long)c.k);
    std::printf("%-22s %12.3f %12.3f %14.3f  %s\n", shape, t_validate, t_plan, t_explain,
                p.impl == sol::kernels::api::Impl::cublaslt ? "cublasLt" : p.rung.c_str());
  }
  return 0;
}

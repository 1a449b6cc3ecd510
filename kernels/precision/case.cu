// Registry wrapper for precision: a GatherCase per element type with f = max(x, 0). Inputs
// are signed (half of them negative), so both sides of the ReLU are checked.
#include <algorithm>

#include "kernels/common/gather_case.cuh"
#include "kernels/precision/case.hpp"
#include "kernels/precision/precision.cuh"

namespace sol::kernels::precision {
namespace {

template <class T>
std::unique_ptr<Case> make_relu(Version v, const Shape& s, void (*run)(const T*, T*, int64_t, cudaStream_t),
                                LaunchInfo (*plan)(const T*, const T*, int64_t), const CaseOptions& opts) {
  const int64_t n = s.at("n");
  GatherSpec<T> spec = elementwise_spec<T>(s, tolerance(v).rel_l2);
  spec.f = [](double x, int64_t) { return std::max(x, 0.0); };
  spec.run = [n, run](const T* i, T* o, cudaStream_t st) { run(i, o, n, st); };
  spec.plan = [n, plan](const T* i, const T* o) { return plan(i, o, n); };
  return std::make_unique<GatherCase<T>>(std::move(spec), opts);
}

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  switch (v) {
    case Version::v01_relu_fp32: return make_relu<float>(v, s, v01_relu_fp32, v01_relu_fp32_plan, opts);
    case Version::v02_relu_bf16: return make_relu<__nv_bfloat16>(v, s, v02_relu_bf16, v02_relu_bf16_plan, opts);
    case Version::v03_relu_fp8_e4m3: return make_relu<__nv_fp8_e4m3>(v, s, v03_relu_fp8_e4m3, v03_relu_fp8_e4m3_plan, opts);
  }
  failure("unknown precision version");
}

}  // namespace sol::kernels::precision

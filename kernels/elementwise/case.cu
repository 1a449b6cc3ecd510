// Registry wrapper for elementwise: a GatherCase with f(x) = sin²x + cos²x computed in double
// (sol/ref/elementwise.hpp) from the same hashed input the device saw. The eager version owns its
// two temporaries.
#include <memory>

#include "kernels/common/gather_case.cuh"
#include "kernels/elementwise/case.hpp"
#include "kernels/elementwise/sincos.cuh"
#include "sol/ref/elementwise.hpp"

namespace sol::kernels::elementwise {
namespace {

double reference(double x, int64_t) { return ref::sincos_chain(x); }

template <class T>
GatherSpec<T> spec_for(Version v, const Shape& s) {
  GatherSpec<T> spec = elementwise_spec<T>(s, tolerance(v).rel_l2);
  spec.f = reference;
  return spec;
}

}  // namespace

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  const int64_t n = s.at("n");
  switch (v) {
    case Version::v01_eager5_fp32: {
      auto spec = spec_for<float>(v, s);
      auto temps = std::make_shared<std::pair<DeviceBuffer<float>, DeviceBuffer<float>>>(DeviceBuffer<float>(n),
                                                                                        DeviceBuffer<float>(n));
      spec.run = [n, temps](const float* x, float* y, cudaStream_t st) {
        v01_eager5_fp32(x, y, temps->first.get(), temps->second.get(), n, st);
      };
      return std::make_unique<GatherCase<float>>(std::move(spec), opts);
    }
    case Version::v02_fused_fp32: {
      auto spec = spec_for<float>(v, s);
      spec.run = [n](const float* x, float* y, cudaStream_t st) { v02_fused_fp32(x, y, n, st); };
      spec.plan = [n](const float* x, const float* y) { return v02_fused_fp32_plan(x, y, n); };
      return std::make_unique<GatherCase<float>>(std::move(spec), opts);
    }
    case Version::v03_fused_bf16: {
      auto spec = spec_for<__nv_bfloat16>(v, s);
      spec.run = [n](const __nv_bfloat16* x, __nv_bfloat16* y, cudaStream_t st) { v03_fused_bf16(x, y, n, st); };
      spec.plan = [n](const __nv_bfloat16* x, const __nv_bfloat16* y) { return v03_fused_bf16_plan(x, y, n); };
      return std::make_unique<GatherCase<__nv_bfloat16>>(std::move(spec), opts);
    }
  }
  failure("unknown elementwise version");
}

}  // namespace sol::kernels::elementwise

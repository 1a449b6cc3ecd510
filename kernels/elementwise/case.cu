// Registry wrapper for elementwise: a GatherCase with f(x) = sin²x + cos²x computed in double
// from the same hashed input the device saw. The eager version owns its two temporaries.
#include <cmath>
#include <memory>

#include "kernels/common/gather_case.cuh"
#include "kernels/elementwise/case.hpp"
#include "kernels/elementwise/sincos.cuh"

namespace sol::kernels::elementwise {
namespace {

double reference(double x, int64_t) {
  const double s = std::sin(x), c = std::cos(x);
  return s * s + c * c;
}

template <class T>
GatherSpec<T> spec_for(Version v, const Shape& s) {
  GatherSpec<T> spec = elementwise_spec<T>(s, tolerance(v).rel_l2);
  spec.f = reference;
  return spec;
}

}  // namespace

std::string unsupported(Version, const Shape& s) { return check_dims(s, elementwise_dims()); }

model::Cost cost(Version v, const Shape& s) {
  model::ElementwiseOp op;
  op.n = s.at("n");
  op.ops = 5;  // sin, pow, cos, pow, add
  op.fused = v != Version::v01_eager5_fp32;
  op.extra_reads = op.fused ? 0 : 1;  // the add reads two tensors
  op.dtype = v == Version::v03_fused_bf16 ? DType::bf16 : DType::f32;
  model::Cost c = model::elementwise(op);
  c.notes.push_back("FLOPs count one per op, as the lecture does; accurate sincosf costs ~40 instructions");
  return c;
}

Tolerance tolerance(Version v) {
  if (v == Version::v03_fused_bf16)
    return {4e-3, "bf16 input and output (8 mantissa bits); the fp32 result ≈ 1 rounds to 1 in bf16"};
  return {1e-6, "fp32: accurate sinf/cosf (≤ 2 ulp each) and three roundings; max |err| ≈ 4 ulp of 1 ≈ 5e-7"};
}

std::unique_ptr<Case> make(Version v, const Shape& s) {
  const int64_t n = s.at("n");
  switch (v) {
    case Version::v01_eager5_fp32: {
      auto spec = spec_for<float>(v, s);
      auto temps = std::make_shared<std::pair<DeviceBuffer<float>, DeviceBuffer<float>>>(DeviceBuffer<float>(n),
                                                                                        DeviceBuffer<float>(n));
      spec.run = [n, temps](const float* x, float* y, cudaStream_t st) {
        v01_eager5_fp32(x, y, temps->first.get(), temps->second.get(), n, st);
      };
      return std::make_unique<GatherCase<float>>(std::move(spec));
    }
    case Version::v02_fused_fp32: {
      auto spec = spec_for<float>(v, s);
      spec.run = [n](const float* x, float* y, cudaStream_t st) { v02_fused_fp32(x, y, n, st); };
      spec.plan = [n](const float* x, const float* y) { return v02_fused_fp32_plan(x, y, n); };
      return std::make_unique<GatherCase<float>>(std::move(spec));
    }
    case Version::v03_fused_bf16: {
      auto spec = spec_for<__nv_bfloat16>(v, s);
      spec.run = [n](const __nv_bfloat16* x, __nv_bfloat16* y, cudaStream_t st) { v03_fused_bf16(x, y, n, st); };
      spec.plan = [n](const __nv_bfloat16* x, const __nv_bfloat16* y) { return v03_fused_bf16_plan(x, y, n); };
      return std::make_unique<GatherCase<__nv_bfloat16>>(std::move(spec));
    }
  }
  failure("unknown elementwise version");
}

}  // namespace sol::kernels::elementwise

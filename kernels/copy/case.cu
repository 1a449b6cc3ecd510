// Registry wrapper for copy: a GatherCase with source(j) = j and f = identity, plus the peer
// cudaMemcpyAsync device-to-device that v03 is measured against.
#include "kernels/common/gather_case.cuh"
#include "kernels/copy/case.hpp"
#include "kernels/copy/copy.cuh"

namespace sol::kernels::copy {

std::string unsupported(Version v, const Shape& s) {
  std::string why = check_dims(s, elementwise_dims());
  if (why.empty() && v == Version::v01_scalar && s.at("n") > int64_t(INT32_MAX) * 256)
    why = "v01_scalar launches one thread per element: n > (2^31 − 1)·256 exceeds gridDim.x";
  return why;
}

model::Cost cost(Version, const Shape& s) {
  const double n = double(s.at("n"));
  return vector_cost("copy of " + std::to_string(s.at("n")) + " fp32", 0, 8 * n, DType::f32,
                     {"bytes = n × (4 read + 4 written)", "no arithmetic: flops = 0"});
}

Tolerance tolerance(Version) { return {0.0, "a copy is exact: every bit must arrive"}; }

std::unique_ptr<Case> make(Version v, const Shape& s) {
  const int64_t n = s.at("n");
  GatherSpec<float> spec = elementwise_spec<float>(s, tolerance(v).rel_l2);
  switch (v) {
    case Version::v01_scalar:
      spec.run = [n](const float* i, float* o, cudaStream_t st) { v01_scalar(i, o, n, st); };
      spec.plan = [n](const float* i, const float* o) { return v01_scalar_plan(i, o, n); };
      break;
    case Version::v02_vec16:
      spec.run = [n](const float* i, float* o, cudaStream_t st) { v02_vec16(i, o, n, st); };
      spec.plan = [n](const float* i, const float* o) { return v02_vec16_plan(i, o, n); };
      break;
    case Version::v03_vec16_unroll:
      spec.run = [n](const float* i, float* o, cudaStream_t st) { v03_vec16_unroll(i, o, n, st); };
      spec.plan = [n](const float* i, const float* o) { return v03_vec16_unroll_plan(i, o, n); };
      break;
    case Version::peer_memcpy:
      spec.run = [n](const float* i, float* o, cudaStream_t st) {
        SOL_CUDA_CHECK(cudaMemcpyAsync(o, i, size_t(n) * sizeof(float), cudaMemcpyDeviceToDevice, st));
      };
      break;
  }
  return std::make_unique<GatherCase<float>>(std::move(spec));
}

}  // namespace sol::kernels::copy

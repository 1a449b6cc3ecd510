// Registry wrapper for copy: a GatherCase with source(j) = j and f = identity, plus the peer
// cudaMemcpyAsync device-to-device that v03 is measured against, and the public entry sol::copy.
#include "kernels/common/gather_case.cuh"
#include "kernels/copy/case.hpp"
#include "kernels/copy/copy.cuh"
#include "sol/kernels.hpp"

namespace sol::kernels::copy {

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
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
    case Version::dispatch:
      spec.run = [n](const float* i, float* o, cudaStream_t st) { sol::copy({i, o, size_t(n) * sizeof(float)}, st); };
      break;
  }
  return std::make_unique<GatherCase<float>>(std::move(spec), opts);
}

}  // namespace sol::kernels::copy

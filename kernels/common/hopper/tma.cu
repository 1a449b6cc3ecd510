// The driver entry point every tensor map is encoded with (kernels/common/hopper/tma.cuh).
#include "kernels/common/check.cuh"
#include "kernels/common/hopper/tma.cuh"
#include "sol/core/error.hpp"

namespace sol::kernels::hopper {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    SOL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !p) failure("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs driver ≥ 12.0)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

}  // namespace sol::kernels::hopper

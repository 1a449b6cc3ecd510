// The decode GEMM's one entry (problem.cuh): check the call against the rung's refusal and the
// workspace, run the rung over its grid (plan.hpp), and with split k through the workspace sum the
// fp32 partials partial[split][row][col] in split order — a fixed order, so the same inputs give
// the same bits (v12, v13 and v14 sum their splits on chip, in rank order, and need neither).
#include <algorithm>
#include <string>

#include "kernels/common/check.cuh"
#include "kernels/gemm/gemv/detail.cuh"
#include "sol/core/error.hpp"

namespace sol::kernels::gemm::gemv {
namespace {

__global__ void reduce_splits_kernel(Problem p, int splits, const float* partial) {
  const int64_t outputs = p.m * p.n, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < outputs; i += stride) {
    float s = 0.f;
    for (int q = 0; q < splits; ++q) s += partial[int64_t(q) * outputs + i];
    write_c(p, i / p.n, i % p.n, s);
  }
}

}  // namespace

void launch(Rung r, const Problem& p, void* workspace, size_t workspace_bytes_given, cudaStream_t stream) {
  if (std::string why = refusal(r, p.m, p.n, p.k, p.w_k_contiguous); !why.empty()) bad_input("gemv: " + why);
  if ((p.in != DType::bf16 && p.in != DType::f16) ||
      (p.out != DType::bf16 && p.out != DType::f16 && p.out != DType::f32))
    bad_input("gemv: inputs bf16 or f16, C bf16, f16 or f32");
  const int64_t a_row = p.k, w_row = p.w_k_contiguous ? p.k : p.n;
  if (p.lda < a_row || p.ldw < w_row || p.ldc < p.n) bad_input("gemv: a pitch is below its row length");
  const Geometry g = geometry(r, p.m, p.n, p.k);
  const size_t need = workspace_bytes(r, p.m, p.n, p.k);
  if (workspace_bytes_given < need || (need > 0 && !workspace))
    failure("gemv: the workspace holds " + std::to_string(workspace_bytes_given) + " bytes; this launch needs " +
                std::to_string(need),
            "size it with gemm::gemv::workspace_bytes for the same rung and shape");
  float* partial = need > 0 ? static_cast<float*>(workspace) : nullptr;
  switch (r) {
    case Rung::v09_warp_dot: launch_v09_warp_dot(p, g, partial, stream); break;
    case Rung::v10_mma_swapped: launch_v10_mma_swapped(p, g, partial, stream); break;
    case Rung::v11_n_contiguous: launch_v11_n_contiguous(p, g, partial, stream); break;
    case Rung::v12_cluster_split_k: launch_cluster_split_k(p, g, /*prefetch=*/false, stream); break;
    case Rung::v13_cluster_prefetch: launch_cluster_split_k(p, g, /*prefetch=*/true, stream); break;
    case Rung::v14_tma_ring: launch_v14_tma_ring(p, g, stream); break;
  }
  if (need > 0) {
    const int64_t blocks = std::min<int64_t>((p.m * p.n + 255) / 256, 4096);
    reduce_splits_kernel<<<unsigned(blocks), 256, 0, stream>>>(p, g.splits, partial);
    SOL_LAUNCH_CHECK();
  }
}

}  // namespace sol::kernels::gemm::gemv

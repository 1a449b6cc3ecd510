#pragma once
// Placeholder declarations for the Hopper rungs (the Case's header will own this list).
#include "kernels/gemm/tc/problem.cuh"
namespace sol::kernels::gemm_tc {
void launch_v03_wgmma_tma(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v04_warp_specialized(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v05_persistent(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v06_cluster_multicast(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v07_tma_store(const Problem& p, Workspace& ws, cudaStream_t stream);
}  // namespace sol::kernels::gemm_tc

#pragma once
// One launcher per rung of the tensor-core GEMM ladder, each a gemm_tc::Launch (problem.cuh).
// The Case (case.cu) maps its Version to these; a rung's file defines its launcher.
//   v01_mma_sync          mma.sync m16n8k16 fed by ldmatrix, one shared buffer
//   v02_multistage        4-stage cp.async pipeline, XOR-swizzled shared memory
//   v03_wgmma_tma         wgmma fed by TMA (kernels/gemm/tc/hopper.cuh holds v03–v07's kernel)
//   v04_warp_specialized  producer / consumer warpgroups
//   v05_persistent        persistent tile scheduler
//   v06_cluster_multicast clusters of two CTAs multicast the shared B tile
//   v07_tma_store         epilogue through shared memory and TMA stores
//   v08_tile_choice       v07 with a 128×256 or 128×128 tile, whichever quantizes better
// A new rung: define its launcher, return it from launcher() in case.cu, register it in
// kernels/registry.cu's add_gemm_tc; optionally a KernelPlan for the doctor.
#include "kernels/gemm/tc/problem.cuh"

namespace sol::kernels::gemm_tc {

void launch_v01_mma_sync(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v02_multistage(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v03_wgmma_tma(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v04_warp_specialized(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v05_persistent(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v06_cluster_multicast(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v07_tma_store(const Problem& p, Workspace& ws, cudaStream_t stream);
void launch_v08_tile_choice(const Problem& p, Workspace& ws, cudaStream_t stream);

// The main kernel a rung launches for p and its geometry, for the doctor (occupancy, waves).
// Optional per rung: the Case reports no kernel (a library peer's view) where a rung has none.
struct KernelPlan {
  const void* func = nullptr;
  int block_threads = 0;
  int64_t grid_blocks = 0;
  int64_t dynamic_smem_bytes = 0;
};
KernelPlan plan_v01_mma_sync(const Problem& p);
KernelPlan plan_v02_multistage(const Problem& p);

}  // namespace sol::kernels::gemm_tc

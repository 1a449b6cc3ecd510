#pragma once
// One launcher per rung of the tensor-core GEMM ladder, each a gemm::tc::Launch (problem.cuh):
// launch_<name> for every rung of SOL_GEMM_TC_RUNGS (sol/gemm_rungs.hpp, where each rung's
// technique is stated). A rung's file defines its kernel and its launcher; the kernels of v03–v07
// are built from the Hopper vocabulary in kernels/gemm/tc/hopper.cuh (v07's sits in
// v07_tma_store.cuh, since v08 launches it too).
// A new rung: a line in SOL_GEMM_TC_RUNGS and a file defining its launcher; optionally a
// plan_<name> for the doctor.
#include "kernels/gemm/tc/problem.cuh"
#include "sol/gemm_rungs.hpp"
#include "sol/registry.hpp"

namespace sol::kernels::gemm::tc {

#define SOL_GEMM_TC_LAUNCHER(name, ...) void launch_##name(const Problem& p, Workspace& ws, cudaStream_t stream);
SOL_GEMM_TC_RUNGS(SOL_GEMM_TC_LAUNCHER)
#undef SOL_GEMM_TC_LAUNCHER

// The main kernel a rung launches for p and its geometry, for the doctor (occupancy, waves).
// Optional per rung: the Case reports no kernel (a library peer's view) where a rung has none.
LaunchInfo plan_v01_mma_sync(const Problem& p);
LaunchInfo plan_v02_multistage(const Problem& p);

}  // namespace sol::kernels::gemm::tc

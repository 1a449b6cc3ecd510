#pragma once
// cuBLASLt's workspace, 32 MiB: what NVIDIA recommends for Hopper. The cuBLASLt peer and
// sol::matmul's cuBLASLt path both offer it, so that the heuristic picks from the same algorithms.
#include <cstddef>

namespace sol::kernels::gemm::tc {
inline constexpr size_t kLtWorkspaceBytes = size_t(32) << 20;
}  // namespace sol::kernels::gemm::tc

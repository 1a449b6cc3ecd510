#pragma once
// Operands a rung cannot read in place, copied into its Workspace first. cp.async (v02) needs a
// 16-byte aligned base and pitch; TMA (v03–v08) needs 16 too, but runs at full speed only when
// each 128-byte box row is one 128-byte line: at 1793³ the Hopper kernel took 48 µs on rows
// packed to a 3600-byte pitch and 41 µs at 3712 bytes (H200, ncu). The copy reads and writes the
// operand once (~14 µs for A and B at 1793³), against the ~6× slower path cuBLAS takes there.
#include <cuda_runtime.h>

#include "kernels/gemm/tc/problem.cuh"

namespace sol::kernels::gemm::tc {

// p with A and/or B replaced by copies in `ws` whose base and pitch are multiples of
// `align_bytes`, for each operand whose own are not; both copies in one launch. Returns p
// unchanged (and launches nothing) when both operands can be read in place.
Problem pack_operands(const Problem& p, Workspace& ws, int align_bytes, cudaStream_t stream);

}  // namespace sol::kernels::gemm::tc

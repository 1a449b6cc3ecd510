#pragma once
// banks (§12 step 4): a transpose through a 32×32 shared-memory tile. The global reads and
// writes are coalesced in every version; what changes is how the tile sits in shared memory's
// 32 banks (4 bytes wide), which decides whether the tile's column reads conflict.
// in: rows × cols fp32 row-major; out: cols × rows row-major, out[c·rows + r] = in[r·cols + c].
// Any rows, cols ≥ 0 (partial edge tiles are masked); 64-bit indexing; asynchronous.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/launch.cuh"

namespace sol::kernels::banks {

// v01: tile[32][32]: a warp reading a tile column hits one bank 32 times (32-way conflict).
void v01_tile32(const float* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream);
// v02: tile[32][33]: one pad word per row shifts each row by a bank (conflict-free).
void v02_padded(const float* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream);
// v03: tile[32][32] with element (r, c) stored at column c ^ r (conflict-free, no padding).
void v03_swizzled(const float* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream);

LaunchInfo v01_tile32_plan(int64_t rows, int64_t cols);
LaunchInfo v02_padded_plan(int64_t rows, int64_t cols);
LaunchInfo v03_swizzled_plan(int64_t rows, int64_t cols);

}  // namespace sol::kernels::banks

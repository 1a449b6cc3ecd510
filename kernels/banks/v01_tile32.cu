// banks v01 — a plain 32×32 tile: element (r, c) at word r·32 + c. Loading a tile row, lane
// tx writes word k·32 + tx: bank tx, conflict-free. Storing a tile column, lane tx reads word
// tx·32 + k: bank k for every lane — a 32-way conflict, the read replays 32 times.
// Expected bottleneck: shared memory, not HBM: each SM then reads 4 B per clock from the
// tile instead of 128 B; on H200 (132 SMs, ~1.98 GHz) ≈ 1 TB/s of tile reads for 4 B/element,
// against 8 B/element of HBM traffic at ~4 TB/s — expect ≈ 2× slower than v02/v03.
#include "kernels/banks/transpose_tile.cuh"

namespace sol::kernels::banks {
namespace {
struct Plain {
  static constexpr int kWords = kTile * kTile;
  __device__ static int at(int r, int c) { return r * kTile + c; }
};
}  // namespace

LaunchInfo v01_tile32_plan(int64_t rows, int64_t cols) { return plan_transpose<Plain>(rows, cols); }
void v01_tile32(const float* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream) {
  transpose<Plain>(gIn, gOut, rows, cols, stream);
}

}  // namespace sol::kernels::banks

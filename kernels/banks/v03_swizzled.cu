// banks v03 — a swizzled tile: element (r, c) at word r·32 + (c ^ r). XOR with the row index
// permutes each row's 32 words, so a tile row still covers all 32 banks (bank tx ^ k when
// lane tx writes (k, tx)), and a tile column does too (bank k ^ tx when lane tx reads (tx, k)).
// No padding: the layout CUTLASS and Triton use, where tiles must stay power-of-two sized.
// What changed: the address map instead of the tile's size.
// Expected bottleneck: HBM, 8 B/element, as v02.
#include "kernels/banks/transpose_tile.cuh"

namespace sol::kernels::banks {
namespace {
struct Swizzled {
  static constexpr int kWords = kTile * kTile;
  static_assert((kTile & (kTile - 1)) == 0, "the XOR swizzle needs a power-of-two tile");
  __device__ static int at(int r, int c) { return r * kTile + (c ^ r); }
};
}  // namespace

LaunchInfo v03_swizzled_plan(int64_t rows, int64_t cols) { return plan_transpose<Swizzled>(rows, cols); }
void v03_swizzled(const float* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream) {
  transpose<Swizzled>(gIn, gOut, rows, cols, stream);
}

}  // namespace sol::kernels::banks

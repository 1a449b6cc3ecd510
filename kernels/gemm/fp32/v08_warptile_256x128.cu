// v08_warptile_256x128: v07 grown to cuBLAS's own fp32 tile on this H200 (256×128, one CTA of 8
// warps per SM; lecture §10): 64×64 warp tiles, 8×16 accumulators per thread, a 3-stage cp.async
// pipeline of BK = 16 k-tiles in which A is transposed by 4-byte copies as it lands, padded sA
// rows (the kernel and its reasoning: v08_warptile.cuh). 3 stages × 24.8 KiB = 74.5 KiB of
// shared memory. BK = 8 with 4 stages (cuBLAS's depth) measured 3.06 ms at 4096³ (0.87× cuBLAS);
// BK = 16 halves the barriers and copy bookkeeping per FFMA: 2.94 ms (0.91×), same run as cuBLAS.
// Expected bottleneck: FP32 issue. Per k-tile a thread issues 2048 FFMA + 96 LDS.128 + 18 cp.async
// with ~35 address and loop instructions and one barrier: ncu counts 2.33 G instructions at 4096³
// for 2.15 G FFMA (92 %; v07: 83 %), 8 warps per SM issuing every 2.6 cycles (cuBLAS: 2.2). FP32
// peak 132 SMs × 128 lanes × 2 × 1.98 GHz ≈ 67 TFLOP/s; cuBLAS 51.2. Traffic: A re-read n/128,
// B m/256 times: 3.3 GB through L2 at 4096³ (v07's 128×128 tiles: 4.4 GB).
#include "kernels/gemm/fp32/v08_warptile.cuh"

namespace sol::kernels::gemm::fp32 {

// The tile and depth as sol/gemm_rungs.hpp states them.
constexpr gemm_rungs::Fp32Rung kRung = *gemm_rungs::find_fp32("v08_warptile_256x128");

LaunchInfo v08_warptile_256x128_plan(const GemmArgs& g) {
  return v08::plan_for<v08::Config<kRung.tile_m, kRung.tile_n, kRung.tile_k, kRung.stages>>(g);
}

}  // namespace sol::kernels::gemm::fp32

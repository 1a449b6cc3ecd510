// v08_warptile_256x128: v07 grown to cuBLAS's own fp32 tile on this H200 (256×128, BK = 8, one
// CTA of 8 warps per SM; lecture §10): 64×64 warp tiles, 8×16 accumulators per thread, a 4-stage
// cp.async pipeline in which A is transposed by 4-byte copies as it lands, padded sA rows
// (the kernel and its reasoning: v08_warptile.cuh). 4 stages × 12.1 KiB = 48.5 KiB of shared memory.
// Expected bottleneck: FP32 issue. Per k-tile a thread issues 1024 FFMA + 48 LDS.128 + 9 cp.async
// (8 A, 1 B) with ~30 address and loop instructions and one barrier: FFMA ≈ 90 % of issued
// instructions (SASS of the interior path; v07: 83 % by ncu). FP32 peak 132 SMs × 128 lanes × 2 ×
// 1.98 GHz ≈ 67 TFLOP/s (59 measured); cuBLAS 51.2 with this very tile. Expect 46–50 TFLOP/s
// (0.90–0.98× cuBLAS) at 4096³: 512 CTAs on 132 SMs = 3.88 waves, as cuBLAS. Traffic: A re-read
// n/128, B m/256 times: 3.3 GB through L2 at 4096³ (v07's 128×128 tiles: 4.4 GB).
// measured: pending H200 run
#include "kernels/gemm/fp32/v08_warptile.cuh"

namespace sol::kernels::gemm_fp32 {

LaunchPlan v08_warptile_256x128_plan(const GemmArgs& g) { return v08::plan_for<v08::Config<256, 128, 8, 4>>(g); }

}  // namespace sol::kernels::gemm_fp32

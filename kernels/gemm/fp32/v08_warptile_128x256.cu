// v08_warptile_128x256: v08_warptile_256x128's kernel (v08_warptile.cuh) on the transposed tile
// with twice the depth: 128×256, BK = 16, 4 stages × 24.3 KiB = 97.3 KiB of shared memory (3 stages
// 256×128 / BK = 8, each barrier and each pass of copy bookkeeping is shared by 2048 FFMA instead
// of 1024, and A (the operand copied 4 bytes at a time) is the narrow side: 8 A copies and 4
// 16-byte B copies per thread per k-tile.
// Expected bottleneck: FP32 issue. Per k-tile a thread issues 2048 FFMA + 96 LDS.128 + 12 cp.async
// with ~35 address and loop instructions: FFMA ≈ 93 % of issued instructions (SASS of the interior
// path). FP32 peak ≈ 67 TFLOP/s (59 measured), cuBLAS 51.2. Expect 47–51 TFLOP/s (0.92–1.0×
// cuBLAS) at 4096³: 512 CTAs on 132 SMs = 3.88 waves. Traffic: A re-read n/256, B m/128 times:
// 3.3 GB through L2 at 4096³.
#include "kernels/gemm/fp32/v08_warptile.cuh"

namespace sol::kernels::gemm::fp32 {

// The tile and depth as sol/gemm_rungs.hpp states them.
constexpr gemm_rungs::Fp32Rung kRung = *gemm_rungs::find_fp32("v08_warptile_128x256");

LaunchInfo v08_warptile_128x256_plan(const GemmArgs& g) {
  return v08::plan_for<v08::Config<kRung.tile_m, kRung.tile_n, kRung.tile_k, kRung.stages>>(g);
}

}  // namespace sol::kernels::gemm::fp32

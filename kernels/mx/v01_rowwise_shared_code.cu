// mx v01 — rowwise through the shared scalar code: thread b quantizes 1×32 block b with
// formats::mx_quantize_block, the very function the host reference runs, so its bits equal the
// host's by construction (the integer rounding of formats/scalar.hpp, no float arithmetic).
// The price: ~30 integer instructions per element and 2-byte loads; lanes' blocks lie 64 bytes
// apart, so each load instruction touches 32 sectors (the later ones hit L1).
// Expected bottleneck: integer issue, not HBM: H200 retires 64 INT32 ops per SM per clock,
// ≈ 17 T/s in all, so ~30 per element ≈ 0.5 ms at 16384² against ~0.27 ms of memory time —
// the ladder's point: the conversion instruction matters as much as the bytes.
#include "kernels/common/check.cuh"
#include "kernels/mx/mx.cuh"

namespace sol::kernels::mx {
namespace {

constexpr int kThreads = 256;

template <Elem E>
__global__ void __launch_bounds__(kThreads)
    rowwise_shared_kernel(const uint16_t* __restrict__ gX, int64_t rows, int64_t cols, formats::ScaleRule rule,
                          uint8_t* __restrict__ gCodes, uint8_t* __restrict__ gScales) {
  const int64_t scale_cols = (cols + formats::kMxBlock - 1) / formats::kMxBlock;
  const int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= rows * scale_cols) return;
  const int64_t c0 = b % scale_cols * formats::kMxBlock, first = b / scale_cols * cols + c0;
  const int n = cols - c0 < formats::kMxBlock ? int(cols - c0) : formats::kMxBlock;  // the last block may be short
  const formats::Minifloat fmt = E == Elem::e4m3 ? formats::fmt_e4m3() : formats::fmt_e5m2();
  gScales[b] = formats::mx_quantize_block(
      n, fmt, rule, [&](int i) { return uint32_t(gX[first + i]) << 16; },
      [&](int i, uint32_t code) { gCodes[first + i] = uint8_t(code); });
}

}  // namespace

LaunchInfo v01_rowwise_shared_code_plan(int64_t rows, int64_t cols, Spec spec) {
  require_count(rows, "rows");
  require_count(cols, "cols");
  LaunchInfo p;
  if (rows == 0 || cols == 0) return p;
  p.grid_blocks = blocks_for(rows * ((cols + formats::kMxBlock - 1) / formats::kMxBlock), kThreads);
  p.block_threads = kThreads;
  p.func = spec.elem == Elem::e4m3 ? reinterpret_cast<const void*>(&rowwise_shared_kernel<Elem::e4m3>)
                                   : reinterpret_cast<const void*>(&rowwise_shared_kernel<Elem::e5m2>);
  return p;
}

void v01_rowwise_shared_code(const __nv_bfloat16* gX, int64_t rows, int64_t cols, Spec spec, Out row,
                             cudaStream_t stream) {
  if (!row.codes || !row.scales) bad_input("an MX output pointer is null", "pass codes and scales");
  const LaunchInfo p = v01_rowwise_shared_code_plan(rows, cols, spec);
  if (p.grid_blocks == 0) return;
  const uint16_t* x = reinterpret_cast<const uint16_t*>(gX);
  if (spec.elem == Elem::e4m3)
    rowwise_shared_kernel<Elem::e4m3>
        <<<unsigned(p.grid_blocks), p.block_threads, 0, stream>>>(x, rows, cols, spec.rule, row.codes, row.scales);
  else
    rowwise_shared_kernel<Elem::e5m2>
        <<<unsigned(p.grid_blocks), p.block_threads, 0, stream>>>(x, rows, cols, spec.rule, row.codes, row.scales);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::mx

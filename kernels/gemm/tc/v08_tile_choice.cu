// v08 — the tile follows the problem. v07's 128×256 tile quantizes badly where the tile count
// lands just past a whole number of waves, or where there are too few tiles to fill the GPU:
// 2049³ makes 153 tiles = 1.16 waves on 132 SMs (the second wave runs 21 tiles), 1024³ makes 32
// tiles for 132 SMs. A 128×128 tile (wgmma m64n128, six 32 KiB stages) halves the work per tile:
// 2049³ becomes 289 tiles = 3 rounds of half-size tiles (1.5 of v07's), 1024³ 64 tiles in one
// half-size round. It costs a third more operand traffic per FLOP (16 KiB of A now feeds half
// as many outputs), so the launcher takes it only where the shape model's round count says the
// quantization saved is larger: time ∝ rounds × tile work, with 128-wide tiles charged 10 %.
// Everything else is v07: producer warpgroup, persistent CTAs, clusters of two multicasting B,
// TMA-store epilogue.
// Expected: 2049³ ~1.3× v07, 1024³ up to ~2× v07; unchanged where the 128×256 tile is chosen.
#include "kernels/gemm/tc/hopper.cuh"
#include "kernels/gemm/tc/rungs.cuh"

namespace sol::kernels::gemm_tc {

namespace {

// Rounds of tiles the persistent grid runs (one CTA per SM, clusters of two CTAs along m).
int64_t rounds(const Problem& p, int64_t tile_n) {
  const int64_t tiles_m = (p.m + hopper::kBlockM - 1) / hopper::kBlockM;
  const int64_t ctas = (tiles_m + 1) / 2 * 2 * ((p.n + tile_n - 1) / tile_n);
  const int64_t sms = hopper::sm_count();
  return (ctas + sms - 1) / sms;
}

// Whether p runs on 128×128 tiles (else 128×256): rounds × tile work, narrow tiles charged 10 %.
bool takes_narrow_tile(const Problem& p) {
  const double wide = double(rounds(p, 256)) * 256.0, narrow = double(rounds(p, 128)) * 128.0 * 1.1;
  return narrow < wide;
}

}  // namespace

void launch_v08_tile_choice(const Problem& p, Workspace& ws, cudaStream_t stream) {
  if (takes_narrow_tile(p))
    hopper::launch_any</*producer=*/true, /*persistent=*/true, /*cluster=*/2, /*tma store=*/true, /*n=*/128>(p, ws,
                                                                                                             stream);
  else
    hopper::launch_any</*producer=*/true, /*persistent=*/true, /*cluster=*/2, /*tma store=*/true, /*n=*/256>(p, ws,
                                                                                                             stream);
}

}  // namespace sol::kernels::gemm_tc

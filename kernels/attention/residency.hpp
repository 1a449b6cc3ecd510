#pragma once
// CTAs each attention kernel keeps resident on one SM, and the wgmma backward's streamed query
// tile: stated once for the kernels' launch bounds and for the model's CTA schedule (spec.cpp).
namespace sol::kernels::attention {

// The mma.sync kernels, forward (v02, v03) and backward (v01, v02): two CTAs per SM.
inline constexpr int kMmaSyncCtasPerSm = 2;
// The wgmma forward (v04, v05): one, by the register file (v04: 288 threads × 168 registers;
// v05: 256 × 255).
inline constexpr int kWgmmaForwardCtasPerSm = 1;
// The wgmma backward: with one warpgroup (v03) two CTAs per SM at d = 128 and three at d = 64
// (shared memory); with two (v04) one (the register file).
constexpr int wgmma_backward_ctas_per_sm(int warpgroups, int d) { return warpgroups == 2 ? 1 : d == 128 ? 2 : 3; }
// Its query rows per streamed tile: 128 for two warpgroups at d = 64, else 64.
constexpr int wgmma_backward_rows(int warpgroups, int d) { return warpgroups == 2 && d == 64 ? 128 : 64; }

}  // namespace sol::kernels::attention

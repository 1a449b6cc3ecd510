// The attention families' cost, host C++ in every build: one byte and FLOP model
// (model::attention) for every forward and backward rung, from b, h, hkv, n, nk, d and the mask.
// Shape rules, tolerance and make are in case.cu (CUDA only).
#include "kernels/attention/case.hpp"
#include "kernels/attention/decode_plan.hpp"

#include "sol/model/cost.hpp"

namespace sol::kernels::attention {

model::Cost cost(const Shape& s, bool flash, bool backward, int64_t block_q) {
  return model::attention_at(s, flash, backward, block_q);
}

model::Cost cost(Version v, const Shape& s) {
  // Every flash rung from v03 on runs 128-row Q tiles (v02: 64; the decode kernel 16-row slices).
  // The tile sets only the L2 traffic (the re-reads are counted once), so the HBM bytes are the
  // same for every flash rung.
  const int64_t block_q = v == Version::v02_flash_mma ? 64 : v == Version::v06_split_kv_decode ? decode_row_tile(1) : 128;
  return cost(s, v != Version::v01_standard, false, block_q);
}

model::Cost cost(BwdVersion, const Shape& s) {
  model::Cost c = cost(s, true, true, 64);
  if (s.get("det", 0))
    c.notes.push_back("det=1: a separate dQ kernel recomputes S and dP (≈ 1.4× the counted FLOPs run); FLOPs "
                      "counted by the convention, 2.5 × forward, so that rates compare");
  return c;
}

}  // namespace sol::kernels::attention

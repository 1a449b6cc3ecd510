#pragma once
// The registry's view of the attention family (no CUDA types).
// Shape: b, h, n (query rows), d (64 or 128); optional hkv (K/V heads, divides h; default h),
// nk (key rows; default n), causal (0/1, bottom-right aligned), fp16 (0/1; default bf16).
// Layout BSHD: Q, O [b, n, h, d], K, V [b, nk, hkv, d], L [b, h, n] fp32 (kernels/attention/forward.cuh).
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::attention {

// dispatch: the public entries (sol::attention_forward, sol::attention_backward), which choose a rung.
// v06: the split-KV decode kernel (n ≤ 16 query tokens; kernels/attention/decode.cu).
enum class Version {
  v01_standard,
  v02_flash_mma,
  v03_flash_mma_128,
  v04_flash_wgmma,
  v05_flash_wgmma_overlap,
  v06_split_kv_decode,
  dispatch
};
// Family attention_bwd: the same shapes; dQ, dK, dV from Q, K, V, dO and the forward's O and L.
enum class BwdVersion { v01_flash_bwd, v02_flash_bwd_8warp, v03_flash_bwd_wgmma, v04_flash_bwd_2wg, dispatch };

// The model's cost for a shape: flash (K/V re-reads served by L2) or the standard kernels' S, P in
// HBM (fp32 S), forward or backward, query blocks of block_q rows (kernels/attention/spec.cpp).
model::Cost cost(const Shape& s, bool flash, bool backward, int64_t block_q);

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

std::string unsupported(BwdVersion v, const Shape& s);
model::Cost cost(BwdVersion v, const Shape& s);
Tolerance tolerance(BwdVersion v);
std::unique_ptr<Case> make(BwdVersion v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::attention

#pragma once
// The split-KV decode forward's device interface (kernels/attention/decode.cu): few query tokens
// (n ≤ kDecodeMaxQueries) against a long KV cache, BSHD as forward.cuh, grouped-query heads, causal
// bottom-right, a sliding window and softcap, optional per-sequence cache lengths and paged K/V.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/attention/decode_plan.hpp"
#include "kernels/attention/forward.cuh"

namespace sol::kernels::attention {

template <class T>
struct DecodeArgs {
  AttnArgs<T> a;                      // Q, K, V, O, LSE (nullptr: not written), sizes, strides
  const int32_t* seqlens_k = nullptr;  // device, b entries: sequence i sees its first seqlens_k[i]
                                      // keys (clamped to [0, nk]); nullptr: every sequence nk
  const int32_t* block_table = nullptr;  // paged K/V (sol::AttentionArgs): [b × pages_per_seq] page
  int64_t pages_per_seq = 0;             // indices; a.ks, a.vs step pages by .batch
  int page_shift = 0;                    // log2 of the keys per page
  DecodeSplit split;                  // decode_split() for this shape
  float* partial_o = nullptr;         // [splits][b][h][n][d] fp32; unused with one split
  float* partial_lse = nullptr;       // [splits][b][h][n] fp32
};

// The shape its split is planned for: the keys the window leaves (decode_keys).
template <class T>
DecodeShape decode_shape(const AttnArgs<T>& a) {
  return {a.b, a.h, a.hkv, a.n, decode_keys(a.n, a.nk, a.window_left, a.causal ? 0 : a.window_right), a.d};
}

// The arguments for a shape on a device of `sms` SMs: its split and, where it has more than one,
// the partials in `workspace` (decode_workspace_bytes() bytes, 256-byte aligned).
template <class T>
DecodeArgs<T> decode_args(const AttnArgs<T>& a, const int32_t* seqlens_k, int sms, void* workspace) {
  DecodeArgs<T> p;
  p.a = a;
  p.seqlens_k = seqlens_k;
  const DecodeShape s = decode_shape(a);
  p.split = decode_split(s, sms);
  if (p.split.splits > 1 && workspace) {
    p.partial_o = static_cast<float*>(workspace);
    p.partial_lse = reinterpret_cast<float*>(static_cast<char*>(workspace) + decode_partial_lse_offset(s, p.split));
  }
  return p;
}

// Launches phase 1 (and, with more than one split, the combine) on `stream`. d ∈ {64, 128}.
template <class T>
void decode_forward(const DecodeArgs<T>& a, cudaStream_t stream);
// Phase 1's launch (the kernel that reads the cache), for the registry's occupancy view.
template <class T>
LaunchInfo decode_plan(const DecodeArgs<T>& a);

}  // namespace sol::kernels::attention

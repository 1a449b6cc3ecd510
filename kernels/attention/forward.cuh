#pragma once
// The attention forward's device interface, shared by the Case and the kernels.
// Layout "BSHD" (FlashAttention's and SDPA's inputs before the transpose):
//   Q, O: [b, n, h, d]    K, V: [b, nk, hkv, d]    L: [b, h, n] fp32 (natural-log logsumexp of
//   the scaled, masked scores of each query row; −∞ where a row sees no key).
// Query head hi reads K/V head hi / (h / hkv) (grouped-query attention).
// Causal: bottom-right aligned, query i sees key j iff j ≤ i + nk − n (FlashAttention ≥ 2.1);
// a sliding window bounds both sides, i + nk − n − left ≤ j ≤ i + nk − n + right
// (sol/core/attention_window.hpp); a row that sees no key has O = 0 and L = −∞. Softcap > 0:
// scores s = scale·q·k become softcap·tanh(s / softcap) before the mask.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/common/launch.cuh"
#include "sol/core/attention_window.hpp"

namespace sol::kernels::attention {

// Element strides of a BSHD tensor's batch, sequence and head dimensions (d is contiguous).
// seq = 0 means packed: [b, rows, heads, d] contiguous. Only the forward's mma.sync rungs (v02,
// v03) take any strides; the TMA rungs (v04, v05) take strided rows and batches of contiguous
// heads (head = d); the standard rung and the backward take packed tensors only.
struct Bshd {
  int64_t batch = 0, seq = 0, head = 0;
};
__host__ __device__ inline Bshd packed_or(Bshd s, int64_t rows, int64_t heads, int64_t d) {
  return s.seq != 0 ? s : Bshd{rows * heads * d, heads * d, d};
}

template <class T>
struct AttnArgs {
  const T* q = nullptr;
  const T* k = nullptr;
  const T* v = nullptr;
  T* o = nullptr;
  float* lse = nullptr;
  int64_t b = 1, h = 1, hkv = 1, n = 1, nk = 1;
  int d = 64;
  bool causal = false;
  float scale = 0;  // 1/√d
  Bshd qs, ks, vs, os;  // strides of Q, K, V, O (packed by default)
  // Last, so that the fields above keep their places in the kernels' parameters.
  int64_t window_left = -1, window_right = -1;  // −1: unbounded (Scores::Windowed kernels only)
  float softcap = 0;                            // 0: off (Scores::Windowed kernels only)
};

// What a kernel computes from q·k, fixed at compile time so that each form is its own code:
//   Plain:    scale·q·k under the run-time causal flag (the rungs as first written, unchanged);
//   Windowed: the sliding window's two bounds (causal is right = 0), the visited tiles cut to it;
//   Capped:   Windowed (its window may be unbounded) with Gemma 2's softcap, cap·tanh(s / cap).
// The softcap is a form of its own, not a run-time branch: in v05 a branch that rewrote S made
// ptxas serialize every wgmma (C7520), and a tanh issued unconditionally would cost the uncapped
// window one more MUFU op per score. The wgmma forward rungs have all three forms, the wgmma
// backward's two-warpgroup rung (v04) and its deterministic dQ too; the decode kernel, bound by
// memory, has Plain and Windowed, the latter taking the softcap as a run-time branch. The other
// rungs refuse a window or a softcap (refuse_scores).
enum class Scores { Plain, Windowed, Capped };

template <class T>
bool windowed(const AttnArgs<T>& a) {
  return a.window_left >= 0 || a.window_right >= 0 || a.softcap > 0.f;
}
template <class T>
Scores scores_of(const AttnArgs<T>& a) {
  return a.softcap > 0.f ? Scores::Capped : windowed(a) ? Scores::Windowed : Scores::Plain;
}
// The window a Windowed or Capped kernel applies against `nk` keys (the decode kernel: a
// sequence's own length), causal folded in as right = 0, in 32-bit rows and keys.
template <class T>
__host__ __device__ inline KeyWindow<int> window_of(const AttnArgs<T>& a, int64_t nk) {
  return key_window<int>(a.n, nk, a.window_left, a.causal ? 0 : a.window_right);
}
// Log2 units per unit of a score accumulator x = q·k: scale·log2e; capped, the accumulator holds
// tanh(x·scale / cap) (capped_input's factor) and a unit of it is cap·log2e.
template <class T>
__host__ __device__ inline float log2_per_unit(const AttnArgs<T>& a, bool capped) {
  return (capped ? a.softcap : a.scale) * 1.4426950408889634f;
}
template <class T>
__host__ __device__ inline float capped_input(const AttnArgs<T>& a) {
  return a.scale / a.softcap;
}

// For the rungs without a Windowed form: a window or softcap is refused, never ignored.
template <class T>
void refuse_scores(const AttnArgs<T>& a, const char* rung) {
  if (windowed(a))
    bad_input(std::string(rung) + ": a sliding window or softcap is not built into this rung",
              "run it on the wgmma rungs (sm_90) or the decode kernel, or through sol::attention_forward");
}

// v01: S = QKᵀ·scale in fp32 (HBM), row softmax → P (T, HBM) and L, O = P·V; three SIMT kernels.
// sS holds b·h·n·nk floats, sP as many T.
template <class T>
void standard_forward(const AttnArgs<T>& a, float* gS, T* gP, cudaStream_t stream);
template <class T>
LaunchInfo standard_plan(const AttnArgs<T>& a);  // the score kernel (the largest of the three)

// v02 (slices = 1) and v03 (slices = 2): FlashAttention-2 forward with mma.sync (d = 64 or 128);
// a CTA owns slices × 64 query rows.
template <class T>
void flash_forward(const AttnArgs<T>& a, cudaStream_t stream, int slices = 1);
template <class T>
LaunchInfo flash_plan(const AttnArgs<T>& a, int slices = 1);

// v04 (overlap = false) and v05 (overlap = true): the same forward on Hopper (sm_90a): K/V tiles
// by TMA, wgmma in two consumer warpgroups of 64 query rows each (kernels/attention/flash_wgmma.cu);
// d = 64 or 128. v05 overlaps a warpgroup's softmax of tile j with its own P·V of tile j − 1.
template <class T>
void flash_wgmma_forward(const AttnArgs<T>& a, cudaStream_t stream, bool overlap = false);
template <class T>
LaunchInfo flash_wgmma_plan(const AttnArgs<T>& a, bool overlap = false);

// Backward (FlashAttention-2): inputs Q, K, V, O, L of the forward and dO (same layout as O);
// outputs dQ, dK, dV (layouts of Q, K, V). Workspaces: dq_accum [b, n, h, d] fp32 (zeroed by the
// D pre-pass, accumulated with atomics, then converted) and delta [b, h, n] fp32 (D = rowsum(dO∘O)).
template <class T>
struct AttnBwdArgs {
  AttnArgs<T> f;  // f.o and f.lse are inputs here
  const T* dout = nullptr;
  T* dq = nullptr;
  T* dk = nullptr;
  T* dv = nullptr;
  float* dq_accum = nullptr;
  float* delta = nullptr;
  // Deterministic: dQ by a separate kernel per query tile that loops over the key tiles in order
  // (recomputing S and dP), instead of atomics from the key-tile kernel.
  bool deterministic = false;
};

template <class T>
void flash_backward(const AttnBwdArgs<T>& a, cudaStream_t stream);
template <class T>
LaunchInfo flash_backward_plan(const AttnBwdArgs<T>& a);  // the main kernel

// v02: the same contract; 8 warps per 64-key CTA with P and dS staged in shared memory so that
// each warp holds dK and dV for 32 keys × a quarter of d (kernels/attention/backward_v02.cu).
template <class T>
void flash_backward_v02(const AttnBwdArgs<T>& a, cudaStream_t stream);
template <class T>
LaunchInfo flash_backward_v02_plan(const AttnBwdArgs<T>& a);  // the main kernel

// v03, v04: the same contract on Hopper (sm_90a): a CTA is `warpgroups` (1 or 2) warpgroups owning
// 64 keys each, Q/dO tiles by TMA, the five GEMMs on wgmma (kernels/attention/backward_wgmma.cu);
// d = 64 or 128.
template <class T>
void flash_backward_wgmma(const AttnBwdArgs<T>& a, cudaStream_t stream, int warpgroups);
template <class T>
LaunchInfo flash_backward_wgmma_plan(const AttnBwdArgs<T>& a, int warpgroups);  // the main kernel

// det=1's dQ for v03/v04 (kernels/attention/backward_dq_wgmma.cu): dQ = scale·Σ dS·K written directly
// (no accumulator, no atomics), a CTA of two warpgroups per 128 query rows walking the key tiles in
// order by TMA and wgmma, S and dP recomputed. Needs delta (bwd::launch_delta) already computed.
template <class T>
void flash_backward_dq_wgmma(const AttnBwdArgs<T>& a, cudaStream_t stream);
template <class T>
LaunchInfo flash_backward_dq_wgmma_plan(const AttnBwdArgs<T>& a);

}  // namespace sol::kernels::attention

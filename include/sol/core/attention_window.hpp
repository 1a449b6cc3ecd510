#pragma once
// Which keys a query row of attention sees, stated once: the reference (sol/ref/attention.hpp),
// the kernels' masks and the key or query tiles they visit (kernels/attention/), the model's pair
// and tile counts (src/model/cost.cpp, src/predict/execution.cpp) and the dispatcher's prediction
// (kernels/api/attention.cu) all call these functions.
//
// n query rows against nk keys, aligned bottom-right: row i's diagonal key is i + nk − n (the
// last row's is the last key). A sliding window of sizes (left, right) — FlashAttention's
// window_size, the local attention of Mistral and Gemma — lets row i see key j iff
//     i + nk − n − left  ≤  j  ≤  i + nk − n + right,
// each bound dropped where its size is −1: causal is (−1, 0), no mask (−1, −1). Keys outside
// [0, nk) do not exist, so a row may see none (its O is 0, its logsumexp −∞).
// Everything but the pair count is constexpr and __host__ __device__, so a kernel's tile range and
// mask are the host's by construction.
#include <cstdint>

#ifndef SOL_HD
#if defined(__CUDACC__)
#define SOL_HD __host__ __device__
#else
#define SOL_HD
#endif
#endif

namespace sol {

// A window whose unbounded sides were given sizes that never bind (key_window), in the index type
// I of its user: the kernels compare 32-bit rows and keys (n + nk < 2^31 there).
template <class I>
struct KeyWindow {
  I shift;        // nk − n: row i's diagonal key is i + shift
  I left, right;  // ≥ 0
  // Row i's first and last key before clamping to [0, nk).
  SOL_HD constexpr I first(I i) const { return i + shift - left; }
  SOL_HD constexpr I last(I i) const { return i + shift + right; }
  SOL_HD constexpr bool sees(I i, I j) const { return first(i) <= j && j <= last(i); }
  // The rows that see key j, before clamping to [0, n): the same inequalities solved for i.
  SOL_HD constexpr I first_row(I j) const { return j - shift - right; }
  SOL_HD constexpr I last_row(I j) const { return j - shift + left; }
  // Whether rows [i0, i1] all see keys [j0, j1] (the bounds of n and nk apart): a tile that needs no
  // mask. The last row's first key and the first row's last key are the binding ones.
  SOL_HD constexpr bool covers(I i0, I i1, I j0, I j1) const { return first(i1) <= j0 && j1 <= last(i0); }
};

// Sizes of −1 (unbounded) become sizes that never bind: left nk (row i's first key i − n < 0) and
// right n (its last i + nk ≥ nk); larger sizes are clamped to them (they never bind either).
template <class I>
SOL_HD constexpr KeyWindow<I> key_window(int64_t n, int64_t nk, int64_t left, int64_t right) {
  return {I(nk - n), I(left < 0 || left > nk ? nk : left), I(right < 0 || right > n ? n : right)};
}

template <class I>
struct TileSpan {
  I begin = 0, end = 0;  // tiles [begin, end)
};

// The tiles of `block` keys that rows [i0, i1] see between them. Consecutive rows' windows are one
// window slid by one key (each at least one key wide), so together the rows see keys first(i0) …
// last(i1), clamped to [0, nk): a query tile visits the key tiles of that range and no other.
// Empty where none of the rows sees a key.
template <class I>
SOL_HD constexpr TileSpan<I> key_tiles(const KeyWindow<I>& w, I i0, I i1, I nk, I block) {
  const I j0 = w.first(i0) > 0 ? w.first(i0) : I(0), j1 = w.last(i1) < nk - 1 ? w.last(i1) : nk - 1;
  return j0 <= j1 ? TileSpan<I>{I(j0 / block), I(j1 / block + 1)} : TileSpan<I>{};
}

// The whole key tiles (inside [0, nk)) that every row of [i0, i1] sees entirely: those that need
// no mask. The binding rows are the last one's first key and the first one's last, so they are a
// range too, inside key_tiles' (empty, begin ≥ end, where the rows share no whole tile).
template <class I>
SOL_HD constexpr TileSpan<I> covered_tiles(const KeyWindow<I>& w, I i0, I i1, I nk, I block) {
  const I j0 = w.first(i1) > 0 ? w.first(i1) : I(0), j1 = w.last(i0) < nk - 1 ? w.last(i0) : nk - 1;
  return j0 <= j1 ? TileSpan<I>{I((j0 + block - 1) / block), I((j1 + 1) / block)} : TileSpan<I>{};
}

// The tiles of `block` rows that see any of keys [j0, j1]: rows i with first(i) ≤ j1 and
// last(i) ≥ j0, i.e. first_row(j0) ≤ i ≤ last_row(j1), clamped to [0, n): a key tile (the
// backward's) visits the query tiles of that range and no other.
template <class I>
SOL_HD constexpr TileSpan<I> query_tiles(const KeyWindow<I>& w, I j0, I j1, I n, I block) {
  const I i0 = w.first_row(j0) > 0 ? w.first_row(j0) : I(0), i1 = w.last_row(j1) < n - 1 ? w.last_row(j1) : n - 1;
  return i0 <= i1 ? TileSpan<I>{I(i0 / block), I(i1 / block + 1)} : TileSpan<I>{};
}

// Query–key pairs in the window over the n rows of one head: Σ_i |[first(i), last(i)] ∩ [0, nk)|,
// the work a windowed (or causal) attention does per head. Closed form: the rows that see a key
// are a range, and each one's count is the window's width less the parts cut off by the two ends
// of [0, nk), two ramps summed exactly.
constexpr double window_pairs(int64_t n, int64_t nk, int64_t left, int64_t right) {
  const KeyWindow<int64_t> w = key_window<int64_t>(n, nk, left, right);
  const int64_t a = w.shift + w.right, b = w.shift - w.left;  // row i sees keys max(0, i + b) … min(nk − 1, i + a)
  const int64_t lo = a < 0 ? -a : 0, hi = nk - 1 - b < n - 1 ? nk - 1 - b : n - 1;  // the rows that see a key
  if (lo > hi) return 0;
  // Σ_{i = from..to} max(0, i + c)
  const auto ramp = [](int64_t from, int64_t to, int64_t c) -> __int128 {
    const int64_t t0 = from > 1 - c ? from : 1 - c;
    if (t0 > to) return 0;
    const __int128 count = to - t0 + 1;
    return count * (__int128(t0) + to) / 2 + count * c;
  };
  const __int128 rows = hi - lo + 1;
  return double(rows * (a - b + 1) - ramp(lo, hi, a - (nk - 1)) - ramp(-hi, -lo, -b));
}

}  // namespace sol

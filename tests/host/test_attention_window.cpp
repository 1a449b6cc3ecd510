// The one statement of which keys a query row sees (sol/core/attention_window.hpp) against the
// definition written out as a brute-force mask, exhaustively over small n, nk, window sizes and
// tile sizes: the per-row bounds, the tiles a query tile or a key tile visits (every visible pair
// inside them, and no tile visited that holds none), the tiles that need no mask, and the pair
// count the model and the dispatcher use.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sol/core/attention_window.hpp"
#include "sol/ref/attention.hpp"

namespace {

using sol::KeyWindow;
using sol::TileSpan;

// The definition: bottom-right aligned, each bound dropped where its size is −1.
bool visible(int64_t n, int64_t nk, int64_t left, int64_t right, int64_t i, int64_t j) {
  const int64_t diag = i + nk - n;
  return j >= 0 && j < nk && (left < 0 || j >= diag - left) && (right < 0 || j <= diag + right);
}

struct Sizes {
  int64_t n, nk, left, right;
};

// Every (n, nk) up to 9 against window sizes −1 … 10 on each side.
std::vector<Sizes> all_sizes() {
  std::vector<Sizes> v;
  for (int64_t n = 1; n <= 9; ++n)
    for (int64_t nk = 1; nk <= 9; ++nk)
      for (int64_t left = -1; left <= 10; ++left)
        for (int64_t right = -1; right <= 10; ++right) v.push_back({n, nk, left, right});
  return v;
}

TEST(AttentionWindow, RowBoundsAreTheDefinition) {
  for (const Sizes& s : all_sizes()) {
    const KeyWindow<int64_t> w = sol::key_window<int64_t>(s.n, s.nk, s.left, s.right);
    const KeyWindow<int> w32 = sol::key_window<int>(s.n, s.nk, s.left, s.right);
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t j = 0; j < s.nk; ++j) {
        ASSERT_EQ(w.sees(i, j), visible(s.n, s.nk, s.left, s.right, i, j))
            << "n=" << s.n << " nk=" << s.nk << " window (" << s.left << ", " << s.right << ") i=" << i << " j=" << j;
        ASSERT_EQ(w32.sees(int(i), int(j)), w.sees(i, j));
        ASSERT_EQ(w.sees(i, j), w.first_row(j) <= i && i <= w.last_row(j));  // the rows that see key j
      }
  }
}

TEST(AttentionWindow, CausalIsRightZeroAndTheReferenceAgrees) {
  for (const Sizes& s : all_sizes()) {
    sol::ref::AttentionHead a{s.n, s.nk, 1, false, 1.0, s.left, s.right};
    for (int64_t i = 0; i < s.n; ++i) {
      int64_t first = s.nk, last = -1;
      for (int64_t j = 0; j < s.nk; ++j)
        if (visible(s.n, s.nk, s.left, s.right, i, j)) first = std::min(first, j), last = std::max(last, j);
      if (last >= 0) {  // the reference's bounds where the row sees a key
        EXPECT_EQ(sol::ref::attention_first_key(a, i), first);
        EXPECT_EQ(sol::ref::attention_last_key(a, i), last);
      } else {
        EXPECT_GT(sol::ref::attention_first_key(a, i), sol::ref::attention_last_key(a, i));
      }
      if (s.right > 0) continue;
      a.causal = true;  // causal with right −1 or 0: the same mask as right = 0
      const int64_t last_causal = sol::ref::attention_last_key(a, i);
      a.causal = false;
      const int64_t right = a.window_right;
      a.window_right = 0;
      EXPECT_EQ(last_causal, sol::ref::attention_last_key(a, i));
      a.window_right = right;
    }
  }
}

// Whether tile t is in a span; whether the 64-bit and the kernels' 32-bit spans agree.
bool inside(const TileSpan<int64_t>& span, int64_t t) { return t >= span.begin && t < span.end; }
bool same(const TileSpan<int64_t>& a, const TileSpan<int>& b) { return a.begin == b.begin && a.end == b.end; }

// A query tile visits the key tiles key_tiles names: every visible pair of its rows lies in them,
// and every one of them holds a visible pair of its rows; covered_tiles names exactly those whose
// every pair is visible. The same for a key tile and query_tiles.
TEST(AttentionWindow, VisitedTilesAreExactlyThoseWithAVisiblePair) {
  for (const Sizes& s : all_sizes())
    for (int64_t block_m = 1; block_m <= 4; ++block_m)
      for (int64_t block_n = 1; block_n <= 4; ++block_n) {
        const KeyWindow<int64_t> w = sol::key_window<int64_t>(s.n, s.nk, s.left, s.right);
        const KeyWindow<int> w32 = sol::key_window<int>(s.n, s.nk, s.left, s.right);
        const int64_t tiles_m = (s.n + block_m - 1) / block_m, tiles_n = (s.nk + block_n - 1) / block_n;
        auto tile_has_pair = [&](int64_t tm, int64_t tn) {
          for (int64_t i = tm * block_m; i < std::min(s.n, (tm + 1) * block_m); ++i)
            for (int64_t j = tn * block_n; j < std::min(s.nk, (tn + 1) * block_n); ++j)
              if (visible(s.n, s.nk, s.left, s.right, i, j)) return true;
          return false;
        };
        const auto where = [&](int64_t tm, int64_t tn) {
          return "n=" + std::to_string(s.n) + " nk=" + std::to_string(s.nk) + " window (" + std::to_string(s.left) +
                 ", " + std::to_string(s.right) + ") tiles " + std::to_string(block_m) + "×" + std::to_string(block_n) +
                 ": query tile " + std::to_string(tm) + ", key tile " + std::to_string(tn);
        };
        auto tile_whole = [&](int64_t tm, int64_t tn) {  // every pair of the tile visible, keys within nk
          if ((tn + 1) * block_n > s.nk) return false;
          for (int64_t i = tm * block_m; i < std::min(s.n, (tm + 1) * block_m); ++i)
            for (int64_t j = tn * block_n; j < (tn + 1) * block_n; ++j)
              if (!visible(s.n, s.nk, s.left, s.right, i, j)) return false;
          return true;
        };
        for (int64_t tm = 0; tm < tiles_m; ++tm) {  // the key tiles each query tile visits, and needs no mask on
          const int64_t i0 = tm * block_m, i1 = std::min(s.n, i0 + block_m) - 1;
          const TileSpan<int64_t> k = sol::key_tiles(w, i0, i1, s.nk, block_n);
          ASSERT_TRUE(same(k, sol::key_tiles(w32, int(i0), int(i1), int(s.nk), int(block_n))));
          const TileSpan<int64_t> c = sol::covered_tiles(w, i0, i1, s.nk, block_n);
          ASSERT_TRUE(same(c, sol::covered_tiles(w32, int(i0), int(i1), int(s.nk), int(block_n))));
          for (int64_t tn = 0; tn < tiles_n; ++tn) {
            ASSERT_EQ(inside(k, tn), tile_has_pair(tm, tn)) << where(tm, tn);
            ASSERT_EQ(inside(c, tn), tile_whole(tm, tn)) << where(tm, tn) << " (no mask)";
          }
        }
        for (int64_t tn = 0; tn < tiles_n; ++tn) {  // the query tiles each key tile visits
          const int64_t j0 = tn * block_n, j1 = std::min(s.nk, j0 + block_n) - 1;
          const TileSpan<int64_t> q = sol::query_tiles(w, j0, j1, s.n, block_m);
          ASSERT_TRUE(same(q, sol::query_tiles(w32, int(j0), int(j1), int(s.n), int(block_m))));
          for (int64_t tm = 0; tm < tiles_m; ++tm) ASSERT_EQ(inside(q, tm), tile_has_pair(tm, tn)) << where(tm, tn);
        }
      }
}

// covers() is exact for whole tiles (the kernels mask a tile iff it is not covered): a tile with
// an invisible pair inside [0, n) × [0, nk) is never called covered, and one with none is.
TEST(AttentionWindow, CoversIsExactInsideTheBounds) {
  for (const Sizes& s : all_sizes()) {
    const KeyWindow<int64_t> w = sol::key_window<int64_t>(s.n, s.nk, s.left, s.right);
    for (int64_t i0 = 0; i0 < s.n; ++i0)
      for (int64_t i1 = i0; i1 < s.n; ++i1)
        for (int64_t j0 = 0; j0 < s.nk; ++j0)
          for (int64_t j1 = j0; j1 < s.nk; ++j1) {
            bool all = true;
            for (int64_t i = i0; i <= i1 && all; ++i)
              for (int64_t j = j0; j <= j1 && all; ++j) all = visible(s.n, s.nk, s.left, s.right, i, j);
            ASSERT_EQ(w.covers(i0, i1, j0, j1), all)
                << "n=" << s.n << " nk=" << s.nk << " window (" << s.left << ", " << s.right << ") rows " << i0 << "…"
                << i1 << " keys " << j0 << "…" << j1;
          }
  }
}

TEST(AttentionWindow, PairCountIsTheMasksCount) {
  for (const Sizes& s : all_sizes()) {
    int64_t count = 0;
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t j = 0; j < s.nk; ++j) count += visible(s.n, s.nk, s.left, s.right, i, j);
    ASSERT_EQ(sol::window_pairs(s.n, s.nk, s.left, s.right), double(count))
        << "n=" << s.n << " nk=" << s.nk << " window (" << s.left << ", " << s.right << ")";
  }
  // Large sizes: no overflow, and the closed forms of the plain and causal cases.
  const int64_t n = int64_t(1) << 31;
  EXPECT_EQ(sol::window_pairs(n, n, -1, -1), double(n) * double(n));
  EXPECT_EQ(sol::window_pairs(n, n, -1, 0), double(n) * double(n + 1) / 2);
  // A Mistral window of 4096 keys over 8192 rows: 4097 keys for each row from 4096 on.
  EXPECT_EQ(sol::window_pairs(8192, 8192, 4096, 0), 4096.0 * 4097 / 2 + 4096.0 * 4097);
  static_assert(sol::window_pairs(5, 5, 1, 1) == 13, "usable at compile time");
}

}  // namespace

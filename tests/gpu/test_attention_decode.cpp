// The split-KV decode path of sol::attention_forward (n ≤ 16 query tokens; kernels/attention/decode.cu):
// its refusals and workspace (no GPU needed), and on a GPU O and L against the double-precision
// reference (sol::ref::attention_row) over query counts 1…16, caches of 1 to 32768 keys, GQA ratios
// 1, 4, 8, d = 64 and 128, causal on and off, bf16 and fp16, strided layouts, per-sequence cache
// lengths (including 0 and 1 keys, and lengths outside [0, nk], which are clamped), paged caches
// (pages of 16, 64, 256 keys in a shuffled order), sliding windows and softcap (with per-sequence
// lengths and paged caches too), and bit-identical reruns.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "kernels/api/choice.hpp"
#include "kernels/attention/decode_plan.hpp"
#include "sol/kernels.hpp"
#include "sol/ref/attention.hpp"
#include "tests/gpu/api_test_util.hpp"

using namespace sol;
using sol::test::DevBuf;
using sol::test::fake_pointer;

namespace {

AttentionArgs decode_args(int64_t b, int64_t h, int64_t hkv, int64_t n, int64_t nk, int d) {
  return sol::test::fake_attention_args(b, h, hkv, n, nk, d);
}

constexpr size_t kBigWorkspace = size_t(1) << 30;

}  // namespace

TEST(AttentionDecode, RefusesPerSequenceLengthsOutsideDecode) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  AttentionArgs a = decode_args(2, 4, 2, 17, 100, 64);  // 17 query tokens: a prefill rung
  a.seqlens_k = static_cast<const int32_t*>(fake_pointer(6));
  SOL_EXPECT_BAD_INPUT(attention_forward(a, fake_pointer(10), kBigWorkspace, nullptr), "seqlens_k");
  SOL_EXPECT_BAD_INPUT(explain_attention_forward(a), "n ≤ 16");
  a.n = 16;
  a.seqlens_k = reinterpret_cast<const int32_t*>(static_cast<char*>(fake_pointer(6)) + 2);
  SOL_EXPECT_BAD_INPUT(attention_forward(a, fake_pointer(10), kBigWorkspace, nullptr), "4-byte aligned");
  AttentionBackwardArgs g;
  g.fwd = decode_args(2, 4, 2, 1, 100, 64);
  g.fwd.seqlens_k = static_cast<const int32_t*>(fake_pointer(6));
  g.dout = fake_pointer(7), g.dq = fake_pointer(8), g.dk = fake_pointer(9), g.dv = fake_pointer(11);
  SOL_EXPECT_BAD_INPUT(attention_backward(g, fake_pointer(10), kBigWorkspace, nullptr), "seqlens_k");
}

TEST(AttentionDecode, RefusesBadPageTables) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  auto forward = [](const AttentionArgs& a) { attention_forward(a, fake_pointer(10), kBigWorkspace, nullptr); };
  AttentionArgs a = decode_args(2, 4, 2, 17, 1000, 64);
  a.block_table = static_cast<const int32_t*>(fake_pointer(6));
  a.page_size = 16;
  a.pages_per_seq = 63;
  SOL_EXPECT_BAD_INPUT(forward(a), "block_table");  // 17 query tokens
  a.n = 1;
  a.page_size = 48;
  SOL_EXPECT_BAD_INPUT(forward(a), "page_size = 48");
  a.page_size = 512;
  SOL_EXPECT_BAD_INPUT(forward(a), "page_size = 512");
  a.page_size = 16;
  a.pages_per_seq = 62;  // 992 keys < 1000
  SOL_EXPECT_BAD_INPUT(forward(a), "do not hold");
  a.pages_per_seq = 63;
  a.block_table = reinterpret_cast<const int32_t*>(static_cast<char*>(fake_pointer(6)) + 2);
  SOL_EXPECT_BAD_INPUT(forward(a), "block_table is not 4-byte aligned");
  AttentionBackwardArgs g;
  g.fwd = decode_args(2, 4, 2, 1, 1000, 64);
  g.fwd.block_table = static_cast<const int32_t*>(fake_pointer(6));
  g.fwd.page_size = 16;
  g.fwd.pages_per_seq = 63;
  g.dout = fake_pointer(7), g.dq = fake_pointer(8), g.dk = fake_pointer(9), g.dv = fake_pointer(11);
  SOL_EXPECT_BAD_INPUT(attention_backward(g, fake_pointer(10), kBigWorkspace, nullptr), "block_table");
}

TEST(AttentionDecode, WorkspaceIsThePartialsBound) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  AttentionArgs a = decode_args(2, 16, 16, 1, 4096, 128);
  const kernels::attention::DecodeShape s{2, 16, 16, 1, 4096, 128};
  const size_t need = attention_forward_workspace_size(a);
  EXPECT_EQ(need, kernels::attention::decode_workspace_bound(s));
  EXPECT_GT(need, 0u);  // 32 CTAs unsplit fill no GPU
  a.lse = nullptr;      // the decode kernel does not need the logsumexp in the workspace
  EXPECT_EQ(attention_forward_workspace_size(a), need);
  SOL_EXPECT_BAD_INPUT(attention_forward(a, fake_pointer(10), need - 1, nullptr), "needed");
  SOL_EXPECT_BAD_INPUT(attention_forward(a, nullptr, 0, nullptr), "workspace");
  // A batch that fills the GPU unsplit needs none.
  EXPECT_EQ(attention_forward_workspace_size(decode_args(64, 32, 8, 1, 8192, 128)), 0u);
}

// The choice on a given compute capability (no GPU needed): decode shapes go to v06 on every
// device, with the H200 floor as the prediction; n = 17 does not.
TEST(AttentionDecode, ChoiceRoutesFewQueryTokensToTheDecodeKernel) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  for (int cc : {80, 90}) {
    for (int64_t n : {1, 8, 16}) {
      AttentionArgs a = decode_args(8, 32, 8, n, 32768, 128);
      a.causal = true;
      const Choice c = api::explain_attention_forward_on(a, cc);
      EXPECT_EQ(c.implementation, "attention/v06_split_kv_decode") << c.reason;
      EXPECT_NE(c.reason.find("split-KV decode"), std::string::npos) << c.reason;
      // 8 · 32768 · 8 KV heads · 128 · 2 (K and V) · 2 bytes = 1.07 GB at ≈ 4.8 TB/s: ≈ 0.22 ms.
      EXPECT_GT(c.predicted_s, 1.5e-4) << c.reason;
      EXPECT_LT(c.predicted_s, 3.5e-4) << c.reason;
    }
  }
  const Choice prefill = api::explain_attention_forward_on(decode_args(8, 32, 8, 17, 32768, 128), 90);
  EXPECT_NE(prefill.implementation, "attention/v06_split_kv_decode") << prefill.reason;
}

// A window or softcap stays on the decode kernel, on any device; its splits cover the keys the
// window leaves (n + left + right of them), so both the split and the prediction shrink.
TEST(AttentionDecode, WindowedDecodeSplitsOnlyTheWindow) {
  const sol::test::UnmeasuredOptIn opt_in;
  AttentionArgs a = decode_args(8, 32, 8, 1, 32768, 128);
  a.causal = true;
  const Choice whole = api::explain_attention_forward_on(a, 80);
  a.window_left = 4096;
  for (int cc : {80, 90}) {
    const Choice windowed = api::explain_attention_forward_on(a, cc);
    EXPECT_EQ(windowed.implementation, "attention/v06_split_kv_decode") << windowed.reason;
    EXPECT_LT(windowed.predicted_s, whole.predicted_s / 4) << windowed.reason;  // 4097 of 32768 keys
  }
  const kernels::attention::DecodeShape s{8, 32, 8, 1, kernels::attention::decode_keys(1, 32768, 4096, 0), 128};
  EXPECT_EQ(s.nk, 4097);
  // The workspace query sizes the window's split (which may have more splits than the whole
  // cache's, never fewer keys covered).
  const kernels::attention::DecodeSplit p = kernels::attention::decode_split(s, kernels::attention::kDecodeMaxSms);
  EXPECT_GE(p.splits * p.keys_per_split, 4097);
  a.softcap = 30;
  EXPECT_EQ(api::explain_attention_forward_on(a, 80).implementation, "attention/v06_split_kv_decode");
  EXPECT_GE(attention_forward_workspace_size(a), kernels::attention::decode_workspace_bytes(s, p));
}

// ---- on a GPU -------------------------------------------------------------------------------------

namespace {

struct DecodeCase {
  int64_t b, h, hkv, n, nk;
  int d;
  bool causal, fp16;
  std::vector<int32_t> lens;  // per-sequence cache lengths; empty: nk each
  bool strided = false;       // Q and O rows padded, K and V interleaved in one buffer
  int page_size = 0;          // > 0: a paged cache of packed pages, in shuffled order
  int64_t wl = -1, wr = -1;   // a sliding window (−1: unbounded)
  float softcap = 0;
};

std::string name(const DecodeCase& x) {
  std::string s = "b=" + std::to_string(x.b) + ",h=" + std::to_string(x.h) + ",hkv=" + std::to_string(x.hkv) +
                  ",n=" + std::to_string(x.n) + ",nk=" + std::to_string(x.nk) + ",d=" + std::to_string(x.d) +
                  (x.causal ? ",causal" : "") + (x.fp16 ? ",fp16" : "") + (x.strided ? ",strided" : "") +
                  (x.page_size ? ",page=" + std::to_string(x.page_size) : "") +
                  (x.wl >= 0 || x.wr >= 0 ? ",window=(" + std::to_string(x.wl) + "," + std::to_string(x.wr) + ")" : "") +
                  (x.softcap > 0 ? ",softcap=" + std::to_string(int(x.softcap)) : "");
  if (!x.lens.empty()) {
    s += ",lens=";
    for (int32_t l : x.lens) s += std::to_string(l) + " ";
  }
  return s;
}

// Exact small values k/8, |k| ≤ 8, from a 64-bit mix of (salt, i): exact in bf16 and fp16.
double small_value(uint64_t salt, uint64_t i) {
  uint64_t z = i * 0xD1B54A32D192ED03ull + salt * 0x9E3779B97F4A7C15ull + 1;
  z = (z ^ (z >> 32)) * 0xDABA0B6EB7D5A5A5ull;
  z ^= z >> 29;
  return double(int64_t(z % 17) - 8) / 8.0;
}

// Element offsets of the four tensors' layouts (BSHD strides) and their buffers.
struct Layout {
  BSHDStrides q, kv, o;
  size_t q_elems = 0, kv_elems = 0, o_elems = 0, v_offset = 0;  // v_offset: V's start in the KV buffer
  int page_size = 0;            // paged: keys per page, the table, pages per sequence
  std::vector<int32_t> table;
  int64_t pages_per_seq = 0;
};

Layout layout(const DecodeCase& x) {
  Layout l;
  const int64_t d = x.d;
  if (x.page_size) {  // packed pages [pages, page_size, hkv, d], two spare, used in a shuffled order
    l.page_size = x.page_size;
    l.pages_per_seq = (x.nk + x.page_size - 1) / x.page_size;
    const int64_t pages = x.b * l.pages_per_seq + 2;
    std::vector<int32_t> order(static_cast<size_t>(pages));
    for (int64_t i = 0; i < pages; ++i) order[size_t(i)] = int32_t((i * 7 + 3) % pages);  // a permutation when gcd(7, pages) = 1
    l.table.assign(order.begin(), order.begin() + x.b * l.pages_per_seq);
    l.q = l.o = {x.n * x.h * d, x.h * d, d};
    l.kv = {x.page_size * x.hkv * d, x.hkv * d, d};
    l.q_elems = l.o_elems = size_t(x.b * x.n * x.h * d);
    l.v_offset = size_t(pages * l.kv.batch);
    l.kv_elems = 2 * l.v_offset;
    return l;
  }
  if (!x.strided) {
    l.q = l.o = {x.n * x.h * d, x.h * d, d};
    l.kv = {x.nk * x.hkv * d, x.hkv * d, d};
    l.q_elems = l.o_elems = size_t(x.b * x.n * x.h * d);
    l.kv_elems = size_t(x.b * x.nk * x.hkv * d);
    l.v_offset = l.kv_elems;  // K then V in one buffer
    l.kv_elems *= 2;
    return l;
  }
  l.q = {x.n * (x.h * d + 16) + 8, x.h * d + 16, d};  // rows padded, batches apart
  l.o = {x.n * x.h * (d + 8), x.h * (d + 8), d + 8};  // heads padded
  l.kv = {x.nk * 2 * x.hkv * d, 2 * x.hkv * d, d};    // [b, nk, 2, hkv, d]: K and V of a row side by side
  l.q_elems = size_t(x.b * l.q.batch);
  l.o_elems = size_t(x.b * l.o.batch);
  l.kv_elems = size_t(x.b * l.kv.batch);
  l.v_offset = size_t(x.hkv * d);
  return l;
}

size_t at(const BSHDStrides& s, int64_t bi, int64_t r, int64_t hi) { return size_t(bi * s.batch + r * s.seq + hi * s.head); }

// Key j of sequence bi, KV head hk, in K's buffer (V: + v_offset).
size_t key_at(const Layout& l, int64_t bi, int64_t j, int64_t hk) {
  if (!l.page_size) return at(l.kv, bi, j, hk);
  return at(l.kv, l.table[size_t(bi * l.pages_per_seq + j / l.page_size)], j % l.page_size, hk);
}

struct Output {
  std::vector<uint16_t> o;
  std::vector<float> lse;
  Choice choice;
};

// Runs the decode through the public API; inputs from seeds 1–3.
Output run(const DecodeCase& x, const Layout& l, const std::vector<uint16_t>& q, const std::vector<uint16_t>& kv, bool with_lse) {
  DevBuf dq(q.size() * 2), dkv(kv.size() * 2), dout(l.o_elems * 2), dlse(size_t(x.b * x.h * x.n) * 4),
      dlens(std::max<size_t>(1, x.lens.size()) * 4), dtable(std::max<size_t>(1, l.table.size()) * 4);
  dq.upload(q);
  dkv.upload(kv);
  if (!x.lens.empty()) dlens.upload(x.lens);
  if (!l.table.empty()) dtable.upload(l.table);
  AttentionArgs a;
  a.dtype = x.fp16 ? DType::f16 : DType::bf16;
  a.b = x.b, a.h = x.h, a.h_kv = x.hkv, a.n = x.n, a.nk = x.nk, a.d = x.d, a.causal = x.causal;
  a.window_left = x.wl, a.window_right = x.wr, a.softcap = x.softcap;
  a.q = dq.get();
  a.k = dkv.get();
  a.v = dkv.get<uint16_t>() + l.v_offset;
  a.o = dout.get();
  a.lse = with_lse ? dlse.get<float>() : nullptr;
  a.q_stride = l.q;
  a.k_stride = a.v_stride = l.page_size ? BSHDStrides{} : l.kv;  // paged: packed pages by default
  if (l.page_size) {
    a.block_table = dtable.get<int32_t>();
    a.pages_per_seq = l.pages_per_seq;
    a.page_size = l.page_size;
  }
  a.o_stride = l.o;
  a.seqlens_k = x.lens.empty() ? nullptr : dlens.get<int32_t>();
  const size_t ws_bytes = attention_forward_workspace_size(a);
  DevBuf ws(ws_bytes);
  Output r;
  r.choice = explain_attention_forward(a);
  attention_forward(a, ws.get(), ws_bytes, nullptr);
  r.o = dout.download<uint16_t>(l.o_elems);
  r.lse = dlse.download<float>(size_t(x.b * x.h * x.n));
  return r;
}

// One decode against the reference on every row of every head; returns the device's outputs.
Output check(const DecodeCase& x, bool with_lse = true) {
  const Layout l = layout(x);
  std::vector<uint16_t> q(l.q_elems, 0), kv(l.kv_elems, 0);
  for (size_t i = 0; i < q.size(); ++i) q[i] = test::half_bits(small_value(1, i), x.fp16);
  for (size_t i = 0; i < kv.size(); ++i) kv[i] = test::half_bits(small_value(2, i), x.fp16);
  const Output r = run(x, l, q, kv, with_lse);
  EXPECT_EQ(r.choice.implementation, "attention/v06_split_kv_decode") << r.choice.reason;

  const double scale = 1.0 / std::sqrt(double(x.d));
  const int64_t d = x.d;
  std::vector<double> want_o, have_o, want_l, have_l;
  for (int64_t bi = 0; bi < x.b; ++bi) {
    const int64_t len = x.lens.empty() ? x.nk : std::clamp<int64_t>(x.lens[size_t(bi)], 0, x.nk);
    for (int64_t hi = 0; hi < x.h; ++hi) {
      const int64_t hk = hi / (x.h / x.hkv);
      std::vector<double> kh(size_t(len * d)), vh(kh.size());
      for (int64_t j = 0; j < len; ++j)
        for (int64_t c = 0; c < d; ++c) {
          kh[size_t(j * d + c)] = test::half_value(kv[key_at(l, bi, j, hk) + size_t(c)], x.fp16);
          vh[size_t(j * d + c)] = test::half_value(kv[l.v_offset + key_at(l, bi, j, hk) + size_t(c)], x.fp16);
        }
      ref::AttentionHead head{x.n, len, d, x.causal, scale};
      head.window_left = x.wl;
      head.window_right = x.wr;
      head.softcap = x.softcap;
      for (int64_t i = 0; i < x.n; ++i) {
        std::vector<double> qrow(static_cast<size_t>(d)), orow(static_cast<size_t>(d), 0.0);
        for (int64_t c = 0; c < d; ++c) qrow[size_t(c)] = test::half_value(q[at(l.q, bi, i, hi) + size_t(c)], x.fp16);
        // No visible key (an empty cache, causal with more tokens than keys, a window past the
        // cache's ends): O = 0, L = −∞.
        const bool sees = len > 0 && ref::attention_first_key(head, i) <= ref::attention_last_key(head, i);
        const double want = sees ? ref::attention_row(head, i, qrow.data(), kh.data(), vh.data(), orow.data()) : -INFINITY;
        const float got = r.lse[size_t((bi * x.h + hi) * x.n + i)];
        if (with_lse) {
          if (std::isinf(want)) {
            EXPECT_TRUE(std::isinf(got) && got < 0) << "b " << bi << " h " << hi << " row " << i << ": L = " << got;
          } else {
            want_l.push_back(want);
            have_l.push_back(got);
          }
        }
        for (int64_t c = 0; c < d; ++c) {
          const double o = test::half_value(r.o[at(l.o, bi, i, hi) + size_t(c)], x.fp16);
          if (!sees) {
            EXPECT_EQ(o, 0.0) << "b " << bi << " h " << hi << " row " << i << " col " << c;
          }
          want_o.push_back(orow[size_t(c)]);
          have_o.push_back(o);
        }
      }
    }
  }
  EXPECT_LT(test::rel_l2(have_o, want_o), 1e-2) << r.choice.reason;
  if (!want_l.empty()) {
    EXPECT_LT(test::rel_l2(have_l, want_l), 1e-3) << r.choice.reason;
  }
  return r;
}

// Query counts 1, 2, 7, 16 × caches 1, 17, 1000, 4097, 32768 × GQA 1, 4, 8 × d 64, 128 × causal ×
// dtype, covered pairwise rather than in full (the double reference costs n·h·nk·d per case).
const DecodeCase kCases[] = {
    {1, 1, 1, 1, 1, 64, false, false, {}},      {2, 4, 1, 1, 17, 128, true, false, {}},
    {1, 8, 1, 2, 1000, 128, false, true, {}},   {2, 8, 2, 7, 1000, 64, true, false, {}},
    {1, 4, 4, 16, 17, 128, true, true, {}},     {1, 8, 1, 16, 4097, 128, true, false, {}},
    {1, 16, 2, 16, 4097, 64, false, true, {}},  {2, 2, 2, 1, 32768, 128, false, false, {}},
    {1, 8, 2, 2, 32768, 64, true, true, {}},    {1, 4, 1, 7, 4097, 64, true, false, {}},
    {3, 32, 4, 16, 333, 64, true, false, {}},   {1, 2, 2, 16, 5, 128, true, false, {}},
    {1, 8, 8, 7, 1, 128, true, true, {}},       {1, 32, 1, 16, 1000, 128, false, false, {}},
};

}  // namespace

TEST(AttentionDecode, MatchesReference) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  for (const DecodeCase& x : kCases) {
    SCOPED_TRACE(name(x));
    check(x);
  }
}

TEST(AttentionDecode, ServesStridedLayouts) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DecodeCase x : {DecodeCase{2, 8, 2, 7, 1000, 128, true, false, {}}, DecodeCase{1, 4, 4, 1, 4097, 64, false, true, {}}}) {
    x.strided = true;
    SCOPED_TRACE(name(x));
    check(x);
  }
}

TEST(AttentionDecode, PerSequenceCacheLengths) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  // 0 keys (O = 0, L = −∞), 1 key, fewer keys than causal tokens, a split's edge, the whole cache,
  // and lengths outside [0, nk] (clamped).
  const std::vector<int32_t> lens = {0, 1, 5, 17, 1000, 4095, 4096, -3, 5000};
  for (DecodeCase x : {DecodeCase{9, 8, 2, 7, 4096, 128, true, false, lens}, DecodeCase{9, 4, 1, 1, 4096, 64, false, true, lens},
                 DecodeCase{9, 8, 8, 16, 4096, 64, false, false, lens}}) {
    SCOPED_TRACE(name(x));
    check(x);
  }
}

// Pages of 16 (a tile spans four), 64 and 256 keys in a shuffled order, with per-sequence lengths.
TEST(AttentionDecode, PagedCache) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  const std::vector<int32_t> lens = {0, 1, 17, 1000, 999};
  DecodeCase cases[] = {{3, 8, 2, 7, 1000, 128, true, false, {}}, {2, 4, 4, 1, 4097, 64, false, true, {}},
                        {5, 16, 2, 16, 1000, 128, true, false, lens}};
  const int pages[] = {16, 256, 64};
  for (size_t i = 0; i < std::size(cases); ++i) {
    cases[i].page_size = pages[i];
    SCOPED_TRACE(name(cases[i]));
    check(cases[i]);
  }
}

// Windows (aligned to each sequence's own length) and softcap: a causal window over a split cache,
// two-sided windows at GQA 4 and 8 with softcap 30, width one, n > nk, 4096 keys of a 32k cache
// (many splits, most of the cache skipped); with per-sequence lengths (0, 1, shorter than the
// window, longer) and with paged caches.
TEST(AttentionDecode, SlidingWindowAndSoftcap) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  const auto windowed = [](DecodeCase x, int64_t wl, int64_t wr, float softcap) {
    x.wl = wl, x.wr = wr, x.softcap = softcap;
    return x;
  };
  const std::vector<int32_t> lens = {0, 1, 5, 17, 100, 1000, 4095, 4096, 3000};
  const std::vector<int32_t> paged_lens = {0, 1, 17, 1000, 999};
  DecodeCase paged[] = {windowed({5, 16, 2, 16, 1000, 128, true, false, paged_lens}, 300, -1, 0),
                        windowed({2, 4, 4, 1, 4097, 64, false, true, {}}, 64, 0, 50)};
  paged[0].page_size = 64;
  paged[1].page_size = 16;
  for (const DecodeCase& x :
       {windowed({2, 8, 2, 7, 1000, 64, true, false, {}}, 256, -1, 0),
        windowed({1, 8, 1, 16, 4097, 128, false, false, {}}, 127, 33, 30),
        windowed({3, 32, 4, 1, 333, 64, false, true, {}}, 0, 0, 0),
        windowed({1, 2, 2, 16, 5, 128, true, false, {}}, 3, -1, 50),
        windowed({1, 8, 2, 1, 32768, 128, true, false, {}}, 4096, -1, 0),
        windowed({1, 4, 4, 2, 1000, 64, false, false, {}}, -1, -1, 30),
        windowed({9, 8, 2, 7, 4096, 128, true, false, lens}, 100, -1, 0),
        windowed({9, 4, 1, 1, 4096, 64, false, true, lens}, 1000, 2, 30), paged[0], paged[1]}) {
    SCOPED_TRACE(name(x));
    check(x);
  }
}

TEST(AttentionDecode, WritesOWithoutLogsumexp) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  check(DecodeCase{2, 8, 2, 2, 4097, 128, true, false, {}}, false);
}

// Splits combined in a fixed order: the same bits every run.
TEST(AttentionDecode, IsBitIdenticalAcrossRuns) {
  const sol::test::UnmeasuredOptIn opt_in;  // the decode kernel is not in the table yet
  SOL_REQUIRE_GPU_OR_SKIP();
  const DecodeCase x{1, 8, 2, 7, 32768, 128, true, false, {}};
  const Output first = check(x), second = check(x);
  EXPECT_TRUE(first.o == second.o);
  EXPECT_TRUE(first.lse == second.lse);
  EXPECT_NE(first.choice.reason.find(" splits of "), std::string::npos) << first.choice.reason;  // more than one
}

#else
TEST(AttentionDecode, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif  // SOL_WITH_CUDA

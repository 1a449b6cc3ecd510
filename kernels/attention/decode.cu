// v06_split_kv_decode: flash-decoding — a few query tokens per sequence against a long KV cache.
// Decode is memory-bound: each query row does 4·d FLOPs per key, so every K/V byte must be read
// from HBM exactly once and the question is only how to keep enough of those reads in flight.
// Two things provide it. (1) Grouped-query packing: the n query tokens × the h/h_kv query heads
// that share one KV head become the M rows of one CTA's MMAs (token-major), so each K/V tile read
// serves all of them (m16n8k16 needs 16 rows; one token of a head alone would leave 15 idle).
// (2) Splitting the cache: b · h_kv · row blocks is far below a GPU's worth of CTAs at decode
// batch sizes, so the keys are cut into splits (decode_plan.hpp's one rule fills one wave).
// Phase 1, one CTA per (split · row block, KV head, batch), 4 warps: K and V tiles of 64 keys
// stream through 3 cp.async stages of XOR-swizzled shared memory; every warp takes 16 keys of each
// tile for all of the CTA's rows (the rows are few; splitting the keys over the warps is what keeps
// four warps busy), runs S = Q·Kᵀ and O += P·V on mma.sync with fp32 accumulation and the online
// softmax in registers (P re-packed from S's accumulators as the A operand, as flash.cu). At the
// end the four warps' (max, sum, O) are merged through shared memory in a fixed order; with one
// split the CTA writes O and LSE, otherwise its normalized fp32 O and its logsumexp go to the
// workspace. Phase 2, a small kernel, one warp per output row: O = Σ e^(L_s − L) · O_s over the
// splits in order (deterministic, no atomics), L = log Σ e^(L_s).
// Paged K/V (a block table of pages of 16–256 keys): each key row's address from its page.
// Masks: keys past the sequence's length (per-sequence lengths clamp to [0, nk]) and, causal,
// bottom-right: token i sees key j iff j ≤ i + len − n. A row that sees no key: O = 0, L = −∞.
// Scores::Windowed (a sliding window, aligned to each sequence's own length, and the softcap):
// the splits cover only the keys the sequence's rows see between them (decode_keys: from row 0's
// first key), a CTA's tiles only its own rows' (sol/core/attention_window.hpp), and each row is
// masked on both sides. The softcap, tanh(x·scale/cap) before the mask, is a run-time branch here:
// the kernel is bound by memory, and one form for both keeps its instantiations few.
// Expected bound: HBM (b · nk · h_kv · d · 2 · 2 bytes of K and V); the tensor cores idle most of
// the time (with ≤ 16 rows per KV head a 16-row MMA is 16·64·d·4 FLOPs per 64·d·4 bytes).
// Ideas from FlashAttention's split-KV forward and FlashInfer's decode kernels (no code taken).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/decode.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/attention/online_softmax.cuh"

namespace sol::kernels::attention {
namespace {

constexpr int kThreads = 32 * kDecodeWarps;
constexpr int kWarpKeys = kDecodeTileKeys / kDecodeWarps;  // keys per warp per tile: one k16 step of P·V
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
static_assert(kWarpKeys == 16, "each warp's keys are one 16-wide k step of P·V (two 8-key blocks of S)");
static_assert(kDecodeStages >= 2, "the pipeline needs at least two stages");

template <class T, int kD, int kSlices, Scores kScores>
__global__ void __launch_bounds__(kThreads, decode_launch_min_ctas(kD)) decode_kernel(DecodeArgs<T> p) {
  constexpr bool kWindowed = kScores != Scores::Plain;
  static_assert(kScores != Scores::Capped, "the Windowed form takes the softcap at run time");
  constexpr int kRows = decode_row_tile(kSlices);
  constexpr int kDSteps = kD / 16;
  constexpr int kOBlocks = kD / 8;
  constexpr int kChunks = kD / 8;  // 16-byte pieces of a row
  constexpr int kTileElems = kDecodeTileKeys * kD;
  constexpr bool kQInRegisters = kSlices == 1;
  // The merge's scratch (fp32 O of every warp, then each warp's row max and sum) reuses the stages.
  static_assert((kDecodeWarps * kRows * kD + 2 * kDecodeWarps * kRows) * 4 <= kDecodeStages * 2 * kTileElems * 2,
                "the cross-warp merge must fit in the K/V stages");
  static_assert(decode_smem_bytes(kD, kSlices) == (2 * kDecodeStages * kTileElems + kRows * kD) * 2, "layout");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sK = reinterpret_cast<T*>(smem_raw);  // kDecodeStages tiles
  T* sV = sK + kDecodeStages * kTileElems;
  T* sQ = sV + kDecodeStages * kTileElems;

  const AttnArgs<T>& a = p.a;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t row_blocks = p.split.row_blocks;
  const int64_t split = blockIdx.x / row_blocks, r0 = (blockIdx.x % row_blocks) * kRows;
  const int64_t hk = blockIdx.y, bi = blockIdx.z;
  const int64_t group = a.h / a.hkv, rows = p.split.rows;
  const Bshd qs = packed_or(a.qs, a.n, a.h, kD), ks = packed_or(a.ks, a.nk, a.hkv, kD),
             vs = packed_or(a.vs, a.nk, a.hkv, kD);
  const T* gK = a.k + bi * ks.batch + hk * ks.head;
  const T* gV = a.v + bi * vs.batch + hk * vs.head;

  // This sequence's keys, this split's range of them, and (causal) the last one its rows see.
  int64_t len = a.nk;
  if (p.seqlens_k) len = min(max(int64_t(p.seqlens_k[bi]), int64_t(0)), a.nk);
  const int64_t shift = len - a.n;  // token i sees keys j ≤ i + shift when causal
  const int64_t last_row = min(r0 + kRows, rows) - 1;
  // Windowed: the window against this sequence's length; its splits start at the first key its
  // rows see, and this CTA's rows (tokens r0 / group … last_row / group) cut the range further.
  const KeyWindow<int> window = window_of(a, len);
  int64_t k_begin = split * p.split.keys_per_split, k_end = 0;
  if constexpr (kWindowed) {
    const int64_t seq_first = max(int64_t(window.first(0)), int64_t(0));
    const TileSpan<int> keys = key_tiles(window, int(r0 / group), int(last_row / group), int(len), 1);
    k_end = min(min(seq_first + k_begin + p.split.keys_per_split, int64_t(keys.end)), len);
    k_begin = max(seq_first + k_begin, int64_t(keys.begin));
  } else {
    k_end = min(k_begin + p.split.keys_per_split, len);
    if (a.causal) k_end = min(k_end, last_row / group + shift + 1);
  }
  const int tiles = k_end > k_begin ? int((k_end - k_begin + kDecodeTileKeys - 1) / kDecodeTileKeys) : 0;

  // Q rows r0 … r0 + kRows − 1: row r is token r / group of query head hk·group + r % group; rows
  // past the last are zeros.
  for (int idx = threadIdx.x; idx < kRows * kChunks; idx += kThreads) {
    const int row = idx / kChunks, chunk = idx % kChunks;
    const int64_t r = r0 + row;
    const bool inside = r < rows;
    const T* src = inside ? a.q + bi * qs.batch + (r / group) * qs.seq + (hk * group + r % group) * qs.head + chunk * 8
                          : a.q;
    cp_async_16(sQ + swizzled<kD>(row, chunk), src, inside ? 16 : 0);
  }
  const int32_t* pages = p.block_table ? p.block_table + bi * p.pages_per_seq : nullptr;
  const int64_t page_mask = (int64_t(1) << p.page_shift) - 1;
  auto load_kv = [&](int tile) {
    const int64_t n0 = k_begin + int64_t(tile) * kDecodeTileKeys;
    const int stage = tile % kDecodeStages;
    if (!pages) {
      load_tile<kDecodeTileKeys, kD, kThreads>(sK + stage * kTileElems, gK + n0 * ks.seq, ks.seq, k_end - n0);
      load_tile<kDecodeTileKeys, kD, kThreads>(sV + stage * kTileElems, gV + n0 * vs.seq, vs.seq, k_end - n0);
      return;
    }
    // Paged: key j is row j & page_mask of page pages[j >> page_shift] (a tile may span pages).
    for (int idx = threadIdx.x; idx < kDecodeTileKeys * kChunks; idx += kThreads) {
      const int row = idx / kChunks, chunk = idx % kChunks;
      const int64_t j = n0 + row;
      const bool inside = j < k_end;
      const int64_t page = inside ? int64_t(pages[j >> p.page_shift]) : 0, in_page = j & page_mask;
      const T* k_src = inside ? a.k + page * ks.batch + in_page * ks.seq + hk * ks.head + chunk * 8 : a.k;
      const T* v_src = inside ? a.v + page * vs.batch + in_page * vs.seq + hk * vs.head + chunk * 8 : a.v;
      cp_async_16(sK + stage * kTileElems + swizzled<kD>(row, chunk), k_src, inside ? 16 : 0);
      cp_async_16(sV + stage * kTileElems + swizzled<kD>(row, chunk), v_src, inside ? 16 : 0);
    }
  };
  #pragma unroll
  for (int s = 0; s < kDecodeStages - 1; ++s) {  // Q joins the first group
    if (s < tiles) load_kv(s);
    cp_async_commit();
  }

  // The last key each of this thread's rows (r0 + 16·s + g, + 8) sees in this split; Windowed,
  // its first too (the split's first otherwise).
  int64_t limit[kSlices][2], first[kSlices][2];
  #pragma unroll
  for (int s = 0; s < kSlices; ++s)
    #pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t r = r0 + s * 16 + g + half * 8;
      limit[s][half] = k_end - 1;
      first[s][half] = k_begin;
      if constexpr (kWindowed) {
        if (r < rows) {
          limit[s][half] = min(limit[s][half], int64_t(window.last(int(r / group))));
          first[s][half] = max(first[s][half], int64_t(window.first(int(r / group))));
        }
      } else {
        if (a.causal && r < rows) limit[s][half] = min(limit[s][half], r / group + shift);
      }
    }

  // Per row: running max (log2 units), this thread's part of the running sum, O's accumulators.
  float row_max[kSlices][2], row_sum[kSlices][2] = {}, rO[kSlices][kOBlocks][4] = {};
  for (auto& m : row_max) m[0] = m[1] = -INFINITY;
  uint32_t rQ[kQInRegisters ? kDSteps : 1][4];
  // Log2 units per unit of S: scale·log2e, or capped (S then holds the tanh) cap·log2e.
  const bool capped = kWindowed && a.softcap > 0.f;
  const float scale_log2 = kWindowed ? log2_per_unit(a, capped) : a.scale * kLog2e;

  for (int tile = 0; tile < tiles; ++tile) {
    cp_async_wait<kDecodeStages - 2>();
    __syncthreads();  // tile `tile` visible to all; every warp is done with tile − 1's stage
    if (kQInRegisters && tile == 0) {
      #pragma unroll
      for (int kk = 0; kk < kDSteps; ++kk) load_a<kD>(rQ[kQInRegisters ? kk : 0], sQ, 0, kk, lane);
    }
    if (tile + kDecodeStages - 1 < tiles) load_kv(tile + kDecodeStages - 1);  // into tile − 1's stage
    cp_async_commit();
    const T* sKt = sK + (tile % kDecodeStages) * kTileElems;
    const T* sVt = sV + (tile % kDecodeStages) * kTileElems;
    const int64_t n0 = k_begin + int64_t(tile) * kDecodeTileKeys + warp * kWarpKeys;  // this warp's first key

    // S = Q·Kᵀ: all rows × this warp's 16 keys; one K fragment serves every slice.
    float rS[kSlices][2][4] = {};
    #pragma unroll
    for (int kk = 0; kk < kDSteps; ++kk) {
      uint32_t b[4];
      load_b_nk<kD>(b, sKt, warp * kWarpKeys, kk, lane);
      #pragma unroll
      for (int s = 0; s < kSlices; ++s) {
        uint32_t qa[4];
        if constexpr (kQInRegisters) {
          #pragma unroll
          for (int r = 0; r < 4; ++r) qa[r] = rQ[kk][r];
        } else {
          load_a<kD>(qa, sQ, s * 16, kk, lane);
        }
        mma_pair<T>(rS[s][0], rS[s][1], qa, b);
      }
    }

    #pragma unroll
    for (int s = 0; s < kSlices; ++s) {
      if constexpr (kWindowed) {
        if (capped) {
          const float into_tanh = capped_input(a);
          #pragma unroll
          for (int nb = 0; nb < 2; ++nb)
            #pragma unroll
            for (int e = 0; e < 4; ++e) rS[s][nb][e] = tanh_approx(rS[s][nb][e] * into_tanh);
        }
        #pragma unroll
        for (int nb = 0; nb < 2; ++nb)
          #pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t key = n0 + nb * 8 + 2 * t + (e & 1);
            if (key < first[s][e >> 1] || key > limit[s][e >> 1]) rS[s][nb][e] = -INFINITY;
          }
      } else {
        #pragma unroll
        for (int nb = 0; nb < 2; ++nb)
          #pragma unroll
          for (int e = 0; e < 4; ++e)
            if (n0 + nb * 8 + 2 * t + (e & 1) > limit[s][e >> 1]) rS[s][nb][e] = -INFINITY;
      }
      // Online softmax over this warp's keys; O rescaled by exp2(m_old − m_new).
      #pragma unroll
      for (int half = 0; half < 2; ++half) {
        const float alpha = online_softmax_step(rS[s], half, row_max[s][half], row_sum[s][half], scale_log2);
        #pragma unroll
        for (int ob = 0; ob < kOBlocks; ++ob) {
          rO[s][ob][2 * half] *= alpha;
          rO[s][ob][2 * half + 1] *= alpha;
        }
      }
    }

    // O += P·V over this warp's 16 keys: P is S's accumulators re-packed; one V fragment serves
    // every slice.
    uint32_t rP[kSlices][4];
    #pragma unroll
    for (int s = 0; s < kSlices; ++s) pack_a<T>(rP[s], rS[s], 0);
    #pragma unroll
    for (int dp = 0; dp < kD / 16; ++dp) {
      uint32_t b[4];
      load_b_kn<kD>(b, sVt, warp * kWarpKeys, dp, lane);
      #pragma unroll
      for (int s = 0; s < kSlices; ++s) mma_pair<T>(rO[s][2 * dp], rO[s][2 * dp + 1], rP[s], b);
    }
  }
  cp_async_wait_all();
  __syncthreads();  // every copy landed and every warp is done with the stages: they become scratch

  // Merge the four warps: each publishes its rows' max and sum, then its O rescaled to the common
  // max; the sum over warps runs in warp order.
  float* sO = reinterpret_cast<float*>(smem_raw);  // [warps][kRows][kD]
  float* sM = sO + kDecodeWarps * kRows * kD;      // [warps][kRows]
  float* sL = sM + kDecodeWarps * kRows;           // [warps][kRows]
  #pragma unroll
  for (int s = 0; s < kSlices; ++s)
    #pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float l = quad_sum(row_sum[s][half]);
      if (t == 0) {
        sM[warp * kRows + s * 16 + g + half * 8] = row_max[s][half];
        sL[warp * kRows + s * 16 + g + half * 8] = l;
      }
    }
  __syncthreads();
  #pragma unroll
  for (int s = 0; s < kSlices; ++s)
    #pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = s * 16 + g + half * 8;
      float m_all = -INFINITY;
      #pragma unroll
      for (int w = 0; w < kDecodeWarps; ++w) m_all = fmaxf(m_all, sM[w * kRows + row]);
      const float f = m_all == -INFINITY ? 0.f : exp2f(row_max[s][half] - m_all);
      float* dst = sO + (warp * kRows + row) * kD + 2 * t;
      #pragma unroll
      for (int ob = 0; ob < kOBlocks; ++ob)
        *reinterpret_cast<float2*>(dst + ob * 8) = make_float2(rO[s][ob][2 * half] * f, rO[s][ob][2 * half + 1] * f);
    }
  __syncthreads();

  const bool direct = p.split.splits == 1;
  const Bshd os = packed_or(a.os, a.n, a.h, kD);
  const int64_t part_rows = a.b * a.h * a.n;
  float* part_o = p.partial_o;
  float* part_lse = p.partial_lse;
  for (int idx = threadIdx.x; idx < kRows * (kD / 4); idx += kThreads) {
    const int row = idx / (kD / 4), c = (idx % (kD / 4)) * 4;
    const int64_t r = r0 + row;
    if (r >= rows) continue;
    float m_all = -INFINITY;
    #pragma unroll
    for (int w = 0; w < kDecodeWarps; ++w) m_all = fmaxf(m_all, sM[w * kRows + row]);
    float l = 0.f;
    float4 o = make_float4(0.f, 0.f, 0.f, 0.f);
    #pragma unroll
    for (int w = 0; w < kDecodeWarps; ++w) {
      if (m_all != -INFINITY) l += sL[w * kRows + row] * exp2f(sM[w * kRows + row] - m_all);
      const float4 x = *reinterpret_cast<const float4*>(sO + (w * kRows + row) * kD + c);
      o.x += x.x, o.y += x.y, o.z += x.z, o.w += x.w;
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;
    const float lse = l > 0.f ? m_all * kLn2 + logf(l) : -INFINITY;
    const int64_t i = r / group, hq = hk * group + r % group;
    if (direct) {
      T* gO = a.o + bi * os.batch + i * os.seq + hq * os.head + c;
      *reinterpret_cast<uint2*>(gO) = make_uint2(pack2<T>(o.x * inv, o.y * inv), pack2<T>(o.z * inv, o.w * inv));
      if (c == 0 && a.lse) a.lse[(bi * a.h + hq) * a.n + i] = lse;
    } else {
      const int64_t pr = split * part_rows + (bi * a.h + hq) * a.n + i;
      *reinterpret_cast<float4*>(part_o + pr * kD + c) = make_float4(o.x * inv, o.y * inv, o.z * inv, o.w * inv);
      if (c == 0) part_lse[pr] = lse;
    }
  }
}

// Phase 2: one warp per output row (batch, head, token); each lane owns kD/32 contiguous columns.
template <class T, int kD>
__global__ void __launch_bounds__(kThreads) decode_combine_kernel(DecodeArgs<T> p) {
  constexpr int kPer = kD / 32;
  const AttnArgs<T>& a = p.a;
  const int64_t part_rows = a.b * a.h * a.n;
  const int64_t row = int64_t(blockIdx.x) * kDecodeWarps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= part_rows) return;
  const int64_t splits = p.split.splits;
  const float* part_o = p.partial_o;
  const float* part_lse = p.partial_lse;

  float m = -INFINITY;
  for (int64_t s = lane; s < splits; s += 32) m = fmaxf(m, part_lse[s * part_rows + row]);
  #pragma unroll
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float den = 0.f, acc[kPer] = {};
  if (m != -INFINITY) {
    for (int64_t s = 0; s < splits; ++s) {  // in split order: the same sums every run
      const float w = expf(part_lse[s * part_rows + row] - m);
      den += w;
      if (w == 0.f) continue;  // a split that saw no key of this row (its O is 0)
      const float* src = part_o + (s * part_rows + row) * kD + lane * kPer;
      if constexpr (kPer == 4) {
        const float4 x = *reinterpret_cast<const float4*>(src);
        acc[0] += w * x.x, acc[1] += w * x.y, acc[2] += w * x.z, acc[3] += w * x.w;
      } else {
        const float2 x = *reinterpret_cast<const float2*>(src);
        acc[0] += w * x.x, acc[1] += w * x.y;
      }
    }
  }
  const float inv = den > 0.f ? 1.f / den : 0.f;
  const int64_t i = row % a.n, hq = (row / a.n) % a.h, bi = row / (a.n * a.h);
  const Bshd os = packed_or(a.os, a.n, a.h, kD);
  T* gO = a.o + bi * os.batch + i * os.seq + hq * os.head + lane * kPer;
  if constexpr (kPer == 4)
    *reinterpret_cast<uint2*>(gO) = make_uint2(pack2<T>(acc[0] * inv, acc[1] * inv), pack2<T>(acc[2] * inv, acc[3] * inv));
  else
    *reinterpret_cast<uint32_t*>(gO) = pack2<T>(acc[0] * inv, acc[1] * inv);
  if (lane == 0 && a.lse) a.lse[row] = den > 0.f ? m + logf(den) : -INFINITY;
}

template <class T, int kD, int kSlices, Scores kScores>
LaunchInfo plan_for(const DecodeArgs<T>& p) {
  LaunchInfo l;
  l.func = reinterpret_cast<const void*>(&decode_kernel<T, kD, kSlices, kScores>);
  l.grid_blocks = p.split.splits * p.split.row_blocks * p.a.hkv * p.a.b;
  l.block_threads = kThreads;
  l.dynamic_smem_bytes = decode_smem_bytes(kD, kSlices);
  opt_in_dynamic_smem(l.func, l.dynamic_smem_bytes);
  return l;
}

template <class T, int kD, int kSlices, Scores kScores>
void launch(const DecodeArgs<T>& p, cudaStream_t stream) {
  const LaunchInfo l = plan_for<T, kD, kSlices, kScores>(p);
  const int64_t combine_blocks = blocks_for(p.a.b * p.a.h * p.a.n, kDecodeWarps);  // refused before any launch
  const dim3 grid(unsigned(blocks_for(p.split.splits * p.split.row_blocks, 1)), unsigned(p.a.hkv), unsigned(p.a.b));
  decode_kernel<T, kD, kSlices, kScores><<<grid, unsigned(l.block_threads), size_t(l.dynamic_smem_bytes), stream>>>(p);
  SOL_LAUNCH_CHECK();
  if (p.split.splits == 1) return;
  const int64_t blocks = combine_blocks;
  decode_combine_kernel<T, kD><<<unsigned(blocks), kThreads, 0, stream>>>(p);
  SOL_LAUNCH_CHECK();
}

template <class T>
void check(const DecodeArgs<T>& p, bool launching) {
  const AttnArgs<T>& a = p.a;
  if (a.d != 64 && a.d != 128)
    bad_input("decode attention: head dimension " + std::to_string(a.d) + " is not built", "use d=64 or d=128");
  if (a.n < 1 || a.n > kDecodeMaxQueries)
    bad_input("decode attention: n = " + std::to_string(a.n) + " query tokens; the decode kernel serves 1 to " +
                  std::to_string(kDecodeMaxQueries),
              "run longer query blocks through the prefill rungs");
  const DecodeSplit want = decode_split(decode_shape(a), 1);
  if (p.split.rows != want.rows || p.split.slices != want.slices || p.split.row_blocks != want.row_blocks ||
      p.split.splits < 1 || p.split.keys_per_split < kDecodeTileKeys || p.split.keys_per_split % kDecodeTileKeys ||
      p.split.splits * p.split.keys_per_split < decode_shape(a).nk)
    failure("decode attention: the split does not match the shape", "take it from decode_split() for these sizes");
  if (p.block_table && (p.page_shift < 4 || p.page_shift > 8 || p.pages_per_seq << p.page_shift < a.nk))
    bad_input("decode attention: pages of " + std::to_string(1 << p.page_shift) + " keys, " +
                  std::to_string(p.pages_per_seq) + " per sequence, for nk = " + std::to_string(a.nk),
              "give pages of 16 to 256 keys that hold the cache");
  if (launching && p.split.splits > 1 && (!p.partial_o || !p.partial_lse))
    bad_input("decode attention: " + std::to_string(p.split.splits) + " splits need the partials' workspace",
              "pass decode_workspace_bytes() bytes of device memory");
}

// f.template operator()<kD, kSlices, kScores>() for the instantiation that serves p: its d, the
// split's slices, and Windowed for a window or a softcap (windowed()).
template <class T, class F>
decltype(auto) with_instance(const DecodeArgs<T>& p, F&& f) {
  const auto by_scores = [&]<int kD, int kSlices>() -> decltype(auto) {
    return windowed(p.a) ? f.template operator()<kD, kSlices, Scores::Windowed>()
                         : f.template operator()<kD, kSlices, Scores::Plain>();
  };
  if (p.split.slices == 2) return p.a.d == 64 ? by_scores.template operator()<64, 2>() : by_scores.template operator()<128, 2>();
  return p.a.d == 64 ? by_scores.template operator()<64, 1>() : by_scores.template operator()<128, 1>();
}

}  // namespace

template <class T>
void decode_forward(const DecodeArgs<T>& p, cudaStream_t stream) {
  check(p, true);
  with_instance(p, [&]<int kD, int kSlices, Scores kScores>() { launch<T, kD, kSlices, kScores>(p, stream); });
}

template <class T>
LaunchInfo decode_plan(const DecodeArgs<T>& p) {
  check(p, false);
  return with_instance(p, [&]<int kD, int kSlices, Scores kScores>() { return plan_for<T, kD, kSlices, kScores>(p); });
}

template void decode_forward<__nv_bfloat16>(const DecodeArgs<__nv_bfloat16>&, cudaStream_t);
template void decode_forward<__half>(const DecodeArgs<__half>&, cudaStream_t);
template LaunchInfo decode_plan<__nv_bfloat16>(const DecodeArgs<__nv_bfloat16>&);
template LaunchInfo decode_plan<__half>(const DecodeArgs<__half>&);

}  // namespace sol::kernels::attention

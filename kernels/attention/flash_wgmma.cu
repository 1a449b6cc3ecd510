// v04_flash_wgmma, v05_flash_wgmma_overlap: the FlashAttention forward on Hopper's own path
// (lecture §11 on §3's hardware: only wgmma fed by TMA reaches the tensor-core peak; mma.sync
// stops near a third). A CTA owns 128 query rows of one (batch, head); v04 has two warpgroups
// and one more warp:
//   producer (warp 8, one thread): TMA loads Q once, then K and V tiles of 128 keys into a
//     ring of kStages stages; per stage a "K full" and a "V full" mbarrier (bytes arrived) and an
//     "empty" one (both consumers done with the stage), so loads run ahead of the math;
//   consumers (warpgroups 0, 1 = warps 0–7), 64 query rows each: S = Q·Kᵀ with wgmma
//     m64n128k16 (Q and K from 128B-swizzled shared memory, both K-major, as the TN GEMM's A
//     and B); online softmax on the fp32 accumulator fragment (a row lives in one quad, as for
//     mma.sync); P packed to 16 bits in registers is the A operand of O += P·V, wgmma's
//     register-A form with V from shared memory through a transposed (MN-major) descriptor.
//     The K wait and the V wait are separate, so Q·Kᵀ starts before V lands.
// A producer warp rather than FA3's producer warpgroup with setmaxnreg (24 / 240): ptxas (CUDA
// 13) allocated the consumer code within the launch's 168 registers even after setmaxnreg.inc, so
// the register moves bought nothing. 288 threads are capped at 168 as well (9 warps put 3 on one
// of the SM's four 16384-register partitions); the consumers use 165 at d=128.
// v04 runs one tile at a time per consumer (Q·Kᵀ, softmax, P·V); the two consumers overlap each
// other only by running independently.
// v05 adds FA3's intra-warpgroup overlap: Q·Kᵀ of tile j and P·V of tile j − 1 are issued
// together, and the softmax of tile j runs while P·V of j − 1 is still on the tensor cores. S, O
// and P are then live at once, which spills 208 bytes at d=128 within 168 registers; so v05 has
// no producer warp: 256 threads allow 255 registers, and thread 0 of the first consumer issues
// the TMA loads (a stage is refilled once both consumers have released it), with one stage more.
// Causal (bottom-right aligned): key tiles past the tile's last diagonal are never loaded; only
// edge tiles are masked. Keys past nk arrive as TMA's zero fill and are masked to −∞; query rows
// past n compute on zero-filled Q and are not stored.
// Scores::Windowed (a sliding window): the CTA's key tiles are those its rows' windows reach
// (sol/core/attention_window.hpp's key_tiles: from the first row's first key to the last row's
// last), so work left of the window is skipped as causal skips the right; a tile the window does
// not cover whole is masked on both sides. Scores::Capped adds Gemma 2's softcap: each raw score
// x = q·k becomes tanh(x·scale/cap) (MUFU.TANH) before the mask, and the softmax's log2 factor
// cap·log2e. The Plain instantiations keep their code (their SASS is unchanged).
// The softmax's exponentials are MUFU.EX2 alone (ex2.approx.ftz; exp2f wraps each in a range test
// and two multiplies, 198 of the 577 instructions of the unmasked softmax and pack at d=128) and
// the edge mask compares 32-bit rows and keys: the consumers' issue slots are the softmax's cost.
// Expected bottleneck: the tensor cores and the softmax between the two GEMMs. At b=4,h=16,
// n=4096,d=128: 275 GFLOP → 0.28 ms at the 989 TFLOP/s dense peak; FA3 reaches 60–75 % of it.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/attention/forward.cuh"
#include "kernels/attention/hopper_attention.cuh"
#include "kernels/attention/mma.cuh"
#include "kernels/attention/residency.hpp"

namespace sol::kernels::attention {
namespace {

namespace hw = ::sol::kernels::hopper;  // mbarrier, TMA, wgmma
using namespace hopper_attn;  // tile layout, descriptors, tensor maps

constexpr int kBlockM = 128;    // query rows per CTA: two consumer warpgroups of 64
constexpr int kBlockN = 128;    // keys per streamed tile (the n of Q·Kᵀ's wgmma)
constexpr int kConsumerThreads = 256;  // two consumer warpgroups (warps 0–7: wgmma wants aligned groups of 4)
// + a producer warp (v04); v05 has none (its register budget: 255 at 8 warps, 168 at 9).
constexpr int threads(bool overlap) { return overlap ? kConsumerThreads : kConsumerThreads + 32; }
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// Shared memory of one CTA. Every tile is stored as kD/64 column blocks of [rows × 128 B]
// (one TMA box each, 128B-swizzled), the layout wgmma's swizzled descriptors read.
template <int kD, bool kOverlap>
struct Smem {
  static constexpr int kColBlocks = kD / kBoxCols;
  static constexpr int kQ = kBlockM * kD * 2;   // 32 KiB at d=128
  static constexpr int kKV = kBlockN * kD * 2;  // one K or one V tile: 32 KiB at d=128
  // v05 refills a stage only after both consumers released it (no producer running ahead): one more.
  static constexpr int kStages = (kD == 128 ? 2 : 3) + (kOverlap ? 1 : 0);
  static constexpr int kBarriers = 1 + 3 * kStages;  // Q full; K full, V full, empty per stage
  static constexpr int kBytes = kQ + 2 * kStages * kKV + kBarriers * 8 + 1024 /* 1024-byte alignment */;
  static_assert(kBytes <= 227 * 1024, "fits one SM's shared memory");
};

// Descriptor of V as the MN-major B operand of P·V ([keys = k][d = n], n contiguous): the
// leading byte offset is one column block of the tile (kBlockN rows × 128 B).
constexpr int kVLbo = kBlockN * kSwizzleRow;   // V: the next 64 columns of d, one column block on
__host__ __device__ constexpr uint64_t mn_major_desc_fields(uint32_t smem_byte_addr) {
  return mn_major_desc(smem_byte_addr, kVLbo);
}
static_assert((kVLbo >> 4) < (1 << 14), "leading byte offset fits its 14-bit field");
// The encoding spelled out for one address: start 0x400 >> 4, LBO 16384 >> 4, SBO 1024 >> 4, 128B
// swizzle (2-bit mode 1 at bit 62) — the SBO and mode bits of the K-major hopper::smem_desc,
// which the GEMM rungs run with.
static_assert(mn_major_desc_fields(0x400) ==
                  (uint64_t(0x40) | (uint64_t(1024) << 16) | (uint64_t(64) << 32) | (uint64_t(1) << 62)),
              "MN-major descriptor fields");

// Compile-time check of the operand starts (qk_start, pv_start: hopper_attention.cuh) against
// the PTX ISA's canonical layouts, where TMA put element (row, col) of a tile.
template <int kD>
constexpr bool descriptors_address_the_tiles() {
  for (int step = 0; step < kD / 16; ++step) {
    for (int consumer = 0; consumer < 2; ++consumer)  // A = Q: 64 rows × 16 of d
      for (int i = 0; i < 64; i += 7)
        for (int k = 0; k < 16; ++k)
          if (qk_start(kBlockM, consumer * 64, step) + k_major_byte(i, k, kSbo) !=
              tile_byte(kBlockM, consumer * 64 + i, 16 * step + k))
            return false;
    for (int n = 0; n < kBlockN; n += 3)  // B = K: 128 keys × 16 of d
      for (int k = 0; k < 16; ++k)
        if (qk_start(kBlockN, 0, step) + k_major_byte(n, k, kSbo) != tile_byte(kBlockN, n, 16 * step + k)) return false;
  }
  for (int kk = 0; kk < kBlockN / 16; ++kk)  // B = V: 16 keys × d, MN-major
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < kD; ++n)
        if (pv_start(kk) + mn_major_byte(k, n, kVLbo, kSbo) != tile_byte(kBlockN, 16 * kk + k, n))
          return false;
  return true;
}
static_assert(descriptors_address_the_tiles<64>() && descriptors_address_the_tiles<128>(),
              "wgmma operand starts, LBO and SBO address the bytes TMA wrote");


// Accumulator fragments (wgmma D, m64nN): warp w of a consumer owns rows 16w…16w+15; in 8-column
// chunk c a lane (g = lane/4, t = lane%4) holds acc[4c + 0..1] = (row g, cols 8c + 2t, +1) and
// acc[4c + 2..3] = row g + 8 — per warp the layout of mma.sync's C, so chunks 2kk and 2kk+1 of S,
// packed to 16 bits, are exactly the register A fragment of P·V's k-step kk.
template <class T, int kD, bool kOverlap, Scores kScores>
__global__ void __launch_bounds__(threads(kOverlap), kWgmmaForwardCtasPerSm)
    flash_wgmma_kernel(const __grid_constant__ CUtensorMap mapQ, const __grid_constant__ CUtensorMap mapK,
                       const __grid_constant__ CUtensorMap mapV, AttnArgs<T> a) {
  constexpr bool kWindowed = kScores != Scores::Plain, kCapped = kScores == Scores::Capped;
  using S = Smem<kD, kOverlap>;
  constexpr int kStages = S::kStages;
  constexpr int kSAcc = kBlockN / 2;  // S accumulators per consumer thread: 64 × 128 / 128
  constexpr int kOAcc = kD / 2;       // O accumulators per consumer thread
  extern __shared__ uint8_t smem_raw[];
  // Aligned up to 1024 bytes by an offset, so that the pointers below stay shared-memory ones.
  uint8_t* smem = smem_raw + ((1024u - (smem_addr(smem_raw) & 1023u)) & 1023u);
  uint8_t* sQ = smem;                       // [kD/64][128 rows][128 B]
  uint8_t* sK = sQ + S::kQ;                 // [kStages][kD/64][128 keys][128 B]
  uint8_t* sV = sK + kStages * S::kKV;      // same
  uint64_t* q_full = reinterpret_cast<uint64_t*>(sV + kStages * S::kKV);
  uint64_t* k_full = q_full + 1;
  uint64_t* v_full = k_full + kStages;
  uint64_t* empty = v_full + kStages;

  const int64_t m0 = int64_t(gridDim.x - 1 - blockIdx.x) * kBlockM;  // long causal tiles first
  const int hi = int(blockIdx.y), bi = int(blockIdx.z);
  const int hk = int(hi / (a.h / a.hkv));
  const int64_t shift = a.nk - a.n;  // query i sees keys j ≤ i + shift when causal
  const int64_t last_row = (m0 + kBlockM < a.n ? m0 + kBlockM : a.n) - 1;
  // The key tiles this CTA visits: tile0 … tile0 + tiles − 1 (tile0 = 0 but for a window).
  int tile0 = 0, tiles = 0;
  const KeyWindow<int> window = window_of(a, a.nk);  // Windowed only (rows and keys in 32 bits)
  if constexpr (kWindowed) {
    const TileSpan<int> span = key_tiles(window, int(m0), int(last_row), int(a.nk), kBlockN);
    tile0 = span.begin;
    tiles = span.end - span.begin;
  } else {
    int64_t kv_end = a.nk;
    if (a.causal && last_row + shift + 1 < kv_end) kv_end = last_row + shift + 1;
    tiles = kv_end > 0 ? int((kv_end + kBlockN - 1) / kBlockN) : 0;
  }

  if (threadIdx.x == 0) {
    hw::mbar_init(q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      hw::mbar_init(&k_full[s], 1);
      hw::mbar_init(&v_full[s], 1);
      hw::mbar_init(&empty[s], 2);  // one arrive per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();  // the last block-wide barrier: the producer's threads leave early

  // Visited tile j's K and V (keys (tile0 + j)·kBlockN …) into stage j % kStages (the stage is
  // free), each counted on its own barrier.
  auto load_kv = [&](int j) {
    const int s = j % kStages;
    hw::mbar_expect_bytes(&k_full[s], S::kKV);
    for (int cb = 0; cb < S::kColBlocks; ++cb)
      tma_load_3d(sK + s * S::kKV + cb * kBlockN * kSwizzleRow, &mapK, &k_full[s], hk * kD + cb * kBoxCols,
                  (tile0 + j) * kBlockN, bi);
    hw::mbar_expect_bytes(&v_full[s], S::kKV);
    for (int cb = 0; cb < S::kColBlocks; ++cb)
      tma_load_3d(sV + s * S::kKV + cb * kBlockN * kSwizzleRow, &mapV, &v_full[s], hk * kD + cb * kBoxCols,
                  (tile0 + j) * kBlockN, bi);
  };
  auto load_q = [&]() {
    hw::mbar_expect_bytes(q_full, S::kQ);
    for (int cb = 0; cb < S::kColBlocks; ++cb)
      tma_load_3d(sQ + cb * kBlockM * kSwizzleRow, &mapQ, q_full, hi * kD + cb * kBoxCols, int(m0), bi);
  };

  if constexpr (!kOverlap) {
    if (threadIdx.x >= kConsumerThreads) {  // the producer warp
      if (threadIdx.x == kConsumerThreads) {
        load_q();
        for (int j = 0; j < tiles; ++j) {
          mbar_wait_bounded(&empty[j % kStages], ((j / kStages) & 1) ^ 1);  // the first round passes on fresh barriers
          load_kv(j);
        }
      }
      return;  // every load issued is waited for by the consumers, so the CTA outlives it
    }
  } else {
    if (threadIdx.x == 0) {  // the first kStages tiles into the empty ring
      load_q();
      for (int j = 0; j < tiles && j < kStages; ++j) load_kv(j);
    }
  }
  const int consumer = int(threadIdx.x / 128);
  const int warp = int(threadIdx.x / 32) % 4, lane = int(threadIdx.x % 32);
  const int g = lane / 4, t = lane % 4;
  const int64_t c0 = m0 + consumer * 64;            // this consumer's first query row
  const int64_t row0 = c0 + warp * 16 + g;          // this thread's rows: row0, row0 + 8
  // Log2 units per unit of rS: scale·log2e, or capped (rS then holds the tanh) cap·log2e.
  const float scale_log2 = kCapped ? log2_per_unit(a, true) : a.scale * kLog2e;
  // Windowed: the keys each of this thread's rows sees, first_key … last_key ≤ nk − 1 (the edge mask).
  int first_key[2] = {0, 0}, last_key[2] = {0, 0};
  if constexpr (kWindowed) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      first_key[half] = window.first(int(row0) + 8 * half);
      last_key[half] = min(window.last(int(row0) + 8 * half), int(a.nk) - 1);
    }
  }

  float rO[kOAcc];
#pragma unroll
  for (int i = 0; i < kOAcc; ++i) rO[i] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.f, 0.f};  // log2 units; this thread's part of the sum
  float rS[kSAcc];
  uint32_t rP[kBlockN / 16][4];  // P in 16 bits: the A fragments of P·V's kBlockN/16 k-steps
  float alpha[2];                // exp2(m_old − m_new) of the last softmax step, per row half

  // S = Q·Kᵀ of tile j (stage s): d/16 k-steps of 32 bytes, four per 128-byte column block.
  // Issued after a wgmma fence; not committed.
  auto issue_qk = [&](int s) {
    const uint8_t* sKs = sK + s * S::kKV;
#pragma unroll
    for (int i = 0; i < kSAcc; ++i) rS[i] = 0.f;
    fence_operands(rS);
    hw::wgmma_fence();  // rS (zeroed), and rO, rP where a P·V follows, were written by ordinary instructions
#pragma unroll
    for (int step = 0; step < kD / 16; ++step)
      ss<T>(rS, hw::smem_desc(sQ + qk_start(kBlockM, consumer * 64, step)), hw::smem_desc(sKs + qk_start(kBlockN, 0, step)));
  };
  // O += P·V of stage s: k-step kk reads V's keys 16kk…16kk+15, two 8-row swizzle atoms (2 KiB) on.
  auto issue_pv = [&](int s) {
    const uint8_t* sVs = sV + s * S::kKV;
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) rs<T>(rO, rP[kk], mn_major_desc_fields(smem_addr(sVs + pv_start(kk))));
  };
  // Visited tile j's scores in rS → probabilities in rS (exp2, unnormalized), running max and sum
  // updated, alpha set. Keys past nk and (causal) above the diagonal are masked; only edge tiles
  // need it. Windowed: the softcap's tanh first, then both of the window's sides.
  auto softmax = [&](int j) {
    const int64_t n0 = int64_t(tile0 + j) * kBlockN;
    if constexpr (kWindowed) {
      if constexpr (kCapped) {
        const float into_tanh = capped_input(a);
#pragma unroll
        for (int i = 0; i < kSAcc; ++i) rS[i] = tanh_approx(rS[i] * into_tanh);
      }
      if (n0 + kBlockN > a.nk || !window.covers(int(c0), int(c0) + 63, int(n0), int(n0) + kBlockN - 1)) {
        const int key0 = int(n0) + 2 * t;
#pragma unroll
        for (int c = 0; c < kSAcc / 4; ++c)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int key = key0 + c * 8 + (e & 1);
            if (key < first_key[e >> 1] || key > last_key[e >> 1]) rS[4 * c + e] = -INFINITY;
          }
      }
    } else {
      const bool edge = n0 + kBlockN > a.nk || (a.causal && n0 + kBlockN - 1 > c0 + shift);
      if (edge) {  // rows and keys fit 32 bits (n, nk ≤ 2^24 by the shape rules): 32-bit compares
        const int nk = int(a.nk), key0 = int(n0) + 2 * t, row_shift = int(row0 + shift);
#pragma unroll
        for (int c = 0; c < kSAcc / 4; ++c)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int key = key0 + c * 8 + (e & 1);
            if (key >= nk || (a.causal && key > row_shift + (e >> 1) * 8)) rS[4 * c + e] = -INFINITY;
          }
      }
    }
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float mx = -INFINITY;
#pragma unroll
      for (int c = 0; c < kSAcc / 4; ++c) mx = fmaxf(mx, fmaxf(rS[4 * c + 2 * half], rS[4 * c + 2 * half + 1]));
      mx = quad_max(mx) * scale_log2;
      const float m_new = fmaxf(row_max[half], mx);
      const float m_use = m_new == -INFINITY ? 0.f : m_new;  // everything masked so far: keep exp2 finite
      alpha[half] = ex2_approx(row_max[half] - m_use);
      row_max[half] = m_new;
      float sum = 0.f;
#pragma unroll
      for (int c = 0; c < kSAcc / 4; ++c)
#pragma unroll
        for (int e = 2 * half; e < 2 * half + 2; ++e) {
          rS[4 * c + e] = ex2_approx(fmaf(rS[4 * c + e], scale_log2, -m_use));
          sum += rS[4 * c + e];
        }
      row_sum[half] = row_sum[half] * alpha[half] + sum;
    }
  };
  // The old O rescaled to the new max (only once no P·V is accumulating into it), and P packed.
  auto rescale_and_pack = [&]() {
#pragma unroll
    for (int c = 0; c < kOAcc / 4; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) rO[4 * c + e] *= alpha[e >> 1];
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r) rP[kk][r] = pack2<T>(rS[8 * kk + 2 * r], rS[8 * kk + 2 * r + 1]);
  };
  auto release = [&](int s) {
    if (threadIdx.x % 128 == 0) hw::mbar_arrive(&empty[s]);  // this consumer is done with K and V of stage s
  };
  auto stage = [](int j) { return j % kStages; };
  auto phase = [](int j) { return uint32_t(j / kStages) & 1; };

  mbar_wait_bounded(q_full, 0);
  if constexpr (!kOverlap) {
    // One tile at a time: Q·Kᵀ, wait, softmax, P·V, wait. The two consumers overlap each other only.
    for (int j = 0; j < tiles; ++j) {
      mbar_wait_bounded(&k_full[stage(j)], phase(j));
      issue_qk(stage(j));
      hw::wgmma_commit();
      hw::wgmma_wait<0>();
      fence_operands(rS);
      softmax(j);
      rescale_and_pack();
      mbar_wait_bounded(&v_full[stage(j)], phase(j));
      fence_operands(rO);
      fence_operands(rP);
      hw::wgmma_fence();  // rO (rescaled) and rP were written by ordinary instructions
      issue_pv(stage(j));
      hw::wgmma_commit();
      hw::wgmma_wait<0>();
      fence_operands(rO);
      release(stage(j));
    }
  } else if (tiles > 0) {
    // FA3's intra-warpgroup overlap: Q·Kᵀ of tile j and P·V of tile j − 1 are issued together
    // (in that order, two commit groups); waiting for the first leaves P·V running on the tensor
    // cores while this warpgroup computes tile j's softmax. O is rescaled and P repacked only
    // after P·V of j − 1 has finished with them. Registers: S, O and P live at once.
    mbar_wait_bounded(&k_full[0], 0);
    issue_qk(0);
    hw::wgmma_commit();
    hw::wgmma_wait<0>();
    fence_operands(rS);
    softmax(0);
    rescale_and_pack();
    for (int j = 1; j < tiles; ++j) {
      mbar_wait_bounded(&k_full[stage(j)], phase(j));
      fence_operands(rO);
      fence_operands(rP);
      issue_qk(stage(j));  // its wgmma fence also covers rO and rP for the P·V below
      hw::wgmma_commit();
      mbar_wait_bounded(&v_full[stage(j - 1)], phase(j - 1));
      issue_pv(stage(j - 1));
      hw::wgmma_commit();
      hw::wgmma_wait<1>();  // Q·Kᵀ of tile j is done; P·V of tile j − 1 may still run
      fence_operands(rS);
      softmax(j);
      hw::wgmma_wait<0>();
      fence_operands(rO);
      release(stage(j - 1));
      if (threadIdx.x == 0 && j - 1 + kStages < tiles) {  // both consumers done with tile j − 1: refill its stage
        mbar_wait_bounded(&empty[stage(j - 1)], phase(j - 1));
        load_kv(j - 1 + kStages);
      }
      rescale_and_pack();
    }
    mbar_wait_bounded(&v_full[stage(tiles - 1)], phase(tiles - 1));
    fence_operands(rO);
    fence_operands(rP);
    hw::wgmma_fence();
    issue_pv(stage(tiles - 1));
    hw::wgmma_commit();
    hw::wgmma_wait<0>();
    fence_operands(rO);
    release(stage(tiles - 1));
  }

  // The one rescale: O /= l; L = m·ln2 + ln l (natural log); no visible key → O = 0, L = −∞.
  const Bshd os = packed_or(a.os, a.n, a.h, kD);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int64_t i = row0 + half * 8;
    const float l = quad_sum(row_sum[half]);
    const float inv = l > 0.f ? 1.f / l : 0.f;
    if (i >= a.n) continue;
    T* gO = a.o + int64_t(bi) * os.batch + i * os.seq + int64_t(hi) * os.head;
#pragma unroll
    for (int c = 0; c < kOAcc / 4; ++c)
      *reinterpret_cast<uint32_t*>(gO + c * 8 + 2 * t) = pack2<T>(rO[4 * c + 2 * half] * inv, rO[4 * c + 2 * half + 1] * inv);
    if (t == 0) a.lse[(int64_t(bi) * a.h + hi) * a.n + i] = l > 0.f ? row_max[half] * kLn2 + logf(l) : -INFINITY;
  }
}

// ---- host side ----------------------------------------------------------------------------------

template <class T, int kD, bool kOverlap, Scores kScores>
LaunchInfo plan_for(const AttnArgs<T>& a) {
  LaunchInfo p;
  p.func = reinterpret_cast<const void*>(&flash_wgmma_kernel<T, kD, kOverlap, kScores>);
  p.grid_blocks = blocks_for(a.n, kBlockM) * a.h * a.b;
  p.block_threads = threads(kOverlap);
  p.dynamic_smem_bytes = Smem<kD, kOverlap>::kBytes;
  opt_in_dynamic_smem(p.func, p.dynamic_smem_bytes);
  return p;
}

template <class T, int kD, bool kOverlap, Scores kScores>
void launch(const AttnArgs<T>& a, cudaStream_t stream) {
  for (const void* p : {static_cast<const void*>(a.q), static_cast<const void*>(a.k), static_cast<const void*>(a.v)})
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
      bad_input("flash attention (wgmma): Q, K and V must start on 16-byte boundaries (TMA)", "use v02_flash_mma");
  // Strided rows and batches go into the maps; the heads of a row must be contiguous (head = d).
  const Bshd qs = packed_or(a.qs, a.n, a.h, kD), ks = packed_or(a.ks, a.nk, a.hkv, kD),
             vs = packed_or(a.vs, a.nk, a.hkv, kD);
  if (qs.head != kD || ks.head != kD || vs.head != kD)
    bad_input("flash attention (wgmma): the heads of a Q, K or V row must be contiguous (head stride = d) for TMA",
              "use v02_flash_mma for other head strides");
  const CUtensorMap mapQ = cached_map(a.q, a.b, a.n, a.h * kD, kBlockM, qs.seq, qs.batch);
  const CUtensorMap mapK = cached_map(a.k, a.b, a.nk, a.hkv * kD, kBlockN, ks.seq, ks.batch);
  const CUtensorMap mapV = cached_map(a.v, a.b, a.nk, a.hkv * kD, kBlockN, vs.seq, vs.batch);
  const LaunchInfo plan = plan_for<T, kD, kOverlap, kScores>(a);
  const dim3 grid(unsigned(blocks_for(a.n, kBlockM)), unsigned(a.h), unsigned(a.b));
  flash_wgmma_kernel<T, kD, kOverlap, kScores>
      <<<grid, unsigned(plan.block_threads), size_t(plan.dynamic_smem_bytes), stream>>>(mapQ, mapK, mapV, a);
  SOL_LAUNCH_CHECK();
}

// f.template operator()<kD, kOverlap, kScores>() for the instantiation that serves a: its d, the
// rung's overlap, and the form of its scores (scores_of).
template <class T, class F>
decltype(auto) with_instance(const AttnArgs<T>& a, bool overlap, F&& f) {
  const auto by_scores = [&]<int kD, bool kOverlap>() -> decltype(auto) {
    switch (scores_of(a)) {
      case Scores::Plain: return f.template operator()<kD, kOverlap, Scores::Plain>();
      case Scores::Windowed: return f.template operator()<kD, kOverlap, Scores::Windowed>();
      default: return f.template operator()<kD, kOverlap, Scores::Capped>();
    }
  };
  if (overlap) return a.d == 64 ? by_scores.template operator()<64, true>() : by_scores.template operator()<128, true>();
  return a.d == 64 ? by_scores.template operator()<64, false>() : by_scores.template operator()<128, false>();
}

}  // namespace

template <class T>
void flash_wgmma_forward(const AttnArgs<T>& a, cudaStream_t stream, bool overlap) {
  if (a.d != 64 && a.d != 128)
    bad_input("flash attention (wgmma): head dimension " + std::to_string(a.d) + " is not built", "use d=64 or d=128");
  with_instance(a, overlap, [&]<int kD, bool kOverlap, Scores kScores>() { launch<T, kD, kOverlap, kScores>(a, stream); });
}

template <class T>
LaunchInfo flash_wgmma_plan(const AttnArgs<T>& a, bool overlap) {
  return with_instance(a, overlap, [&]<int kD, bool kOverlap, Scores kScores>() { return plan_for<T, kD, kOverlap, kScores>(a); });
}

template void flash_wgmma_forward<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, cudaStream_t, bool);
template void flash_wgmma_forward<__half>(const AttnArgs<__half>&, cudaStream_t, bool);
template LaunchInfo flash_wgmma_plan<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, bool);
template LaunchInfo flash_wgmma_plan<__half>(const AttnArgs<__half>&, bool);

}  // namespace sol::kernels::attention

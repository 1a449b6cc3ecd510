// v12_cluster_split_k (and v13_cluster_prefetch, below) — decode GEMM on the tensor cores, W
// stored n×k, 1 ≤ m ≤ 64. The product is v10's swapped one, Cᵀ = W·Aᵀ on mma.sync m16n8k16 (N on
// the MMA's 16-row side, the tokens on its 8-wide side), W's fragments straight from global in
// the k order both operands share (v10's header explains it). Two costs that held v10 back at
// decode shapes are gone:
// * The tokens are read once a CTA, not once a warp. Each k-chunk of A is staged in shared
//   memory (cp.async, two buffers) and the 8 warps, which own different W rows (128 a CTA, 256
//   from 17 tokens on), all take their fragments from there: A's bytes from L2 are m/128 (m/256)
//   of W's rather than v10's m/16 (m/32).
// * The k-split is summed on chip. The CTAs that split one tile's k form a thread-block cluster
//   (sm_90, at most 8); each leaves its fp32 partial in its shared memory, and CTA r sums its
//   share of the tile's outputs over every CTA's partial through distributed shared memory, in
//   rank order: deterministic, no workspace, no second launch, no partial traffic to L2.
// A warp holds a whole chunk of W in registers (64 a lane) before its first MMA: 8 KB a warp in
// flight, none while it multiplies and waits at the chunk's barriers.
// v13_cluster_prefetch is the same kernel with the next chunk's loads issued before this chunk's
// MMAs: two chunks of half the size in the same 64 registers, so 4 KB a warp is always in flight.
// Any k, pitch or alignment: W chunks past the end or off 16 bytes load element-wise with zeros
// past k, and A's are zero-filled by cp.async (or element loads when A's pitch or base is not
// 16-byte aligned).
#include "kernels/common/check.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/gemm/gemv/hopper_cluster_sum.cuh"

namespace sol::kernels::gemm::gemv {
namespace {

constexpr int kThreads = kClusterWarps * 32;

// The shared-memory layout of one ClusterTiling (plan.hpp), in elements of the operands or floats.
template <int kNT, int kTN, int kChunk>
struct Layout {
  static constexpr int kRows = kClusterWarps * 16 * kTN;  // W rows (C columns) of the CTA
  static constexpr int kTokens = 8 * kNT;                 // token rows staged (m padded to 8·kNT)
  // A row of a chunk is 2·kChunk bytes + 64: ≡ 64 (mod 128), so the 8 lanes of a 16-byte load
  // phase (tokens g, g + 1 at k offsets 0–48) hit distinct banks.
  static constexpr int kPitch = kChunk + 32;
  static constexpr int kStage = kTokens * kPitch;
  static constexpr size_t kStageBytes = 2 * size_t(kStage) * sizeof(uint16_t);
  static constexpr size_t kPartBytes = size_t(kTokens) * part_pitch(kRows) * sizeof(float);  // hopper_cluster_sum.cuh
  static constexpr size_t kSmem = kStageBytes > kPartBytes ? kStageBytes : kPartBytes;
};

// Stages tokens 0 … L::kTokens − 1, k = k0 … k0 + kChunk − 1 of A into sA (zeros past m and ke).
template <class L, int kChunk>
__device__ __forceinline__ void stage_tokens(uint16_t* sA, const Problem& p, const uint16_t* gA, int64_t k0,
                                             int64_t ke, bool vecA) {
  constexpr int kPieces = kChunk / 8, kPitch = L::kPitch;
  for (int i = threadIdx.x; i < L::kTokens * kPieces; i += kThreads) {
    const int tok = i / kPieces, q = i % kPieces;
    const int64_t kk = k0 + 8 * q;
    const int64_t rest = ke - kk, len = tok < p.m ? (rest < 0 ? 0 : rest < 8 ? rest : 8) : 0;
    uint16_t* dst = sA + tok * kPitch + 8 * q;
    const uint16_t* src = gA + (len > 0 ? tok * p.lda + kk : 0);
    if (vecA) cp_async_16(dst, src, int(len) * 2);
    else *reinterpret_cast<uint4*>(dst) = load8<false>(src, len, false);
  }
}

template <class T, int kNT, int kTN, int kChunk, bool kPrefetch>
__global__ void __launch_bounds__(kThreads, kTN == 1 ? 2 : 1) cluster_split_k_kernel(Problem p, int64_t k_slice) {
  using L = Layout<kNT, kTN, kChunk>;
  constexpr int kBlocks = kChunk / 32;  // k-blocks of 32 per chunk (a lane: 8 consecutive k per block)
  constexpr int kRegs = kTN * kNT * 4;
  using WChunk = uint4[kBlocks][kTN][2];  // a lane's W for one chunk
  extern __shared__ __align__(16) unsigned char smem[];
  auto* sA = reinterpret_cast<uint16_t*>(smem);  // [2][kTokens][kPitch]
  auto* sPart = reinterpret_cast<float*>(smem);  // the partial (hopper_cluster_sum.cuh), after the k loop
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t n0 = int64_t(blockIdx.x) * L::kRows;
  const int64_t kb = int64_t(blockIdx.y) * k_slice, ke = min(p.k, kb + k_slice);
  const int chunks = int((ke - kb + kChunk - 1) / kChunk);
  const auto* gA = static_cast<const uint16_t*>(p.A);
  const bool vecA = vec_ok(p.A, p.lda), vecW = vec_ok(p.W, p.ldw);
  const WTileRows<kTN> rowsW(p, n0 + 16 * kTN * warp, g);  // the warp's tiles: CTA rows 16·(warp·kTN + i) …
  float acc[kRegs] = {};  // [tile i][token tile j][4]

  const auto load_w = [&](WChunk& w, int c) {
#pragma unroll
    for (int u = 0; u < kBlocks; ++u) rowsW.load(w[u], kb + int64_t(c) * kChunk + u * 32 + 8 * t, ke, vecW);
  };
  // Chunk c: its W in wc (v12 loads it here; v13 loaded it one chunk earlier and now starts chunk
  // c + 1's into wn), the next chunk's tokens staged, this chunk's MMAs.
  const auto step = [&](WChunk& wc, WChunk& wn, int c) {
    if constexpr (kPrefetch) {
      if (c + 1 < chunks) load_w(wn, c + 1);
    } else {
      load_w(wc, c);
    }
    if (c + 1 < chunks) stage_tokens<L, kChunk>(sA + ((c + 1) & 1) * L::kStage, p, gA, kb + int64_t(c + 1) * kChunk, ke, vecA);
    cp_async_commit();  // every chunk commits a group (perhaps empty): the wait below counts on it
    cp_async_wait<1>();
    __syncthreads();  // chunk c's tokens are in sA[c & 1] for every warp
    const uint16_t* sTok = sA + (c & 1) * L::kStage;
#pragma unroll
    for (int u = 0; u < kBlocks; ++u) {
      uint4 a[kNT];
#pragma unroll
      for (int j = 0; j < kNT; ++j)
        a[j] = *reinterpret_cast<const uint4*>(sTok + (8 * j + g) * L::kPitch + u * 32 + 8 * t);
#pragma unroll
      for (int i = 0; i < kTN; ++i)
#pragma unroll
        for (int j = 0; j < kNT; ++j) mma_k32<T>(&acc[(i * kNT + j) * 4], wc[u][i][0], wc[u][i][1], a[j]);
    }
    __syncthreads();  // every warp is done with sA[c & 1] before chunk c + 2 is staged into it
  };

  stage_tokens<L, kChunk>(sA, p, gA, kb, ke, vecA);
  cp_async_commit();
  WChunk w0, w1;  // v13's two register buffers, alternating; v12 uses w0 alone
  if constexpr (kPrefetch) {
    load_w(w0, 0);
    for (int c = 0; c < chunks; c += 2) {  // unrolled by two: each buffer is named, never indexed
      step(w0, w1, c);
      if (c + 1 < chunks) step(w1, w0, c + 1);
    }
  } else {
    for (int c = 0; c < chunks; ++c) step(w0, w0, c);
  }

  finish_cluster_tile<kTN, kNT, L::kRows, kThreads>(p, acc, true, warp, lane, n0, sPart);
}

template <class T, ClusterTiling kT>
void launch_tiling(const Problem& p, const Geometry& g, cudaStream_t stream) {
  using L = Layout<kT.token_tiles, kT.w_tiles, kT.chunk>;
  static_assert(L::kRows == kT.rows(), "plan.hpp's tiling");
  auto* kernel = cluster_split_k_kernel<T, kT.token_tiles, kT.w_tiles, kT.chunk, kT.prefetch>;
  opt_in_dynamic_smem(kernel, int64_t(L::kSmem));  // once per device, before its first launch there
  launch_on_clusters(kernel, g, L::kSmem, stream, p, g.k_slice);
}

template <class T, bool kPrefetch>
void launch_typed(const Problem& p, const Geometry& g, cudaStream_t stream) {
  switch (cluster_tiling(p.m, kPrefetch).token_tiles) {
    case 1: launch_tiling<T, cluster_tiling(8, kPrefetch)>(p, g, stream); break;
    case 2: launch_tiling<T, cluster_tiling(16, kPrefetch)>(p, g, stream); break;
    case 4: launch_tiling<T, cluster_tiling(32, kPrefetch)>(p, g, stream); break;
    default: launch_tiling<T, cluster_tiling(64, kPrefetch)>(p, g, stream); break;
  }
}

}  // namespace

void launch_cluster_split_k(const Problem& p, const Geometry& g, bool prefetch, cudaStream_t stream) {
  if (p.in == DType::f16) prefetch ? launch_typed<__half, true>(p, g, stream) : launch_typed<__half, false>(p, g, stream);
  else prefetch ? launch_typed<__nv_bfloat16, true>(p, g, stream) : launch_typed<__nv_bfloat16, false>(p, g, stream);
}

}  // namespace sol::kernels::gemm::gemv

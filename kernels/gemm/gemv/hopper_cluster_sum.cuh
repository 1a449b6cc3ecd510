#pragma once
// The on-chip end of a k-split over a thread-block cluster (v12, v13, v14): every CTA of the
// cluster has left its fp32 partial of the same tile in its own shared memory; CTA r sums its
// share of the tile's outputs over every CTA's partial through distributed shared memory, in rank
// order (deterministic, no workspace, no second launch), and writes C. Clusters of more than one
// CTA exist from sm_90 on: a file that includes this one builds for sm_90a only
// (cmake/sol_hopper.cmake), as its rungs run only there (plan.hpp's min_cc).
#include <utility>

#include "kernels/common/check.cuh"
#include "kernels/common/cluster.cuh"
#include "kernels/gemm/gemv/detail.cuh"

namespace sol::kernels::gemm::gemv {

// Floats a token of the partial of a tile of `rows` W rows: the partial is [token][row] (C's
// order: the sum reads consecutive columns); rows + 4 floats puts the stores of lanes (g, t) —
// rows g, tokens 2t — on distinct banks and keeps each token's row 16-byte aligned.
constexpr int part_pitch(int rows) { return rows + 4; }

// sPart: this CTA's partial, [token][row] with part_pitch(kRows) floats a token; the tile's rows
// start at C column n0. Called by all kThreads
// threads of every CTA of the cluster, with the partials written and not yet synchronised.
// A remote shared-memory load takes hundreds of cycles: each thread sums 4 consecutive rows of a
// token at a time (one 16-byte load a peer), and every peer's value is loaded before the first
// add (the split count unrolled to its bound).
template <int kRows, int kThreads>
__device__ __forceinline__ void sum_cluster_partials(const Problem& p, float* sPart, int64_t n0) {
  constexpr int kPartPitch = part_pitch(kRows);
  static_assert(kRows % 4 == 0 && kPartPitch % 4 == 0, "rows in 16-byte groups");
  const int splits = cluster_size();
  cluster_sync();  // every CTA's partial is in its shared memory, visible to the cluster
  // CTA `rank` owns rows row0 … row0 + rows − 1 of the tile (a multiple of 4 each but the last).
  const int rank = cluster_rank(), per = ((kRows + splits - 1) / splits + 3) / 4 * 4;
  const int row0 = rank * per, groups = (min(kRows, row0 + per) - row0) / 4;
  const float4* sPeer[kMaxClusterSplits];
#pragma unroll
  for (int r = 0; r < kMaxClusterSplits; ++r)
    sPeer[r] = reinterpret_cast<const float4*>(cluster_peer(sPart, r < splits ? r : 0));
  for (int idx = threadIdx.x; idx < groups * int(p.m); idx += kThreads) {
    const int tok = idx / groups, row = row0 + 4 * (idx % groups);
    float4 v[kMaxClusterSplits];
#pragma unroll
    for (int r = 0; r < kMaxClusterSplits; ++r)
      v[r] = r < splits ? sPeer[r][(tok * kPartPitch + row) / 4] : make_float4(0.f, 0.f, 0.f, 0.f);
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int r = 0; r < kMaxClusterSplits; ++r)
      if (r < splits) sum.x += v[r].x, sum.y += v[r].y, sum.z += v[r].z, sum.w += v[r].w;
    const float out[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (n0 + row + e < p.n) write_c(p, tok, n0 + row + e, out[e]);
  }
  cluster_sync();  // no CTA leaves while a peer may still read its partial
}

// The end of a tile of the swapped product: with one split the accumulators go straight to C,
// else into sPart (the ring or stage memory, free by now) and then summed over the cluster. acc
// holds warp `warp`'s mma C fragments, [W tile i][token tile j][4]: element e of tiles (i, j) is
// tile row 16·(warp·kTN + i) + g + 8·(e / 2), token 8j + 2t + e % 2. A warp without
// accumulators (v14's producer) passes has_acc = false and takes part in the sums only.
template <int kTN, int kNT, int kRows, int kThreads>
__device__ __forceinline__ void finish_cluster_tile(const Problem& p, const float (&acc)[kTN * kNT * 4], bool has_acc,
                                                    int warp, int lane, int64_t n0, float* sPart) {
  const int g = lane / 4, t = lane % 4;
  const auto each_output = [&](auto&& f) {
    if (!has_acc) return;
#pragma unroll
    for (int i = 0; i < kTN; ++i)
#pragma unroll
      for (int j = 0; j < kNT; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          f(16 * (warp * kTN + i) + g + 8 * (e / 2), 8 * j + 2 * t + e % 2, acc[(i * kNT + j) * 4 + e]);
  };
  if (cluster_size() == 1) {
    each_output([&](int row, int tok, float v) {
      if (n0 + row < p.n && tok < p.m) write_c(p, tok, n0 + row, v);
    });
    return;
  }
  each_output([&](int row, int tok, float v) { sPart[tok * part_pitch(kRows) + row] = v; });
  sum_cluster_partials<kRows, kThreads>(p, sPart, n0);
}

// Launches a cluster-split kernel over g (grid: N tiles × splits; the splits of one tile, the
// whole of grid.y, form one cluster) with smem bytes of dynamic shared memory.
template <class... Params, class... Args>
void launch_on_clusters(void (*kernel)(Params...), const Geometry& g, size_t smem, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = unsigned(g.splits);
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(g.blocks_n), unsigned(g.splits));
  cfg.blockDim = dim3(unsigned(g.threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = &cluster;
  cfg.numAttrs = 1;
  SOL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace sol::kernels::gemm::gemv

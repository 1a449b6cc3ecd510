#pragma once
// v05, the cluster rung (Impl::Cluster, softmax; v06 on fp32 rows): rows too long for one block's
// registers (vocabulary logits, 32k–256k columns), read once from HBM and written once. A row is
// split over a thread-block cluster (sm_90) of `slices` CTAs; each CTA copies its column slice into
// shared memory with cp.async — the whole slice in flight at once, holding no registers — and
// sweeps it into a running (max, Σ exp(x − max)) pair per thread (the online softmax of
// kernels/rows/ops.cuh), merged over the block. The CTAs' pairs are exchanged
// through distributed shared memory and merged in rank order, so every CTA of the cluster holds
// the same bits; the output sweep re-reads the slice from shared memory, not from HBM or L2.
// The idea of keeping a vocabulary row on chip across a cluster follows QuACK's cluster
// reductions (Dao-AILab/quack); the code is this tree's row machinery.
//
// An Op says what a row produces (softmax: y; cross-entropy: loss and dlogits, kernels/crossentropy)
// and whether a row is read at all (an ignored cross-entropy row is not). Rows lie ldx (x) and ldy
// (y) elements apart; y may be x itself (ldy = ldx): each CTA has its slice on chip before any of
// the cluster writes. A row is read in 16-byte packs over the 16-byte-aligned window that holds it:
// where it does not start or end on a boundary (odd lengths such as GPT-2's 50257, whose rows
// start at every offset in turn), the window's first and last packs are partial, read and written
// element by element, and the columns outside the row are masked out of the sums. That needs x and
// y at the same offset from a boundary in every row (in place, or equal pitches); otherwise single
// elements, copied by plain loads (cp.async has no 2-byte form).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernels/common/ptx.cuh"
#include "kernels/rows/backward.cuh"  // Pack, the cluster helpers and launch_sliced
#include "kernels/rows/ops.cuh"
#include "kernels/rows/cluster_split.hpp"

namespace sol::kernels::rows {

// How rows are read and split: 16-byte packs over each row's aligned window when x and y lie at
// the same offset from a 16-byte boundary in every row (same_offset), single elements otherwise or
// when the window's extra pack does not fit.
// A window spans cols elements where every row starts on a boundary and cols is a multiple of a
// pack, at most cols + (pack − 1) otherwise; the split is made for the longest.
struct ClusterLayout {
  ClusterSplit split;  // slices = 0: the row does not fit the cluster
  bool packs = false;  // 16-byte packs over the window (else single elements)
  bool partial = false;  // with packs: some row's window has a partial first or last pack
};
template <class T>
ClusterLayout cluster_layout(const void* x, const void* y, int64_t cols, int64_t ldx, int64_t ldy, int cc) {
  constexpr int64_t kVec = 16 / int64_t(sizeof(T)), kBytes = int64_t(sizeof(T));
  if (same_offset(x, ldx, y, ldy, kBytes)) {
    const bool whole = reinterpret_cast<uintptr_t>(x) % 16 == 0 && ldx * kBytes % 16 == 0 && cols % kVec == 0;
    const ClusterSplit s = cluster_split(whole ? cols : window_max_cols(cols, kVec), kBytes, kVec, cc);
    if (s.slices > 0) return {s, true, !whole};
  }
  return {cluster_split(cols, kBytes, 1, cc), false};
}

// The per-thread partial of a row: online max and sum of exp(x − max), and Σx where the Op needs it
// (cross-entropy's label smoothing).
struct RowAcc {
  float max = -INFINITY, sum = 0.f, sumx = 0.f;
};

// ---- the kernel ---------------------------------------------------------------------------------
// Cluster c (CTAs c·slices … c·slices + slices − 1) walks rows c, c + parts, …; CTA rank s holds
// packs [s·per, min(npack, (s+1)·per)) of each row's window in sSlice. Op (device, static):
//   kSumX                         whether Σx is accumulated
//   read(a, row) → bool           whether the row's x is read (false: out gets x = 0)
//   pick(a, row) → float          one more value of the row the leader (rank 0, thread 0) reads
//   finish(a, row, max, sum, sumx, picked, read, leader) → Op::Row   the row's values; the
//                                 leader writes what the row saves
//   out(x, column, Op::Row) → float                          an output element
// a.y == nullptr: nothing written per element.
// Single elements of 16-bit types are copied kLoadBatch at a time per thread (cp.async needs ≥ 4 bytes).
inline constexpr int kLoadBatch = 8;

// kThreads threads a CTA (cluster_split's choice); registers for 1536 threads an SM (six CTAs of
// 256, three of 512): at most 40.
template <class Op, class T, int kPerVec, class Args, int kThreads>
__global__ void __launch_bounds__(kThreads, 1536 / kThreads) cluster_row_kernel(Args a, int64_t per) {
  extern __shared__ uint4 sSlice[];  // (per) packs of this CTA's slice
  __shared__ float sRed[32];
  __shared__ float sXch[2][3];  // this CTA's (max, sum, Σx), by row parity
  using P = Pack<T, kPerVec>;
  const int t = threadIdx.x;
  const int slices = cluster_size(), rank = cluster_rank();
  const int64_t part = blockIdx.x / slices, parts = gridDim.x / slices;
  // In-row indices fit 32 bits: a row that fits a cluster has under 2^20 elements.
  const int cols = int(a.cols);
  P* sX = reinterpret_cast<P*>(sSlice);
  int parity = 0;
  for (int64_t row = part; row < a.rows; row += parts) {  // uniform over the cluster
    const bool read = Op::read(a, row);
    const T* gRow = a.x + row * a.ldx;
    const RowWindow<kPerVec> w(gRow, sizeof(T), cols);  // y's rows lie at the same offset (cluster_layout)
    const int start = rank * int(per), end = min(w.npack, start + int(per));
    RowAcc acc;
    if (read) {
      // Each thread copies and later reads only its own packs: committing its copies as one group
      // and waiting for it is the only sync (cp.async.wait_group does not wait for uncommitted copies).
      if constexpr (sizeof(P) == 16) {
        // Whole packs with cp.async; a partial one element by element, the columns outside the
        // row left zero.
        const P* gX = reinterpret_cast<const P*>(RowWindow<kPerVec>::aligned(gRow));
        for (int v = start + t; v < end; v += kThreads) {
          if (!w.partial(v, cols)) {
            cp_async_16(&sX[v - start], &gX[v]);
            continue;
          }
          P p{};
#pragma unroll
          for (int j = 0; j < kPerVec; ++j)
            if (const int c = w.column(v, j); c >= 0 && c < cols) p.e[j] = gRow[c];
          sX[v - start] = p;
        }
        cp_async_commit();
        cp_async_wait_all();
      } else if constexpr (sizeof(P) == 4) {
        const P* gX = reinterpret_cast<const P*>(gRow);
        for (int v = start + t; v < end; v += kThreads) cp_async_4(&sX[v - start], &gX[v]);
        cp_async_commit();
        cp_async_wait_all();
      } else {
        // kLoadBatch loads issued before any store: a store to shared memory between them would
        // hold each next (generic) load behind it, one load in flight per thread.
        const P* gX = reinterpret_cast<const P*>(gRow);
        for (int v0 = start + t; v0 < end; v0 += kLoadBatch * kThreads) {
          P rX[kLoadBatch];
#pragma unroll
          for (int k = 0; k < kLoadBatch; ++k)
            if (v0 + k * kThreads < end) rX[k] = gX[v0 + k * kThreads];
#pragma unroll
          for (int k = 0; k < kLoadBatch; ++k)
            if (v0 + k * kThreads < end) sX[v0 + k * kThreads - start] = rX[k];
        }
      }
      for (int v = start + t; v < end; v += kThreads) {
        const P p = sX[v - start];
        const bool partial = w.partial(v, cols);
        float d[kPerVec];
#pragma unroll
        for (int j = 0; j < kPerVec; ++j) {
          const bool in_row = !partial || (w.column(v, j) >= 0 && w.column(v, j) < cols);
          d[j] = in_row ? to_f32(p.e[j]) : -INFINITY;  // a masked column adds exp(−inf) = 0
          if constexpr (Op::kSumX) acc.sumx += in_row ? d[j] : 0.f;
        }
        SoftmaxOp::push(acc.max, acc.sum, d);
      }
    }
    // What the leader reads of the row besides its slice, before any CTA of the cluster writes y
    // (they do after the exchange below), so that y may be x itself.
    const bool leader = rank == 0 && t == 0;
    const float picked = read && leader ? Op::pick(a, row) : 0.f;
    // The block's pair: the max first, then every thread's sum rescaled to it.
    const float bmax = group_reduce<Reduce::Max, kThreads>(acc.max, sRed);
    float bsum = group_reduce<Reduce::Sum, kThreads>(SoftmaxOp::rescale(acc.sum, acc.max, bmax), sRed);
    float bsumx = Op::kSumX ? group_reduce<Reduce::Sum, kThreads>(acc.sumx, sRed) : 0.f;
    float rmax = bmax;
    if (slices > 1) {
      if (t == 0) {
        sXch[parity][0] = bmax;
        sXch[parity][1] = bsum;
        sXch[parity][2] = bsumx;
      }
      // sXch[parity] was last read two rows ago, before every CTA arrived at the previous row's
      // sync, which this CTA has passed: one sync per row suffices with two buffers.
      cluster_sync();
      rmax = -INFINITY;
      for (int r = 0; r < slices; ++r) rmax = fmaxf(rmax, cluster_peer(&sXch[parity][0], r)[0]);
      bsum = bsumx = 0.f;
      for (int r = 0; r < slices; ++r) {  // rank order: every CTA gets the same bits
        const float* pX = cluster_peer(&sXch[parity][0], r);
        bsum += SoftmaxOp::rescale(pX[1], pX[0], rmax);
        bsumx += pX[2];
      }
      parity ^= 1;
    }
    const typename Op::Row rv = Op::finish(a, row, rmax, bsum, bsumx, picked, read, leader);
    if (a.y) {
      T* gYRow = a.y + row * a.ldy;
      P* gY = reinterpret_cast<P*>(RowWindow<kPerVec>::aligned(gYRow));
      for (int v = start + t; v < end; v += kThreads) {
        P pIn{}, pOut;
        if (read) pIn = sX[v - start];
#pragma unroll
        for (int j = 0; j < kPerVec; ++j) pOut.e[j] = from_f32<T>(Op::out(to_f32(pIn.e[j]), w.column(v, j), rv));
        if (!w.partial(v, cols)) {
          gY[v] = pOut;
          continue;
        }
#pragma unroll
        for (int j = 0; j < kPerVec; ++j)
          if (const int c = w.column(v, j); c >= 0 && c < cols) gYRow[c] = pOut.e[j];
      }
    }
    __syncthreads();  // this row's shared-memory reads are done before the next row's copies land
  }
  if (slices > 1) cluster_sync();  // no CTA leaves while another may still read its sXch
}

// ---- the plan -------------------------------------------------------------------------------------
// grid = parts × slices CTAs in clusters of `slices`: a cluster per row, up to gridDim.x's limit
// (clusters then walk several rows). main.func is nullptr when the row does not fit.
struct ClusterPlan {
  LaunchInfo main;
  int slices = 0;
  int64_t per = 0;
};

template <class Op, class T, class Args>
ClusterPlan plan_cluster_rows(const Args& a, const ClusterLayout& layout) {
  constexpr int kVec = 16 / int(sizeof(T));
  const ClusterSplit& s = layout.split;
  ClusterPlan p;
  if (s.slices == 0) return p;
  const bool small = s.threads == kClusterThreadsSmall;
  const void* kernel = nullptr;
  if (layout.packs)
    kernel = small ? reinterpret_cast<const void*>(cluster_row_kernel<Op, T, kVec, Args, kClusterThreadsSmall>)
                   : reinterpret_cast<const void*>(cluster_row_kernel<Op, T, kVec, Args, kClusterThreadsLarge>);
  else
    kernel = small ? reinterpret_cast<const void*>(cluster_row_kernel<Op, T, 1, Args, kClusterThreadsSmall>)
                   : reinterpret_cast<const void*>(cluster_row_kernel<Op, T, 1, Args, kClusterThreadsLarge>);
  p.slices = s.slices;
  p.per = s.per;
  p.main.block_threads = s.threads;
  p.main.dynamic_smem_bytes = s.slice_bytes;
  p.main.grid_blocks = std::min<int64_t>(a.rows, std::numeric_limits<int32_t>::max() / s.slices) * s.slices;
  p.main.func = p.main.grid_blocks ? kernel : nullptr;
  return p;
}

template <class Args>
void launch_cluster_rows(const ClusterPlan& p, const Args& a, cudaStream_t stream) {
  if (!p.main.func || p.main.grid_blocks == 0) return;
  opt_in_dynamic_smem(p.main.func, p.main.dynamic_smem_bytes);
  using Kernel = void (*)(Args, int64_t);
  launch_sliced(reinterpret_cast<Kernel>(const_cast<void*>(p.main.func)), p.main, p.slices, stream, a, p.per);
}

// ---- softmax as a cluster Op ----------------------------------------------------------------------
// y = exp(x − max)·(1/Σ); saves max and 1/Σ (stat0, stat1) as the other rungs do. A fully masked
// row gives zeros (kernels/rows/ops.cuh).
struct SoftmaxClusterOp {
  static constexpr bool kSumX = false;
  struct Row {
    Stats s;
  };
  template <class A>
  __device__ static bool read(const A&, int64_t) { return true; }
  template <class A>
  __device__ static float pick(const A&, int64_t) { return 0.f; }
  template <class A>
  __device__ static Row finish(const A& a, int64_t row, float max, float sum, float, float, bool, bool leader) {
    const Stats s = SoftmaxOp::stats(max, sum, a.cols, 0.f);
    if (leader) save_stats<SoftmaxOp>(a, row, s);
    return {s};
  }
  __device__ static float out(float x, int64_t, const Row& r) { return SoftmaxOp::out(x, r.s, 1.f, 0.f); }
};

}  // namespace sol::kernels::rows

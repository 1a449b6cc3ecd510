#pragma once
// Backward passes of the row families (LayerNorm, RMSNorm, softmax): the forward's sibling.
// Each op's backward is two row sums and an elementwise output (lecture §8: fewer passes):
//   LayerNorm  x̂ = (x−μ)·rstd, g = dy·γ, dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), dγ = Σ_rows dy·x̂, dβ = Σ_rows dy
//   RMSNorm    x̂ = x·rstd,                  dx = rstd·(g − x̂·mean(g·x̂)),            dγ = Σ_rows dy·x̂
//   softmax    (a = y)                      dx = y·(dy − Σ dy·y)
// One-read kernel: a row group holds its row's a and dy vectors in registers (16-byte loads),
// reduces both sums over the registers in one sweep (the saved μ, rstd make them independent),
// and writes dx; where it pays (plan_backward) the loads of its next row are already in flight
// meanwhile (a two-row software pipeline) and γ stays in registers across rows. Rows too long for one block are split over a thread-block cluster (sm_90):
// each CTA holds a column slice and the two block sums are exchanged through distributed shared
// memory, added in rank order so that every CTA of the cluster gets the same bits.
// dγ/dβ without atomics: the grid is persistent (a few blocks per SM, each walking rows); every
// thread owns fixed columns for all its rows, so it accumulates their dy·x̂ and dy in its own
// shared-memory slots (no races, a fixed order). At the end a block writes its partial column
// sums to a workspace [parts × params × cols] with plain stores, and a small second kernel adds
// the parts of each column in a fixed order: bit-identical results across runs.
// Rows longer than a cluster holds (cols > kClusterMaxCols; for 16-bit softmax, packed rows and
// windows, kSoftmaxClusterMaxCols) go to the looped kernel: a block per row, two sweeps over a
// and dy (the second mostly L2 hits), the parameter gradients accumulated straight into the
// workspace (see row_bwd_looped_kernel).
// Rows lie lda, lddy, lddx elements apart; the eager passes (v01) take packed rows only.

#include <algorithm>

#include "kernels/common/cluster.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/rows/ops.cuh"
#include "kernels/rows/v01_eager.cuh"  // the eager passes' kernel, MeanPass

namespace sol::kernels::rows {

// What a backward kernel reads and writes. a: x (norms) or y (softmax); dy, dx: rows × cols.
template <class T>
struct BwdArgs {
  const T* a = nullptr;
  const T* dy = nullptr;
  T* dx = nullptr;
  const T* gamma = nullptr;     // cols (norms)
  const float* mean = nullptr;  // rows (LayerNorm), saved by the forward
  const float* rstd = nullptr;  // rows (norms), saved by the forward
  T* dgamma = nullptr;          // cols (norms)
  T* dbeta = nullptr;           // cols (LayerNorm)
  float* work = nullptr;        // parts × kParams × cols partial column sums
  int64_t rows = 0, cols = 0;
  int64_t lda = 0, lddy = 0, lddx = 0;  // row pitches in elements (≥ cols; the caller sets them)
};

// ---- the three ops -------------------------------------------------------------------------------
// terms: the two per-element terms summed over the row; finish: the sums → what out needs;
// out: dx of one element; grads: the per-element terms of the parameter gradients (kParams).
struct LayerNormBwdOp {
  static constexpr int kParams = 2;  // dγ, dβ
  __device__ static float2 row_stats(const float* mean, const float* rstd, int64_t row) { return {mean[row], rstd[row]}; }
  __device__ static void terms(float a, float dy, float gam, float2 st, float& t0, float& t1) {
    const float g = dy * gam;
    t0 += g;
    t1 = fmaf(g, (a - st.x) * st.y, t1);
  }
  __device__ static float2 finish(float s0, float s1, int64_t cols) { return {s0 / float(cols), s1 / float(cols)}; }
  __device__ static float out(float a, float dy, float gam, float2 st, float2 m) {
    const float xh = (a - st.x) * st.y;
    return st.y * (dy * gam - m.x - xh * m.y);
  }
  __device__ static void grads(float a, float dy, float2 st, float* acc0, float* acc1) {
    *acc0 = fmaf(dy, (a - st.x) * st.y, *acc0);
    *acc1 += dy;
  }
};

struct RMSNormBwdOp {
  static constexpr int kParams = 1;  // dγ
  __device__ static float2 row_stats(const float*, const float* rstd, int64_t row) { return {0.f, rstd[row]}; }
  __device__ static void terms(float a, float dy, float gam, float2 st, float&, float& t1) { t1 = fmaf(dy * gam, a * st.y, t1); }
  __device__ static float2 finish(float, float s1, int64_t cols) { return {0.f, s1 / float(cols)}; }
  __device__ static float out(float a, float dy, float gam, float2 st, float2 m) { return st.y * (dy * gam - a * st.y * m.y); }
  __device__ static void grads(float a, float dy, float2 st, float* acc0, float*) { *acc0 = fmaf(dy, a * st.y, *acc0); }
};

// a = y. A masked element has y = 0, so dx = 0 there (never NaN: y and dy are finite).
struct SoftmaxBwdOp {
  static constexpr int kParams = 0;
  __device__ static float2 row_stats(const float*, const float*, int64_t) { return {0.f, 0.f}; }
  __device__ static void terms(float a, float dy, float, float2, float&, float& t1) { t1 = fmaf(dy, a, t1); }
  __device__ static float2 finish(float, float s1, int64_t) { return {0.f, s1}; }
  __device__ static float out(float a, float dy, float, float2, float2 m) { return a * (dy - m.y); }
  __device__ static void grads(float, float, float2, float*, float*) {}
};

// kPerVec elements of T loaded as one access (16 bytes, or one element on the scalar path).
template <class T, int kPerVec>
struct alignas(sizeof(T) * kPerVec) Pack {
  T e[kPerVec];
};

// A held 16-byte pack made opaque (rows.cuh's opaque): each sweep unpacks it afresh instead of the
// compiler keeping every unpacked fp32 value live between the sums and the output sweep.
template <class T, int kPerVec>
__device__ inline Pack<T, kPerVec> fresh(const Pack<T, kPerVec>& p) {
  if constexpr (sizeof(p) == 16) {
    uint4 u;
    memcpy(&u, &p, 16);
    u = opaque(u);
    Pack<T, kPerVec> q;
    memcpy(&q, &u, 16);
    return q;
  } else {
    return p;
  }
}

// A row's window of packs: the row starts `off` elements into pack 0 (0 for single elements).
// Column of lane j of pack v: v·kPerVec + j − off; a pack is partial when it holds a column
// outside [0, cols).
template <int kPerVec>
struct RowWindow {
  int off = 0, npack = 0;
  RowWindow() = default;
  __device__ RowWindow(const void* row, int64_t elem_bytes, int64_t cols)
      : off(kPerVec > 1 ? int(reinterpret_cast<uintptr_t>(row) % 16 / uintptr_t(elem_bytes)) : 0),
        npack(int((off + cols + kPerVec - 1) / kPerVec)) {}
  __device__ int column(int v, int j) const { return v * kPerVec + j - off; }
  __device__ bool partial(int v, int64_t cols) const {
    return kPerVec > 1 && (column(v, 0) < 0 || column(v, kPerVec - 1) >= cols);
  }
  template <class T>
  __device__ static T* aligned(T* p) {  // the pack holding p's first element
    return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(kPerVec > 1 ? 15 : 0));
  }
};

// The most elements a row's window spans: the row's, plus up to kPerVec − 1 before it in its first
// pack (host: plans and splits size for the longest).
constexpr int64_t window_max_cols(int64_t cols, int64_t per_vec) { return cols + per_vec - 1; }

// Rows of two tensors lie at one offset from a 16-byte boundary in every row (bases 16 bytes apart
// modulo 16, pitches equal modulo 16 bytes): one window serves both.
inline bool same_offset(const void* p, int64_t ldp, const void* q, int64_t ldq, int64_t elem_bytes) {
  return (reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(q)) % 16 == 0 && (ldp - ldq) * elem_bytes % 16 == 0;
}

// ---- one-read kernel ------------------------------------------------------------------------------
// kGroups row groups of kThreads threads per block: short rows go to lane groups (kThreads = 1 …
// 32 lanes, kGroups rows at a time, never in a cluster; the forward's register_config picks the
// group), longer ones to a block (kGroups = 1). A row's pack range [0, npack) is split over the
// cluster's `slices` CTAs: CTA rank s holds packs [s·per, min(npack, (s+1)·per)); thread t of a
// group holds packs start + k·kThreads + t, k < kVecs. Cluster c's groups walk rows
// (c·kGroups + g) + i·parts·kGroups.
// Shared memory: kParams slots per held element per thread, [q][k][j][threadIdx.x]: a warp's lanes
// touch consecutive words whatever the group size (conflict-free).
// kWindow (ops without parameters, i.e. softmax): rows that are not 16-byte aligned but lie at one
// offset from a boundary in a, dy and dx alike are read in 16-byte packs over their window
// (RowWindow), as the forward's cluster rung reads them; a partial first or last pack is read
// element by element with zeros outside the row (zero terms) and written element by element.
template <class Op, class T, int kPerVec, int kThreads, int kVecs, int kGroups, bool kPipelined, bool kWindow = false>
__global__ void __launch_bounds__(kThreads* kGroups) row_bwd_kernel(BwdArgs<T> a, int per) {
  static_assert(!kWindow || (Op::kParams == 0 && kPerVec > 1), "windows are for packed rows without parameters");
  extern __shared__ float sAcc[];
  __shared__ float sRed[32];
  __shared__ float sXch[2][2];  // this CTA's block sums, by row parity (cluster exchange)
  constexpr int kBlock = kThreads * kGroups;
  constexpr int kElems = kVecs * kPerVec;     // elements a thread holds
  constexpr int kSlots = kElems * kBlock;     // per parameter
  using P = Pack<T, kPerVec>;
  const int g = threadIdx.x / kThreads, t = threadIdx.x % kThreads;
  const int slices = cluster_size(), rank = cluster_rank();
  const int64_t part = blockIdx.x / slices, parts = gridDim.x / slices;
  const int npack = int(a.cols / kPerVec);  // ≤ 65536 (kWindow: each row's window has its own)
  const int start = rank * per, end = min(npack, start + per);
  // A row's window; without kWindow, the packs of an aligned row.
  const auto window = [&](int64_t row) {
    if constexpr (kWindow) return RowWindow<kPerVec>(a.a + row * a.lda, sizeof(T), a.cols);
    RowWindow<kPerVec> w;
    w.npack = npack;
    return w;
  };
  float* sMine = sAcc + threadIdx.x;  // slot (q, k·kPerVec + j): sMine[(q·kElems + k·kPerVec + j)·kBlock]
  for (int i = 0; i < Op::kParams * kElems; ++i) sMine[i * kBlock] = 0.f;
  // γ is the same for every row this thread walks. Pipelined: held in registers (kVecs packs);
  // otherwise re-read (L1/L2 hits) in each sweep, sparing the registers.
  const bool hasG = a.gamma != nullptr;
  const P* gG = reinterpret_cast<const P*>(a.gamma);
  P rG[kVecs]{};
  if constexpr (kPipelined) {
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int v = start + k * kThreads + t;
      if (hasG && v < end) rG[k] = gG[v];
    }
  }
  auto gamma = [&](int k, int v) {
    if constexpr (kPipelined) return fresh(rG[k]);
    P p{};
    if (hasG) p = gG[v];
    return p;
  };
  // Loads of a row's a and dy packs into registers (nothing for rows past the end).
  auto load_row = [&](int64_t row, P* rA, P* rDy) {
    if (row >= a.rows) return;
    const T* rowA = a.a + row * a.lda;
    const T* rowDy = a.dy + row * a.lddy;
    const P* gA = reinterpret_cast<const P*>(RowWindow<kPerVec>::aligned(rowA));
    const P* gDy = reinterpret_cast<const P*>(RowWindow<kPerVec>::aligned(rowDy));
    const RowWindow<kPerVec> w = window(row);
    const int rowEnd = kWindow ? min(w.npack, start + per) : end;
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int v = start + k * kThreads + t;
      if (v >= rowEnd) continue;
      if (kWindow && w.partial(v, a.cols)) {
#pragma unroll
        for (int j = 0; j < kPerVec; ++j) {
          const int c = w.column(v, j);
          const bool in = c >= 0 && c < a.cols;
          rA[k].e[j] = in ? rowA[c] : from_f32<T>(0.f);
          rDy[k].e[j] = in ? rowDy[c] : from_f32<T>(0.f);
        }
      } else {
        rA[k] = gA[v];
        rDy[k] = gDy[v];
      }
    }
  };
  int parity = 0;
  // Groups walk rows independently (kGroups > 1 only for lane groups: no block-wide sync inside);
  // the CTAs of a cluster share `part`, hence the same rows, so their cluster syncs pair up.
  // Software pipeline: the next row's loads are issued before this row's sums, block (and
  // cluster) reductions and writes, so HBM always has a row of this group in flight; without it
  // a group's loads stopped during every reduction (ncu: 56 % of DRAM bandwidth at 4096 bf16 columns).
  const int64_t step = parts * kGroups;
  P rA[kVecs], rDy[kVecs];
  if constexpr (kPipelined) load_row(part * kGroups + g, rA, rDy);
  for (int64_t row = part * kGroups + g; row < a.rows; row += step) {
    P nA[kVecs], nDy[kVecs];
    if constexpr (kPipelined) load_row(row + step, nA, nDy);
    else load_row(row, rA, rDy);
    const float2 st = Op::row_stats(a.mean, a.rstd, row);
    const RowWindow<kPerVec> w = window(row);
    const int rowEnd = kWindow ? min(w.npack, start + per) : end;
    float s0 = 0.f, s1 = 0.f;
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int v = start + k * kThreads + t;
      if (v < rowEnd) {
        const P pA = fresh(rA[k]), pDy = fresh(rDy[k]), pG = gamma(k, v);
#pragma unroll
        for (int j = 0; j < kPerVec; ++j)
          Op::terms(to_f32(pA.e[j]), to_f32(pDy.e[j]), hasG ? to_f32(pG.e[j]) : 1.f, st, s0, s1);
      }
    }
    if constexpr (Op::kParams == 2) s0 = group_reduce<Reduce::Sum, kThreads>(s0, sRed);
    s1 = group_reduce<Reduce::Sum, kThreads>(s1, sRed);
    if (slices > 1) {  // kGroups == 1 here: the block sums are this CTA's slice sums
      if (threadIdx.x == 0) {
        sXch[parity][0] = s0;
        sXch[parity][1] = s1;
      }
      // sXch[parity] was last read (two rows ago) before every CTA arrived at the previous row's
      // sync, which this CTA has passed: one sync per row suffices with two buffers.
      cluster_sync();
      s0 = s1 = 0.f;
      for (int r = 0; r < slices; ++r) {  // rank order: every CTA gets the same bits
        const float* pX = cluster_peer(&sXch[parity][0], r);
        s0 += pX[0];
        s1 += pX[1];
      }
      parity ^= 1;
    }
    const float2 m = Op::finish(s0, s1, a.cols);
    T* rowDx = a.dx + row * a.lddx;
    P* gDx = reinterpret_cast<P*>(RowWindow<kPerVec>::aligned(rowDx));
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int v = start + k * kThreads + t;
      if (v < rowEnd) {
        P rO;
        const P pA = fresh(rA[k]), pDy = fresh(rDy[k]), pG = gamma(k, v);
#pragma unroll
        for (int j = 0; j < kPerVec; ++j) {
          const float x = to_f32(pA.e[j]), dy = to_f32(pDy.e[j]);
          rO.e[j] = from_f32<T>(Op::out(x, dy, hasG ? to_f32(pG.e[j]) : 1.f, st, m));
          if constexpr (Op::kParams > 0) {
            float* pS = sMine + (k * kPerVec + j) * kBlock;
            Op::grads(x, dy, st, pS, pS + kSlots);
          }
        }
        if (kWindow && w.partial(v, a.cols)) {
#pragma unroll
          for (int j = 0; j < kPerVec; ++j) {
            const int c = w.column(v, j);
            if (c >= 0 && c < a.cols) rowDx[c] = rO.e[j];
          }
        } else {
          gDx[v] = rO;
        }
      }
    }
    if constexpr (kPipelined) {
#pragma unroll
      for (int k = 0; k < kVecs; ++k) {
        rA[k] = nA[k];
        rDy[k] = nDy[k];
      }
    }
  }
  if constexpr (Op::kParams > 0) {
    // This part's column sums: groups added in order, then plain stores to the workspace. Item i
    // is (q, k·kPerVec + j, lane t of a group): its groups' slots lie kThreads apart.
    __syncthreads();
    for (int i = threadIdx.x; i < Op::kParams * kElems * kThreads; i += kBlock) {
      const int qkj = i / kThreads, tt = i % kThreads, kj = qkj % kElems, q = qkj / kElems;
      const int v = start + (kj / kPerVec) * kThreads + tt;
      if (v >= end) continue;
      float sum = 0.f;
      for (int gg = 0; gg < kGroups; ++gg) sum += sAcc[qkj * kBlock + gg * kThreads + tt];
      const int64_t c = int64_t(v) * kPerVec + kj % kPerVec;
      a.work[(part * Op::kParams + q) * a.cols + c] = sum;
    }
  }
  if (slices > 1) cluster_sync();  // no CTA leaves while another may still read its sXch
}

// ---- looped kernel (rows longer than a cluster holds) ----------------------------------------------
// One row per block at a time, the grid persistent (block b walks rows b, b + gridDim.x, …): the
// row sums in one sweep over a and dy, then a second sweep writes dx. Thread t owns packs
// t, t + kThreads, … of every row it walks, so it alone touches their columns of its part's
// workspace row: the parameter terms go straight there (stored at the block's first row, added
// after) — no shared memory per column, no races, a fixed order.
template <class Op, class T, int kPerVec, int kThreads>
__global__ void __launch_bounds__(kThreads) row_bwd_looped_kernel(BwdArgs<T> a, int) {
  __shared__ float sRed[32];
  using P = Pack<T, kPerVec>;
  const int t = threadIdx.x;
  const int64_t npack = a.cols / kPerVec;
  const bool hasG = a.gamma != nullptr;
  const P* gG = reinterpret_cast<const P*>(a.gamma);
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {  // uniform over the block
    const P* gA = reinterpret_cast<const P*>(a.a + row * a.lda);
    const P* gDy = reinterpret_cast<const P*>(a.dy + row * a.lddy);
    const float2 st = Op::row_stats(a.mean, a.rstd, row);
    float s0 = 0.f, s1 = 0.f;
    for (int64_t v = t; v < npack; v += kThreads) {
      const P pA = gA[v], pDy = gDy[v];
      P pG{};
      if (hasG) pG = gG[v];
#pragma unroll
      for (int j = 0; j < kPerVec; ++j)
        Op::terms(to_f32(pA.e[j]), to_f32(pDy.e[j]), hasG ? to_f32(pG.e[j]) : 1.f, st, s0, s1);
    }
    if constexpr (Op::kParams == 2) s0 = group_reduce<Reduce::Sum, kThreads>(s0, sRed);
    s1 = group_reduce<Reduce::Sum, kThreads>(s1, sRed);
    const float2 m = Op::finish(s0, s1, a.cols);
    P* gDx = reinterpret_cast<P*>(a.dx + row * a.lddx);
    [[maybe_unused]] float* gW = a.work + int64_t(blockIdx.x) * Op::kParams * a.cols;
    [[maybe_unused]] const bool first = row == blockIdx.x;
    for (int64_t v = t; v < npack; v += kThreads) {
      const P pA = gA[v], pDy = gDy[v];
      P pG{};
      if (hasG) pG = gG[v];
      P rO;
#pragma unroll
      for (int j = 0; j < kPerVec; ++j) {
        const float x = to_f32(pA.e[j]), dy = to_f32(pDy.e[j]);
        rO.e[j] = from_f32<T>(Op::out(x, dy, hasG ? to_f32(pG.e[j]) : 1.f, st, m));
        if constexpr (Op::kParams > 0) {
          float g[2] = {0.f, 0.f};
          Op::grads(x, dy, st, &g[0], &g[1]);
          const int64_t c = v * kPerVec + j;
#pragma unroll
          for (int q = 0; q < Op::kParams; ++q) gW[q * a.cols + c] = first ? g[q] : gW[q * a.cols + c] + g[q];
        }
      }
      gDx[v] = rO;
    }
  }
}

// Column sums of the workspace in a fixed order: block (x, q) owns 32 columns of parameter q;
// warp w adds parts w, w + 32, … (four loads in flight: the tail is latency-bound, ~3 MB at
// most), then warp 0 adds the 32 warp sums in warp order.
template <class T, class In>
__global__ void __launch_bounds__(kSumWarps * 32)
    column_sum_kernel(const In* gIn, int64_t parts, int params, int64_t cols, T* gOut0, T* gOut1) {
  __shared__ float sSum[kSumWarps][33];
  const int w = threadIdx.x / 32, l = threadIdx.x % 32, q = blockIdx.y;
  const int64_t c = int64_t(blockIdx.x) * 32 + l;
  float acc = 0.f;
  if (c < cols) {
#pragma unroll 4
    for (int64_t p = w; p < parts; p += kSumWarps) acc += to_f32(gIn[(p * params + q) * cols + c]);
  }
  sSum[w][l] = acc;
  __syncthreads();
  if (w == 0 && c < cols) {
    float sum = 0.f;
    for (int i = 0; i < kSumWarps; ++i) sum += sSum[i][l];
    T* gOut = q == 0 ? gOut0 : gOut1;  // nullptr: that gradient is not wanted
    if (gOut) gOut[c] = from_f32<T>(sum);
  }
}

// ---- eager passes (v01): one kernel per op of the backward formulas --------------------------------
// Per-row values an elementwise pass may use (nullptr reads as 0).
struct EagerRows {
  const float* mean = nullptr;
  const float* rstd = nullptr;
  const float* m1 = nullptr;  // mean(g) (LayerNorm) or Σ dy·y (softmax)
  const float* m2 = nullptr;  // mean(g·x̂)
};
struct EagerVals {
  float mean, rstd, m1, m2;
};
struct MulGammaFn {  // g = dy·γ
  __device__ static float map(float a, float, float gam, const EagerVals&) { return a * gam; }
};
struct XhatFn {  // x̂ = (x − μ)·rstd
  __device__ static float map(float a, float, float, const EagerVals& r) { return (a - r.mean) * r.rstd; }
};
struct MulFn {  // a·b
  __device__ static float map(float a, float b, float, const EagerVals&) { return a * b; }
};
struct NormDxFn {  // dx = rstd·(g − m1 − x̂·m2), a = g, b = x̂
  __device__ static float map(float a, float b, float, const EagerVals& r) { return r.rstd * (a - r.m1 - b * r.m2); }
};
struct SoftmaxDxFn {  // dx = y·(dy − Σ dy·y), a = y, b = dy
  __device__ static float map(float a, float b, float, const EagerVals& r) { return a * (b - r.m1); }
};
// Σ over the row → stat0 (softmax's Σ dy·y; the norms use v01_eager.cuh's MeanPass)
struct RowSumPass : PassBase {
  static constexpr bool kReduces = true;
  template <class T>
  __device__ static void finish(const RowArgs<T>& a, int64_t row, float sum) { a.stat0[row] = sum; }
};

template <class Fn, class T>
__global__ void __launch_bounds__(kEagerMapThreads)
    eager_map_kernel(const T* gA, const T* gB, const T* gG, EagerRows rows, T* gOut, int64_t nrows, int64_t cols) {
  const int64_t n = nrows * cols, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t r = i / cols, c = i % cols;
    const EagerVals v{rows.mean ? rows.mean[r] : 0.f, rows.rstd ? rows.rstd[r] : 0.f, rows.m1 ? rows.m1[r] : 0.f,
                      rows.m2 ? rows.m2[r] : 0.f};
    gOut[i] = from_f32<T>(Fn::map(to_f32(gA[i]), gB ? to_f32(gB[i]) : 0.f, gG ? to_f32(gG[c]) : 1.f, v));
  }
}

template <class Fn, class T>
void eager_map(const T* gA, const T* gB, const T* gG, const EagerRows& r, T* gOut, int64_t rows, int64_t cols,
               cudaStream_t stream) {
  // A grid-stride loop over at most kEagerMapMaxBlocks blocks (a few waves of an H200) covers any size.
  const int64_t blocks = std::min<int64_t>(blocks_for(rows * cols, kEagerMapThreads), kEagerMapMaxBlocks);
  if (blocks == 0) return;
  eager_map_kernel<Fn, T><<<unsigned(blocks), kEagerMapThreads, 0, stream>>>(gA, gB, gG, r, gOut, rows, cols);
  SOL_LAUNCH_CHECK();
}

// out[row] = Σ_c gIn[row, c] (/ cols for MeanPass) through the forward's eager pass kernel.
template <class Pass, class T>
void eager_row_reduce(const T* gIn, float* gOut, int64_t rows, int64_t cols, cudaStream_t stream) {
  RowArgs<T> p;
  p.x = gIn;
  p.stat0 = gOut;
  p.rows = rows;
  p.cols = cols;
  p.ldx = p.ldy = cols;
  eager_pass<Pass>(p, stream);
}

template <class T, class In>
void column_sums(const In* gIn, int64_t parts, int params, int64_t cols, T* gOut0, T* gOut1, cudaStream_t stream) {
  const dim3 grid(unsigned(blocks_for(cols, 32)), unsigned(params));
  if (grid.x == 0 || params == 0) return;
  column_sum_kernel<T, In><<<grid, kSumWarps * 32, 0, stream>>>(gIn, parts, params, cols, gOut0, gOut1);
  SOL_LAUNCH_CHECK();
}

// ---- launches ---------------------------------------------------------------------------------------
// A planned backward: the one-read kernel's launch (grid = parts × slices CTAs, clusters of
// `slices`), and the workspace it needs.
struct BwdPlan {
  LaunchInfo main;
  int slices = 1, per = 0;
  int64_t parts = 0;
  int params = 0;
  int64_t work_floats = 0;  // parts × params × cols
  // How rows are read (what explain_*_backward reports): elements a load moves (1 or a 16-byte
  // pack), over each row's window (unaligned softmax rows), lanes per row where a block holds
  // several rows (0: a block or a cluster per row), the looped kernel.
  int pack = 1;
  bool window = false;
  int lanes = 0;
  bool looped = false;
};

// A launch of `grid` CTAs in clusters of `slices` (attr: storage the config points to).
inline cudaLaunchConfig_t cluster_launch(int slices, int64_t grid, const LaunchInfo& p, cudaStream_t stream,
                                         cudaLaunchAttribute* attr) {
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = unsigned(slices);
  attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(grid));
  cfg.blockDim = dim3(unsigned(p.block_threads));
  cfg.dynamicSmemBytes = size_t(p.dynamic_smem_bytes);
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// Launches a planned kernel: in clusters of `slices` through cudaLaunchKernelEx, or plainly.
template <class... Params, class... Args>
void launch_sliced(void (*kernel)(Params...), const LaunchInfo& p, int slices, cudaStream_t stream, Args... args) {
  if (slices > 1) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_launch(slices, p.grid_blocks, p, stream, &attr);
    SOL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
  } else {
    kernel<<<unsigned(p.grid_blocks), unsigned(p.block_threads), size_t(p.dynamic_smem_bytes), stream>>>(args...);
    SOL_LAUNCH_CHECK();
  }
}

// The plan of one configuration: persistent grid of as many parts (CTAs, or clusters of
// `slices` CTAs) as fit on the device at once, at most one per row group.
// The packs a row spans: cols / kPerVec, or with kWindow the longest window's, rounded up.
template <int kPerVec, bool kWindow>
constexpr int64_t row_packs(int64_t cols) {
  return kWindow ? (window_max_cols(cols, kPerVec) + kPerVec - 1) / kPerVec : cols / kPerVec;
}

template <class Op, class T, int kPerVec, int kThreads, int kVecs, int kGroups, bool kPipelined = false,
          bool kWindow = false>
BwdPlan plan_config(const BwdArgs<T>& a, int slices) {
  auto* kernel = row_bwd_kernel<Op, T, kPerVec, kThreads, kVecs, kGroups, kPipelined, kWindow>;
  BwdPlan p;
  const int64_t npack = row_packs<kPerVec, kWindow>(a.cols);
  p.slices = slices;
  p.per = int((npack + slices - 1) / slices);
  p.params = Op::kParams;
  p.pack = kPerVec;
  p.window = kWindow;
  p.lanes = kGroups > 1 ? kThreads : 0;
  p.main.block_threads = kThreads * kGroups;
  p.main.dynamic_smem_bytes = int64_t(kGroups) * Op::kParams * kVecs * kPerVec * kThreads * int64_t(sizeof(float));
  opt_in_dynamic_smem(kernel, p.main.dynamic_smem_bytes);
  const int sms = sm_count();
  int fit = 0;
  if (slices > 1) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_launch(slices, slices, p.main, nullptr, &attr);
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&fit, kernel, &cfg));
  } else {
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, p.main.block_threads,
                                                                 size_t(p.main.dynamic_smem_bytes)));
    fit *= sms;
  }
  if (fit < 1) failure("row backward: the configuration fits no SM", "lower its shared memory");
  p.parts = std::min<int64_t>((a.rows + kGroups - 1) / kGroups, fit);
  p.main.grid_blocks = p.parts * slices;
  p.main.func = p.main.grid_blocks ? reinterpret_cast<const void*>(kernel) : nullptr;
  p.work_floats = p.parts * Op::kParams * a.cols;
  return p;
}

// The looped kernel's plan: as many blocks as fit at once (one part each), at most one per row;
// with parameter gradients at most one per SM, which bounds the workspace (parts × params × cols)
// at long rows.
template <class Op, class T, int kPerVec, int kThreads>
BwdPlan plan_looped_config(const BwdArgs<T>& a) {
  auto* kernel = row_bwd_looped_kernel<Op, T, kPerVec, kThreads>;
  BwdPlan p;
  p.params = Op::kParams;
  p.pack = kPerVec;
  p.looped = true;
  p.main.block_threads = kThreads;
  const int sms = sm_count();
  int fit = 0;
  SOL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, kThreads, 0));
  if (fit < 1) failure("row backward: the looped kernel fits no SM", "lower its registers");
  p.parts = std::min<int64_t>(a.rows, Op::kParams > 0 ? int64_t(sms) : int64_t(fit) * sms);
  p.main.grid_blocks = p.parts;
  p.main.func = p.main.grid_blocks ? reinterpret_cast<const void*>(kernel) : nullptr;
  p.work_floats = p.parts * Op::kParams * a.cols;
  return p;
}

// The widest row the one-read kernel takes: a cluster of 8 CTAs (the portable size) holding
// 8 × 256 × 4 packs (16-bit types), 8 × 512 × 4 (fp32) or 8 × 512 × 16 single elements.
inline constexpr int64_t kClusterMaxCols = 65536;
// Softmax rows of 16-bit types (no parameter gradients, so no shared memory per element) go on to
// vocabulary lengths: 8 CTAs × 512 threads × 8 packs of y and dy in registers (64 of them).
inline constexpr int64_t kSoftmaxClusterMaxCols = 262144;

// Rows of at most 32·kRegisterVecs packs in lane groups, the forward's (register_config): each
// thread holds up to kRegisterVecs packs of a and of dy, so that a qk-norm row (128 bf16 columns,
// 16 packs) keeps four lanes' 8 loads each in flight instead of 16 lanes' 2 of a warp per row;
// kBwdLaneRowThreads to a block.
inline constexpr int kBwdLaneRowThreads = 256;
template <class Op, class T, int kPerVec, bool kPipelined, bool kWindow>
BwdPlan plan_lane_rows(const BwdArgs<T>& a, int64_t npack) {
  constexpr int V = kRegisterVecs, B = kBwdLaneRowThreads;
  switch (register_config(npack).group) {
    case 1: return plan_config<Op, T, kPerVec, 1, V, B, kPipelined, kWindow>(a, 1);
    case 2: return plan_config<Op, T, kPerVec, 2, V, B / 2, kPipelined, kWindow>(a, 1);
    case 4: return plan_config<Op, T, kPerVec, 4, V, B / 4, kPipelined, kWindow>(a, 1);
    case 8: return plan_config<Op, T, kPerVec, 8, V, B / 8, kPipelined, kWindow>(a, 1);
    case 16: return plan_config<Op, T, kPerVec, 16, V, B / 16, kPipelined, kWindow>(a, 1);
    default: return plan_config<Op, T, kPerVec, 32, V, B / 32, kPipelined, kWindow>(a, 1);
  }
}

// Rows of npack 16-byte packs (aligned rows, or windows): lane-group rows (plan_lane_rows) to 128
// packs; then a block per row, or per row slice of ≤ kThreads·kVecs packs in a cluster of ≤ 8
// (portable size), for rows to kClusterMaxCols.
// Pipelined (the next row's loads in flight, γ in registers: 128 registers instead of ~72) where
// the H200 measured it faster (same harness): 16-bit lane-group rows and 128-thread rows
// (LayerNorm 65536×1024: 128 → 119 µs, 32768×4096: 314 → 262 µs) and the fp32 256-thread rows
// (32768×4096: 416 → 408 µs). Not in clusters, where each row already waits on a cluster barrier
// and the halved occupancy lost (softmax 4096×65536: 431 → 509 µs), nor fp32 128-thread rows
// (LayerNorm 65536×1024: 219 → 262 µs).
// Windows are not pipelined: their partial packs' element loads take the registers the second
// row would (ptxas: 150 instead of 126 a thread, one block of 256 an SM).
template <class Op, class T, bool kWindow>
BwdPlan plan_packs(const BwdArgs<T>& a, int64_t npack) {
  constexpr int kVec = 16 / int(sizeof(T));
  constexpr bool kBf16 = sizeof(T) == 2;
  const auto slices = [npack](int64_t cap) { return int((npack + cap - 1) / cap); };
  if (npack <= 32 * kRegisterVecs) return plan_lane_rows<Op, T, kVec, kBf16 && !kWindow, kWindow>(a, npack);
  if (npack <= 128 * 4) return plan_config<Op, T, kVec, 128, 4, 1, kBf16 && !kWindow, kWindow>(a, 1);
  if constexpr (kBf16) {
    return plan_config<Op, T, kVec, 256, 4, 1, false, kWindow>(a, slices(256 * 4));
  } else {
    if (npack <= 256 * 4) return plan_config<Op, T, kVec, 256, 4, 1, !kWindow, kWindow>(a, 1);
    if (npack <= 8 * 256 * 4) return plan_config<Op, T, kVec, 256, 4, 1, false, kWindow>(a, slices(256 * 4));
    return plan_config<Op, T, kVec, 512, 4, 1, false, kWindow>(a, slices(512 * 4));
  }
}

// a, dy and dx lie at one offset from a 16-byte boundary in every row: their rows share a window.
template <class T>
bool rows_congruent(const BwdArgs<T>& a) {
  const int64_t b = int64_t(sizeof(T));
  return same_offset(a.a, a.lda, a.dy, a.lddy, b) && same_offset(a.a, a.lda, a.dx, a.lddx, b);
}

// 16-byte packs when every row is 16-byte aligned; for softmax (no parameters) also over the
// windows of rows that share an offset (rows_congruent: GPT-2's 50257 columns); single elements
// otherwise. Every cols ≤ kClusterMaxCols fits a cluster, 16-bit softmax rows to
// kSoftmaxClusterMaxCols; longer rows go to the looped kernel.
template <class Op, class T>
BwdPlan plan_backward(const BwdArgs<T>& a, bool aligned) {
  constexpr int kVec = 16 / int(sizeof(T));
  constexpr bool kBf16 = sizeof(T) == 2;
  const auto slices = [](int64_t npack, int64_t cap) { return int((npack + cap - 1) / cap); };
  const bool packs = aligned && a.cols % kVec == 0;
  if constexpr (Op::kParams == 0) {
    const int64_t wpack = row_packs<kVec, true>(a.cols);
    const bool window = !packs && rows_congruent(a);
    if constexpr (kBf16) {
      if (a.cols > kClusterMaxCols && packs && a.cols <= kSoftmaxClusterMaxCols)
        return plan_config<Op, T, kVec, 512, 8, 1>(a, slices(a.cols / kVec, 512 * 8));
      if (a.cols > kClusterMaxCols && window && wpack * kVec <= kSoftmaxClusterMaxCols)
        return plan_config<Op, T, kVec, 512, 8, 1, false, true>(a, slices(wpack, 512 * 8));
    }
    if (window && wpack * kVec <= kClusterMaxCols) return plan_packs<Op, T, true>(a, wpack);
  }
  if (a.cols > kClusterMaxCols) {
    if (packs) return plan_looped_config<Op, T, kVec, 512>(a);
    return plan_looped_config<Op, T, 1, 512>(a);
  }
  if (packs) return plan_packs<Op, T, false>(a, a.cols / kVec);
  if (a.cols <= 32 * 4) return plan_config<Op, T, 1, 32, 4, 8>(a, 1);
  return plan_config<Op, T, 1, 512, 16, 1>(a, slices(a.cols, 512 * 16));
}

template <class Op, class T>
void run_backward(const BwdPlan& p, const BwdArgs<T>& a, cudaStream_t stream) {
  if (a.lda < a.cols || a.lddy < a.cols || a.lddx < a.cols)  // 0 (unset) would read every row from row 0
    failure("row backward: a pitch of lda = " + std::to_string(a.lda) + ", lddy = " + std::to_string(a.lddy) +
                ", lddx = " + std::to_string(a.lddx) + " is below cols = " + std::to_string(a.cols),
            "set BwdArgs::lda, lddy and lddx (≥ cols; cols for packed rows)");
  if (p.main.grid_blocks == 0) return;
  using Kernel = void (*)(BwdArgs<T>, int);
  launch_sliced(reinterpret_cast<Kernel>(const_cast<void*>(p.main.func)), p.main, p.slices, stream, a, p.per);
  column_sums(a.work, p.parts, p.params, a.cols, a.dgamma, a.dbeta, stream);
}

// 16-byte packs need every row of a, dy, dx (and γ) on a 16-byte boundary: the bases, cols and
// the three pitches.
template <class T>
bool rows_aligned(const BwdArgs<T>& a) {
  const uintptr_t bases = reinterpret_cast<uintptr_t>(a.a) | reinterpret_cast<uintptr_t>(a.dy) |
                          reinterpret_cast<uintptr_t>(a.dx) | reinterpret_cast<uintptr_t>(a.gamma);
  const int64_t lengths = a.cols | a.lda | a.lddy | a.lddx;  // in elements
  return bases % 16 == 0 && (lengths * int64_t(sizeof(T))) % 16 == 0;
}

// Scratch of the eager passes: three rows × cols tensors and two per-row vectors.
template <class T>
struct BwdTemps {
  T* t0 = nullptr;
  T* t1 = nullptr;
  T* t2 = nullptr;
  float* r0 = nullptr;
  float* r1 = nullptr;
};

// Entry points per op (kernels/rows/*_bwd.cu, kernels/rows/softmax_bwd.cu): the one-read plan,
// and the run — eager passes (using tmp) or the planned one-read kernel and its column sums.
template <class T>
BwdPlan layernorm_bwd_plan(const BwdArgs<T>& a);
template <class T>
void layernorm_bwd(bool eager, const BwdArgs<T>& a, const BwdPlan& p, const BwdTemps<T>& tmp, cudaStream_t stream);
template <class T>
BwdPlan rmsnorm_bwd_plan(const BwdArgs<T>& a);
template <class T>
void rmsnorm_bwd(bool eager, const BwdArgs<T>& a, const BwdPlan& p, const BwdTemps<T>& tmp, cudaStream_t stream);
template <class T>
BwdPlan softmax_bwd_plan(const BwdArgs<T>& a);
template <class T>
void softmax_bwd(bool eager, const BwdArgs<T>& a, const BwdPlan& p, const BwdTemps<T>& tmp, cudaStream_t stream);

// The explicit instantiations each of those files ends with.
#define SOL_ROW_BWD_INSTANTIATE(name)                                                                       \
  template BwdPlan name##_plan<float>(const BwdArgs<float>&);                                              \
  template BwdPlan name##_plan<__nv_bfloat16>(const BwdArgs<__nv_bfloat16>&);                              \
  template void name<float>(bool, const BwdArgs<float>&, const BwdPlan&, const BwdTemps<float>&, cudaStream_t); \
  template void name<__nv_bfloat16>(bool, const BwdArgs<__nv_bfloat16>&, const BwdPlan&, const BwdTemps<__nv_bfloat16>&, cudaStream_t); \
  template BwdPlan name##_plan<__half>(const BwdArgs<__half>&);                                            \
  template void name<__half>(bool, const BwdArgs<__half>&, const BwdPlan&, const BwdTemps<__half>&, cudaStream_t);

}  // namespace sol::kernels::rows

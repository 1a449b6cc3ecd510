#pragma once
// Row operations over x[rows × cols] (the last dimension reduced): LayerNorm, RMSNorm and
// softmax share this machinery; each is an Op (kernels/rows/ops.cuh) telling the kernels
// which two reductions it needs and how an element is produced from the row's statistics.
//   register kernel: one read per row. A row group (one warp for short rows, one block with a
//     two-level reduction — warp shuffles, then one value per warp through shared memory — for
//     long ones) loads its row with 16-byte loads into registers, reduces twice over the
//     registers (exact two-pass statistics) and writes the outputs. Needs cols·sizeof(T) to be
//     a multiple of 16 and the row to fit the group's registers.
//   looped kernel: any cols, scalar coalesced loads; the first pass keeps mergeable per-thread
//     accumulators (shifted sums, or the online softmax's running max and sum), the second pass
//     re-reads the row (mostly from L1/L2) and writes. Two reads of x from the SM's view.
//   eager pass: one op of the lecture's naive formulas per kernel (the v01 rungs).
// The norms fuse the decoder's residual add (Residual<Op>): the row normalized is s = x + res,
// rounded to T as an add kernel would round it, and s is written beside y — one read of x and
// res, one write of s and y, where an add kernel and a norm read s once more.
// Statistics are fp32 whatever T is; sizes are 64-bit; rows of any count. Rows lie ldx (x) and
// ldy (y) elements apart; 16-byte loads need the pitches, not only cols, to keep every row aligned.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/common/launch.cuh"
#include "kernels/rows/launch.hpp"
#include "kernels/elementwise/chain.cuh"

namespace sol::kernels::rows {

using elementwise::from_f32;
using elementwise::to_f32;

enum class Reduce { Sum, Max };

template <Reduce R>
__device__ inline float combine(float a, float b) {
  if constexpr (R == Reduce::Sum) return a + b;
  else return fmaxf(a, b);
}
template <Reduce R>
__device__ inline float identity() {
  if constexpr (R == Reduce::Sum) return 0.f;
  else return -INFINITY;
}

// Reduction over a row group of kThreads threads (a divisor of 32, or blockDim.x == kThreads; with
// kThreads = kWholeBlock, the block of any whole number of warps). Every thread of the group gets
// the result. sRed: ≥ 32 floats of shared memory. The shuffles name only the group's lanes, so a
// group whose row is past the end may leave without the others.
template <Reduce R, int kThreads>
__device__ inline float group_reduce(float v, float* sRed) {
  constexpr bool kBlock = kThreads == kWholeBlock;
  constexpr int kWidth = kBlock || kThreads >= 32 ? 32 : kThreads;
  const unsigned lanes = kWidth == 32 ? 0xffffffffu
                                      : ((1u << kWidth) - 1) << ((threadIdx.x % 32) & ~unsigned(kWidth - 1));
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) v = combine<R>(v, __shfl_xor_sync(lanes, v, o));
  if constexpr (kBlock || kThreads > 32) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) sRed[warp] = v;
    __syncthreads();
    v = lane < (kBlock ? int(blockDim.x / 32) : kThreads / 32) ? sRed[lane] : identity<R>();
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v = combine<R>(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();  // sRed is free for the next reduction
  }
  return v;
}

// What a kernel needs to know about one launch.
template <class T>
struct RowArgs {
  const T* x = nullptr;
  T* y = nullptr;
  const T* gamma = nullptr;  // cols, or nullptr
  const T* beta = nullptr;   // cols, or nullptr
  float* stat0 = nullptr;    // rows: mean (LayerNorm), max (softmax) — saved for backward
  float* stat1 = nullptr;    // rows: rstd (norms), 1/sum (softmax)
  int64_t rows = 0, cols = 0;
  int64_t ldx = 0, ldy = 0;  // row pitches in elements (≥ cols; the caller sets them)
  float eps = 1e-5f;         // the norms' variance epsilon
  // Residual<Op> only: res (rows × cols, pitch ldr) is added to x, and the sum, the row that is
  // normalized, is written to sum (pitch lds). sum may be x or res (with its pitch).
  const T* res = nullptr;
  T* sum = nullptr;
  int64_t ldr = 0, lds = 0;
};

// An Op with the residual add before it (norms): Op's statistics and outputs of s = x + res.
template <class Op>
struct Residual : Op {
  static constexpr bool kResidual = true;
};
template <class Op>
constexpr bool has_residual() {
  if constexpr (requires { Op::kResidual; }) return Op::kResidual;
  else return false;
}

// s = x + r in fp32, rounded to T: one element, and a 16-byte vector of them.
template <class T>
__device__ inline T add_rounded(T x, T r) {
  return from_f32<T>(to_f32(x) + to_f32(r));
}
template <class T>
__device__ inline uint4 add_vectors(const uint4& x, const uint4& r) {
  constexpr int kPerVec = 16 / int(sizeof(T));
  T ex[kPerVec], er[kPerVec];
  memcpy(ex, &x, 16);
  memcpy(er, &r, 16);
#pragma unroll
  for (int j = 0; j < kPerVec; ++j) ex[j] = add_rounded(ex[j], er[j]);
  uint4 o;
  memcpy(&o, ex, 16);
  return o;
}

struct Stats {
  float a = 0, b = 0;  // LayerNorm: mean, rstd; RMSNorm: 0, rstd; softmax: max, 1/sum
};

template <class T>
__device__ inline float param(const T* p, int64_t c, float dflt) {
  return p ? to_f32(p[c]) : dflt;
}

template <class Op, class T>
__device__ inline void save_stats(const RowArgs<T>& a, int64_t row, const Stats& s) {
  if (a.stat0) a.stat0[row] = s.a;
  if (a.stat1) a.stat1[row] = s.b;
}

// Threads per block for a row group of kThreads (small groups share a 128-thread block), and
// the row this thread's group owns.
template <int kThreads>
inline constexpr int kBlockThreads = kThreads < kRowMinBlockThreads ? kRowMinBlockThreads : kThreads;
template <int kThreads>
__device__ inline int64_t group_row() {
  return int64_t(blockIdx.x) * (kBlockThreads<kThreads> / kThreads) + threadIdx.x / kThreads;
}

// ---- register kernel -----------------------------------------------------------------------
// A held vector made opaque to the compiler (no instruction): each pass over the registers
// unpacks it afresh instead of the compiler keeping every unpacked fp32 value live across the
// passes — twice the registers for bf16, which made the 1024×8 configuration spill under its
// 64-register cap (docs/fusion-notes.md). Unpacking bf16 is one SHF/PRMT.
__device__ inline uint4 opaque(uint4 v) {
  asm volatile("" : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w));
  return v;
}

// y's 16-byte vector v of a row from x's vector rX and the row's statistics (γ and β: 16-byte
// loads too, cols·sizeof(T) being a multiple of 16; they are L2-resident).
template <class Op, class T>
__device__ inline void write_vector(const RowArgs<T>& a, int64_t row, int v, const uint4& rX, const Stats& s) {
  constexpr int kPerVec = 16 / int(sizeof(T));
  const uint4* gG16 = reinterpret_cast<const uint4*>(a.gamma);
  const uint4* gB16 = reinterpret_cast<const uint4*>(a.beta);
  T e[kPerVec], g[kPerVec], b[kPerVec];
  const uint4 rV = opaque(rX);
  memcpy(e, &rV, 16);
  if (gG16) {
    const uint4 rG = gG16[v];
    memcpy(g, &rG, 16);
  }
  if (gB16) {
    const uint4 rB = gB16[v];
    memcpy(b, &rB, 16);
  }
#pragma unroll
  for (int j = 0; j < kPerVec; ++j)
    e[j] = from_f32<T>(Op::out(to_f32(e[j]), s, gG16 ? to_f32(g[j]) : 1.f, gB16 ? to_f32(b[j]) : 0.f));
  uint4 o;
  memcpy(&o, e, 16);
  reinterpret_cast<uint4*>(a.y + row * a.ldy)[v] = o;
}

// Thread t of a row group of n threads holds vectors t, t + n, … (kVecs of them) of its row. The
// group is kGroup lanes of a warp (1 … 32; 32 / kGroup rows to a warp, kRowMinBlockThreads to a
// block) or, with kGroup = kWholeBlock, the block (blockDim.x threads, whole warps, one row).
template <class Op, class T, int kGroup, int kVecs>
__global__ void __launch_bounds__(kGroup == kWholeBlock ? 1024 : kBlockThreads<kGroup>)
    row_registers_kernel(RowArgs<T> a) {
  constexpr int kPerVec = 16 / int(sizeof(T));
  constexpr bool kBlock = kGroup == kWholeBlock;
  __shared__ float sRed[32];
  int n = 0, t = 0;
  int64_t row = 0;
  if constexpr (kBlock) {
    n = int(blockDim.x), t = int(threadIdx.x), row = blockIdx.x;
  } else {
    n = kGroup, t = int(threadIdx.x) % kGroup, row = group_row<kGroup>();
  }
  if (row >= a.rows) return;  // a whole group: its reductions' shuffles name only its lanes
  const int nvec = int(a.cols / kPerVec);  // in-row indices fit 32 bits (cols ≤ 65536)
  const uint4* gX16 = reinterpret_cast<const uint4*>(a.x + row * a.ldx);
  uint4 rX[kVecs];
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int v = k * n + t;
    if (v < nvec) rX[k] = gX16[v];
  }
  if constexpr (has_residual<Op>()) {  // rX becomes s = x + res, written at once
    const uint4* gR16 = reinterpret_cast<const uint4*>(a.res + row * a.ldr);
    uint4* gS16 = reinterpret_cast<uint4*>(a.sum + row * a.lds);
    uint4 rR[kVecs];
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int v = k * n + t;
      if (v < nvec) rR[k] = gR16[v];
    }
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int v = k * n + t;
      if (v < nvec) {
        rX[k] = add_vectors<T>(rX[k], rR[k]);
        gS16[v] = rX[k];
      }
    }
  }
  auto each = [&](auto&& fn) {  // fn(value) over this thread's elements
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      if (k * n + t < nvec) {
        T e[kPerVec];
        const uint4 rV = opaque(rX[k]);
        memcpy(e, &rV, 16);
#pragma unroll
        for (int j = 0; j < kPerVec; ++j) fn(to_f32(e[j]));
      }
    }
  };
  float r1 = identity<Op::kFirst>();
  each([&](float x) { r1 = combine<Op::kFirst>(r1, Op::first(x)); });
  r1 = group_reduce<Op::kFirst, kGroup>(r1, sRed);
  const float c1 = Op::center(r1, a.cols);
  float r2 = 0.f;
  if constexpr (Op::kSecond) {
    each([&](float x) { r2 += Op::second(x, c1); });
    r2 = group_reduce<Reduce::Sum, kGroup>(r2, sRed);
  }
  const Stats s = Op::stats(r1, r2, a.cols, a.eps);
  if (t == 0) save_stats<Op>(a, row, s);
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int v = k * n + t;
    if (v < nvec) write_vector<Op>(a, row, v, rX[k], s);
  }
}

// ---- looped kernel (any cols) ----------------------------------------------------------------
// Per-thread accumulator (acc0, acc1): acc0 reduces with Op::kFirst; acc1 is a sum that
// Op::rescale adapts to the row-wide acc0 before it is summed (online softmax).
// Rows that are 16-byte aligned (x, y, γ, β aligned, cols and the pitches multiples of 16 bytes) go by 16-byte
// vectors, kLoopUnroll of them loaded before any is used: a scalar loop has one 2–4-byte load in
// flight per thread, far short of what HBM needs (Little's law, docs/fusion-notes.md). Other
// rows: scalar coalesced loads.
inline constexpr int kLoopUnroll = 4;

template <class Op, class T, int kThreads>
__global__ void __launch_bounds__(kBlockThreads<kThreads>) row_looped_kernel(RowArgs<T> a) {
  constexpr int kPerVec = 16 / int(sizeof(T));
  __shared__ float sRed[32];
  const int t = threadIdx.x % kThreads;
  const int64_t row = group_row<kThreads>();
  if (row >= a.rows) return;  // only when kThreads ≤ 32: whole warps leave together
  constexpr bool kRes = has_residual<Op>();
  const T* gX = a.x + row * a.ldx;
  const T* gR = kRes ? a.res + row * a.ldr : nullptr;
  // Element c of the normalized row: x, or s = x + res.
  auto elem = [&](int64_t c) { return kRes ? add_rounded(gX[c], gR[c]) : gX[c]; };
  const float shift = Op::kShift ? to_f32(elem(0)) : 0.f;  // a value of the row: shifted sums stay small
  float acc0 = identity<Op::kFirst>(), acc1 = 0.f;
  uintptr_t bases = reinterpret_cast<uintptr_t>(a.x) | reinterpret_cast<uintptr_t>(a.y) |
                    reinterpret_cast<uintptr_t>(a.gamma) | reinterpret_cast<uintptr_t>(a.beta);
  int64_t pitches = a.cols | a.ldx | a.ldy;
  if constexpr (kRes) {
    bases |= reinterpret_cast<uintptr_t>(a.res) | reinterpret_cast<uintptr_t>(a.sum);
    pitches |= a.ldr | a.lds;
  }
  const bool vectors = pitches % kPerVec == 0 && bases % 16 == 0 &&
                       a.cols / kPerVec <= INT32_MAX / 2;  // v0 + 3·kThreads stays in int
  const int nvec = vectors ? int(a.cols / kPerVec) : 0;
  const uint4* gX16 = reinterpret_cast<const uint4*>(gX);
  const uint4* gR16 = reinterpret_cast<const uint4*>(gR);
  // fn(v, rX) over this thread's vectors (of s with the residual), kLoopUnroll loads in flight
  // (half as many vectors of x and as many of res with the residual)
  constexpr int kUnroll = kRes ? kLoopUnroll / 2 : kLoopUnroll;
  auto each_vector = [&](auto&& fn) {
    for (int v0 = t; v0 < nvec; v0 += kUnroll * kThreads) {
      uint4 rX[kUnroll], rR[kRes ? kUnroll : 1];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        if (v0 + k * kThreads < nvec) {
          rX[k] = gX16[v0 + k * kThreads];
          if constexpr (kRes) rR[k] = gR16[v0 + k * kThreads];
        }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        if (v0 + k * kThreads < nvec) {
          if constexpr (kRes) rX[k] = add_vectors<T>(rX[k], rR[k]);
          fn(v0 + k * kThreads, rX[k]);
        }
    }
  };
  each_vector([&](int, const uint4& rX) {
    T e[kPerVec];
    memcpy(e, &rX, 16);
    float d[kPerVec];
#pragma unroll
    for (int j = 0; j < kPerVec; ++j) d[j] = to_f32(e[j]) - shift;
    Op::push(acc0, acc1, d);
  });
  for (int64_t c = int64_t(nvec) * kPerVec + t; c < a.cols; c += kThreads) {
    const float d[1] = {to_f32(elem(c)) - shift};
    Op::push(acc0, acc1, d);
  }
  const float row0 = group_reduce<Op::kFirst, kThreads>(acc0, sRed);
  const float row1 = group_reduce<Reduce::Sum, kThreads>(Op::rescale(acc1, acc0, row0), sRed);
  const Stats s = Op::stats_shifted(row0, row1, a.cols, shift, a.eps);
  if (t == 0) save_stats<Op>(a, row, s);
  // The second read; with the residual, s is written here (sum may be x or res: each element is
  // read and written by the one thread, after the whole row's first read).
  T* gS = kRes ? a.sum + row * a.lds : nullptr;
  each_vector([&](int v, const uint4& rX) {
    if constexpr (kRes) reinterpret_cast<uint4*>(gS)[v] = rX;
    write_vector<Op>(a, row, v, rX, s);
  });
  T* gY = a.y + row * a.ldy;
  for (int64_t c = int64_t(nvec) * kPerVec + t; c < a.cols; c += kThreads) {
    const T e = elem(c);
    if constexpr (kRes) gS[c] = e;
    gY[c] = from_f32<T>(Op::out(to_f32(e), s, param(a.gamma, c, 1.f), param(a.beta, c, 0.f)));
  }
}

// The eager rungs' residual pass: s = x + res, rounded to T (rows of any pitch).
template <class T>
__global__ void __launch_bounds__(kEagerMapThreads) residual_add_kernel(RowArgs<T> a) {
  const int64_t n = a.rows * a.cols, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t r = i / a.cols, c = i % a.cols;
    a.sum[r * a.lds + c] = add_rounded(a.x[r * a.ldx + c], a.res[r * a.ldr + c]);
  }
}

// ---- one eager pass --------------------------------------------------------------------------
// Pass::map(x, row statistics, γ, β) → written element (when Pass::kWrites);
// Pass::term(x, row statistics) reduced with Pass::kReduce into Pass::finish(…) (when Pass::kReduces).
template <class Pass, class T, int kThreads>
__global__ void __launch_bounds__(kBlockThreads<kThreads>) eager_pass_kernel(RowArgs<T> a) {
  __shared__ float sRed[32];
  const int t = threadIdx.x % kThreads;
  const int64_t row = group_row<kThreads>();
  if (row >= a.rows) return;  // only when kThreads ≤ 32: whole warps leave together
  const T* gX = a.x + row * a.ldx;
  const Stats in{a.stat0 ? a.stat0[row] : 0.f, a.stat1 ? a.stat1[row] : 0.f};
  float acc = identity<Pass::kReduce>();
  for (int64_t c = t; c < a.cols; c += kThreads) {
    const float x = to_f32(gX[c]);
    if constexpr (Pass::kWrites) a.y[row * a.ldy + c] = from_f32<T>(Pass::map(x, in, param(a.gamma, c, 1.f), param(a.beta, c, 0.f)));
    if constexpr (Pass::kReduces) acc = combine<Pass::kReduce>(acc, Pass::term(x, in));
  }
  if constexpr (Pass::kReduces) {
    acc = group_reduce<Pass::kReduce, kThreads>(acc, sRed);
    if (t == 0) Pass::finish(a, row, acc);
  }
}

// ---- launches ---------------------------------------------------------------------------------
template <int kThreads>
constexpr int64_t rows_per_block() {
  return kBlockThreads<kThreads> / kThreads;
}

template <int kThreads, class Kernel>
LaunchInfo row_plan(Kernel kernel, int64_t rows) {
  return plan_1d(kernel, rows, rows_per_block<kThreads>(), kBlockThreads<kThreads>);
}

// The register kernel fits when every row of x and y starts 16-byte aligned (the bases, and cols
// and both pitches multiples of 16 bytes), γ and β are 16-byte aligned, and the row has at most
// kThreads·kVecs vectors for the largest configuration below (register_max_cols, launch.hpp).
template <class T>
bool fits_registers(const RowArgs<T>& a) {
  constexpr int64_t kPerVec = 16 / int64_t(sizeof(T));
  const uintptr_t bases = reinterpret_cast<uintptr_t>(a.x) | reinterpret_cast<uintptr_t>(a.y) |
                          reinterpret_cast<uintptr_t>(a.gamma) | reinterpret_cast<uintptr_t>(a.beta) |
                          reinterpret_cast<uintptr_t>(a.res) | reinterpret_cast<uintptr_t>(a.sum);
  const int64_t pitches = a.ldx | a.ldy | (a.res ? a.ldr | a.lds : 0);
  const int64_t most = a.res ? residual_register_max_cols(sizeof(T)) : register_max_cols(sizeof(T));
  return bases % 16 == 0 && a.cols % kPerVec == 0 && pitches % kPerVec == 0 && a.cols <= most;
}

// The register configuration of a row (register_config, launch.hpp): a group of lanes, or a block
// of whole warps, each thread holding kRegisterVecs vectors (twice that past 1024 threads).
template <class Op, class T>
LaunchInfo plan_registers(const RowArgs<T>& a) {
  const RegisterConfig c = register_config(a.cols / (16 / int64_t(sizeof(T))));
  switch (c.group) {
    case 1: return row_plan<1>(row_registers_kernel<Op, T, 1, kRegisterVecs>, a.rows);
    case 2: return row_plan<2>(row_registers_kernel<Op, T, 2, kRegisterVecs>, a.rows);
    case 4: return row_plan<4>(row_registers_kernel<Op, T, 4, kRegisterVecs>, a.rows);
    case 8: return row_plan<8>(row_registers_kernel<Op, T, 8, kRegisterVecs>, a.rows);
    case 16: return row_plan<16>(row_registers_kernel<Op, T, 16, kRegisterVecs>, a.rows);
    case 32: return row_plan<32>(row_registers_kernel<Op, T, 32, kRegisterVecs>, a.rows);
    default: break;
  }
  if (c.vecs == kRegisterVecs)
    return plan_1d(row_registers_kernel<Op, T, kWholeBlock, kRegisterVecs>, a.rows, 1, c.threads);
  if constexpr (has_residual<Op>())
    failure("row kernel: a residual row of more than residual_register_max_cols columns reached the register kernel",
            "plan_fused sends such rows to the looped kernel (fits_registers)");
  else return plan_1d(row_registers_kernel<Op, T, kWholeBlock, 2 * kRegisterVecs>, a.rows, 1, c.threads);
}

template <class Op, class T>
LaunchInfo plan_looped(const RowArgs<T>& a) {
  if (a.cols <= kWarpRowMaxCols) return row_plan<32>(row_looped_kernel<Op, T, 32>, a.rows);
  return row_plan<kLongRowThreads>(row_looped_kernel<Op, T, kLongRowThreads>, a.rows);
}

// Pitches below cols (a caller that left them 0) would read every row from row 0: refused.
template <class T>
void require_pitches(const RowArgs<T>& a) {
  if (a.ldx < a.cols || a.ldy < a.cols)
    failure("row kernel: pitch ldx = " + std::to_string(a.ldx) + " or ldy = " + std::to_string(a.ldy) + " below cols = " +
                std::to_string(a.cols),
            "set RowArgs::ldx and ldy (≥ cols; cols for packed rows)");
  if (a.res && (!a.sum || a.ldr < a.cols || a.lds < a.cols))
    failure("row kernel: the residual add needs sum and pitches ldr = " + std::to_string(a.ldr) + ", lds = " +
                std::to_string(a.lds) + " ≥ cols = " + std::to_string(a.cols),
            "set RowArgs::sum, ldr and lds");
}

// The eager rungs' residual pass into a.sum.
template <class T>
void residual_add(const RowArgs<T>& a, cudaStream_t stream) {
  require_pitches(a);
  const int64_t blocks = std::min<int64_t>(blocks_for(a.rows * a.cols, kEagerMapThreads), kEagerMapMaxBlocks);
  if (blocks == 0) return;
  residual_add_kernel<T><<<unsigned(blocks), kEagerMapThreads, 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
}

template <class T>
void launch_row(const LaunchInfo& p, cudaStream_t stream, const RowArgs<T>& a) {
  require_pitches(a);
  if (p.grid_blocks == 0) return;
  auto* kernel = reinterpret_cast<void (*)(RowArgs<T>)>(const_cast<void*>(p.func));
  kernel<<<unsigned(p.grid_blocks), unsigned(p.block_threads), 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
}

// One read per row when the row fits the registers; the looped kernel otherwise.
template <class Op, class T>
LaunchInfo plan_fused(const RowArgs<T>& a) {
  return fits_registers(a) ? plan_registers<Op, T>(a) : plan_looped<Op, T>(a);
}

template <class Pass, class T>
void eager_pass(const RowArgs<T>& a, cudaStream_t stream) {
  if (a.cols <= kWarpRowMaxCols) launch_row(row_plan<32>(eager_pass_kernel<Pass, T, 32>, a.rows), stream, a);
  else launch_row(row_plan<kLongRowThreads>(eager_pass_kernel<Pass, T, kLongRowThreads>, a.rows), stream, a);
}

}  // namespace sol::kernels::rows

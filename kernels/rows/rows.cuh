#pragma once
// Row operations over x[rows × cols] (the last dimension reduced): LayerNorm, RMSNorm and softmax,
// forward. Each is an Op (kernels/rows/ops.cuh) telling the kernels which two reductions it needs
// and how an element is produced from the row's statistics. The ladder (case.hpp's Impl) is a file
// per technique, each opening with its idea: v01_eager.cuh (Impl::Eager), v02_looped.cuh (Looped),
// v03_registers.cuh (Registers; v04 is v03 on fp32 rows), v05_cluster.cuh (Cluster, softmax only;
// v06 on fp32 rows). layernorm.cu, rmsnorm.cu and softmax.cu run their op on each rung (entry
// points: forward.cuh); backward.cuh and *_bwd.cu are the backward. This header holds what the
// rungs share: reductions over a row group, RowArgs, the residual add, the 16-byte out step and
// the launches.
// The norms fuse the decoder's residual add (Residual<Op>): the row normalized is s = x + res,
// rounded to T as an add kernel would round it, and s is written beside y — one read of x and
// res, one write of s and y, where an add kernel and a norm read s once more. They also write, where
// asked, y's e4m3 codes under a per-tensor scale (RowArgs::y8) for the fp8 GEMM that follows, in
// place of or beside y: the quantization pass that would read y again is gone.
// Statistics are fp32 whatever T is; sizes are 64-bit; rows of any count. Rows lie ldx (x) and
// ldy (y) elements apart; 16-byte loads need the pitches, not only cols, to keep every row aligned.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
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
  // Norms only: an e4m3 copy of y for an fp8 GEMM, y8[r, c] = e4m3(y[r, c]·(*y8_scale)) from y
  // rounded to T (the codes of quantizing the y this call writes), saturating at ±448; one byte
  // per element, rows ldy8 bytes apart. y may then be nullptr (only the codes are written).
  uint8_t* y8 = nullptr;
  int64_t ldy8 = 0;
  const float* y8_scale = nullptr;
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
// An Op that also writes y's e4m3 codes (RowArgs::y8; norms): kernels of their own, so that those
// without codes carry none of their code.
template <class Op>
struct Codes : Op {
  static constexpr bool kCodes = true;
};
template <class Op>
constexpr bool has_codes() {
  if constexpr (requires { Op::kCodes; }) return Op::kCodes;
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

// ---- the out step of a 16-byte vector (looped and register kernels) --------------------------
// A held vector made opaque to the compiler (no instruction): each pass over the registers
// unpacks it afresh instead of the compiler keeping every unpacked fp32 value live across the
// passes — twice the registers for bf16, which made the 1024×8 configuration spill under its
// 64-register cap (docs/fusion-notes.md). Unpacking bf16 is one SHF/PRMT.
__device__ inline uint4 opaque(uint4 v) {
  asm volatile("" : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w));
  return v;
}

// kN elements of y (rounded to T) as e4m3 codes: times the quantization scale in fp32, then the
// hardware's round-to-nearest-even convert that saturates at ±448 (NaN stays NaN), a pair at a
// time; stored as one kN-byte access (kN·sizeof(T) = 16 for a vector, so kN bytes stay aligned
// where y's 16 bytes are).
template <int kN, class T>
__device__ inline void store_e4m3(uint8_t* p, const T (&e)[kN], float scale) {
  if constexpr (kN == 1) {
    *p = uint8_t(__nv_cvt_float_to_fp8(to_f32(e[0]) * scale, __NV_SATFINITE, __NV_E4M3));
  } else {
    uint8_t code[kN];
#pragma unroll
    for (int j = 0; j < kN; j += 2) {
      const __nv_fp8x2_storage_t two =
          __nv_cvt_float2_to_fp8x2(make_float2(to_f32(e[j]) * scale, to_f32(e[j + 1]) * scale), __NV_SATFINITE, __NV_E4M3);
      code[j] = uint8_t(two & 0xFF);
      code[j + 1] = uint8_t(two >> 8);
    }
    if constexpr (kN == 8) {
      uint2 o;
      memcpy(&o, code, 8);
      *reinterpret_cast<uint2*>(p) = o;
    } else {
      static_assert(kN == 4, "a 16-byte vector holds 8 16-bit or 4 fp32 elements");
      uint32_t o;
      memcpy(&o, code, 4);
      *reinterpret_cast<uint32_t*>(p) = o;
    }
  }
}

// y's element c of a row (the looped kernel's scalar path): written to y and, for Codes<Op>, its
// e4m3 code to y8 (y may then be nullptr).
template <class Op, class T>
__device__ inline void write_element(const RowArgs<T>& a, int64_t row, int64_t c, T e) {
  if constexpr (has_codes<Op>()) {
    if (a.y) a.y[row * a.ldy + c] = e;
    const T one[1] = {e};
    store_e4m3(a.y8 + row * a.ldy8 + c, one, *a.y8_scale);
  } else {
    a.y[row * a.ldy + c] = e;
  }
}

// y's 16-byte vector v of a row from x's vector rX and the row's statistics (γ and β: 16-byte
// loads too, cols·sizeof(T) being a multiple of 16; they are L2-resident); for Codes<Op> its e4m3
// codes too (y may then be nullptr).
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
  if (!has_codes<Op>() || a.y) {
    uint4 o;
    memcpy(&o, e, 16);
    reinterpret_cast<uint4*>(a.y + row * a.ldy)[v] = o;
  }
  if constexpr (has_codes<Op>()) store_e4m3(a.y8 + row * a.ldy8 + int64_t(v) * kPerVec, e, *a.y8_scale);
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

template <class T>
void launch_row(const LaunchInfo& p, cudaStream_t stream, const RowArgs<T>& a) {
  require_pitches(a);
  if (p.grid_blocks == 0) return;
  auto* kernel = reinterpret_cast<void (*)(RowArgs<T>)>(const_cast<void*>(p.func));
  kernel<<<unsigned(p.grid_blocks), unsigned(p.block_threads), 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
}

}  // namespace sol::kernels::rows

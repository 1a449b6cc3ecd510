#pragma once
// v03, the register rung (Impl::Registers; v04 is v03 over fp32 rows): one read per row. A row
// group (lanes of a warp for short rows, a block with a two-level reduction — warp shuffles, then
// one value per warp through shared memory — for long ones) loads its row with 16-byte loads into
// registers, reduces twice over the registers (exact two-pass statistics: Op::first, then
// Op::second about Op::center) and writes the outputs. The row must fit the group's registers
// with cols·sizeof(T) a multiple of 16 (fits_registers); other rows take the looped kernel
// (plan_fused).
#include "kernels/rows/v02_looped.cuh"

namespace sol::kernels::rows {

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

// The register kernel fits when every row of x and y starts 16-byte aligned (the bases, and cols
// and both pitches multiples of 16 bytes), γ and β are 16-byte aligned (y8 too, where asked, its
// pitch a multiple of the kPerVec bytes a vector's codes take), and the row has at most
// kThreads·kVecs vectors for the largest configuration below (register_max_cols, launch.hpp).
template <class T>
bool fits_registers(const RowArgs<T>& a) {
  constexpr int64_t kPerVec = 16 / int64_t(sizeof(T));
  const uintptr_t bases = reinterpret_cast<uintptr_t>(a.x) | reinterpret_cast<uintptr_t>(a.y) |
                          reinterpret_cast<uintptr_t>(a.gamma) | reinterpret_cast<uintptr_t>(a.beta) |
                          reinterpret_cast<uintptr_t>(a.res) | reinterpret_cast<uintptr_t>(a.sum) |
                          reinterpret_cast<uintptr_t>(a.y8);
  const int64_t pitches = a.ldx | a.ldy | (a.res ? a.ldr | a.lds : 0) | a.ldy8;
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

// One read per row when the row fits the registers; the looped kernel otherwise.
template <class Op, class T>
LaunchInfo plan_fused(const RowArgs<T>& a) {
  return fits_registers(a) ? plan_registers<Op, T>(a) : plan_looped<Op, T>(a);
}

}  // namespace sol::kernels::rows

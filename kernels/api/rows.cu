// The row operations of include/sol/kernels.hpp: LayerNorm, RMSNorm and softmax, forward and
// backward. Each entry checks its arguments first (one sol::Error, before any CUDA call), resolves
// the pitches, and runs what the dispatcher picks from the kernels' own plans:
//   forward: the register kernel (one read of x) where every row of x and y is 16-byte aligned and
//     fits the registers (kernels/rows/v03_registers.cuh, fits_registers); softmax rows past that
//     (longer or unaligned, > 1024 columns) split over a cluster with the slices in shared memory,
//     one read too (softmax v05, kernels/rows/v05_cluster.cuh; softmax_route); the looped kernel
//     otherwise (v02_looped.cuh: any cols, any alignment; a second read of each row, mostly from
//     L1/L2).
//   backward: the one-read kernel (kernels/rows/backward.cuh, plan_backward): a warp or a block
//     per row, a cluster of up to 8 CTAs per row beyond one block (16-bit softmax rows to 262144
//     columns), and the looped kernel for rows longer than a cluster holds.
// The committed H200 results (bench/results/h200/{layernorm,rmsnorm,softmax}{,_bwd}.json) rank
// the register rung first at every shape they cover (rows × cols = 32768 × 4096, 4096 × 65536,
// 65536 × 1024), ahead of the looped rung, so the dispatcher takes it wherever it can run. At the
// vocabulary shapes (model-shapes/softmax-vocab.json, 4096 rows of 50257 to 262144 logits) the
// cluster rung takes 0.50–0.88× the looped rung's time, so past the registers it comes first.
// One exception, for RMSNorm of 16-bit rows: where all of x is at most kRmsLoopedMaxBytes (512 KiB) the
// looped rung's shorter chain (one statistic, the row's second read from L1) ends sooner than
// the register kernel's: 1.9–2.9 µs against 2.5–3.1, the register kernel 1.03–1.34× slower at
// all 21 of the model shape set's 42 RMSNorm shapes with x that small (12 × 64 to 2048 × 128 and
// 32 × 8192), while at each of the 21 larger ones, from 768 KiB up, the register kernel is faster
// (0.33–0.88× the looped rung's time; 6144 × 64: 2.89 µs against 3.55). Measured with
// `sol bench rmsnorm/dispatch,v02,v03 --model-shapes` on an H100 (bench/results/h100/model-shapes/
// dispatch-rmsnorm.json); LayerNorm's looped rung, with two statistics, is not faster there.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/rows/backward.cuh"
#include "kernels/rows/case.hpp"
#include "kernels/rows/case_bwd.hpp"
#include "kernels/rows/forward.cuh"
#include "kernels/rows/ops.cuh"
#include "kernels/api/choice.hpp"
#include "kernels/api/entry_util.hpp"
#include "kernels/rows/v05_cluster.cuh"
#include "sol/hw/spec.hpp"
#include "sol/kernels.hpp"
#include "sol/model/roofline.hpp"

namespace sol {
namespace {

namespace rk = kernels::rows;
using rk::Kind;

// ---- arguments, checked and resolved -------------------------------------------------------------
// One forward or backward of any of the three ops, pitches resolved (0 → cols).
struct RowsForward {
  const char* op;
  Kind kind;
  DType dtype;
  int64_t rows, cols;
  const void* x;
  void* y;
  int64_t ldx, ldy;
  const void* gamma;
  const void* beta;
  float eps;
  float* stat0;  // mean (LayerNorm), max (softmax: not exposed, nullptr)
  float* stat1;  // rstd (norms)
  const void* res = nullptr;  // the norms' residual add: s = x + res written to sum
  void* sum = nullptr;
  int64_t ldr = 0, lds = 0;
  void* y8 = nullptr;  // the norms' e4m3 codes of y, rows ldy8 bytes apart, under *y8_scale
  int64_t ldy8 = 0;
  const float* y8_scale = nullptr;
};
struct RowsBackward {
  const char* op;
  Kind kind;
  DType dtype;
  int64_t rows, cols;
  const void* a;  // x (norms) or y (softmax)
  const void* dy;
  void* dx;
  int64_t lda, lddy, lddx;
  const void* gamma;
  const float* mean;
  const float* rstd;
  void* dgamma;
  void* dbeta;
};

[[noreturn]] void refuse(const char* op, const std::string& what, const std::string& fix) {
  bad_input(std::string(op) + ": " + what, fix);
}

void check_dtype(const char* op, DType d) {
  if (d != DType::f32 && d != DType::bf16 && d != DType::f16)
    refuse(op, "dtype " + dtype_name(d) + " is not supported", "use fp32, bf16 or fp16");
}

void check_extent(const char* op, int64_t rows, int64_t cols) {
  if (rows < 1) refuse(op, "rows = " + std::to_string(rows) + " is less than 1", "give rows ≥ 1");
  if (cols < 1) refuse(op, "cols = " + std::to_string(cols) + " is less than 1", "give cols ≥ 1");
  if (rows > std::numeric_limits<int32_t>::max())
    refuse(op, "rows = " + std::to_string(rows) + " is more than a grid holds (2^31 − 1)", "split the rows over calls");
}

void check_pointer(const char* op, const void* p, const char* name) {
  if (!p) refuse(op, std::string(name) + " is nullptr", std::string("pass a device pointer for ") + name);
}

// A resolved pitch (0 → cols); the last row must be addressable in 64 bits.
int64_t check_pitch(const char* op, int64_t ld, const char* name, int64_t rows, int64_t cols) {
  if (ld < 0 || (ld > 0 && ld < cols))
    refuse(op, std::string(name) + " = " + std::to_string(ld) + " is less than cols = " + std::to_string(cols),
           std::string("give ") + name + " ≥ cols, or 0 for packed rows");
  const int64_t pitch = ld == 0 ? cols : ld;
  if (pitch > (std::numeric_limits<int64_t>::max() - cols) / rows)
    refuse(op, std::to_string(rows) + " rows of pitch " + std::to_string(pitch) + " overflow 64-bit offsets", "split the rows");
  return pitch;
}

void check_eps(const char* op, float eps) {
  if (!(eps >= 0.f) || !std::isfinite(eps))
    refuse(op, "eps = " + std::to_string(eps) + " is not a finite value ≥ 0", "give eps ≥ 0 (PyTorch's default: 1e-5)");
}

RowsForward forward(const char* op, Kind kind, DType dtype, int64_t rows, int64_t cols, const void* x, void* y,
                    int64_t ldx, int64_t ldy, bool codes_only = false) {
  check_dtype(op, dtype);
  check_extent(op, rows, cols);
  check_pointer(op, x, "x");
  if (!codes_only) check_pointer(op, y, "y");
  RowsForward f{op, kind, dtype, rows, cols, x, y, 0, 0, nullptr, nullptr, 0.f, nullptr, nullptr};
  f.ldx = check_pitch(op, ldx, "ldx", rows, cols);
  f.ldy = check_pitch(op, ldy, "ldy", rows, cols);
  return f;
}
// The residual add's operands: both or neither; sum may be x or residual only with that one's pitch.
template <class Args>
void residual_args(RowsForward& f, const Args& a) {
  if (!a.residual) {
    if (a.sum) refuse(f.op, "sum is given without residual", "pass residual too, or sum = nullptr");
    return;
  }
  check_pointer(f.op, a.sum, "sum (x + residual, required with residual)");
  f.res = a.residual;
  f.sum = a.sum;
  f.ldr = check_pitch(f.op, a.ldr, "ldr", f.rows, f.cols);
  f.lds = check_pitch(f.op, a.lds, "lds", f.rows, f.cols);
  if ((f.sum == f.x && f.lds != f.ldx) || (f.sum == f.res && f.lds != f.ldr))
    refuse(f.op, "sum is x or residual but with another pitch (lds = " + std::to_string(f.lds) + ")",
           "give sum the pitch of the tensor it overwrites");
  if (f.sum == f.y && f.y) refuse(f.op, "sum and y are one buffer", "give y and sum buffers of their own");
}
// The e4m3 output: y_fp8 with its scale, a pitch of whole codes, in a buffer of its own.
template <class Args>
void fp8_args(RowsForward& f, const Args& a) {
  if (!a.y_fp8) {
    if (a.fp8_scale) refuse(f.op, "fp8_scale is given without y_fp8", "pass y_fp8 too, or fp8_scale = nullptr");
    return;
  }
  check_pointer(f.op, a.fp8_scale, "fp8_scale (required with y_fp8)");
  if (reinterpret_cast<uintptr_t>(a.fp8_scale) % alignof(float) != 0)
    refuse(f.op, "fp8_scale is not 4-byte aligned", "pass a device pointer to one fp32");
  if (a.y_fp8 == f.x || a.y_fp8 == f.res || a.y_fp8 == f.sum || a.y_fp8 == f.y)
    refuse(f.op, "y_fp8 is x, y, residual or sum", "give y_fp8 a buffer of its own (one byte per element)");
  f.y8 = a.y_fp8;
  f.ldy8 = check_pitch(f.op, a.ldy_fp8, "ldy_fp8", f.rows, f.cols);
  f.y8_scale = a.fp8_scale;
}
RowsForward forward(const LayerNormArgs& a) {
  RowsForward f = forward("layernorm_forward", Kind::LayerNorm, a.dtype, a.rows, a.cols, a.x, a.y, a.ldx, a.ldy,
                          a.y_fp8 != nullptr);
  residual_args(f, a);
  fp8_args(f, a);
  check_eps(f.op, a.eps);
  f.gamma = a.gamma;
  f.beta = a.beta;
  f.eps = a.eps;
  f.stat0 = a.mean;
  f.stat1 = a.rstd;
  return f;
}
RowsForward forward(const RMSNormArgs& a) {
  RowsForward f = forward("rmsnorm_forward", Kind::RMSNorm, a.dtype, a.rows, a.cols, a.x, a.y, a.ldx, a.ldy,
                          a.y_fp8 != nullptr);
  residual_args(f, a);
  fp8_args(f, a);
  check_eps(f.op, a.eps);
  f.gamma = a.gamma;
  f.eps = a.eps;
  f.stat1 = a.rstd;
  return f;
}
RowsForward forward(const SoftmaxArgs& a) {
  return forward("softmax_forward", Kind::Softmax, a.dtype, a.rows, a.cols, a.x, a.y, a.ldx, a.ldy);
}

RowsBackward backward(const char* op, Kind kind, DType dtype, int64_t rows, int64_t cols, const void* in,
                      const char* in_name, const void* dy, void* dx, int64_t lda, const char* lda_name, int64_t lddy,
                      int64_t lddx) {
  check_dtype(op, dtype);
  check_extent(op, rows, cols);
  check_pointer(op, in, in_name);
  check_pointer(op, dy, "dy");
  check_pointer(op, dx, "dx");
  RowsBackward b{op, kind, dtype, rows, cols, in, dy, dx, 0, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr};
  b.lda = check_pitch(op, lda, lda_name, rows, cols);
  b.lddy = check_pitch(op, lddy, "lddy", rows, cols);
  b.lddx = check_pitch(op, lddx, "lddx", rows, cols);
  return b;
}
void check_saved(const char* op, const float* p, const char* name) {
  if (!p)
    refuse(op, std::string("the saved ") + name + " is nullptr",
           std::string("pass the ") + name + " the forward saved (its " + name + " pointer)");
}
RowsBackward backward(const LayerNormBackwardArgs& a) {
  RowsBackward b = backward("layernorm_backward", Kind::LayerNorm, a.dtype, a.rows, a.cols, a.x, "x", a.dy, a.dx,
                            a.ldx, "ldx", a.lddy, a.lddx);
  check_saved(b.op, a.mean, "mean");
  check_saved(b.op, a.rstd, "rstd");
  b.gamma = a.gamma;
  b.mean = a.mean;
  b.rstd = a.rstd;
  b.dgamma = a.dgamma;
  b.dbeta = a.dbeta;
  return b;
}
RowsBackward backward(const RMSNormBackwardArgs& a) {
  RowsBackward b = backward("rmsnorm_backward", Kind::RMSNorm, a.dtype, a.rows, a.cols, a.x, "x", a.dy, a.dx, a.ldx,
                            "ldx", a.lddy, a.lddx);
  check_saved(b.op, a.rstd, "rstd");
  b.gamma = a.gamma;
  b.rstd = a.rstd;
  b.dgamma = a.dgamma;
  return b;
}
RowsBackward backward(const SoftmaxBackwardArgs& a) {
  return backward("softmax_backward", Kind::Softmax, a.dtype, a.rows, a.cols, a.y, "y", a.dy, a.dx, a.ldy, "ldy",
                  a.lddy, a.lddx);
}

// The caller's workspace against what the plan needs (a forward needs none).
void check_workspace(const char* op, size_t needed, const void* workspace, size_t bytes) {
  if (needed == 0) return;
  if (!workspace || bytes < needed)
    refuse(op, "the workspace is " + (workspace ? std::to_string(bytes) + " bytes" : std::string("nullptr")) + ", less than the " +
                   std::to_string(needed) + " bytes it needs",
           "pass a device buffer of the *_workspace_size(args) bytes");
  if (reinterpret_cast<uintptr_t>(workspace) % alignof(float) != 0)
    refuse(op, "the workspace is not 4-byte aligned", "pass a buffer from cudaMalloc");
}

using api::with_type;

const char* family(Kind k, bool backward) {
  if (backward) return kernels::rows_bwd::family_name(k);
  return k == Kind::LayerNorm ? "layernorm" : k == Kind::RMSNorm ? "rmsnorm" : "softmax";
}

// The registry's rung names carry the storage type: bf16 and fp32 name registry rungs; fp16 runs
// the same kernels instantiated for __half.
std::string type_token(DType d) { return d == DType::f32 ? "fp32" : d == DType::f16 ? "fp16" : "bf16"; }

// The model's floor on an H200 for the rung's registry twin (fp16 moves the bytes of bf16).
// fp8: 0 none, 1 the e4m3 codes beside y, 2 the codes alone (rk::kFp8Key's values).
double predicted(Kind k, bool backward, DType dtype, int64_t rows, int64_t cols, bool residual = false, int fp8 = 0) {
  const Shape s = Shape::parse("rows=" + std::to_string(rows) + ",cols=" + std::to_string(cols) +
                               (residual ? ",residual=1" : "") + (fp8 ? ",fp8=" + std::to_string(fp8) : ""));
  const bool fp32 = dtype == DType::f32;
  const int i = int(k);
  model::Cost c;
  if (backward) c = kernels::rows_bwd::cost(kernels::rows_bwd::Version(3 * i + (fp32 ? 2 : 1)), s);
  else c = rk::cost(rk::Version(4 * i + (fp32 ? 3 : 2)), s);
  return model::roofline(c, hw::find("h200")).t_floor_s;
}

// ---- forward -----------------------------------------------------------------------------------
template <class T>
rk::RowArgs<T> forward_args(const RowsForward& f) {
  rk::RowArgs<T> a;
  a.x = static_cast<const T*>(f.x);
  a.y = static_cast<T*>(f.y);
  a.gamma = static_cast<const T*>(f.gamma);
  a.beta = static_cast<const T*>(f.beta);
  a.stat0 = f.stat0;
  a.stat1 = f.stat1;
  a.rows = f.rows;
  a.cols = f.cols;
  a.ldx = f.ldx;
  a.ldy = f.ldy;
  a.eps = f.eps;
  a.res = static_cast<const T*>(f.res);
  a.sum = static_cast<T*>(f.sum);
  a.ldr = f.ldr;
  a.lds = f.lds;
  a.y8 = static_cast<uint8_t*>(f.y8);
  a.ldy8 = f.ldy8;
  a.y8_scale = f.y8_scale;
  return a;
}

using api::kRmsLoopedMaxBytes;

// The rung a forward runs: the register rung (which itself falls back to the looped kernel where
// a row does not fit it), softmax's cluster rung past the registers (which picks its route), and
// RMSNorm's looped rung on small inputs (the exception above).
template <class T>
rk::Impl forward_impl(const RowsForward& f, const rk::RowArgs<T>& a) {
  if (f.kind == Kind::RMSNorm && f.dtype != DType::f32 && !f.res &&
      f.rows * f.cols * int64_t(sizeof(T)) <= kRmsLoopedMaxBytes)
    return rk::Impl::Looped;
  if (f.kind == Kind::Softmax && !rk::fits_registers(a)) return rk::Impl::Cluster;
  return rk::Impl::Registers;
}

// cc: the device's compute capability (0 without a usable device: no clusters, the smallest slice).
Choice forward_choice(const RowsForward& f, int cc) {
  return with_type(f.dtype, [&](auto t) {
    using T = decltype(t);
    const rk::RowArgs<T> a = forward_args<T>(f);
    Choice c;
    const std::string fam = family(f.kind, false);
    const bool softmax = f.kind == Kind::Softmax;
    const std::string tok = type_token(f.dtype);
    const bool small = forward_impl(f, a) == rk::Impl::Looped;
    const bool registers = rk::fits_registers(a) && !small;
    const bool cluster_route = softmax && !registers && rk::softmax_route(a, cc) == rk::SoftmaxRoute::Cluster;
    if (cluster_route) {
      const rk::ClusterLayout layout = rk::cluster_layout<T>(a.x, a.y, a.cols, a.ldx, a.ldy, cc);
      const rk::ClusterSplit& s = layout.split;
      c.implementation = fam + "/" + (f.dtype == DType::f32 ? "v06_cluster_" : "v05_cluster_") + tok;
      c.reason = "cluster kernel, one read: " + std::to_string(f.cols) + " columns over " + std::to_string(s.slices) +
                 (s.slices == 1 ? " CTA" : " CTAs") + " of " + std::to_string(s.slice_bytes) + " bytes of shared memory (" +
                 (!layout.packs ? "single elements: x and y rows at different offsets from 16 bytes"
                   : !layout.partial ? "16-byte packs"
                           : "16-byte packs over each row's aligned window, its partial end packs element by element") +
                 ")";
    } else if (registers) {
      const std::string rung = f.dtype == DType::f32 ? (softmax ? "v04_one_pass_" : "v04_one_read_")
                                                     : (softmax ? "v03_one_pass_" : "v03_one_read_");
      c.implementation = fam + "/" + rung + tok;
      c.reason = "register kernel, one read: rows 16-byte aligned, " + std::to_string(f.cols) + " ≤ " +
                 std::to_string(rk::register_max_cols(sizeof(T))) + " columns";
    } else {
      c.implementation = fam + "/" + (softmax ? "v02_online_" : "v02_two_read_") + tok;
      const int64_t most = rk::register_max_cols(sizeof(T));
      std::string why;
      if (small)
        why = "x is " + std::to_string(f.rows * f.cols * int64_t(sizeof(T))) + " bytes, at most " +
              std::to_string(kRmsLoopedMaxBytes) + ": RMSNorm's looped kernel ends sooner than the register kernel";
      else if (f.cols > most) why = std::to_string(f.cols) + " columns exceed the registers' " + std::to_string(most);
      else if (f.cols * int64_t(sizeof(T)) % 16 != 0)
        why = "a row of " + std::to_string(f.cols * int64_t(sizeof(T))) + " bytes is not a multiple of 16";
      else why = std::string("x, y, γ, β") + (f.res ? ", residual, sum" : "") + (f.y8 ? ", y_fp8" : "") +
                 " or a pitch not 16-byte aligned";
      c.reason = "looped kernel, two reads per row: " + why;
    }
    if (f.res) c.reason += "; the residual add fused (reads x and residual, writes sum and y)";
    if (f.y8) c.reason += f.y ? "; y's e4m3 codes written beside it" : "; y's e4m3 codes written in its place";
    c.predicted_s = predicted(f.kind, false, f.dtype, f.rows, f.cols, f.res != nullptr, !f.y8 ? 0 : f.y ? 1 : 2);
    return c;
  });
}

void forward_run(const RowsForward& f, cudaStream_t stream) {
  with_type(f.dtype, [&](auto t) {
    using T = decltype(t);
    const rk::RowArgs<T> a = forward_args<T>(f);
    const rk::Impl impl = forward_impl(f, a);
    switch (f.kind) {
      case Kind::LayerNorm: return rk::layernorm_forward(impl, a, static_cast<T*>(nullptr), stream);
      case Kind::RMSNorm: return rk::rmsnorm_forward(impl, a, static_cast<T*>(nullptr), stream);
      case Kind::Softmax: return rk::softmax_forward(impl, a, static_cast<T*>(nullptr), stream);
    }
  });
}

// ---- backward ----------------------------------------------------------------------------------
template <class T>
rk::BwdArgs<T> backward_args(const RowsBackward& b, void* workspace) {
  rk::BwdArgs<T> a;
  a.a = static_cast<const T*>(b.a);
  a.dy = static_cast<const T*>(b.dy);
  a.dx = static_cast<T*>(b.dx);
  a.gamma = static_cast<const T*>(b.gamma);
  a.mean = b.mean;
  a.rstd = b.rstd;
  a.dgamma = static_cast<T*>(b.dgamma);
  a.dbeta = static_cast<T*>(b.dbeta);
  a.work = static_cast<float*>(workspace);
  a.rows = b.rows;
  a.cols = b.cols;
  a.lda = b.lda;
  a.lddy = b.lddy;
  a.lddx = b.lddx;
  return a;
}

template <class T>
rk::BwdPlan backward_plan(Kind k, const rk::BwdArgs<T>& a) {
  switch (k) {
    case Kind::LayerNorm: return rk::layernorm_bwd_plan(a);
    case Kind::RMSNorm: return rk::rmsnorm_bwd_plan(a);
    case Kind::Softmax: return rk::softmax_bwd_plan(a);
  }
  return {};
}

size_t backward_workspace(const RowsBackward& b) {
  return with_type(b.dtype, [&](auto t) {
    using T = decltype(t);
    return size_t(backward_plan(b.kind, backward_args<T>(b, nullptr)).work_floats) * sizeof(float);
  });
}

Choice backward_choice(const RowsBackward& b) {
  return with_type(b.dtype, [&](auto t) {
    using T = decltype(t);
    const rk::BwdArgs<T> a = backward_args<T>(b, nullptr);
    const rk::BwdPlan p = backward_plan(b.kind, a);
    Choice c;
    c.implementation = std::string(family(b.kind, true)) + "/" + (b.dtype == DType::f32 ? "v03_one_read_" : "v02_one_read_") +
                       type_token(b.dtype);
    const std::string packs = p.pack == 1 ? "single elements (unaligned rows)"
                              : p.window  ? "16-byte packs over each row's aligned window (rows at one offset)"
                                          : "16-byte packs";
    const std::string block = std::to_string(p.main.block_threads) + " threads";
    if (p.looped)
      c.reason = "looped kernel, " + packs + ": " + std::to_string(b.cols) + " columns exceed a cluster's " +
                 std::to_string(b.kind == Kind::Softmax && sizeof(T) == 2 && p.pack > 1 ? rk::kSoftmaxClusterMaxCols
                                                                                        : rk::kClusterMaxCols);
    else if (p.slices > 1)
      c.reason = "one-read kernel, " + packs + ", a cluster of " + std::to_string(p.slices) + " CTAs of " + block +
                 " per row";
    else if (p.lanes > 0)
      c.reason = "one-read kernel, " + packs + ", " + std::to_string(p.lanes) + (p.lanes == 1 ? " lane" : " lanes") +
                 " per row, " + std::to_string(p.main.block_threads / p.lanes) + " rows to a block";
    else
      c.reason = "one-read kernel, " + packs + ", a block of " + block + " per row";
    if (p.params > 0) c.reason += std::string("; dγ") + (p.params == 2 ? "/dβ" : "") + " over " + std::to_string(p.parts) + " parts";
    c.predicted_s = predicted(b.kind, true, b.dtype, b.rows, b.cols);
    return c;
  });
}

void backward_run(const RowsBackward& b, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  with_type(b.dtype, [&](auto t) {
    using T = decltype(t);
    const rk::BwdArgs<T> a = backward_args<T>(b, workspace);
    const rk::BwdPlan p = backward_plan(b.kind, a);
    check_workspace(b.op, size_t(p.work_floats) * sizeof(float), workspace, workspace_bytes);
    const rk::BwdTemps<T> none{};
    switch (b.kind) {
      case Kind::LayerNorm: return rk::layernorm_bwd(false, a, p, none, stream);
      case Kind::RMSNorm: return rk::rmsnorm_bwd(false, a, p, none, stream);
      case Kind::Softmax: return rk::softmax_bwd(false, a, p, none, stream);
    }
  });
}

}  // namespace

// ---- the entries -------------------------------------------------------------------------------
// The forwards need no workspace (the query still checks the arguments).
size_t layernorm_forward_workspace_size(const LayerNormArgs& args) { return forward(args), size_t(0); }
size_t rmsnorm_forward_workspace_size(const RMSNormArgs& args) { return forward(args), size_t(0); }
size_t softmax_forward_workspace_size(const SoftmaxArgs& args) { return forward(args), size_t(0); }
size_t layernorm_backward_workspace_size(const LayerNormBackwardArgs& args) { return backward_workspace(backward(args)); }
size_t rmsnorm_backward_workspace_size(const RMSNormBackwardArgs& args) { return backward_workspace(backward(args)); }
size_t softmax_backward_workspace_size(const SoftmaxBackwardArgs& args) { return backward_workspace(backward(args)); }

Choice explain_layernorm_forward(const LayerNormArgs& args) { return forward_choice(forward(args), 0); }
Choice explain_rmsnorm_forward(const RMSNormArgs& args) { return forward_choice(forward(args), 0); }
Choice explain_softmax_forward(const SoftmaxArgs& args) {
  const RowsForward f = forward(args);
  return forward_choice(f, api::current_device().cc);
}
Choice api::explain_softmax_forward_on(const SoftmaxArgs& args, int cc) { return forward_choice(forward(args), cc); }
Choice explain_layernorm_backward(const LayerNormBackwardArgs& args) { return backward_choice(backward(args)); }
Choice explain_rmsnorm_backward(const RMSNormBackwardArgs& args) { return backward_choice(backward(args)); }
Choice explain_softmax_backward(const SoftmaxBackwardArgs& args) { return backward_choice(backward(args)); }

void layernorm_forward(const LayerNormArgs& args, void*, size_t, cudaStream_t stream) { forward_run(forward(args), stream); }
void rmsnorm_forward(const RMSNormArgs& args, void*, size_t, cudaStream_t stream) { forward_run(forward(args), stream); }
void softmax_forward(const SoftmaxArgs& args, void*, size_t, cudaStream_t stream) { forward_run(forward(args), stream); }

void layernorm_backward(const LayerNormBackwardArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  backward_run(backward(args), workspace, workspace_bytes, stream);
}
void rmsnorm_backward(const RMSNormBackwardArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  backward_run(backward(args), workspace, workspace_bytes, stream);
}
void softmax_backward(const SoftmaxBackwardArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  backward_run(backward(args), workspace, workspace_bytes, stream);
}

}  // namespace sol

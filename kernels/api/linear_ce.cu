// sol::linear_cross_entropy (include/sol/kernels.hpp): the arguments checked first (one sol::Error,
// before any CUDA call), then, over chunks of rows (the rule and the workspace layout:
// kernels/api/linear_ce_plan.hpp):
//   count  the labels that are not ignore_index, over all rows, on the device (Mean's divisor,
//          which the first chunk's dlogits already need; kernels/crossentropy/reduce.cu)
//   chunk  logits = h_c·Wᵀ (sol::matmul, into the workspace) | the cross-entropy rows, dlogits over
//          the logits | dh_c = dlogits·W (sol::matmul) | dW (+)= dlogitsᵀ·h_c (sol::matmul, β = 1
//          after the first chunk)
//   reduce the per-row losses of all rows, in a fixed order (the same bits on every run).
// Everything is enqueued on the caller's stream: no host reads of device data, no allocation.
// Chunking the rows so that the logits never exist whole, and computing the gradients in the same
// pass, is Liger-Kernel's fused linear cross-entropy (linkedin/Liger-Kernel,
// src/liger_kernel/ops/fused_linear_cross_entropy.py); here the pieces are sol's own entries.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/api/choice.hpp"
#include "kernels/api/entry_util.hpp"
#include "kernels/api/linear_ce_plan.hpp"
#include "kernels/crossentropy/crossentropy.cuh"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/kernels.hpp"

namespace sol {
namespace {

namespace ce = kernels::crossentropy;
namespace lce = kernels::api;
constexpr const char* kOp = "linear_cross_entropy";

[[noreturn]] void refuse(const std::string& what, const std::string& fix) {
  bad_input(std::string(kOp) + ": " + what, fix);
}

std::string text(int64_t v) { return std::to_string(v); }

// One buffer the call reads or writes: its name, start, extent in bytes and element size.
struct Extent {
  const char* name;
  const void* p;
  double bytes;
  int elem;
};
bool overlap(const Extent& x, const Extent& y) {
  const double a = double(reinterpret_cast<uintptr_t>(x.p)), b = double(reinterpret_cast<uintptr_t>(y.p));
  return x.p && y.p && a < b + y.bytes && b < a + x.bytes;
}

// The checked arguments with the pitches resolved (0 → hidden).
LinearCrossEntropyArgs checked(const LinearCrossEntropyArgs& in) {
  LinearCrossEntropyArgs a = in;
  if (a.dtype != DType::bf16 && a.dtype != DType::f16)
    refuse("dtype " + dtype_name(a.dtype) + " is not supported", "give h and W in bf16 or fp16");
  for (auto [v, name] : {std::pair{a.rows, "rows"}, std::pair{a.hidden, "hidden"}, std::pair{a.vocab, "vocab"}})
    if (v < 1) refuse(std::string(name) + " = " + text(v) + " is less than 1", std::string("give ") + name + " ≥ 1");
  if (a.rows > std::numeric_limits<int32_t>::max())  // the cross-entropy's grid and the count
    refuse("rows = " + text(a.rows) + " is more than 2^31 − 1", "split the rows over calls");
  if (a.vocab > std::numeric_limits<int32_t>::max())  // a column index of the cross-entropy is 32 bits
    refuse("vocab = " + text(a.vocab) + " is more than 2^31 − 1", "split the vocabulary");
  if (a.hidden > (int64_t(1) << 40)) refuse("hidden = " + text(a.hidden) + " is over 2^40", "check the sizes");
  if (!a.h) refuse("h is nullptr", "pass a device pointer for h (rows × hidden)");
  if (!a.w) refuse("w is nullptr", "pass a device pointer for W (vocab × hidden, nn.Linear's weight)");
  api::check_loss_args(kOp, a.labels, a.label_type, a.reduction, a.label_smoothing, a.grad_scale);
  if (a.dw_type != DType::f32 && a.dw_type != a.dtype)
    refuse("dw_type " + dtype_name(a.dw_type) + " is neither f32 nor dtype " + dtype_name(a.dtype),
           "accumulate dW in f32, or in h's and W's dtype");
  if (a.chunk_rows < 0) refuse("chunk_rows = " + text(a.chunk_rows) + " is negative", "give rows per chunk, or 0 for the rule's");
  if (!a.loss && !a.loss_reduced && !a.dh && !a.dw)
    refuse("no output: loss, loss_reduced, dh and dw are all nullptr", "pass at least one of them");
  const auto pitch = [&](int64_t& ld, int64_t n, const char* name) {
    if (ld < 0 || (ld > 0 && ld < a.hidden))
      refuse(std::string(name) + " = " + text(ld) + " is less than hidden = " + text(a.hidden),
             std::string("give ") + name + " ≥ hidden, or 0 for packed rows");
    if (ld == 0) ld = a.hidden;
    if (double(n - 1) * double(ld) + double(a.hidden) > double(int64_t(1) << 56))
      refuse(text(n) + " rows of pitch " + text(ld) + " overflow 64-bit offsets", "split the call");
  };
  pitch(a.ldh, a.rows, "ldh");
  pitch(a.ldw, a.vocab, "ldw");
  pitch(a.lddh, a.rows, "lddh");
  pitch(a.lddw, a.vocab, "lddw");
  const double eb = 2, dwb = dtype_bytes(a.dw_type), lb = a.label_type == IndexType::i64 ? 8 : 4;
  const auto rows_bytes = [&](int64_t n, int64_t ld, double b) { return (double(n - 1) * double(ld) + double(a.hidden)) * b; };
  const Extent inputs[] = {{"h", a.h, rows_bytes(a.rows, a.ldh, eb), int(eb)},
                           {"w", a.w, rows_bytes(a.vocab, a.ldw, eb), int(eb)},
                           {"labels", a.labels, double(a.rows) * lb, int(lb)}};
  const Extent outputs[] = {{"loss", a.loss, double(a.rows) * 4, 4},
                            {"loss_reduced", a.loss_reduced, 4, 4},
                            {"dh", a.dh, rows_bytes(a.rows, a.lddh, eb), int(eb)},
                            {"dw", a.dw, rows_bytes(a.vocab, a.lddw, dwb), int(dwb)}};
  const auto aligned = [](const Extent& e) {
    if (reinterpret_cast<uintptr_t>(e.p) % uintptr_t(e.elem) != 0)
      refuse(std::string(e.name) + " is not aligned to its element size", "pass element-aligned device pointers");
  };
  for (const Extent& e : inputs) aligned(e);
  for (const Extent& e : outputs) aligned(e);
  for (size_t i = 0; i < std::size(outputs); ++i) {
    for (const Extent& x : inputs)
      if (overlap(outputs[i], x))
        refuse(std::string(outputs[i].name) + " overlaps " + x.name, "write each output to a buffer of its own");
    for (size_t j = i + 1; j < std::size(outputs); ++j)
      if (overlap(outputs[i], outputs[j]))
        refuse(std::string(outputs[i].name) + " overlaps " + outputs[j].name, "write each output to a buffer of its own");
  }
  return a;
}

bool wants_grads(const LinearCrossEntropyArgs& a) { return a.dh || a.dw; }

// ---- the plan: the chunk, the layout, the GEMMs of one chunk ---------------------------------------
struct Plan {
  lce::LceShape shape;
  lce::ChunkRule rule;
  lce::LceLayout layout;
  const hw::HwSpec* gpu = nullptr;
  double ridge = 0;  // the GPU's FLOP per HBM byte at dtype's tensor-core peak
};

// The three GEMMs of the chunk of m rows from row r0; `logits` is the chunk's buffer (pitch p).
struct ChunkGemms {
  MatmulArgs logits, dh, dw;
};
ChunkGemms chunk_gemms(const LinearCrossEntropyArgs& a, int64_t r0, int64_t m, void* logits, int64_t p) {
  const auto* h = static_cast<const char*>(a.h) + r0 * a.ldh * 2;
  ChunkGemms g;
  // logits[m × V] = h_c · Wᵀ: nn.Linear's product (B stored V × H, trans_b = T).
  g.logits = {.m = m, .n = a.vocab, .k = a.hidden, .a_type = a.dtype, .b_type = a.dtype, .c_type = a.dtype,
              .trans_a = Transpose::N, .trans_b = Transpose::T, .a = h, .b = a.w, .c = logits,
              .lda = a.ldh, .ldb = a.ldw, .ldc = p};
  // dh_c[m × H] = dlogits · W (B stored V × H, trans_b = N).
  g.dh = {.m = m, .n = a.hidden, .k = a.vocab, .a_type = a.dtype, .b_type = a.dtype, .c_type = a.dtype,
          .trans_a = Transpose::N, .trans_b = Transpose::N, .a = logits, .b = a.w,
          .c = a.dh ? static_cast<char*>(a.dh) + r0 * a.lddh * 2 : nullptr, .lda = p, .ldb = a.ldw, .ldc = a.lddh};
  // dW[V × H] (+)= dlogitsᵀ · h_c (A stored m × V, trans_a = T; B stored m × H, trans_b = N).
  g.dw = {.m = a.vocab, .n = a.hidden, .k = m, .a_type = a.dtype, .b_type = a.dtype, .c_type = a.dw_type,
          .trans_a = Transpose::T, .trans_b = Transpose::N, .a = logits, .b = h, .c = a.dw,
          .lda = p, .ldb = a.ldh, .ldc = a.lddw, .beta = r0 == 0 && !a.dw_accumulate ? 0.f : 1.f};
  return g;
}

// A 256-aligned address past every buffer of the call, never dereferenced: the logits chunk's stand-in
// where the workspace is not known yet (a size query, an explain). The GEMMs' plans read a pointer's
// alignment alone (modulo 128), which the workspace's 256-aligned pieces share.
void* stand_in(const LinearCrossEntropyArgs& a) {
  uintptr_t end = 0;
  for (const void* p : {a.h, a.w, a.labels, static_cast<const void*>(a.loss), static_cast<const void*>(a.loss_reduced),
                        static_cast<const void*>(a.dh), static_cast<const void*>(a.dw)})
    end = std::max(end, reinterpret_cast<uintptr_t>(p));
  // Past the largest start by more than any extent the checks allow (2^56 elements of 4 bytes would
  // overflow: they refuse it), at the next 2^60 boundary.
  const uintptr_t step = uintptr_t(1) << 60;
  return reinterpret_cast<void*>((end / step + 1) * step);
}

// The most workspace any of the call's GEMMs needs: one query per distinct (rows, alignment of h's and
// dh's chunk) — the chunks' h and dh rows start at other 128-byte offsets where the pitches are odd.
// Those offsets repeat after 64 chunks (2-byte elements), so the first 64 chunks and the last say all.
size_t gemm_bytes(const LinearCrossEntropyArgs& a, int64_t chunk, void* logits, int64_t p) {
  std::set<std::tuple<int64_t, uintptr_t, uintptr_t>> seen;
  size_t most = 0;
  const auto query = [&](int64_t r0) {
    const int64_t m = std::min(chunk, a.rows - r0);
    const uintptr_t h_mod = (reinterpret_cast<uintptr_t>(a.h) + uintptr_t(r0 * a.ldh * 2)) % 128;
    const uintptr_t dh_mod = a.dh ? (reinterpret_cast<uintptr_t>(a.dh) + uintptr_t(r0 * a.lddh * 2)) % 128 : 0;
    if (!seen.insert({m, h_mod, dh_mod}).second) return;
    const ChunkGemms g = chunk_gemms(a, r0, m, logits, p);
    most = std::max(most, matmul_workspace_size(g.logits));
    if (a.dh) most = std::max(most, matmul_workspace_size(g.dh));
    if (a.dw) most = std::max(most, matmul_workspace_size(g.dw));
  };
  const int64_t chunks = (a.rows + chunk - 1) / chunk;
  for (int64_t i = 0; i < std::min<int64_t>(chunks, 64); ++i) query(i * chunk);
  if (chunks > 64) query((chunks - 1) * chunk);
  return most;
}

Plan plan(const LinearCrossEntropyArgs& a, const api::Device& d) {
  Plan p;
  p.gpu = &api::device_row(d.id);
  p.shape = {.rows = a.rows, .hidden = a.hidden, .vocab = a.vocab, .loss_rows_kept = a.loss != nullptr};
  const DType peak = p.gpu->has(a.dtype, hw::Unit::Matrix) ? a.dtype : DType::bf16;
  const double flops = p.gpu->peak(peak, hw::Unit::Matrix).flops_per_s;
  p.ridge = flops / p.gpu->hbm_bytes_per_s;
  p.rule = lce::lce_chunk_rule(p.shape, a.chunk_rows, flops, p.gpu->hbm_bytes_per_s);
  const int64_t pitch = lce::lce_layout(p.shape, 0, 0).pitch;
  p.layout = lce::lce_layout(p.shape, p.rule.chunk, gemm_bytes(a, p.rule.chunk, stand_in(a), pitch));
  return p;
}

// ---- the cross-entropy of a chunk --------------------------------------------------------------------
// The kernels' arguments for rows [r0, r0 + m) whose logits are the chunk at x; m = rows, x = nullptr:
// the whole call, as the count and the reduction see it.
template <class T>
ce::CeArgs<T> ce_args(const LinearCrossEntropyArgs& a, const lce::LceLayout& l, char* ws, int64_t r0, int64_t m, T* x) {
  ce::CeArgs<T> k;
  const int64_t label_bytes = a.label_type == IndexType::i64 ? 8 : 4;
  k.x = x;
  k.y = wants_grads(a) ? x : nullptr;
  k.labels = static_cast<const char*>(a.labels) + r0 * label_bytes;
  k.labels64 = a.label_type == IndexType::i64;
  k.loss = (a.loss ? a.loss : reinterpret_cast<float*>(ws + l.loss)) + r0;
  k.loss_reduced = x ? nullptr : a.loss_reduced;
  k.n_valid = reinterpret_cast<int*>(ws + l.count);
  k.row_max = reinterpret_cast<float*>(ws + l.row_max);
  k.row_sum = reinterpret_cast<float*>(ws + l.row_sum);
  k.rows = m;
  k.cols = a.vocab;
  k.ldx = k.ldy = l.pitch;
  k.ignore_index = a.ignore_index;
  k.smoothing = a.label_smoothing;
  k.grad_scale = a.grad_scale;
  k.mean = a.reduction == Reduction::Mean;
  return k;
}

// What the cross_entropy dispatcher runs for a chunk of m rows (the same rule as ce::rows below).
Choice ce_choice(const LinearCrossEntropyArgs& a, int64_t m, void* logits, int64_t pitch, int cc) {
  static float loss_stand_in;  // never written: an explain
  const CrossEntropyArgs c{.dtype = a.dtype, .rows = m, .vocab = a.vocab, .logits = logits, .ldlogits = pitch,
                           .labels = a.labels, .label_type = a.label_type, .ignore_index = a.ignore_index,
                           .label_smoothing = a.label_smoothing, .reduction = a.reduction, .grad_scale = a.grad_scale,
                           .loss = &loss_stand_in, .dlogits = wants_grads(a) ? logits : nullptr, .lddlogits = pitch};
  return api::explain_cross_entropy_on(c, cc);
}

template <class T>
void run(const LinearCrossEntropyArgs& a, const Plan& p, char* ws, int cc, cudaStream_t stream) {
  const lce::LceLayout& l = p.layout;
  T* chunk = reinterpret_cast<T*>(ws + l.logits);
  const ce::CeArgs<T> all = ce_args<T>(a, l, ws, 0, a.rows, static_cast<T*>(nullptr));
  if (all.mean) ce::count_valid(all, stream);
  for (int64_t r0 = 0; r0 < a.rows; r0 += p.rule.chunk) {
    const int64_t m = std::min(p.rule.chunk, a.rows - r0);
    const ChunkGemms g = chunk_gemms(a, r0, m, chunk, l.pitch);
    matmul(g.logits, ws + l.gemm, l.total - l.gemm, stream);
    const ce::CeArgs<T> k = ce_args<T>(a, l, ws, r0, m, chunk);
    const auto one_read = ce::one_read_plan(k, cc);  // the cross_entropy dispatcher's rule
    if (one_read.main.func) ce::one_read_rows(one_read, k, stream);
    else ce::passes_rows(k, stream);
    if (a.dh) matmul(g.dh, ws + l.gemm, l.total - l.gemm, stream);
    if (a.dw) matmul(g.dw, ws + l.gemm, l.total - l.gemm, stream);
  }
  ce::reduce_loss(all, stream);
}

std::string bytes_text(double b) { return si(b, "B", 3); }

}  // namespace

size_t linear_cross_entropy_workspace_size(const LinearCrossEntropyArgs& args) {
  const LinearCrossEntropyArgs a = checked(args);
  return plan(a, api::current_device()).layout.total;
}

Choice explain_linear_cross_entropy(const LinearCrossEntropyArgs& args) {
  const LinearCrossEntropyArgs a = checked(args);
  const api::Device d = api::current_device();
  const Plan p = plan(a, d);
  const lce::ChunkRule& r = p.rule;
  const int cc = d.cc > 0 ? d.cc : 90;
  void* logits = stand_in(a);
  const int64_t last = a.rows - (r.chunks - 1) * r.chunk;
  // Each GEMM's choice and prediction at a full chunk and at the last one.
  const ChunkGemms full = chunk_gemms(a, 0, r.chunk, logits, p.layout.pitch);
  const ChunkGemms tail = chunk_gemms(a, (r.chunks - 1) * r.chunk, last, logits, p.layout.pitch);
  Choice out;
  double predicted = 0;
  std::string parts;
  const auto add = [&](const Choice& c_full, const Choice& c_tail) {
    predicted += double(r.chunks - 1) * c_full.predicted_s + c_tail.predicted_s;
    parts += (parts.empty() ? "" : " · ") + c_full.implementation;
  };
  add(explain_matmul(full.logits), explain_matmul(tail.logits));
  add(ce_choice(a, r.chunk, logits, p.layout.pitch, cc), ce_choice(a, last, logits, p.layout.pitch, cc));
  if (a.dh) add(explain_matmul(full.dh), explain_matmul(tail.dh));
  if (a.dw) add(explain_matmul(full.dw), explain_matmul(tail.dw));
  out.implementation = "linear_ce/dispatch";  // the registry's name of this entry (kernels/linear_ce)
  const double unfused = double(lce::lce_unfused_bytes(p.shape, p.layout.total - p.layout.gemm));
  const std::string memory = r.memory > 0 ? text(r.memory) + " rows, the most within 1/8 of the unfused path's memory"
                                          : "not 128 rows within 1/8 of the unfused path's memory";
  out.reason =
      text(r.chunks) + (r.chunks == 1 ? " chunk of " : " chunks of ") + text(r.chunk) + (r.chunk == 1 ? " row: " : " rows: ") +
      parts + "; " +
      (r.requested ? "chunk_rows = " + text(a.chunk_rows) + " as asked"
                   : "the rule: max(" + text(r.ridge) + " rows, where dW's accumulation (2·chunk FLOP per 8 bytes of C) "
                         "reaches the " + p.gpu->name + "'s " + num(p.ridge, 3) + " FLOP/B; " + memory +
                         "), spread evenly") +
      "; workspace " + bytes_text(double(p.layout.total)) + " (a " + text(r.chunk) + " × " + text(p.layout.pitch) +
      " logits chunk, dlogits over it) vs the unfused path's " + bytes_text(unfused) + " (" + text(a.rows) + " × " +
      text(a.vocab) + " logits and the same GEMM workspace): " + num(double(p.layout.total) / unfused, 3) + "×" +
      (d.id < 0 ? " (no GPU visible: as on an H200)" : "");
  out.predicted_s = predicted;
  return out;
}

void linear_cross_entropy(const LinearCrossEntropyArgs& args, void* workspace, size_t workspace_bytes,
                          cudaStream_t stream) {
  const LinearCrossEntropyArgs a = checked(args);
  const api::Device d = api::current_device();
  const Plan p = plan(a, d);
  if (!workspace || workspace_bytes < p.layout.total)
    refuse("the workspace is " + (workspace ? text(int64_t(workspace_bytes)) + " bytes" : std::string("nullptr")) +
               ", less than the " + text(int64_t(p.layout.total)) + " bytes it needs",
           "pass a device buffer of linear_cross_entropy_workspace_size(args) bytes");
  if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0) refuse("the workspace is not 256-byte aligned", "pass a buffer from cudaMalloc");
  const int cc = api::current_cc(kOp);
  char* ws = static_cast<char*>(workspace);
  if (a.dtype == DType::f16) run<__half>(a, p, ws, cc, stream);
  else run<__nv_bfloat16>(a, p, ws, cc, stream);
}

}  // namespace sol

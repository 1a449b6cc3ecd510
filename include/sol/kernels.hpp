#pragma once
// sol's kernels as a library: one entry per operation, one argument struct each.
//
// Every entry:
//  - takes device pointers and a cudaStream_t and is asynchronous on that stream;
//  - never allocates: an op that needs scratch has a *_workspace_size query, and the caller passes
//    a device buffer of at least that many bytes (nullptr when the size is 0). The size may depend
//    on the pointers (their alignment picks the kernel): query it with the arguments of the call
//    it serves, pointers included;
//  - picks its implementation itself (the dispatcher: the shape model plus a table measured on
//    an H200, never run-time timing) among sol's kernels and, for matmul, cuBLASLt; explain_*
//    says what it would run and why, without running anything;
//  - throws sol::Error (what was wrong, how to fix it) on a shape, dtype, layout or pointer it
//    cannot serve, before launching anything; a CUDA launch failure is a sol::Error as well;
//  - is thread-safe; the only global state is kernel attribute setup and occupancy queries, once
//    per kernel and device, and, for matmul, one cuBLASLt handle per device with a mutex-guarded
//    cache of its plans (descriptors and the heuristic's algorithm) per shape, types, layout and
//    pointer alignment, bounded (kernels/api/matmul.cu).
//
// Layouts are row-major, sizes and leading dimensions in elements. A leading dimension (or
// stride) of 0 means "packed": the row length (or the contiguous BSHD stride).
// This header uses no CUDA type but cudaStream_t.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "sol/core/dtype.hpp"
#include "sol/core/error.hpp"

namespace sol {

// What the dispatcher runs for one call, and why.
struct Choice {
  std::string implementation;  // a registry name ("gemm_bf16/v08_tile_choice") or a peer ("cublasLt")
  std::string reason;          // one line: the rule or table entry that decided
  double predicted_s = 0;      // the model's time for this implementation (0: no prediction)
};

// ---- matmul --------------------------------------------------------------------------------------
// C[m×n] = alpha · op(A) · op(B) + beta · C, fp32 accumulation.
//   op(A) is m×k: trans_a = N stores A as m×k (lda ≥ k); T stores it as k×m (lda ≥ m).
//   op(B) is k×n: trans_b = N stores B as k×n (ldb ≥ n); T stores it as n×k (ldb ≥ k)
//   (nn.Linear's weight: y = x·Wᵀ is trans_b = T).
//   C is m×n, ldc ≥ n.
// Types: a_type = b_type ∈ {bf16, f16, fp8_e4m3, f32}; c_type ∈ {bf16, f16, f32} (fp8 and 16-bit
// inputs: bf16, f16 or f32 output; f32 inputs: f32 output). fp8: scale_a and scale_b point to one
// fp32 each on the device (per-tensor dequantization scales; the product is scale_a·scale_b·alpha).
// Any m, n, k ≥ 1. fp8 is served as trans_a = N, trans_b = T; into f16 or f32 C only where cuBLASLt's
// fp8 runs (k and n multiples of 16, 16-byte pitches). The workspace size depends on the pointers' alignment
// (an operand a rung cannot read in place is packed into it): query it with the pointers you pass.
enum class Transpose { N, T };

struct MatmulArgs {
  int64_t m = 0, n = 0, k = 0;
  DType a_type = DType::bf16, b_type = DType::bf16, c_type = DType::bf16;
  Transpose trans_a = Transpose::N, trans_b = Transpose::T;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.f, beta = 0.f;
  const float* scale_a = nullptr;  // fp8 only
  const float* scale_b = nullptr;  // fp8 only
};

size_t matmul_workspace_size(const MatmulArgs& args);
Choice explain_matmul(const MatmulArgs& args);
void matmul(const MatmulArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);

// ---- attention -----------------------------------------------------------------------------------
// BSHD: Q, O [b, n, h, d]; K, V [b, nk, h_kv, d]; LSE [b, h, n] fp32 (natural-log logsumexp of
// the scaled, masked scores; −∞ for a row that sees no key, whose O is 0).
// Query head i reads K/V head i / (h / h_kv) (h_kv divides h: grouped-query attention).
// Causal masking is bottom-right aligned: query i sees key j iff j ≤ i + nk − n.
// A sliding window (Mistral, Gemma; FlashAttention's window_size = (left, right)) bounds both
// sides in the same frame: query i sees key j iff
//   i + nk − n − window_left ≤ j ≤ i + nk − n + window_right,
// each bound dropped where its size is −1 (the default: no window). causal is window_right = 0:
// causal with window_right > 0 is refused. Work outside the window is skipped, not masked.
// softcap > 0 (Gemma 2): each scaled score s = scale·q·k becomes softcap·tanh(s / softcap) before
// the mask and the softmax, and LSE is of these capped scores; 0: off. Windows and softcap run on
// the wgmma rungs (sm_90) and, for n ≤ 16, on the decode kernel (any device); elsewhere refused.
// dtype ∈ {bf16, f16}; d ∈ {64, 128}; any b, h, n, nk ≥ 1. scale 0 means 1/√d. n ≤ 16 (decode:
// a few new tokens against a KV cache) runs the split-KV decode kernel, whose workspace holds the
// splits' partial results.
// Strides (elements) of the batch, sequence and head dimensions; d is contiguous. All 0: packed;
// else each a multiple of 8, except on a dimension of extent 1, which is never stepped over and may
// carry any stride (its packed one is used).
struct BSHDStrides {
  int64_t batch = 0, seq = 0, head = 0;
};

struct AttentionArgs {
  DType dtype = DType::bf16;
  int64_t b = 1, h = 1, h_kv = 1, n = 1, nk = 1;
  int d = 128;
  bool causal = false;
  float scale = 0.f;
  int64_t window_left = -1, window_right = -1;  // ≥ −1; −1: unbounded on that side
  float softcap = 0.f;                          // ≥ 0, finite; 0: off
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;  // may be nullptr in the forward when no backward follows
  BSHDStrides q_stride, k_stride, v_stride, o_stride;
  // Per-sequence cache lengths, forward with n ≤ 16 only: nullptr (every sequence has nk keys) or a
  // device array of b int32, 4-byte aligned: sequence i attends to its first seqlens_k[i] keys
  // (values outside [0, nk] are clamped to it) and its causal mask and window align to that length
  // (query t sees key j iff t + seqlens_k[i] − n − window_left ≤ j ≤ t + seqlens_k[i] − n +
  // window_right, causal: window_right = 0). A sequence with no key: O = 0, LSE = −∞.
  const int32_t* seqlens_k = nullptr;
  // Paged KV cache, forward with n ≤ 16 only: nullptr, or a device array [b × pages_per_seq] of int32
  // page indices, 4-byte aligned. K and V are then pages [pages, page_size, h_kv, d] (the strides'
  // batch term steps from page to page; all 0: packed pages) and key j of sequence i is row
  // j % page_size of page block_table[i·pages_per_seq + j / page_size]. page_size is a power of two
  // in [16, 256], pages_per_seq · page_size ≥ nk, and every index used must name a page of K and V.
  const int32_t* block_table = nullptr;
  int64_t pages_per_seq = 0;
  int page_size = 0;
};

size_t attention_forward_workspace_size(const AttentionArgs& args);
Choice explain_attention_forward(const AttentionArgs& args);
void attention_forward(const AttentionArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);

// The backward reads Q, K, V, O and LSE of the forward (fwd.o, fwd.lse are inputs) and dO (O's
// layout), and writes dQ, dK, dV (the layouts of Q, K, V). deterministic: bit-identical results
// across runs (dQ without atomics). fwd's window and softcap are the forward's (the gradient of a
// capped score is scaled by 1 − (s_capped / softcap)²); with either, the wgmma rungs (sm_90) serve it.
struct AttentionBackwardArgs {
  AttentionArgs fwd;
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  BSHDStrides dout_stride, dq_stride, dk_stride, dv_stride;
  bool deterministic = false;
};

size_t attention_backward_workspace_size(const AttentionBackwardArgs& args);
Choice explain_attention_backward(const AttentionBackwardArgs& args);
void attention_backward(const AttentionBackwardArgs& args, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream);

// ---- row operations: LayerNorm, RMSNorm, softmax over the last dimension --------------------------
// x, y: rows × cols, row pitch ldx / ldy (0: cols). dtype ∈ {f32, bf16, f16}. Statistics are fp32.
// The forwards save what their backward needs when the pointers are given (nullptr: not saved):
// LayerNorm mean and rstd, RMSNorm rstd (rows each).
// The norms fuse the decoder's residual add (x = x + h; y = norm(x)): where `residual` is given,
// the row normalized is s = x + residual (an fp32 add rounded to dtype, as an add kernel rounds
// it), s is written to `sum` (required then) and the saved statistics are s's; the backward takes
// s as its x. sum may be x or residual itself (with that one's pitch); pitches ldr, lds (0: cols).
// The norms also write, where `y_fp8` is given, y's codes for an fp8 GEMM (sol::matmul with fp8
// operands) in the same pass: y_fp8[r, c] = e4m3(y[r, c] · *fp8_scale), y rounded to dtype first
// (the codes of quantizing the y a plain call writes), round to nearest even, saturating at ±448;
// one byte per element, rows ldy_fp8 bytes apart (0: cols). fp8_scale is one fp32 on the device
// (required then; the GEMM's dequantization scale is its reciprocal). With y_fp8, y may be
// nullptr: only the codes are written. y_fp8 may not be x, residual or sum.
struct LayerNormArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  const void* x = nullptr;
  void* y = nullptr;
  int64_t ldx = 0, ldy = 0;
  const void* gamma = nullptr;  // cols, or nullptr (1)
  const void* beta = nullptr;   // cols, or nullptr (0)
  float eps = 1e-5f;
  float* mean = nullptr;
  float* rstd = nullptr;
  const void* residual = nullptr;  // rows × cols, or nullptr (no residual add)
  void* sum = nullptr;             // rows × cols: x + residual
  int64_t ldr = 0, lds = 0;
  void* y_fp8 = nullptr;            // rows × cols e4m3 codes of y, or nullptr
  int64_t ldy_fp8 = 0;
  const float* fp8_scale = nullptr;  // one fp32 on the device (with y_fp8)
};
struct RMSNormArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  const void* x = nullptr;
  void* y = nullptr;
  int64_t ldx = 0, ldy = 0;
  const void* gamma = nullptr;  // cols, or nullptr (1)
  float eps = 1e-6f;
  float* rstd = nullptr;
  const void* residual = nullptr;  // rows × cols, or nullptr (no residual add)
  void* sum = nullptr;             // rows × cols: x + residual
  int64_t ldr = 0, lds = 0;
  void* y_fp8 = nullptr;            // rows × cols e4m3 codes of y, or nullptr
  int64_t ldy_fp8 = 0;
  const float* fp8_scale = nullptr;  // one fp32 on the device (with y_fp8)
};
struct SoftmaxArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  const void* x = nullptr;
  void* y = nullptr;
  int64_t ldx = 0, ldy = 0;
};

// Backward: dx from x (norms) or y (softmax), dy and the saved statistics; the parameter
// gradients dγ (and dβ) are written (not accumulated) when their pointers are given, in a fixed
// reduction order (bit-identical across runs). Pitches as the forward's (0: cols).
struct LayerNormBackwardArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  const void* x = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  int64_t ldx = 0, lddy = 0, lddx = 0;
  const void* gamma = nullptr;
  const float* mean = nullptr;  // required
  const float* rstd = nullptr;  // required
  void* dgamma = nullptr;
  void* dbeta = nullptr;
};
struct RMSNormBackwardArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  const void* x = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  int64_t ldx = 0, lddy = 0, lddx = 0;
  const void* gamma = nullptr;
  const float* rstd = nullptr;  // required
  void* dgamma = nullptr;
};
struct SoftmaxBackwardArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, cols = 0;
  const void* y = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  int64_t ldy = 0, lddy = 0, lddx = 0;
};

size_t layernorm_forward_workspace_size(const LayerNormArgs& args);
size_t rmsnorm_forward_workspace_size(const RMSNormArgs& args);
size_t softmax_forward_workspace_size(const SoftmaxArgs& args);
size_t layernorm_backward_workspace_size(const LayerNormBackwardArgs& args);
size_t rmsnorm_backward_workspace_size(const RMSNormBackwardArgs& args);
size_t softmax_backward_workspace_size(const SoftmaxBackwardArgs& args);

Choice explain_layernorm_forward(const LayerNormArgs& args);
Choice explain_rmsnorm_forward(const RMSNormArgs& args);
Choice explain_softmax_forward(const SoftmaxArgs& args);
Choice explain_layernorm_backward(const LayerNormBackwardArgs& args);
Choice explain_rmsnorm_backward(const RMSNormBackwardArgs& args);
Choice explain_softmax_backward(const SoftmaxBackwardArgs& args);

void layernorm_forward(const LayerNormArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);
void rmsnorm_forward(const RMSNormArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);
void softmax_forward(const SoftmaxArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);
void layernorm_backward(const LayerNormBackwardArgs& args, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream);
void rmsnorm_backward(const RMSNormBackwardArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);
void softmax_backward(const SoftmaxBackwardArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);

// ---- cross-entropy over vocabulary logits: loss and dlogits in one call -----------------------------
// logits: rows × vocab (row pitch ldlogits, 0: vocab), dtype ∈ {bf16, f16, f32}; labels: rows of int32
// or int64. Per row, with label smoothing ε (PyTorch's F.cross_entropy):
//   loss = logsumexp(x) − (1 − ε)·x_label − (ε/V)·Σx;   a row whose label is ignore_index: loss 0
//   reduced = Σ loss / (rows not ignored)  (Mean; NaN when every row is ignored), or Σ loss (Sum)
//   dlogits = grad_scale · ∂reduced/∂logits = (softmax − (1 − ε)·onehot − ε/V) · grad_scale [/ count]
// (0 on ignored rows), in the logits' dtype; dlogits may be the logits themselves (same pitch). A
// label outside [0, V) that is not ignore_index gives its row a NaN loss and NaN dlogits. The
// logits are read once where a row fits a cluster's shared memory (sm_90: up to 786432 bf16 /
// 393216 fp32 logits), in three passes past it. The reduction's order is fixed (the same bits on
// every run). Outputs given as nullptr are not written.
enum class IndexType { i32, i64 };
enum class Reduction { Mean, Sum };
struct CrossEntropyArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, vocab = 0;
  const void* logits = nullptr;
  int64_t ldlogits = 0;
  const void* labels = nullptr;
  IndexType label_type = IndexType::i64;
  int64_t ignore_index = -100;
  float label_smoothing = 0.f;  // ε ∈ [0, 1]
  Reduction reduction = Reduction::Mean;
  float grad_scale = 1.f;       // the upstream gradient of the reduced loss
  float* loss = nullptr;        // rows fp32, or nullptr
  float* loss_reduced = nullptr;  // 1 fp32, or nullptr
  void* dlogits = nullptr;      // rows × vocab, or nullptr (loss only)
  int64_t lddlogits = 0;
};

size_t cross_entropy_workspace_size(const CrossEntropyArgs& args);
Choice explain_cross_entropy(const CrossEntropyArgs& args);
void cross_entropy(const CrossEntropyArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream);

// ---- linear + cross-entropy: the LM head and its loss, chunked --------------------------------------
// logits = h·Wᵀ (h: rows × hidden, W: vocab × hidden, nn.Linear's weight), then cross_entropy's
// loss of those logits (its formulas, labels, ignore_index, smoothing, reductions and NaN for a bad
// label), and where asked its gradients dh = dlogits·W and dW = dlogitsᵀ·h, with dlogits as
// cross_entropy defines them (grad_scale: the upstream gradient of the reduced loss; Mean divides
// by the rows not ignored in the whole call). The rows run in chunks: only one chunk's logits
// (chunk × vocab, dlogits written over them) exist at a time, in the workspace, never all rows × vocab.
// Per chunk: sol::matmul (logits), the cross-entropy rows, sol::matmul (dh rows), sol::matmul (dW
// accumulated, fp32 accumulation in the GEMM). chunk_rows = 0 takes the rule of
// kernels/api/linear_ce_plan.hpp: the larger of the rows at which the dW accumulation is compute-bound
// on this GPU (4 × its FLOP per HBM byte) and the most rows whose workspace is within 1/8 of the unfused
// path's memory, spread evenly over the chunks; explain_linear_cross_entropy states both and the memory.
// dtype ∈ {bf16, f16} for h, W, the logits and dh; dW is fp32 (dw_type f32) or dtype (each chunk's
// GEMM then rounds dW to dtype once: one rounding per chunk, half the memory). dW is overwritten, or
// added into with dw_accumulate (a gradient accumulation buffer). dh is overwritten. Pitches in
// elements, 0: hidden. Outputs given as nullptr are not computed (no dh and no dW: the forward alone).
// Per-row upstream gradients (PyTorch's reduction "none" with a backward) are not served: dh and dW
// are those of the reduced loss. Asynchronous on the stream and graph-capturable: the count for Mean
// is computed on the device, nothing is read back, nothing allocated.
struct LinearCrossEntropyArgs {
  DType dtype = DType::bf16;
  int64_t rows = 0, hidden = 0, vocab = 0;
  const void* h = nullptr;  // rows × hidden
  int64_t ldh = 0;
  const void* w = nullptr;  // vocab × hidden
  int64_t ldw = 0;
  const void* labels = nullptr;  // rows of int32 or int64
  IndexType label_type = IndexType::i64;
  int64_t ignore_index = -100;
  float label_smoothing = 0.f;  // ε ∈ [0, 1]
  Reduction reduction = Reduction::Mean;
  float grad_scale = 1.f;         // the upstream gradient of the reduced loss (dh and dW)
  float* loss = nullptr;          // rows fp32, or nullptr
  float* loss_reduced = nullptr;  // 1 fp32, or nullptr
  void* dh = nullptr;             // rows × hidden in dtype, or nullptr
  int64_t lddh = 0;
  void* dw = nullptr;             // vocab × hidden in dw_type, or nullptr
  int64_t lddw = 0;
  DType dw_type = DType::f32;     // f32, or dtype
  bool dw_accumulate = false;     // false: dW = the gradient; true: dW += the gradient
  int64_t chunk_rows = 0;         // rows per chunk; 0: the rule's
};

size_t linear_cross_entropy_workspace_size(const LinearCrossEntropyArgs& args);
Choice explain_linear_cross_entropy(const LinearCrossEntropyArgs& args);
void linear_cross_entropy(const LinearCrossEntropyArgs& args, void* workspace, size_t workspace_bytes,
                          cudaStream_t stream);

// ---- MX (OCP microscaling) quantization -----------------------------------------------------------
// x: rows × cols bf16, row-major, packed. Codes keep x's layout (one byte per element); scales are
// e8m0, row-major: rowwise (1×32 blocks along a row) rows × ⌈cols/32⌉, columnwise (32×1 blocks down
// a column) ⌈rows/32⌉ × cols. Every output is bit for bit sol::formats::mx_quantize's.
// elem ∈ {fp8_e4m3, fp8_e5m2}. Either orientation may be skipped (its pointers nullptr).
enum class MxScaleRule { Ceil, Floor };  // the e8m0 scale rounding (Ceil: the training recipes')

struct MxQuantizeArgs {
  int64_t rows = 0, cols = 0;
  DType elem = DType::fp8_e4m3;
  MxScaleRule rule = MxScaleRule::Ceil;
  const void* x = nullptr;
  void* row_codes = nullptr;
  void* row_scales = nullptr;
  void* col_codes = nullptr;
  void* col_scales = nullptr;
};
struct MxDequantizeArgs {
  int64_t rows = 0, cols = 0;
  DType elem = DType::fp8_e4m3;
  bool columnwise = false;  // which orientation the scales are
  const void* codes = nullptr;
  const void* scales = nullptr;
  void* out = nullptr;  // rows × cols bf16
};

Choice explain_mx_quantize(const MxQuantizeArgs& args);
Choice explain_mx_dequantize(const MxDequantizeArgs& args);
void mx_quantize(const MxQuantizeArgs& args, cudaStream_t stream);
void mx_dequantize(const MxDequantizeArgs& args, cudaStream_t stream);

// ---- copy ----------------------------------------------------------------------------------------
// dst[0, bytes) = src[0, bytes), device to device, any alignment, non-overlapping.
struct CopyArgs {
  const void* src = nullptr;
  void* dst = nullptr;
  size_t bytes = 0;
};

Choice explain_copy(const CopyArgs& args);
void copy(const CopyArgs& args, cudaStream_t stream);

}  // namespace sol

#pragma once
// The host half of sol::linear_cross_entropy (include/sol/kernels.hpp): the chunk rule and the
// workspace layout. Host C++ without CUDA headers, so that both are tested without a GPU
// (tests/host/test_linear_ce_plan.cpp); kernels/api/linear_ce.cu validates, runs and explains.
//
// A chunk of c rows runs logits = h_c·Wᵀ (c × V, in the workspace), the cross-entropy with dlogits
// written over the logits, dh_c = dlogits·W and dW += dlogitsᵀ·h_c. The chunk rule:
//  - efficiency: dW accumulates over chunks, a GEMM of k = c whose fp32 C (V × H) is read and
//    written once per chunk: 2·c FLOP per 8 bytes of C, so it stays compute-bound only where c/4
//    reaches the GPU's FLOP per HBM byte (its ridge): c ≥ 4·ridge (H100 SXM: 4 × 295 → 1181 rows,
//    H200: 4 × 206 → 824), rounded up to 128 (a GEMM tile's m). Above it, the read-modify-write of
//    C needs less HBM time than the GEMM's arithmetic, which a GEMM's epilogue can hide.
//  - memory: the workspace (the logits chunk, the GEMMs' and the cross-entropy's scratch) at most
//    1/8 of what the unfused path holds besides the same inputs and outputs (rows × V logits,
//    dlogits in place, and the same GEMM workspace): the largest multiple of 128 rows within it.
// c = the larger of the two (past rows ≈ 8·c_ridge the memory bound allows more rows, and fewer
// chunks pay the read-modify-write of dW), at most rows, then spread evenly: n = ⌈rows / c⌉
// chunks of ⌈rows / n⌉ rows rounded up to 128 (never more than c). The caller's chunk_rows
// overrides the rule (taken as given, at most rows). The rule counts the GEMMs' workspace as
// cuBLASLt's 32 MiB (kLtWorkspaceBytes), on both sides.
#include <cstddef>
#include <cstdint>

namespace sol::kernels::api {

// Rows of a GEMM tile: the unit the rule rounds chunks to.
inline constexpr int64_t kLceChunkAlign = 128;
// Elements the logits chunk's row pitch is rounded up to: 128 bytes of 16-bit logits, so that every
// row starts where the GEMMs' and the cross-entropy's vector accesses need no peeling.
inline constexpr int64_t kLcePitchAlign = 64;

// What the rule and the layout read of a call (16-bit h, W and logits).
struct LceShape {
  int64_t rows = 0, hidden = 0, vocab = 0;
  bool loss_rows_kept = false;  // the caller's loss pointer holds the per-row losses (else the workspace does)
};

// The workspace, byte offsets from its start (each piece 256-aligned): the count of labels that are
// not ignore_index (an int), the per-row losses (rows fp32, where the caller keeps none; else 0
// bytes), the cross-entropy's scratch (row max and Σexp of one chunk, v01's), the logits chunk
// (chunk × pitch 16-bit; dlogits over it), the GEMMs' workspace.
struct LceLayout {
  int64_t pitch = 0;  // the logits chunk's row pitch, elements
  size_t count = 0, loss = 0, row_max = 0, row_sum = 0, logits = 0, gemm = 0, total = 0;
};
LceLayout lce_layout(const LceShape& s, int64_t chunk, size_t gemm_bytes);

// What the unfused path holds besides the inputs and outputs: rows × vocab 16-bit logits (dlogits
// written over them) and its GEMM workspace.
size_t lce_unfused_bytes(const LceShape& s, size_t gemm_bytes);

struct ChunkRule {
  int64_t ridge = 0;   // rows at which the dW accumulation reaches the GPU's ridge (multiple of 128)
  int64_t memory = 0;  // the most rows (multiple of 128) within 1/8 of the unfused path's memory; 0: not 128
  int64_t chunk = 0;   // rows per chunk that run (the last chunk may have fewer)
  int64_t chunks = 0;
  bool requested = false;  // the caller's chunk_rows, not the rule
};
// The chunk for a call on a GPU of peak 16-bit tensor FLOP/s `flops_per_s` and HBM bandwidth
// `bytes_per_s`; requested > 0 overrides the rule.
ChunkRule lce_chunk_rule(const LceShape& s, int64_t requested, double flops_per_s, double bytes_per_s);

}  // namespace sol::kernels::api

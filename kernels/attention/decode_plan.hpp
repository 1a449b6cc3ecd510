#pragma once
// The split-KV decode kernel's launch shape (kernels/attention/decode.cu), host C++ with no CUDA
// type so that the rule is tested without a GPU. One CTA of kDecodeWarps warps owns (batch, KV
// head, row block, split): a block of decode_row_tile(slices) query rows — the n query tokens × the
// h/h_kv query heads that read this KV head, token-major — and a range of the cache's keys, streamed
// in tiles of kDecodeTileKeys keys through kDecodeStages shared-memory stages; each warp takes a
// quarter of every tile. A split writes an fp32 partial O and its logsumexp; a second kernel
// combines the splits. With one split the CTA writes O and LSE itself.
#include <cstddef>
#include <cstdint>

namespace sol::kernels::attention {

constexpr int kDecodeMaxQueries = 16;   // query tokens per sequence the decode kernel serves
constexpr int kDecodeWarps = 4;
constexpr int kDecodeTileKeys = 64;     // keys per streamed tile: 16 per warp
constexpr int kDecodeStages = 3;        // cp.async stages of K and V tiles
constexpr int kDecodeMaxSms = 256;      // SM counts above this are treated as this (workspace bound)

// Query rows per CTA: 16 per slice (one m16 MMA row block), 1 or 2 slices.
constexpr int decode_row_tile(int slices) { return 16 * slices; }

// Dynamic shared memory of one CTA: the K/V stages and the Q block; the cross-warp combine at the
// end reuses the stages (its fp32 O per warp and the row statistics fit in them: decode.cu asserts).
constexpr int64_t decode_smem_bytes(int d, int slices) {
  return int64_t(kDecodeStages) * 2 * kDecodeTileKeys * d * 2 + int64_t(decode_row_tile(slices)) * d * 2;
}

// The kernel's __launch_bounds__ minimum of resident CTAs per SM: 2, up to 255 registers a
// thread (3, i.e. 170 registers, spills at d = 64 with two slices on sm_80).
constexpr int decode_launch_min_ctas(int) { return 2; }

// CTAs resident per SM: the launch bound, or fewer where shared memory allows fewer on an
// H200-class SM (228 KiB per SM, 1 KiB of it reserved per CTA).
constexpr int decode_ctas_per_sm(int d, int slices) {
  const int64_t by_smem = (228 * 1024) / (decode_smem_bytes(d, slices) + 1024);
  return int(by_smem < decode_launch_min_ctas(d) ? by_smem : decode_launch_min_ctas(d));
}

struct DecodeShape {
  int64_t b = 1, h = 1, hkv = 1, n = 1, nk = 1;  // nk: the keys a sequence's rows see (decode_keys)
  int d = 128;
};

// The keys the splits cover: the cache's (largest) length nk, or, under a window bounded on both
// sides (causal is right = 0), the most that one sequence's n rows see between them, n + left +
// right (sol/core/attention_window.hpp: row 0's first key to row n − 1's last), when fewer. The
// kernel starts each sequence's splits at its own first visible key.
constexpr int64_t decode_keys(int64_t n, int64_t nk, int64_t left, int64_t right) {
  return left >= 0 && right >= 0 && n + left + right < nk ? n + left + right : nk;
}

struct DecodeSplit {
  int slices = 1;            // 16-row slices per CTA (1 or 2)
  int64_t rows = 0;          // query rows per KV head: n · (h / hkv)
  int64_t row_blocks = 0;    // CTAs over those rows
  int64_t splits = 1;        // CTAs over the keys
  int64_t keys_per_split = 0;  // a multiple of kDecodeTileKeys
};

// The rule, stated once: the grid without splits (b · hkv · row_blocks CTAs) is split over the keys
// until it fills one wave (sms · decode_ctas_per_sm CTAs): splits = ⌊wave / base⌋, at least 1 (no
// split when the batch and heads already fill the GPU), at most one split per tile of keys, then
// evened out so that no split is empty. One wave, not more: a second, partial wave would leave SMs
// idle while the memory system is the bound. sms is clamped to [1, kDecodeMaxSms].
DecodeSplit decode_split(const DecodeShape& s, int sms);

// Workspace of the partials [splits][b][h][n] × (d fp32 O + 1 fp32 LSE), each part 256-aligned;
// 0 with one split. decode_workspace_bound: the same for the most splits any device may get
// (sms = kDecodeMaxSms), which the public workspace query returns without asking the device.
size_t decode_workspace_bytes(const DecodeShape& s, const DecodeSplit& p);
size_t decode_workspace_bound(const DecodeShape& s);
// Byte offset of the partial LSE in that workspace (after the partial O).
size_t decode_partial_lse_offset(const DecodeShape& s, const DecodeSplit& p);

}  // namespace sol::kernels::attention

// The split-KV decode kernel's launch shape (decode_plan.hpp): host C++ in every build.
#include "kernels/attention/decode_plan.hpp"

#include <algorithm>

namespace sol::kernels::attention {
namespace {

constexpr size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// Partial rows: one per (split, batch, query head, query token).
size_t partial_rows(const DecodeShape& s, const DecodeSplit& p) {
  return size_t(p.splits) * size_t(s.b) * size_t(s.h) * size_t(s.n);
}

}  // namespace

DecodeSplit decode_split(const DecodeShape& s, int sms) {
  sms = std::clamp(sms, 1, kDecodeMaxSms);
  DecodeSplit p;
  p.rows = s.n * (s.h / s.hkv);
  p.slices = p.rows <= decode_row_tile(1) ? 1 : 2;
  p.row_blocks = (p.rows + decode_row_tile(p.slices) - 1) / decode_row_tile(p.slices);
  const int64_t tiles = std::max<int64_t>(1, (s.nk + kDecodeTileKeys - 1) / kDecodeTileKeys);
  const int64_t base = s.b * s.hkv * p.row_blocks;
  const int64_t wave = int64_t(sms) * decode_ctas_per_sm(s.d, p.slices);
  const int64_t want = std::clamp<int64_t>(wave / base, 1, tiles);
  const int64_t tiles_per_split = (tiles + want - 1) / want;
  p.splits = (tiles + tiles_per_split - 1) / tiles_per_split;
  p.keys_per_split = tiles_per_split * kDecodeTileKeys;
  return p;
}

size_t decode_partial_lse_offset(const DecodeShape& s, const DecodeSplit& p) {
  return align256(partial_rows(s, p) * size_t(s.d) * sizeof(float));
}

size_t decode_workspace_bytes(const DecodeShape& s, const DecodeSplit& p) {
  if (p.splits <= 1) return 0;
  return decode_partial_lse_offset(s, p) + align256(partial_rows(s, p) * sizeof(float));
}

size_t decode_workspace_bound(const DecodeShape& s) {
  return decode_workspace_bytes(s, decode_split(s, kDecodeMaxSms));
}

}  // namespace sol::kernels::attention

// The chunk rule and workspace layout of sol::linear_cross_entropy (linear_ce_plan.hpp says why).
#include "kernels/api/linear_ce_plan.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/gemm/tc/lt_workspace.hpp"

namespace sol::kernels::api {
namespace {

constexpr size_t kElemBytes = 2;  // 16-bit h, W and logits

constexpr size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }
constexpr int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

}  // namespace

LceLayout lce_layout(const LceShape& s, int64_t chunk, size_t gemm_bytes) {
  LceLayout l;
  l.pitch = round_up(s.vocab, kLcePitchAlign);
  size_t at = 0;
  const auto piece = [&](size_t bytes) {
    const size_t here = at;
    at += align256(bytes);
    return here;
  };
  l.count = piece(sizeof(int));
  l.loss = piece(s.loss_rows_kept ? 0 : size_t(s.rows) * 4);
  l.row_max = piece(size_t(chunk) * 4);
  l.row_sum = piece(size_t(chunk) * 4);
  l.logits = piece(size_t(chunk) * size_t(l.pitch) * kElemBytes);
  l.gemm = piece(gemm_bytes);
  l.total = at;
  return l;
}

size_t lce_unfused_bytes(const LceShape& s, size_t gemm_bytes) {
  return size_t(s.rows) * size_t(s.vocab) * kElemBytes + gemm_bytes;
}

ChunkRule lce_chunk_rule(const LceShape& s, int64_t requested, double flops_per_s, double bytes_per_s) {
  ChunkRule r;
  // Efficiency: the dW accumulation's 2·c FLOP per 8 bytes of fp32 C reach the ridge F/B at c = 4·F/B.
  const double ridge = flops_per_s > 0 && bytes_per_s > 0 ? 4 * flops_per_s / bytes_per_s : 0;
  r.ridge = round_up(std::max<int64_t>(1, int64_t(std::ceil(ridge))), kLceChunkAlign);
  // Memory: the largest multiple of 128 rows whose workspace is within 1/8 of the unfused path's.
  const size_t gemm = gemm::tc::kLtWorkspaceBytes;
  const size_t budget = lce_unfused_bytes(s, gemm) / 8, fixed = lce_layout(s, 0, gemm).total;
  if (budget > fixed) {
    const size_t per_row = size_t(round_up(s.vocab, kLcePitchAlign)) * kElemBytes + 8;
    int64_t c = int64_t((budget - fixed) / per_row) / kLceChunkAlign * kLceChunkAlign;
    while (c > 0 && lce_layout(s, c, gemm).total > budget) c -= kLceChunkAlign;  // the 256-byte roundings
    r.memory = c;
  }
  if (requested > 0) {
    r.requested = true;
    r.chunk = std::min(requested, s.rows);
  } else {
    const int64_t c = std::min(std::max(r.ridge, r.memory), s.rows);
    const int64_t n = (s.rows + c - 1) / c;
    r.chunk = std::min(c, round_up((s.rows + n - 1) / n, kLceChunkAlign));
  }
  r.chunks = (s.rows + r.chunk - 1) / r.chunk;
  return r;
}

}  // namespace sol::kernels::api

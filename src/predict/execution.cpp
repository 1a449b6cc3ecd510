// Execution declarations the specs and the peers share (include/sol/predict.hpp): how the attention
// kernels run their tiles, and what the PyTorch peers' scripts launch.
#include <algorithm>
#include <cmath>

#include "sol/core/attention_window.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/model/access.hpp"
#include "sol/model/cost.hpp"
#include "sol/predict.hpp"

namespace sol::predict {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct AttentionDims {
  int64_t b, h, hkv, n, nk, d;
  bool causal;
  int64_t wl, wr;  // the window's sizes (−1: unbounded)
  bool softcap;
  bool window() const { return wl >= 0 || wr >= 0; }
  // The keys each row sees (sol/core/attention_window.hpp), causal as right = 0.
  KeyWindow<int64_t> keys() const { return key_window<int64_t>(n, nk, wl, causal ? 0 : wr); }
};
AttentionDims attention_dims(const Shape& s) {
  return {s.at("b"), s.at("h"),  s.get("hkv", s.at("h")), s.at("n"), s.get("nk", s.at("n")), s.at("d"),
          s.get("causal", 0) != 0, s.get("wl", -1), s.get("wr", -1), s.get("softcap", 0) != 0};
}

// Key tiles query tile i computes under a causal (bottom-right aligned) mask: tiles wholly above
// the diagonal are skipped, the diagonal's are computed whole; under a window, those its rows'
// windows reach.
int64_t causal_key_tiles(const AttentionDims& a, int64_t i, int64_t bq, int64_t bk) {
  if (a.window()) {  // the key tiles its rows' windows reach, both ends
    const TileSpan<int64_t> t = key_tiles(a.keys(), i * bq, std::min(a.n, (i + 1) * bq) - 1, a.nk, bk);
    return t.end - t.begin;
  }
  const int64_t last_key = std::min(a.nk, (i + 1) * bq + a.nk - a.n);  // keys a row of this tile sees, at most
  return std::clamp<int64_t>(ceil_div(std::max<int64_t>(last_key, 0), bk), 0, ceil_div(a.nk, bk));
}
// Query tiles that see key tile j under the same mask: those from the first whose last row
// (i + 1)·bq − 1 sees key j·bk, i.e. reaches j·bk − (nk − n).
int64_t causal_query_tiles(const AttentionDims& a, int64_t j, int64_t bq, int64_t bk) {
  if (a.window()) {  // the query tiles whose rows' windows reach it
    const TileSpan<int64_t> t = query_tiles(a.keys(), j * bk, std::min(a.nk, (j + 1) * bk) - 1, a.n, bq);
    return t.end - t.begin;
  }
  const int64_t tq = ceil_div(a.n, bq);
  const int64_t row = j * bk - (a.nk - a.n);  // the first query row that sees key j·bk
  const int64_t first = row <= 0 ? 0 : row / bq;
  return std::max<int64_t>(tq - first, 0);
}

// Query × key tiles a causal (or windowed) kernel computes, over all n × nk tiles.
double causal_tile_share(const AttentionDims& a, int64_t bq, int64_t bk) {
  const int64_t tq = ceil_div(a.n, bq), tk = ceil_div(a.nk, bk);
  double computed = 0;
  for (int64_t i = 0; i < tq; ++i) computed += double(causal_key_tiles(a, i, bq, bk));
  return computed / (double(tq) * double(tk));
}

// The main kernel's CTAs: the forward's, one per query tile of each (batch, head), each streaming
// the key tiles it sees; the backward's, one per key tile of each (batch, K/V head), each streaming
// the query tiles that see it for its h ÷ h_kv query heads. Bytes around its tiles: the forward
// loads its Q tile and the first K and V tiles and stores its O tile; the backward loads its K and
// V tiles and the first Q and dO tiles and stores dK and dV (16-bit elements).
model::CtaSchedule attention_schedule(const AttentionDims& a, bool backward, const AttentionTiling& t) {
  model::CtaSchedule s;
  s.ctas_per_sm = t.ctas_per_sm;
  const bool skips = (a.causal || a.window()) && t.skips_causal;
  const double row_bytes = double(a.d) * 2;
  if (!backward) {
    const int64_t tq = ceil_div(a.n, t.block_q), tk = ceil_div(a.nk, t.block_k);
    for (int64_t i = 0; i < tq; ++i) s.tiles.push_back(skips ? causal_key_tiles(a, i, t.block_q, t.block_k) : tk);
    s.groups = a.b * a.h;
    s.fill_bytes = double(2 * t.block_q + 2 * t.block_k) * row_bytes;
  } else {
    const int64_t tq = ceil_div(a.n, t.block_q), tk = ceil_div(a.nk, t.block_k);
    const int64_t heads_per_kv = a.hkv > 0 && a.h % a.hkv == 0 ? a.h / a.hkv : 1;
    for (int64_t j = 0; j < tk; ++j)
      s.tiles.push_back(heads_per_kv * (skips ? causal_query_tiles(a, j, t.block_q, t.block_k) : tq));
    s.groups = a.b * (a.h / heads_per_kv);
    s.fill_bytes = double(4 * t.block_k + 2 * t.block_q) * row_bytes;
  }
  return s;
}
}  // namespace

model::Execution attention_execution(const Shape& s, bool backward, const AttentionTiling& t) {
  if (t.block_q < 1 || t.block_k < 1) bad_input("attention tiles must be at least 1 × 1");
  const AttentionDims a = attention_dims(s);
  model::Execution e;
  e.declared = true;
  e.kernels = t.kernels;
  e.mma = t.mma;
  const double pairs_full = double(a.b) * double(a.h) * double(a.n) * double(a.nk);
  const bool masked = a.causal || a.window();
  const double share = masked && t.skips_causal ? causal_tile_share(a, t.block_q, t.block_k) : 1.0;
  const double pairs = pairs_full * share;
  e.work_flops = pairs * 4.0 * double(a.d) * (backward ? 2.5 : 1.0) * t.recompute;
  e.exps = pairs * t.recompute * (a.softcap ? 2 : 1);  // softcap: a tanh beside each exponential
  e.smem_wavefronts = e.work_flops * t.smem_bytes_per_flop / double(model::kBanks * model::kBankBytes);
  if (backward && t.dq_keys_per_add > 0) {
    // Each dQ element gets one fp32 add per `dq_keys_per_add` keys it meets: a 4-byte read and write at L2.
    const double adds = double(a.b) * double(a.h) * double(a.n) * double(a.d) *
                        std::ceil(double(a.nk) * share / double(t.dq_keys_per_add));
    e.l2_atomic_bytes = 8 * adds;
  }
  if (t.ctas_per_sm > 0) e.schedule = attention_schedule(a, backward, t);
  e.how = std::string(t.mma == model::MatrixInstruction::MmaSync ? "mma.sync" : "wgmma") + ", " +
          std::to_string(t.block_q) + "×" + std::to_string(t.block_k) + " tiles" +
          (!masked          ? ""
           : t.skips_causal ? std::string(a.window() ? ", tiles outside the window" : ", causal tiles") + " skipped (" +
                                  fixed(100 * share, 1) + " % computed)"
                            : std::string(a.window() ? ", window" : ", causal") + ": every tile computed") +
          (t.smem_bytes_per_flop > 0 ? ", " + fixed(t.smem_bytes_per_flop, 3) + " B of shared-memory operands per FLOP" : "") +
          (e.l2_atomic_bytes > 0 ? ", dQ by fp32 atomics every " + std::to_string(t.dq_keys_per_add) + " keys" : "") +
          (t.recompute != 1 ? ", " + fixed(t.recompute, 2) + "× the FLOPs run" : "");
  return e;
}

model::Execution standard_attention_execution(const Shape& s) {
  const AttentionDims a = attention_dims(s);
  model::Execution e;
  e.declared = true;
  e.kernels = 3;
  // Both GEMMs, whole: Q·Kᵀ and P·V, 2·n·nk·d FMAs per (batch, head); a 16×16 tile's warp FMA
  // reads one word of sA (a broadcast) and one row of sB: two wavefronts.
  const double fmas = 2.0 * double(a.b) * double(a.h) * double(a.n) * double(a.nk) * double(a.d);
  e.work_flops = 2 * fmas;
  e.smem_wavefronts = 2 * fmas / 32;
  e.issue_slots = 3 * fmas;  // FFMA + two LDS per FMA
  e.how = "SIMT 16×16 tiles: two shared-memory wavefronts per warp FMA, the whole N×N computed";
  return e;
}

// ---- PyTorch peers ---------------------------------------------------------------------------------
namespace {
// An eager formula: `kernels` launches, `passes` whole-tensor reads + writes of the peer's type.
struct Eager {
  const char* name;  // the peer's variant without "peer:" and the dtype suffix
  int kernels;
  int passes;
  const char* what;
};
// The formulas of bench/peers/torch_peers.py (naive_layer_norm, naive_rms_norm, naive_softmax,
// sin2_cos2) as aten runs them, one kernel per op; a row statistic (rows × 1) is not a pass. The
// backward of each (torch.autograd.grad of the saved graph) and F.cross_entropy's forward and
// backward: the aten ops scripts/eager-kernels.py counts under a TorchDispatchMode (PyTorch 2.15).
constexpr Eager kEager[] = {
    {"torch.naive_layer_norm", 10, 14,
     "mean | x−μ | ² | mean | x−μ | +ε | √ | ÷ | ·γ | +β: 8 reads + 6 writes of x's size"},
    {"torch.naive_rms_norm", 6, 7, "x·x | mean | +ε | rsqrt | x·r | ·γ: 4 reads + 3 writes"},
    {"torch.naive_softmax", 5, 8, "max | x−max | exp | sum | ÷: 5 reads + 3 writes"},
    {"torch.sin2_cos2_eager", 5, 11, "sin | ² | cos | ² | +: 6 reads + 5 writes"},
    {"torch.naive_layer_norm_bwd", 24, 40,
     "autograd of the formula: 19 elementwise ops and 5 row or column sums, 24 reads + 16 writes"},
    {"torch.naive_rms_norm_bwd", 14, 25, "autograd of the formula: 12 elementwise ops and 2 sums, 16 reads + 9 writes"},
    {"torch.naive_softmax_bwd", 13, 26, "autograd of the formula (the max's by a scatter): 15 reads + 11 writes"},
    {"torch.F.cross_entropy", 5, 6,
     "_log_softmax | nll_loss | its backward (zeros, the labels' −1/count) | _log_softmax_backward_data: 3 reads + "
     "3 writes"},
};
}  // namespace

std::optional<model::Execution> peer_execution(const Work& w) {
  if (w.variant.rfind("peer:", 0) != 0) return std::nullopt;
  const std::string name = w.variant.substr(5);
  if (w.family == "attention" || w.family == "attention_bwd") {
    const bool bwd = w.family == "attention_bwd";
    AttentionTiling t;
    if (name.rfind("torch.sdpa_flash", 0) == 0) {
      // FlashAttention-2 (mma.sync): 128 × 64 tiles forward; backward 64 × 128 with dQ atomics.
      t.mma = model::MatrixInstruction::MmaSync;
      t.block_q = bwd ? 64 : 128;
      t.block_k = bwd ? 128 : 64;
      t.dq_keys_per_add = bwd ? 128 : 0;
      t.kernels = bwd ? 3 : 1;
    } else if (name.rfind("torch.sdpa_cudnn", 0) == 0) {
      t.block_q = bwd ? 64 : 128;
      t.block_k = 128;
      t.dq_keys_per_add = bwd ? 128 : 0;
      t.kernels = bwd ? 3 : 1;
    } else {
      return std::nullopt;
    }
    return attention_execution(w.shape, bwd, t);
  }
  for (const Eager& e : kEager) {
    const std::string n = e.name;
    // The formula's peer on one dtype: "<name>_<dtype>" (its backward, "<name>_bwd_<dtype>", runs other kernels).
    if (name.rfind(n + "_", 0) != 0 || name.find('_', n.size() + 1) != std::string::npos) continue;
    const char* row = w.shape.has("cols") ? "cols" : "vocab";  // a row's length (cross-entropy: its logits)
    if (!(w.shape.has("rows") && w.shape.has(row)) && !w.shape.has("n")) return std::nullopt;
    const double elems =
        w.shape.has("n") ? double(w.shape.at("n")) : double(w.shape.at("rows")) * double(w.shape.at(row));
    const DType t = w.dtype.empty() ? DType::bf16 : parse_dtype(w.dtype);
    model::Execution x;
    x.declared = true;
    x.kernels = e.kernels;
    x.dram_bytes = double(e.passes) * elems * double(dtype_bytes(t));
    x.how = std::string("eager: ") + std::to_string(e.kernels) + " kernels, " + e.what;
    return x;
  }
  return std::nullopt;
}

}  // namespace sol::predict

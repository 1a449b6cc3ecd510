// Cost models: FLOPs and bytes through HBM for the operations the lecture analyses (§6, §8,
// §10, §11). Every tensor's byte count is an exact 64-bit integer, checked for overflow, so a
// size too large to count is an error rather than a wrong number; FLOPs are kept in double.
// Each model writes its counting rules into Cost::notes, so a reader can redo the arithmetic.
#include "sol/model/cost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "sol/core/attention_window.hpp"
#include "sol/core/error.hpp"

namespace sol::model {

int64_t checked_product(std::initializer_list<int64_t> factors, const std::string& what) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (f <= 0) bad_input(what + ": size " + std::to_string(f) + " is not positive", "give sizes ≥ 1");
    if (p > std::numeric_limits<int64_t>::max() / f)
      bad_input(what + " overflows 64 bits", "use smaller sizes");
    p *= f;
  }
  return p;
}

namespace {

// A byte counter that refuses to wrap: sums of tensor sizes, each itself a checked product.
class ByteCount {
 public:
  explicit ByteCount(std::string what) : what_(std::move(what)) {}
  // Adds `times` passes over a tensor of `bytes` bytes.
  ByteCount& add(int64_t bytes, int64_t times = 1) {
    int64_t b = checked_product({bytes, times}, what_);
    if (total_ > std::numeric_limits<int64_t>::max() - b) bad_input(what_ + " overflows 64 bits", "use smaller sizes");
    total_ += b;
    return *this;
  }
  double value() const { return double(total_); }

 private:
  std::string what_;
  int64_t total_ = 0;
};

void require_positive(int64_t v, const std::string& name) {
  if (v <= 0) bad_input(name + " must be positive, got " + std::to_string(v), "give " + name + " ≥ 1");
}

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

std::string dims(std::initializer_list<int64_t> sizes) {
  std::string s;
  for (int64_t v : sizes) s += (s.empty() ? "" : "×") + std::to_string(v);
  return s;
}

}  // namespace

// ---- matmul ------------------------------------------------------------------------------------
Cost matmul(const MatmulOp& op) {
  require_positive(op.m, "M");
  require_positive(op.n, "N");
  require_positive(op.k, "K");
  const int64_t b = dtype_bytes(op.dtype);
  const std::string what = "matmul " + dims({op.m, op.k, op.n}) + " byte count";
  const int64_t bytes_a = checked_product({op.m, op.k, b}, what);
  const int64_t bytes_b = checked_product({op.k, op.n, b}, what);
  const int64_t bytes_c = checked_product({op.m, op.n, b}, what);

  Cost c;
  c.dtype = op.dtype;
  c.unit = hw::Unit::Matrix;
  c.flops = 2.0 * double(op.m) * double(op.n) * double(op.k);
  c.notes.push_back("FLOPs = 2·M·N·K (one multiply and one add per term)");
  // (Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string temporaries.)
  std::string shape = "(";
  shape += dims({op.m, op.k}) + ")·(" + dims({op.k, op.n}) + ") " + dtype_name(op.dtype);
  ByteCount q(what);
  switch (op.impl) {
    case MatmulImpl::Minimal:
      q.add(bytes_a).add(bytes_b).add(bytes_c);
      c.op = "matmul " + shape + ", minimal traffic";
      c.notes.push_back("bytes = b·(MK + KN + MN): A and B read once, C written once (the lower bound)");
      break;
    case MatmulImpl::Naive: {
      // Every multiply-add fetches one element of A and one of B; nothing is reused on chip.
      const int64_t fetches = checked_product({2, op.m, op.n, op.k, b}, what);
      q.add(fetches).add(bytes_c);
      c.op = "matmul " + shape + ", naive (untiled)";
      c.notes.push_back("bytes = 2·M·N·K·b + M·N·b: each multiply-add reads its A and B element from HBM, C written once");
      c.notes.push_back("intensity → 1/b: caches absorb part of this in practice; the model counts none");
      c.levels.push_back({"smem/L1", q.value()});  // every load passes through L1 as well
      break;
    }
    case MatmulImpl::Tiled: {
      require_positive(op.tile, "tile");
      if (op.tile_n < 0) bad_input("matmul tile_n must be ≥ 0 (0: a square tile)", "give the tile's columns");
      // Each Tm×Tn output tile walks its row panel of A and column panel of B once:
      // A is read ceil(N/Tn) times, B ceil(M/Tm) times.
      const int64_t tile_m = op.tile, tile_n = op.tile_n > 0 ? op.tile_n : op.tile;
      const int64_t a_passes = ceil_div(op.n, tile_n), b_passes = ceil_div(op.m, tile_m);
      q.add(bytes_a, a_passes).add(bytes_b, b_passes).add(bytes_c);
      if (tile_n == tile_m) {
        c.op = "matmul " + shape + ", tiled T=" + std::to_string(op.tile);
        c.notes.push_back("bytes = b·(MK·⌈N/T⌉ + KN·⌈M/T⌉ + MN): A re-read once per column of tiles, B once per row");
      } else {
        c.op = "matmul " + shape + ", tiled " + std::to_string(tile_m) + "×" + std::to_string(tile_n);
        c.notes.push_back("bytes = b·(MK·⌈N/Tn⌉ + KN·⌈M/Tm⌉ + MN): A re-read once per column of tiles, B once per row");
      }
      // In the one-output-per-thread kernel of §10 each multiply-add reads both operands from
      // shared memory, on top of the tile stores: this is why real kernels tile registers too.
      ByteCount smem(what);
      smem.add(checked_product({2, op.m, op.n, op.k, b}, what)).add(bytes_a, a_passes).add(bytes_b, b_passes);
      c.levels.push_back({"smem/L1", smem.value()});
      c.notes.push_back("smem/L1 bytes = 2·M·N·K·b operand reads (one output per thread) + the tile stores");
      break;
    }
  }
  c.bytes = q.value();
  return c;
}

// ---- elementwise chains ------------------------------------------------------------------------
Cost elementwise(const ElementwiseOp& op) {
  require_positive(op.n, "n");
  if (op.ops <= 0) bad_input("ops must be positive, got " + std::to_string(op.ops), "give ops ≥ 1");
  if (op.extra_reads < 0) bad_input("extra_reads must not be negative");
  if (!(op.flops_per_op >= 0) || !std::isfinite(op.flops_per_op))
    bad_input("flops per op must be a finite number ≥ 0");
  const int64_t b = dtype_bytes(op.dtype);
  const std::string what = "elementwise n=" + std::to_string(op.n) + " byte count";
  const int64_t tensor = checked_product({op.n, b}, what);

  Cost c;
  c.dtype = op.dtype;
  c.unit = hw::Unit::Vector;
  c.flops = double(op.ops) * double(op.n) * op.flops_per_op;
  ByteCount q(what);
  const std::string k = std::to_string(op.ops);
  const std::string chain = "elementwise chain of " + k + (op.ops == 1 ? " op" : " ops") + " on n=" + std::to_string(op.n) +
                            " " + dtype_name(op.dtype);
  if (op.fused) {
    q.add(tensor, 2);
    c.op = chain + ", fused";
    c.notes.push_back("fused: one kernel reads x once and writes y once: 2·n·b bytes");
  } else {
    q.add(tensor, 2 * int64_t(op.ops) + op.extra_reads);
    c.op = chain + ", unfused";
    c.notes.push_back("unfused: " + k + " kernels, each reads its input and writes its output: 2·k·n·b bytes");
    if (op.extra_reads > 0)
      c.notes.push_back(std::to_string(op.extra_reads) + " extra whole-tensor reads for binary ops' second operand");
  }
  std::ostringstream f;
  f << "FLOPs = k·n·" << op.flops_per_op;
  c.notes.push_back(f.str());
  c.bytes = q.value();
  // A streaming op reuses nothing: every byte it moves through HBM also crosses L2 once.
  c.levels.push_back({"L2", c.bytes});
  return c;
}

// ---- LayerNorm, RMSNorm, softmax ---------------------------------------------------------------
namespace {
// How an eager (one PyTorch op per line) implementation walks the tensor, per element.
struct RowRecipe {
  const char* name;
  int full_reads, full_writes;  // whole-tensor passes in the naive form
  int stat_vectors;             // per-row statistics written then read back (mean, var, max, sum)
  int param_vectors;            // per-column parameters read once (γ, β)
  double flops_per_element;
  const char* passes;           // the naive passes, for the notes
};

RowRecipe recipe(RowKind kind) {
  switch (kind) {
    case RowKind::LayerNorm:
      // §6: mean (read x); var (read x, write a temporary); normalize (read x, write y);
      // affine (read y, write y): ≈ 4 reads + 3 writes = 14n bytes in bf16, ≈ 10n FLOPs.
      return {"layernorm", 4, 3, 2, 2, 10,
              "mean: read x | var: read x, write temp | normalize: read x, write y | affine: read y, write y"};
    case RowKind::RMSNorm:
      // x²: read x, write t | mean: read t | scale: read x, write y | ·γ: read y, write y.
      // FLOPs: square, sum, scale, multiply by γ (+ the per-row rsqrt, negligible).
      return {"rmsnorm", 4, 3, 1, 1, 4, "x²: read x, write t | mean: read t | scale: read x, write y | ·γ: read y, write y"};
    case RowKind::Softmax:
      // §6: max (read x) | exp(x − max) (read x, write e) | sum (read e) | divide (read e, write y).
      // FLOPs: compare, subtract, exp, add, divide.
      return {"softmax", 4, 2, 2, 0, 5, "max: read x | exp(x − max): read x, write e | sum: read e | divide: read e, write y"};
  }
  return {"?", 0, 0, 0, 0, 0, ""};
}
}  // namespace

Cost row_op(const RowOp& op) {
  require_positive(op.rows, "rows");
  require_positive(op.cols, "cols");
  const RowRecipe r = recipe(op.kind);
  const int64_t b = dtype_bytes(op.dtype);
  const std::string what = std::string(r.name) + " " + dims({op.rows, op.cols}) + " byte count";
  const int64_t tensor = checked_product({op.rows, op.cols, b}, what);
  const int64_t n = checked_product({op.rows, op.cols}, what);

  Cost c;
  c.dtype = op.dtype;
  c.unit = hw::Unit::Vector;
  const double flops_per_element = r.flops_per_element + (op.residual ? 1 : 0);  // the add
  c.flops = flops_per_element * double(n);
  if (op.fp8 != RowOp::Fp8::None && (!op.fused || op.kind == RowKind::Softmax))
    bad_input("row op: the e4m3 output of y is the fused norms'", "give fp8 with fused LayerNorm or RMSNorm only");
  c.op = std::string(op.residual ? "residual add + " : "") + r.name + " over " + dims({op.rows, op.cols}) + " " +
         dtype_name(op.dtype) + (op.fused ? ", fused" : ", naive") +
         (op.fp8 == RowOp::Fp8::BesideY ? ", e4m3 codes beside y" : op.fp8 == RowOp::Fp8::InsteadOfY ? ", e4m3 codes for y" : "");
  ByteCount q(what);
  if (r.param_vectors > 0) q.add(checked_product({op.cols, b}, what), r.param_vectors);
  if (op.residual) {
    q.add(tensor, op.fused ? 2 : 3);
    c.notes.push_back(op.fused ? "residual: res read and s = x + res written in the same kernel: 2·n·b more bytes"
                               : "residual: an add pass reads x and res and writes s (3·n·b), the passes then read s");
  }
  if (op.fused && op.fp8 != RowOp::Fp8::None) {
    const bool beside = op.fp8 == RowOp::Fp8::BesideY;
    q.add(tensor, beside ? 2 : 1);
    q.add(n, 1);
    c.notes.push_back(beside ? "fused: one kernel reads x once and writes y and its e4m3 codes once: 2·n·b + n bytes"
                             : "fused: one kernel reads x once and writes y's e4m3 codes, not y: n·b + n bytes");
  } else if (op.fused) {
    q.add(tensor, 2);
    c.notes.push_back("fused: one kernel reads x once and writes y once (statistics stay on chip): 2·n·b bytes");
  } else {
    q.add(tensor, int64_t(r.full_reads) + r.full_writes);
    // Each statistic is a rows-long vector written by one kernel and read by the next.
    if (r.stat_vectors > 0) q.add(checked_product({op.rows, b}, what), 2 * int64_t(r.stat_vectors));
    c.notes.push_back("naive (eager) passes: " + std::string(r.passes));
    c.notes.push_back(std::to_string(r.full_reads) + " reads + " + std::to_string(r.full_writes) +
                      " writes of the whole tensor = " + std::to_string((r.full_reads + r.full_writes) * b) +
                      " bytes per element, plus the per-row statistics");
  }
  std::ostringstream f;
  f << "FLOPs ≈ " << flops_per_element << " per element";
  c.notes.push_back(f.str());
  c.bytes = q.value();
  c.levels.push_back({"L2", c.bytes});  // streaming: each HBM byte crosses L2 once
  return c;
}

// ---- attention ---------------------------------------------------------------------------------
namespace {
// Σ_{t = lo..hi} max(0, t·step − off), exactly, refused past 64 bits: the rows a causal mask
// leaves to each block, summed over the blocks.
int64_t ramp_sum(int64_t step, int64_t off, int64_t lo, int64_t hi, const std::string& what) {
  const int64_t t0 = off < 0 ? lo : std::max(lo, off / step + 1);
  if (t0 > hi) return 0;
  const __int128 count = hi - t0 + 1;
  const __int128 sum = __int128(step) * (t0 + hi) * count / 2 - __int128(off) * count;
  if (sum > std::numeric_limits<int64_t>::max()) bad_input(what + " overflows 64 bits", "use smaller sizes");
  return int64_t(sum);
}
}  // namespace

Cost attention(const AttentionOp& op) {
  require_positive(op.batch, "batch");
  require_positive(op.heads, "heads");
  require_positive(op.seq, "seq");
  require_positive(op.head_dim, "head_dim");
  if (op.heads_kv < 0 || op.seq_k < 0 || op.score_bytes < 0)
    bad_input("attention heads_kv, seq_k and score_bytes must be ≥ 0 (0: the default)");
  if (op.flash) require_positive(op.block_q, "block_q");
  if (op.window_left < -1 || op.window_right < -1 || (op.causal && op.window_right > 0))
    bad_input("attention window sizes must be ≥ −1 (−1: unbounded), and causal allows window_right ≤ 0");
  const int64_t b = dtype_bytes(op.dtype);
  const int64_t N = op.seq, d = op.head_dim;
  const int64_t Nk = op.seq_k > 0 ? op.seq_k : N, hkv = op.heads_kv > 0 ? op.heads_kv : op.heads;
  const bool window = op.window_left >= 0 || op.window_right >= 0;
  const int64_t right = op.causal ? 0 : op.window_right;  // the mask's right side
  const KeyWindow<int64_t> w = key_window<int64_t>(N, Nk, op.window_left, right);
  // Keys that rows [i0, i1] see between them (sol/core/attention_window.hpp); rows that see keys [j0, j1].
  const auto keys_seen = [&](int64_t i0, int64_t i1) {
    const TileSpan<int64_t> t = key_tiles(w, i0, i1, Nk, int64_t(1));
    return t.end - t.begin;
  };
  const auto rows_seeing = [&](int64_t j0, int64_t j1) {
    const TileSpan<int64_t> t = query_tiles(w, j0, j1, N, int64_t(1));
    return t.end - t.begin;
  };
  if (op.heads % hkv != 0)
    bad_input("attention heads_kv=" + std::to_string(hkv) + " must divide heads=" + std::to_string(op.heads));
  const bool square = Nk == N && hkv == op.heads;
  std::string sizes = "B=" + std::to_string(op.batch) + " H=" + std::to_string(op.heads);
  if (hkv != op.heads) sizes += " Hkv=" + std::to_string(hkv);
  sizes += " N=" + std::to_string(N);
  if (Nk != N) sizes += " Nk=" + std::to_string(Nk);
  sizes += " d=" + std::to_string(d);
  const std::string what = "attention " + sizes + " byte count";
  const int64_t bh = checked_product({op.batch, op.heads}, what);
  // Q-shaped tensors (Q, O, dQ, dO: H heads × N rows), K-shaped ones (K, V, dK, dV: Hkv × Nk) and
  // fp32 row vectors (logsumexp, D: H × N). Each further term is formed only where it is counted,
  // so a flash shape is not refused for an N×Nk it never stores.
  const int64_t nd = checked_product({bh, N, d, b}, what);
  // The flash kernels read only the keys some row sees (a window on a long cache: far fewer than Nk).
  const int64_t kd = checked_product({op.batch, hkv, window && op.flash ? keys_seen(0, N - 1) : Nk, d, b}, what);
  constexpr int64_t kStatBytes = 4;  // logsumexp and D = rowsum(dO∘O) are kept in fp32
  const int64_t rows_f32 = checked_product({bh, N, kStatBytes}, what);

  Cost c;
  c.dtype = op.dtype;
  c.unit = hw::Unit::Matrix;
  // Causal: the convention's half for a square mask, the pairs the mask keeps otherwise; a window:
  // the pairs in it.
  const double pairs = window || (op.causal && Nk != N) ? window_pairs(N, Nk, op.window_left, right)
                       : op.causal                     ? 0.5 * double(N) * double(N)
                                                       : double(N) * double(Nk);
  const double fwd_flops = 4.0 * double(bh) * pairs * double(d);
  c.flops = op.backward ? 2.5 * fwd_flops : fwd_flops;
  const std::string nn_text = Nk == N ? "N²" : "N·Nk";
  const std::string window_text =
      window ? " window=(" + std::to_string(op.window_left) + "," + std::to_string(right) + ")" : std::string();
  c.notes.push_back("FLOPs: forward = 4·B·H·" + nn_text + "·d (QKᵀ and PV)" +
                    (window     ? std::string(", over the query-key pairs in the window")
                     : op.causal ? (Nk == N ? std::string(", halved for the causal mask")
                                            : std::string(", over the query-key pairs the causal mask keeps"))
                                 : std::string()) +
                    (op.backward ? "; backward = 2.5 × forward (five matmuls, recomputing S)" : ""));
  if (op.softcap) c.notes.push_back("softcap: one tanh per score beside its exponential (not counted as FLOPs)");
  c.op = std::string("attention ") + (op.flash ? "flash Bq=" + std::to_string(op.block_q) : "standard") +
         (op.causal && !window ? " causal" : "") + window_text + (op.softcap ? " softcap" : "") +
         (op.backward ? " backward" : " forward") + " " + sizes + " " + dtype_name(op.dtype);
  if (!square)
    c.notes.push_back("Q, O" + std::string(op.backward ? ", dQ, dO" : "") + ": H = " + std::to_string(op.heads) +
                      " heads × N = " + std::to_string(N) + " rows; K, V" + (op.backward ? ", dK, dV" : "") +
                      ": Hkv = " + std::to_string(hkv) + " heads × Nk = " + std::to_string(Nk) + " rows");
  ByteCount q(what);

  if (!op.flash) {
    const int64_t sb = op.score_bytes > 0 ? op.score_bytes : b;
    const int64_t nn_s = checked_product({bh, N, Nk, sb}, what);  // the N×Nk score matrix S
    const int64_t nn = checked_product({bh, N, Nk, b}, what);     // P (and dP, dS) in the dtype
    c.saved_bytes = double(nn);
    c.notes.push_back("saved for backward: P, N×Nk per head");
    if (!op.backward) {
      // QKᵀ: read Q, K, write S | softmax: read S, write P | PV: read P, V, write O.
      q.add(nd, 2).add(kd, 2).add(nn_s, 2).add(nn, 2);
      c.notes.push_back("standard: S and P (N×Nk) go through HBM: write S, read S (" + std::to_string(sb) +
                        " B each), write P, read P (" + std::to_string(b) + " B each), plus Q, K, V, O read or written once");
    } else {
      // dV = Pᵀ·dO | dP = dO·Vᵀ | dS = softmax' (reads P, dP) | dQ = dS·K | dK = dSᵀ·Q.
      q.add(nn, 7).add(nd, 4).add(kd, 4);
      c.notes.push_back("standard backward: N×Nk traffic read P ×2, write+read dP, write dS, read dS ×2 = 7·N·Nk·b; "
                        "dO ×2, Q read and dQ written (Q-shaped), V, K read and dV, dK written (K-shaped)");
    }
    if (op.causal) c.notes.push_back("causal: the standard kernels still materialize the full N×Nk S and P");
    c.bytes = q.value();
    return c;
  }

  // FlashAttention: Q block of Bq rows stays on chip; K and V stream past it once per block.
  const int64_t bq = op.block_q;
  const int64_t blocks = ceil_div(N, bq);
  c.saved_bytes = double(nd) + double(rows_f32);
  c.notes.push_back("saved for backward: O (N×d) and the logsumexp (N, fp32) per head");
  if (op.reuse_in_l2) {
    const int64_t dq_f32 = checked_product({bh, N, d, kStatBytes}, what);
    if (!op.backward) {
      q.add(nd, 2).add(kd, 2).add(rows_f32);  // Q, K, V read and O written once; logsumexp written
    } else {
      q.add(nd, 2).add(rows_f32);     // preprocessing: read dO, O; write D
      q.add(kd, 4);                   // K, V read; dK, dV written
      q.add(nd, 2).add(rows_f32, 2);  // Q, dO, logsumexp, D read once
      q.add(dq_f32, 2).add(nd);       // the fp32 dQ accumulator written once and read by the cast; dQ written
    }
    c.notes.push_back("flash with the re-reads served by L2: every tensor crosses HBM once (Bq = " + std::to_string(bq) +
                      " sets only the L2 traffic)");
    c.bytes = q.value();
    return c;
  }
  c.notes.push_back("re-reads are counted as HBM traffic, as the lecture counts them; where L2 holds a head's "
                    "re-read tensors, part of them comes from L2 and the HBM traffic is lower");
  const int64_t kv_row = checked_product({bh, 2, d, b}, what);  // one row of K and one of V, per query head
  if (!op.backward) {
    // Key rows each query block loads: all Nk; causal: up to the last key its last row sees — Nk
    // for the last block, max(0, t·Bq − (N − Nk)) for block t − 1 of the others.
    int64_t key_rows = op.causal ? Nk + ramp_sum(bq, N - Nk, 1, blocks - 1, what) : checked_product({blocks, Nk}, what);
    if (window) {  // the keys each block's rows see between them
      key_rows = 0;
      for (int64_t t = 0; t < blocks; ++t) key_rows += keys_seen(t * bq, std::min(N, (t + 1) * bq) - 1);
    }
    q.add(nd, 2).add(rows_f32).add(kv_row, key_rows);
    c.notes.push_back("flash: Q read and O written once, logsumexp written (fp32); each query head re-reads K and V "
                      "once per query block (" + std::to_string(blocks) + " blocks of " + std::to_string(bq) +
                      (op.causal ? ", causal: only keys its rows see" : "") + ")");
  } else {
    // FlashAttention-2 backward, key blocks of Bk = Bq: D = rowsum(dO∘O) first; then each key
    // block reads K, V once and writes dK, dV once while Q, dO, logsumexp, D of every query head
    // of its group stream past it and dQ is accumulated in HBM in fp32 (read and written per
    // visit); finally dQ is cast down. Causal: key block j is visited by the rows that see key j·Bk.
    // Key block j is skipped by the max(0, j·Bk − (Nk − N)) first rows.
    const int64_t key_blocks = ceil_div(Nk, bq);
    const int64_t all_rows = checked_product({key_blocks, N}, what);
    int64_t query_rows = op.causal ? all_rows - ramp_sum(bq, Nk - N, 0, key_blocks - 1, what) : all_rows;
    if (window) {  // the rows that see each key block
      query_rows = 0;
      for (int64_t j = 0; j < key_blocks; ++j) query_rows += rows_seeing(j * bq, std::min(Nk, (j + 1) * bq) - 1);
    }
    const int64_t row_d = checked_product({bh, d, b}, what);            // one row of Q or dO, every head
    const int64_t row_d_f32 = checked_product({bh, d, kStatBytes}, what); // one row of the dQ accumulator
    const int64_t row_stat = checked_product({bh, kStatBytes}, what);     // one logsumexp or D entry
    q.add(nd, 2).add(rows_f32);                                      // preprocessing: read dO, O; write D
    q.add(kd, 4);                                                    // K, V read once; dK, dV written once
    q.add(row_d, query_rows).add(row_d, query_rows);                 // Q and dO rows, per visit
    q.add(row_stat, query_rows).add(row_stat, query_rows);           // logsumexp and D, per visit
    q.add(row_d_f32, query_rows).add(row_d_f32, query_rows);         // dQ accumulator read + written, per visit
    q.add(checked_product({bh, N, d, kStatBytes}, what)).add(nd);    // dQ fp32 → dtype
    c.notes.push_back("flash backward (FlashAttention-2 order, Bk = Bq = " + std::to_string(bq) +
                      "): K, V read and dK, dV written once; per key block Q, dO, logsumexp, D re-read and dQ "
                      "accumulated in fp32 (read + write)" + (op.causal ? "; causal: only queries that see the block" : ""));
  }
  c.bytes = q.value();
  return c;
}

// ---- activation memory -------------------------------------------------------------------------
ActivationMemory activation_memory(const ActivationOp& op) {
  require_positive(op.layers, "layers");
  if (!(op.bytes_per_block_input >= 0) || !(op.bytes_per_block_internal >= 0) ||
      !std::isfinite(op.bytes_per_block_input) || !std::isfinite(op.bytes_per_block_internal))
    bad_input("activation bytes per block must be finite and ≥ 0");
  const double L = double(op.layers), x = op.bytes_per_block_input, k = op.bytes_per_block_internal;
  ActivationMemory m;
  switch (op.policy) {
    case Checkpointing::None:
      // Every block keeps its input and its internals until its backward runs.
      m.peak_bytes = L * (x + k);
      break;
    case Checkpointing::PerBlock:
      // Keep only the L block inputs; backward re-runs one block at a time: O(L + k).
      m.peak_bytes = L * x + k;
      m.checkpoints = op.layers;
      m.segment = 1;
      m.recompute_fraction = 1;
      break;
    case Checkpointing::SqrtL: {
      // Chen et al. 2016: a checkpoint every s ≈ √L blocks; backward re-runs one segment of s
      // blocks and holds all of it (its first input is the checkpoint itself): O(√L).
      const int64_t s = std::max<int64_t>(1, std::llround(std::sqrt(L)));
      m.checkpoints = ceil_div(op.layers, s);
      m.segment = std::min(s, op.layers);
      const double seg = double(m.segment);
      m.peak_bytes = double(m.checkpoints) * x + seg * k + (seg - 1) * x;
      m.recompute_fraction = 1;
      break;
    }
  }
  return m;
}

}  // namespace sol::model

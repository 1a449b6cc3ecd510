// The cost models on sizes small enough to count by hand, their limiting cases (a tiled matmul
// with T = 1 is the naive one, with T ≥ M, N the minimal one; flash with one query block reads
// K and V once), and their refusals: non-positive sizes and byte counts past 64 bits.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <tuple>

#include "sol/core/error.hpp"
#include "sol/model/cost.hpp"

using namespace sol;
using namespace sol::model;

namespace {

void expect_bad_input(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    FAIL() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    EXPECT_NE(e.line().find(fragment), std::string::npos) << e.line();
    EXPECT_EQ(e.line().find('\n'), std::string::npos) << "message must be one line";
  }
}

}  // namespace

TEST(CostMatmul, MinimalCountsEachTensorOnce) {
  // A 2×3, B 3×5, C 2×5 in fp32: (6 + 15 + 10) elements × 4 bytes.
  Cost c = matmul({.m = 2, .n = 5, .k = 3, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(c.flops, 60);
  EXPECT_DOUBLE_EQ(c.bytes, 124);
  EXPECT_EQ(c.unit, hw::Unit::Matrix);
  EXPECT_FALSE(c.notes.empty());
}

TEST(CostMatmul, NaiveReadsBothOperandsPerMultiplyAdd) {
  // 2·5·3 = 30 multiply-adds, each reading 2 fp32 elements, then C (10 elements) written.
  Cost c = matmul({.m = 2, .n = 5, .k = 3, .dtype = DType::f32, .impl = MatmulImpl::Naive});
  EXPECT_DOUBLE_EQ(c.bytes, 30 * 2 * 4 + 10 * 4);
  EXPECT_DOUBLE_EQ(c.flops, 60);
}

TEST(CostMatmul, TiledCountsPanelRereads) {
  // M=3, N=5, K=4, T=2, bf16: A (12 el.) read ⌈5/2⌉ = 3 times, B (20 el.) ⌈3/2⌉ = 2 times, C 15.
  Cost c = matmul({.m = 3, .n = 5, .k = 4, .dtype = DType::bf16, .impl = MatmulImpl::Tiled, .tile = 2});
  EXPECT_DOUBLE_EQ(c.bytes, 2.0 * (12 * 3 + 20 * 2 + 15));
  ASSERT_EQ(c.levels.size(), 1u);
  EXPECT_EQ(c.levels[0].level, "smem/L1");
  // Operand reads from shared memory (2 per multiply-add) plus the tile stores.
  EXPECT_DOUBLE_EQ(c.levels[0].bytes, 2.0 * (2 * 3 * 5 * 4 + 12 * 3 + 20 * 2));
}

TEST(CostMatmul, TiledLimits) {
  for (auto [m, n, k] : std::initializer_list<std::tuple<int, int, int>>{{7, 11, 13}, {64, 64, 64}, {1, 97, 5}}) {
    MatmulOp op{.m = m, .n = n, .k = k, .dtype = DType::f16};
    const double minimal = matmul(op).bytes;
    op.impl = MatmulImpl::Naive;
    const double naive = matmul(op).bytes;
    op.impl = MatmulImpl::Tiled;
    op.tile = 1;
    EXPECT_DOUBLE_EQ(matmul(op).bytes, naive) << "T=1 is the untiled kernel";
    op.tile = std::max(m, n);
    EXPECT_DOUBLE_EQ(matmul(op).bytes, minimal) << "one tile covers everything";
    op.tile = 4;
    const double t4 = matmul(op).bytes;
    EXPECT_LE(t4, naive);
    EXPECT_GE(t4, minimal);
  }
}

TEST(CostMatmul, SquareTiledIntensityGrowsWithTile) {
  // F = 2N³, Q = b·N²(2N/T + 1): intensity ≈ T/b for N ≫ T.
  const int64_t N = 4096;
  double prev = 0;
  for (int64_t T : {8, 16, 32, 64, 128}) {
    Cost c = matmul({.m = N, .n = N, .k = N, .dtype = DType::f32, .impl = MatmulImpl::Tiled, .tile = T});
    const double I = c.flops / c.bytes;
    EXPECT_NEAR(I, 2.0 * N / (4.0 * (2.0 * N / T + 1)), 1e-9);
    EXPECT_GT(I, prev);
    prev = I;
  }
}

TEST(CostMatmul, BadSizes) {
  expect_bad_input([] { matmul({.m = 0, .n = 4, .k = 4}); }, "M");
  expect_bad_input([] { matmul({.m = 4, .n = -1, .k = 4}); }, "N");
  expect_bad_input([] { matmul({.m = 4, .n = 4, .k = 0}); }, "K");
  expect_bad_input([] { matmul({.m = 4, .n = 4, .k = 4, .impl = MatmulImpl::Tiled, .tile = 0}); }, "tile");
  // (2^31)³ multiply-adds × 2 operands × 2 bytes does not fit in 64 bits.
  const int64_t big = int64_t(1) << 31;
  expect_bad_input([&] { matmul({.m = big, .n = big, .k = big, .impl = MatmulImpl::Naive}); }, "overflows 64 bits");
  // 2^32 × 2^31 elements × 2 bytes = 2^64 bytes for A alone.
  expect_bad_input([&] { matmul({.m = int64_t(1) << 32, .n = 1, .k = big}); }, "overflows 64 bits");
}

TEST(CostElementwise, UnfusedIsKRoundTripsFusedIsOne) {
  const int64_t n = 1000;
  for (int k : {1, 2, 5, 12}) {
    Cost u = elementwise({.n = n, .ops = k, .fused = false, .dtype = DType::bf16});
    Cost f = elementwise({.n = n, .ops = k, .fused = true, .dtype = DType::bf16});
    EXPECT_DOUBLE_EQ(u.bytes, 2.0 * k * n * 2);
    EXPECT_DOUBLE_EQ(f.bytes, 2.0 * n * 2);
    EXPECT_DOUBLE_EQ(u.flops, double(k) * n);
    EXPECT_DOUBLE_EQ(u.flops, f.flops) << "fusion changes the bytes, not the arithmetic";
    EXPECT_EQ(u.unit, hw::Unit::Vector);
    // Streaming: every HBM byte crosses L2 once, and no faster level is claimed.
    ASSERT_EQ(u.levels.size(), 1u);
    EXPECT_EQ(u.levels[0].level, "L2");
    EXPECT_DOUBLE_EQ(u.levels[0].bytes, u.bytes);
  }
}

TEST(CostElementwise, ExtraReadsAndFlopsPerOp) {
  Cost c = elementwise({.n = 10, .ops = 5, .fused = false, .flops_per_op = 3, .dtype = DType::f32, .extra_reads = 1});
  EXPECT_DOUBLE_EQ(c.bytes, (2 * 5 + 1) * 10 * 4.0);
  EXPECT_DOUBLE_EQ(c.flops, 5 * 10 * 3.0);
  // A fused kernel reads x once, whatever the chain's shape.
  Cost f = elementwise({.n = 10, .ops = 5, .fused = true, .dtype = DType::f32, .extra_reads = 1});
  EXPECT_DOUBLE_EQ(f.bytes, 2 * 10 * 4.0);
}

TEST(CostElementwise, BadInput) {
  expect_bad_input([] { elementwise({.n = 0}); }, "n must be positive");
  expect_bad_input([] { elementwise({.n = 5, .ops = 0}); }, "ops");
  expect_bad_input([] { elementwise({.n = 5, .flops_per_op = -1}); }, "flops per op");
  expect_bad_input([] { elementwise({.n = 5, .flops_per_op = NAN}); }, "flops per op");
  expect_bad_input([] { elementwise({.n = int64_t(1) << 62, .ops = 4, .dtype = DType::f32}); }, "overflows 64 bits");
}

TEST(CostRows, NaivePassesAndFusedPass) {
  const int64_t rows = 3, cols = 7, n = rows * cols;
  // LayerNorm: 4 whole-tensor reads + 3 writes, mean and var (rows each) written and read back,
  // γ and β read once.
  Cost ln = row_op({.kind = RowKind::LayerNorm, .rows = rows, .cols = cols, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(ln.bytes, 4.0 * (7 * n + 2 * 2 * rows + 2 * cols));
  EXPECT_DOUBLE_EQ(ln.flops, 10.0 * n);
  Cost lnf = row_op({.kind = RowKind::LayerNorm, .rows = rows, .cols = cols, .fused = true, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(lnf.bytes, 4.0 * (2 * n + 2 * cols));
  EXPECT_DOUBLE_EQ(lnf.flops, ln.flops);
  // RMSNorm: same passes, one statistic and one parameter vector.
  Cost rms = row_op({.kind = RowKind::RMSNorm, .rows = rows, .cols = cols, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(rms.bytes, 4.0 * (7 * n + 2 * rows + cols));
  // Softmax: max, exp, sum, divide: 4 reads + 2 writes, max and sum vectors.
  Cost sm = row_op({.kind = RowKind::Softmax, .rows = rows, .cols = cols, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(sm.bytes, 4.0 * (6 * n + 2 * 2 * rows));
  Cost smf = row_op({.kind = RowKind::Softmax, .rows = rows, .cols = cols, .fused = true, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(smf.bytes, 4.0 * 2 * n);
  for (const Cost& c : {ln, rms, sm}) EXPECT_EQ(c.unit, hw::Unit::Vector);
  // The residual add: fused, res read and s written beside x and y; naive, an add pass (2 reads, a write).
  Cost rmsr = row_op({.kind = RowKind::RMSNorm, .rows = rows, .cols = cols, .fused = true, .dtype = DType::bf16,
                      .residual = true});
  EXPECT_DOUBLE_EQ(rmsr.bytes, 2.0 * (4 * n + cols));
  Cost rmsn = row_op({.kind = RowKind::RMSNorm, .rows = rows, .cols = cols, .dtype = DType::f32, .residual = true});
  EXPECT_DOUBLE_EQ(rmsn.bytes, rms.bytes + 4.0 * 3 * n);
  EXPECT_DOUBLE_EQ(rmsn.flops, rms.flops + n);
  // y's e4m3 codes, one byte an element: beside y, or in its place (x, res read; s written).
  Cost beside = row_op({.kind = RowKind::RMSNorm, .rows = rows, .cols = cols, .fused = true, .dtype = DType::bf16,
                        .residual = true, .fp8 = RowOp::Fp8::BesideY});
  EXPECT_DOUBLE_EQ(beside.bytes, rmsr.bytes + n);
  Cost alone = row_op({.kind = RowKind::RMSNorm, .rows = rows, .cols = cols, .fused = true, .dtype = DType::bf16,
                       .residual = true, .fp8 = RowOp::Fp8::InsteadOfY});
  EXPECT_DOUBLE_EQ(alone.bytes, rmsr.bytes - 2.0 * n + n);
}

TEST(CostRows, BadInput) {
  expect_bad_input([] { row_op({.rows = 0, .cols = 4}); }, "rows");
  expect_bad_input([] { row_op({.rows = 4, .cols = -4}); }, "cols");
  expect_bad_input([] { row_op({.rows = int64_t(1) << 40, .cols = int64_t(1) << 30}); }, "overflows 64 bits");
  expect_bad_input([] { row_op({.kind = RowKind::Softmax, .rows = 4, .cols = 4, .fused = true, .fp8 = RowOp::Fp8::BesideY}); },
                   "e4m3");
  expect_bad_input([] { row_op({.kind = RowKind::RMSNorm, .rows = 4, .cols = 4, .fp8 = RowOp::Fp8::InsteadOfY}); }, "e4m3");
}

TEST(CostAttention, StandardForwardByHand) {
  // B=1, H=1, N=3, d=2, fp32: Q,K,V,O = 4·6 elements, S and P written and read = 4·9.
  Cost c = attention({.seq = 3, .head_dim = 2, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(c.bytes, 4.0 * (4 * 6 + 4 * 9));
  EXPECT_DOUBLE_EQ(c.flops, 4.0 * 9 * 2);
  EXPECT_DOUBLE_EQ(c.saved_bytes, 4.0 * 9) << "P per head";
  // Batch and heads scale everything.
  Cost c6 = attention({.batch = 2, .heads = 3, .seq = 3, .head_dim = 2, .dtype = DType::f32});
  EXPECT_DOUBLE_EQ(c6.bytes, 6 * c.bytes);
  EXPECT_DOUBLE_EQ(c6.flops, 6 * c.flops);
  EXPECT_DOUBLE_EQ(c6.saved_bytes, 6 * c.saved_bytes);
}

TEST(CostAttention, FlashRereadsKeysAndValuesPerQueryBlock) {
  // N=5, d=2, fp16, Bq=2: 3 query blocks, each streaming all 5 keys (K and V rows of 2·2 bytes).
  const double b = 2, N = 5, d = 2;
  Cost c = attention({.seq = 5, .head_dim = 2, .flash = true, .block_q = 2, .dtype = DType::f16});
  const double q_o = 2 * N * d * b, lse = 4 * N, kv_row = 2 * d * b;
  EXPECT_DOUBLE_EQ(c.bytes, q_o + lse + 3 * N * kv_row);
  EXPECT_DOUBLE_EQ(c.saved_bytes, N * d * b + 4 * N) << "O and the fp32 logsumexp";
  // Causal: block i sees keys [0, min(2(i+1), 5)) = 2 + 4 + 5 rows; FLOPs halve.
  Cost cc = attention({.seq = 5, .head_dim = 2, .flash = true, .block_q = 2, .causal = true, .dtype = DType::f16});
  EXPECT_DOUBLE_EQ(cc.bytes, q_o + lse + (2 + 4 + 5) * kv_row);
  EXPECT_DOUBLE_EQ(cc.flops, c.flops / 2);
  // One block covering every query row reads K and V once, causal or not.
  for (bool causal : {false, true}) {
    Cost one = attention({.seq = 5, .head_dim = 2, .flash = true, .block_q = 64, .causal = causal, .dtype = DType::f16});
    EXPECT_DOUBLE_EQ(one.bytes, q_o + lse + N * kv_row);
  }
}

TEST(CostAttention, BackwardFlopsAndBytes) {
  AttentionOp fwd{.batch = 2, .heads = 4, .seq = 256, .head_dim = 64};
  AttentionOp bwd = fwd;
  bwd.backward = true;
  EXPECT_DOUBLE_EQ(attention(bwd).flops, 2.5 * attention(fwd).flops);
  // Standard backward: 7 N×N passes (P read twice, dP written and read, dS written, read twice)
  // and 8 N×d passes, per head.
  const double bh = 8, N = 256, d = 64, b = 2;
  EXPECT_DOUBLE_EQ(attention(bwd).bytes, bh * b * (7 * N * N + 8 * N * d));
  // Flash backward, Bq = Bk = 128 → 2 key blocks, each visited by all 256 query rows:
  // D: read dO, O, write D | K, V in, dK, dV out | per visit: Q, dO rows (b), L, D (fp32),
  // dQ accumulator (fp32) read + write | dQ cast: read fp32, write b.
  AttentionOp fb = bwd;
  fb.flash = true;
  fb.block_q = 128;
  const double visits = 2 * N;
  const double expect = bh * (2 * N * d * b + 4 * N + 4 * N * d * b + visits * (2 * d * b + 2 * 4 + 2 * d * 4) +
                              N * d * 4 + N * d * b);
  EXPECT_DOUBLE_EQ(attention(fb).bytes, expect);
  // Causal halves neither the saved bytes nor (for standard) the N×N traffic, but does cut
  // flash's key-block visits: block 0 is seen by 256 rows, block 1 by 128.
  fb.causal = true;
  const double causal_visits = 256 + 128;
  const double expect_causal = expect - bh * (visits - causal_visits) * (2 * d * b + 2 * 4 + 2 * d * 4);
  EXPECT_DOUBLE_EQ(attention(fb).bytes, expect_causal);
  AttentionOp sc = bwd;
  sc.causal = true;
  EXPECT_DOUBLE_EQ(attention(sc).bytes, attention(bwd).bytes);
  EXPECT_DOUBLE_EQ(attention(sc).saved_bytes, attention(bwd).saved_bytes);
}

// A decode step with grouped-query attention: one query row per head against a 32768-key cache
// of 8 K/V heads. K and V alone are 2 · 8·8·32768·128 · 2 B = 1 GiB; Q, O 64 KiB each.
TEST(CostAttention, DecodeCountsTheKvCacheByItsOwnHeadsAndRows) {
  AttentionOp op{.batch = 8, .heads = 32, .seq = 1, .head_dim = 128, .flash = true, .reuse_in_l2 = true,
                 .heads_kv = 8, .seq_k = 32768};
  const Cost c = attention(op);
  EXPECT_DOUBLE_EQ(c.bytes, 1073741824.0 + 2 * 65536 + 8 * 32 * 4);
  EXPECT_DOUBLE_EQ(c.flops, 4.0 * 8 * 32 * 1 * 32768 * 128);  // 2^32
  // The causal mask (bottom-right) hides nothing from the last query row: no halving.
  op.causal = true;
  EXPECT_DOUBLE_EQ(attention(op).flops, c.flops);
  // Memory-bound by four orders of magnitude: 1 FLOP per 0.25 byte.
  EXPECT_LT(c.flops / c.bytes, 4.1);
}

TEST(CostAttention, GroupedQueryHeadsForwardAndBackward) {
  // b=2, h=8, hkv=2, n=256, d=64, bf16: Q, O 524288 B each; K, V 131072 B each; L 16384 B.
  AttentionOp fwd{.batch = 2, .heads = 8, .seq = 256, .head_dim = 64, .flash = true, .reuse_in_l2 = true, .heads_kv = 2};
  EXPECT_DOUBLE_EQ(attention(fwd).bytes, 2 * 524288 + 2 * 131072 + 16384);
  // Backward: dO, O, Q, dO, dQ (Q-shaped) five times, L and D three fp32 passes, K, V, dK, dV, and
  // the fp32 dQ accumulator (1 MiB) written and read.
  AttentionOp bwd = fwd;
  bwd.backward = true;
  EXPECT_DOUBLE_EQ(attention(bwd).bytes, 5 * 524288 + 3 * 16384 + 4 * 131072 + 2 * 1048576);
  AttentionOp bad = fwd;
  bad.heads_kv = 3;
  expect_bad_input([&] { attention(bad); }, "must divide");
}

TEST(CostAttention, CausalWithFewerKeysThanQueries) {
  // n = 4, nk = 2, bottom-right: rows 0, 1 see no key, row 2 one, row 3 two: 3 pairs.
  const AttentionOp op{.seq = 4, .head_dim = 8, .causal = true, .seq_k = 2};
  EXPECT_DOUBLE_EQ(attention(op).flops, 4.0 * 3 * 8);
  // Standard attention with fp32 scores: b=1, h=2, hkv=1, n=3, nk=5, d=64, bf16: Q, O 768 B each,
  // K, V 640 B each, S 2·3·5·4 = 120 B written and read, P 60 B written and read.
  const AttentionOp st{.heads = 2, .seq = 3, .head_dim = 64, .heads_kv = 1, .seq_k = 5, .score_bytes = 4};
  EXPECT_DOUBLE_EQ(attention(st).bytes, 2 * 768 + 2 * 640 + 2 * 120 + 2 * 60);
  // Flash, lecture count, Bq = 2, n = 4, nk = 6: block 0 (rows 0–1) loads keys ≤ 1 + 2 → 4 rows,
  // block 1 all 6: 10 key rows of K and V per query head.
  const AttentionOp fl{.seq = 4, .head_dim = 8, .flash = true, .block_q = 2, .causal = true, .dtype = DType::f16,
                       .seq_k = 6};
  EXPECT_DOUBLE_EQ(attention(fl).bytes, 2 * 4 * 8 * 2 + 4 * 4 + 10 * 2 * 8 * 2);
}

TEST(CostAttention, BadInput) {
  expect_bad_input([] { attention({.seq = 0, .head_dim = 64}); }, "seq");
  expect_bad_input([] { attention({.seq = 64, .head_dim = 0}); }, "head_dim");
  expect_bad_input([] { attention({.batch = 0, .seq = 64, .head_dim = 64}); }, "batch");
  expect_bad_input([] { attention({.heads = -2, .seq = 64, .head_dim = 64}); }, "heads");
  expect_bad_input([] { attention({.seq = 64, .head_dim = 64, .flash = true, .block_q = 0}); }, "block_q");
  // N² × 2 bytes = 2^65 for N = 2^32.
  expect_bad_input([] { attention({.seq = int64_t(1) << 32, .head_dim = 64}); }, "overflows 64 bits");
  expect_bad_input([] { attention({.seq = int64_t(1) << 32, .head_dim = 64, .flash = true, .block_q = 1}); },
                   "overflows 64 bits");
}

TEST(CostAttention, WindowCountsItsPairsAndTheKeysItReads) {
  // Mistral's window: n = nk = 8192, 4096 keys left of the diagonal, causal on the right. FLOPs
  // are 4·d per pair in the window (sol::window_pairs, the definition's count).
  AttentionOp op{.batch = 1, .heads = 32, .seq = 8192, .head_dim = 128, .flash = true, .causal = true, .heads_kv = 8};
  op.reuse_in_l2 = true;
  op.window_left = 4096;
  const double pairs = 4096.0 * 4097 / 2 + 4096.0 * 4097;
  EXPECT_DOUBLE_EQ(attention(op).flops, 4.0 * 32 * pairs * 128);
  EXPECT_NE(attention(op).op.find("window=(4096,0)"), std::string::npos) << attention(op).op;
  op.backward = true;
  EXPECT_DOUBLE_EQ(attention(op).flops, 2.5 * 4.0 * 32 * pairs * 128);
  // Decode against a 32k cache through a 4096-key window reads 4097 keys of K and V, not 32768.
  AttentionOp dec{.batch = 1, .heads = 32, .seq = 1, .head_dim = 128, .flash = true, .causal = true, .heads_kv = 8,
                  .seq_k = 32768};
  dec.reuse_in_l2 = true;
  const double whole = attention(dec).bytes;
  dec.window_left = 4096;
  const double kv_row = 8 * 128 * 2 * 2.0;  // one key of K and V over the 8 K/V heads
  EXPECT_DOUBLE_EQ(whole - attention(dec).bytes, (32768 - 4097) * kv_row);
  EXPECT_DOUBLE_EQ(attention(dec).flops, 4.0 * 32 * 4097 * 128);
  // Causal with n ≠ nk: the window's count of (−1, 0) is the causal mask's.
  const AttentionOp causal{.seq = 4, .head_dim = 8, .causal = true, .seq_k = 2};
  AttentionOp right0 = causal;
  right0.causal = false;
  right0.window_right = 0;
  EXPECT_DOUBLE_EQ(attention(causal).flops, attention(right0).flops);
  expect_bad_input([] { attention({.seq = 64, .head_dim = 64, .window_left = -2}); }, "window");
  expect_bad_input([] { attention({.seq = 64, .head_dim = 64, .causal = true, .window_right = 3}); }, "causal");
}

TEST(CostActivations, ThreePolicies) {
  const double x = 10, k = 100;
  ActivationMemory none = activation_memory({.layers = 16, .bytes_per_block_input = x, .bytes_per_block_internal = k});
  EXPECT_DOUBLE_EQ(none.peak_bytes, 16 * (x + k));
  EXPECT_DOUBLE_EQ(none.recompute_fraction, 0);
  ActivationMemory per = activation_memory(
      {.layers = 16, .bytes_per_block_input = x, .bytes_per_block_internal = k, .policy = Checkpointing::PerBlock});
  EXPECT_DOUBLE_EQ(per.peak_bytes, 16 * x + k) << "O(L + k)";
  EXPECT_EQ(per.checkpoints, 16);
  EXPECT_DOUBLE_EQ(per.recompute_fraction, 1);
  // √16 = 4: 4 checkpoints; backward holds one segment of 4 blocks (3 inputs besides its checkpoint).
  ActivationMemory sq = activation_memory(
      {.layers = 16, .bytes_per_block_input = x, .bytes_per_block_internal = k, .policy = Checkpointing::SqrtL});
  EXPECT_EQ(sq.checkpoints, 4);
  EXPECT_EQ(sq.segment, 4);
  EXPECT_DOUBLE_EQ(sq.peak_bytes, 4 * x + 4 * k + 3 * x);
  EXPECT_DOUBLE_EQ(sq.recompute_fraction, 1) << "one extra forward";
  // With internals dominating, √L grows like √L, far below the L of no checkpoints.
  for (int64_t L : {4, 9, 25, 100, 400}) {
    ActivationMemory s = activation_memory(
        {.layers = L, .bytes_per_block_input = 1, .bytes_per_block_internal = 50, .policy = Checkpointing::SqrtL});
    EXPECT_NEAR(s.peak_bytes, 2 * std::sqrt(double(L)) - 1 + 50 * std::sqrt(double(L)), 1e-9);
  }
  expect_bad_input([] { activation_memory({.layers = 0}); }, "layers");
  expect_bad_input([] { activation_memory({.layers = 2, .bytes_per_block_input = -1}); }, "activation bytes");
}

TEST(CostCheckedProduct, Limits) {
  EXPECT_EQ(checked_product({3, 5, 7}, "x"), 105);
  EXPECT_EQ(checked_product({int64_t(1) << 31, int64_t(1) << 31}, "x"), int64_t(1) << 62);
  expect_bad_input([] { checked_product({int64_t(1) << 32, int64_t(1) << 31}, "tensor"); }, "tensor overflows");
  expect_bad_input([] { checked_product({3, 0}, "tensor"); }, "not positive");
}

// Re-reads served by L2: every tensor crosses HBM once, whatever the query block; FLOPs unchanged.
TEST(ModelCost, FlashWithReuseInL2CountsEachTensorOnce) {
  AttentionOp op{.batch = 2, .heads = 3, .seq = 100, .head_dim = 8, .flash = true, .block_q = 16, .dtype = DType::bf16};
  op.reuse_in_l2 = true;
  const double nd = 2.0 * 3 * 100 * 8 * 2, rows = 2.0 * 3 * 100 * 4;
  const Cost f = attention(op);
  EXPECT_DOUBLE_EQ(f.bytes, 4 * nd + rows);  // Q, K, V, O and the logsumexp
  op.block_q = 64;
  EXPECT_DOUBLE_EQ(attention(op).bytes, f.bytes);
  op.reuse_in_l2 = false;
  EXPECT_GT(attention(op).bytes, f.bytes);  // the lecture's count re-reads K and V per query block
  EXPECT_DOUBLE_EQ(attention(op).flops, f.flops);
  op.reuse_in_l2 = true;
  op.backward = true;
  // dO, O, D | K, V, dK, dV | Q, dO, logsumexp, D | fp32 dQ written and read, dQ written
  EXPECT_DOUBLE_EQ(attention(op).bytes, 2 * nd + rows + 4 * nd + 2 * nd + 2 * rows + 2 * (nd * 2) + nd);
}

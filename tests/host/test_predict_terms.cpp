// The prediction's terms beyond FLOPs and bytes (model::Execution, sol/predict.hpp), each on a case
// counted by hand: divergent issue slots, bank-conflict wavefronts, DRAM granules of a strided or
// misaligned access, eager launches, a PyTorch peer's eager decomposition, the attention tiles'
// causal share, mma.sync's ceiling and its ldmatrix traffic, dQ atomics.
#include <gtest/gtest.h>

#include <cmath>

#include "sol/predict.hpp"
#include "sol/registry.hpp"

using namespace sol;
using namespace sol::predict;

namespace {
constexpr double kCopy = 4.25e12, kLaunch = 4e-6, kBf16 = 7.16e14, kFma = 5.93e13, kL2 = 8e12;

Ceilings h200() {
  results::File f;
  f.family = "x";
  f.device.sms = 132;
  f.device.database_row = "h200";
  f.ceilings.copy_bytes_per_s = kCopy;
  f.ceilings.launch_overhead_s = kLaunch;
  f.ceilings.matrix_flops_per_s["bf16"] = kBf16;
  f.ceilings.fp32_fma_flops_per_s = kFma;
  f.ceilings.l2_bytes_per_s = kL2;
  return ceilings_for(f, nullptr, hw::find("h200"));
}

Work declared(const std::string& family, const std::string& variant, const std::string& shape) {
  Work w;
  w.family = family;
  w.variant = variant;
  w.shape = Shape::parse(shape);
  const auto e = declared_execution(family, variant, w.shape);
  EXPECT_TRUE(e.has_value()) << family << "/" << variant << " declares no execution";
  if (e) w.exec = *e;
  for (const Variant& v : registry())
    if (v.family == family && v.name == variant) {
      const model::Cost c = v.cost(w.shape);
      w.flops = c.flops;
      w.bytes = c.bytes;
      w.dtype = dtype_name(c.dtype);
    }
  return w;
}

const Term* term(const Prediction& p, const std::string& name) {
  for (const Term& t : p.terms)
    if (t.name == name) return &t;
  return nullptr;
}
}  // namespace

TEST(PredictTerms, DivergentWarpsIssueEveryPath) {
  const Ceilings c = h200();
  // 2^22 threads × 1024 FMAs, 8 paths: every warp issues 8 × 1024 FFMAs for all 32 lanes.
  const Work w = declared("divergence", "v01_warp_split", "ways=8");
  EXPECT_DOUBLE_EQ(w.exec.issue_slots, 8.0 * 1024 * 4194304);
  const Prediction p = predict::predict(w, c);
  ASSERT_NE(term(p, "issue"), nullptr) << p.limit;
  EXPECT_NEAR(term(p, "issue")->seconds, 8.0 * 1024 * 4194304 / (kFma / 2), 1e-12);
  // v02: lane i runs 64 + 32·i trips, so every lane of a warp waits for 64 + 31·32; 9 slots per 4 trips.
  const Work v02 = declared("divergence", "v02_loop_varied", "base=64,spread=32");
  EXPECT_DOUBLE_EQ(v02.exec.issue_slots, 9.0 / 4 * 4194304 * (64 + 31 * 32));
  // v03 sorts the trips by warp: the issue slots are the useful trips' alone.
  const Work v03 = declared("divergence", "v03_loop_sorted", "base=64,spread=32");
  EXPECT_DOUBLE_EQ(v03.exec.issue_slots, 9.0 / 4 * (v03.flops / 2));
  EXPECT_LT(v03.exec.issue_slots, v02.exec.issue_slots);
}

TEST(PredictTerms, BankConflictsCountWavefrontsAndMisalignedRowsWholeGranules) {
  const Ceilings c = h200();
  // 4096² fp32: 2^19 row writes (1 wavefront each) and 2^19 column reads (32-way on the plain tile).
  const double requests = 4096.0 * 4096 / 32;
  const Work plain = declared("banks", "v01_tile32", "rows=4096,cols=4096");
  EXPECT_DOUBLE_EQ(plain.exec.smem_wavefronts, requests * (1 + 32));
  EXPECT_DOUBLE_EQ(declared("banks", "v02_padded", "rows=4096,cols=4096").exec.smem_wavefronts, requests * 2);
  EXPECT_DOUBLE_EQ(declared("banks", "v03_swizzled", "rows=4096,cols=4096").exec.smem_wavefronts, requests * 2);
  // Each global request (a row segment of 128 B read, one written) is an L1 pass too, in the same
  // data stage as the tile's wavefronts: 33 + 2 per pair of requests.
  EXPECT_DOUBLE_EQ(plain.exec.l1_wavefronts, requests * 2);
  const Prediction p = predict::predict(plain, c);
  ASSERT_NE(term(p, "shared memory"), nullptr) << p.limit;
  EXPECT_EQ(term(p, "L1 wavefronts"), nullptr);
  EXPECT_NEAR(term(p, "shared memory")->seconds, requests * (33 + 2) * 128 / c.smem_bytes_per_s, 1e-12);
  // Rows 4097 floats apart start at the 32 offsets 4·r modulo 128: one starts a line, 31 straddle two.
  EXPECT_DOUBLE_EQ(declared("banks", "v01_tile32", "rows=4097,cols=4097").exec.l1_wavefronts,
                   2 * (4097.0 * 4097 / 32) * (1 + 31 * 2) / 32);
  // Aligned rows move their bytes; rows 4097 floats apart start at 16 offsets modulo 64 bytes, 15
  // of which straddle a third granule: (2 + 15·3) ÷ 16 granules per 128-byte request.
  EXPECT_DOUBLE_EQ(plain.exec.dram_bytes, plain.bytes);
  const Work odd = declared("banks", "v02_padded", "rows=4097,cols=4097");
  EXPECT_DOUBLE_EQ(odd.exec.dram_bytes, 2 * (4097.0 * 4097 / 32) * 64 * (2 + 15 * 3) / 16);
}

TEST(PredictTerms, StridedReadsMoveWhole64ByteGranules) {
  // Stride 16: each lane's fp32 sits in a granule of its own, 32 × 64 B per request; writes ⌈n/8⌉ sectors.
  const int64_t n = 1 << 20;
  const Work w = declared("coalescing", "v03_strided", "n=1048576,stride=16");
  EXPECT_DOUBLE_EQ(w.exec.dram_bytes, double(n / 32) * 32 * 64 + 32.0 * double(n / 8));
  EXPECT_DOUBLE_EQ(w.bytes, 32.0 * double(n) + 32.0 * double(n / 8));  // the sectors: half the granules' reads
  const Prediction p = predict::predict(w, h200());
  EXPECT_NEAR(p.seconds, w.exec.dram_bytes / kCopy + kLaunch, 1e-12);
}

TEST(PredictTerms, EagerPassesLaunchOneKernelEach) {
  const Ceilings c = h200();
  const Work eager = declared("layernorm", "v01_eager_bf16", "rows=4096,cols=4096");
  EXPECT_EQ(eager.exec.kernels, 4);
  EXPECT_NEAR(term(predict::predict(eager, c), "launch")->seconds, 4 * kLaunch, 1e-15);
  EXPECT_EQ(declared("layernorm_bwd", "v01_eager_bf16", "rows=4096,cols=4096").exec.kernels, 9);
  EXPECT_EQ(declared("rmsnorm_bwd", "v02_one_read_bf16", "rows=4096,cols=4096").exec.kernels, 2);
  EXPECT_EQ(declared("softmax_bwd", "v02_one_read_bf16", "rows=4096,cols=4096").exec.kernels, 1);
  EXPECT_EQ(declared("elementwise", "v01_eager5_fp32", "n=1048576").exec.kernels, 5);
}

TEST(PredictTerms, ALaunchWaitingOnItsLoadsReadsAtItsLoadsInFlightOverTheLatency) {
  const Ceilings c = h200();
  // layernorm v01 on 65536 × 1024 bf16: a warp per row, four rows to a 128-thread block: 16384
  // blocks, 16 resident per SM (64 warps; 32 registers), 2112 on 132 SMs. Each pass reads 128 MiB.
  const Work w = declared("layernorm", "v01_eager_bf16", "rows=65536,cols=1024");
  ASSERT_EQ(w.exec.streams.size(), 4u);
  const double tensor = 65536.0 * 1024 * 2;
  // The mean only reduces: 4 loads of 2 B in flight per thread: 2112 × 128 × 8 B = 2,162,688 B.
  const double mean_s = tensor / (2112.0 * 128 * 4 * 2 / kDramLatencyS);
  EXPECT_NEAR(stream_seconds(w.exec.streams[0], c), mean_s, 1e-12);
  EXPECT_GT(mean_s, tensor / kCopy);  // 37.2 µs against 31.6 µs at the copy bandwidth
  // The passes that write keep one load in flight: 540,672 B, a quarter of the rate; their bytes
  // (a read and a write) at the copy bandwidth would take 63 µs, the loads take 149 µs.
  const double write_s = tensor / (2112.0 * 128 * 1 * 2 / kDramLatencyS);
  for (int k = 1; k < 4; ++k) EXPECT_NEAR(stream_seconds(w.exec.streams[size_t(k)], c), write_s, 1e-12);
  const Prediction p = predict::predict(w, c);
  EXPECT_NEAR(term(p, "memory")->seconds, mean_s + 3 * write_s, 1e-12);
  EXPECT_NEAR(p.seconds, mean_s + 3 * write_s + 4 * kLaunch, 1e-12);
  // Its backward's sums over rows: 1024 columns are 32 blocks of 1024 threads, 4 loads of 2 B each:
  // 256 KiB in flight on the whole GPU for 128 MiB.
  const Work bwd = declared("layernorm_bwd", "v01_eager_bf16", "rows=65536,cols=1024");
  ASSERT_EQ(bwd.exec.streams.size(), 9u);
  EXPECT_NEAR(stream_seconds(bwd.exec.streams[7], c), tensor / (32.0 * 1024 * 4 * 2 / kDramLatencyS), 1e-12);
  // A stream with loads enough in flight takes its bytes at the copy bandwidth.
  model::LoadStream wide = w.exec.streams[0];
  wide.loads_in_flight = 64;
  EXPECT_NEAR(stream_seconds(wide, c), tensor / kCopy, 1e-15);
}

TEST(PredictTerms, ASecondReadComesFromDramWhenTheResidentRowsOutgrowTheL2) {
  const Ceilings c = h200();
  // layernorm v02 on 4096 × 65536 bf16: a 512-thread block per row (64 registers: 2 per SM), 264
  // resident, each reading and writing its 128 KiB row between the row's two reads: 66 MiB, more
  // than the 60 MiB L2 of the datasheet (and the profile's 50 MiB).
  ASSERT_GT(264 * 2 * 65536.0 * 2, c.spec.l2_bytes);
  const Work miss = declared("layernorm", "v02_two_read_bf16", "rows=4096,cols=65536");
  const double row = 65536.0 * 2;
  EXPECT_DOUBLE_EQ(miss.exec.reread.block_bytes, 2 * row);
  EXPECT_DOUBLE_EQ(reread_dram_bytes(miss.exec.reread, c), 4096 * row);
  EXPECT_NEAR(term(predict::predict(miss, c), "memory")->seconds, (miss.bytes + 4096 * row) / kCopy, 1e-12);
  // At 4096 columns the 264 resident rows move 264 × 16 KiB = 4.1 MiB: the second read hits.
  const Work hit = declared("layernorm", "v02_two_read_bf16", "rows=32768,cols=4096");
  EXPECT_GT(hit.exec.reread.bytes, 0);
  EXPECT_EQ(reread_dram_bytes(hit.exec.reread, c), 0);
  EXPECT_NEAR(term(predict::predict(hit, c), "memory")->seconds, hit.bytes / kCopy, 1e-12);
  // The register rung reads once; its fp32 twin falls back to the looped kernel past 32768 columns.
  EXPECT_EQ(declared("layernorm", "v03_one_read_bf16", "rows=4096,cols=65536").exec.reread.bytes, 0);
  EXPECT_DOUBLE_EQ(declared("layernorm", "v04_one_read_fp32", "rows=4096,cols=65536").exec.reread.bytes, 4096 * 65536.0 * 4);
}

TEST(PredictTerms, RowSumsAcrossRowsWaitOnOneL1PassPerElement) {
  const Ceilings c = h200();
  // v01 on 2048 × 2048: 2048 threads (16 blocks of 128, on 16 SMs); a warp request reads 32 rows,
  // 32 lines: 2048² L1 passes, 262,144 on each busy SM at one a clock: 132 µs.
  const Work rows = declared("coalescing", "v01_row_per_thread", "rows=2048,cols=2048");
  EXPECT_DOUBLE_EQ(rows.exec.l1_wavefronts, 2048.0 * 2048);
  EXPECT_EQ(rows.exec.grid_blocks, 16);
  EXPECT_NEAR(l1_seconds(rows.exec.l1_wavefronts, rows.exec.grid_blocks, c), 2048.0 * 2048 / 16 / 1.98e9, 1e-15);
  const Prediction p = predict::predict(rows, c);
  EXPECT_NEAR(term(p, "L1 wavefronts")->seconds, 2048.0 * 2048 / 16 / 1.98e9, 1e-15);
  // v02 reads a line per 32 elements; its 2048 threads × 16 loads of 4 B in flight (128 KiB) bind:
  // 16 MiB ÷ (128 KiB ÷ 600 ns) = 76.8 µs.
  const Work cols = declared("coalescing", "v02_col_per_thread", "rows=2048,cols=2048");
  EXPECT_DOUBLE_EQ(cols.exec.l1_wavefronts, 2048.0 * 2048 / 32);
  EXPECT_NEAR(stream_seconds(cols.exec.streams.at(0), c), 4.0 * 2048 * 2048 / (2048.0 * 16 * 4 / kDramLatencyS), 1e-12);
}

TEST(PredictTerms, APyTorchEagerFormulaIsPredictedAsTheKernelsItRuns) {
  const Ceilings c = h200();
  // naive_layer_norm on 4096 × 4096 bf16: 10 kernels, 8 reads + 6 writes of the tensor (32 MiB each).
  Work w{"layernorm", "peer:torch.naive_layer_norm_bf16", "bf16", Shape::parse("rows=4096,cols=4096"), 1e8,
         2.0 * 2 * 4096 * 4096, {}};
  const Prediction p = predict::predict(w, c);
  EXPECT_NEAR(p.seconds, 14.0 * 2 * 4096 * 4096 / kCopy + 10 * kLaunch, 1e-12);
  // The fused library call is not that decomposition.
  w.variant = "peer:torch.F.layer_norm_bf16";
  EXPECT_NEAR(predict::predict(w, c).seconds, w.bytes / kCopy + kLaunch, 1e-12);
  // The backward of the formula is its own: autograd's 24 kernels and 40 passes.
  w.variant = "peer:torch.naive_layer_norm_bwd_bf16";
  ASSERT_TRUE(peer_execution(w).has_value());
  EXPECT_NEAR(predict::predict(w, c).seconds, 40.0 * 2 * 4096 * 4096 / kCopy + 24 * kLaunch, 1e-12);
  // F.cross_entropy over rows × vocab logits: 5 kernels, 6 passes; its compiled form is not declared.
  w = {"crossentropy", "peer:torch.F.cross_entropy_bf16", "bf16", Shape::parse("rows=4096,vocab=32000"), 1e8,
       2.0 * 2 * 4096 * 32000, {}};
  EXPECT_NEAR(predict::predict(w, c).seconds, 6.0 * 2 * 4096 * 32000 / kCopy + 5 * kLaunch, 1e-12);
  w.variant = "peer:torch.compile_cross_entropy_bf16";
  EXPECT_FALSE(peer_execution(w).has_value());
}

TEST(PredictTerms, CausalAttentionComputesTheTilesOnAndBelowTheDiagonal) {
  // n = nk = 128 in 64 × 64 tiles: query tile 0 meets one key tile, tile 1 two: 3 of 4 computed.
  AttentionTiling t;
  t.block_q = t.block_k = 64;
  const model::Execution e = attention_execution(Shape::parse("b=1,h=1,n=128,d=64,causal=1"), false, t);
  EXPECT_DOUBLE_EQ(e.work_flops, 4.0 * 128 * 128 * 64 * 0.75);
  EXPECT_DOUBLE_EQ(e.exps, 128.0 * 128 * 0.75);
  // Not skipped: the whole square.
  t.skips_causal = false;
  EXPECT_DOUBLE_EQ(attention_execution(Shape::parse("b=1,h=1,n=128,d=64,causal=1"), false, t).work_flops,
                   4.0 * 128 * 128 * 64);
}

TEST(PredictTerms, MmaSyncRunsAtItsShareWithItsOperandTrafficAndDqAtomicsAtL2) {
  const Ceilings c = h200();
  AttentionTiling t;
  t.mma = model::MatrixInstruction::MmaSync;
  t.block_q = t.block_k = 64;
  t.smem_bytes_per_flop = 1.0 / 16;
  t.dq_keys_per_add = 64;
  const Shape s = Shape::parse("b=1,h=1,n=1024,d=64");
  Work w{"attention_bwd", "vXX", "bf16", s, 2.5 * 4 * 1024.0 * 1024 * 64, 1e6, attention_execution(s, true, t)};
  // dQ: 1024 rows × 64 columns, one fp32 add per 64 keys of 1024: 16 adds of 8 bytes each.
  EXPECT_DOUBLE_EQ(w.exec.l2_atomic_bytes, 8.0 * 1024 * 64 * 16);
  const Prediction p = predict::predict(w, c);
  const double clock = c.spec.boost_clock_hz;
  EXPECT_NEAR(term(p, "compute")->seconds, w.flops / (kBf16 * kMmaSyncShareOfWgmma), 1e-15);
  EXPECT_NEAR(term(p, "softmax exp")->seconds, 1024.0 * 1024 / (kExpPerClockPerSm * 132 * clock), 1e-15);
  EXPECT_NEAR(term(p, "shared memory")->seconds, w.flops / 16 / c.smem_bytes_per_s, 1e-15);
  EXPECT_NEAR(term(p, "L2 atomics")->seconds, 8.0 * 1024 * 64 * 16 / kL2, 1e-15);
  double sum = 0;
  for (const Term& x : p.terms) sum += x.seconds;
  EXPECT_NEAR(p.seconds, sum, 1e-15);
  // The GEMM ladder's mma.sync rungs: 64 × 32 warp tiles read (64 + 32) · 32 B per 2·64·32·16 FLOPs.
  const GemmRung g = gemm_rung("gemm_bf16", "v02_multistage", "bf16", 4096, 4096, 4096, 132);
  EXPECT_TRUE(g.mma_sync);
  EXPECT_DOUBLE_EQ(g.smem_bytes_per_flop, 96.0 * 32 / (2.0 * 64 * 32 * 16));
  EXPECT_FALSE(gemm_rung("gemm_bf16", "v03_wgmma_tma", "bf16", 4096, 4096, 4096, 132).mma_sync);
}

TEST(PredictTerms, EveryRungOfTheLessonFamiliesDeclaresHowItRuns) {
  for (const char* family : {"divergence", "banks", "layernorm", "rmsnorm", "softmax", "layernorm_bwd", "rmsnorm_bwd",
                             "softmax_bwd", "elementwise"})
    for (const Variant* v : select(family))
      if (!v->is_peer() && !v->is_dispatch()) {
        EXPECT_TRUE(v->cost(v->bench_shapes.front()).exec.declared) << v->family << "/" << v->name;
      }
  // Attention's rungs, registered only with CUDA, still declare theirs in a host build.
  EXPECT_TRUE(declared_execution("attention", "v03_flash_mma_128", Shape::parse("b=1,h=1,n=64,d=64")).has_value());
  EXPECT_FALSE(declared_execution("attention", "v99", Shape::parse("b=1,h=1,n=64,d=64")).has_value());
  EXPECT_FALSE(declared_execution("attention", "v03_flash_mma_128", Shape::parse("n=64")).has_value());
}

// sol::matmul's host half (kernels/api/matmul_dispatch.hpp): validation, the table lookup, the
// decision and the workspace layout, all without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/api/matmul_dispatch.hpp"
#include "kernels/gemm/gemv/plan.hpp"
#include "tests/host/sol_cli.hpp"
#include "sol/core/error.hpp"
#include "sol/gemm_rungs.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/model_shapes.hpp"
#include "sol/registry.hpp"
#include "sol/report.hpp"
#include "sol/results.hpp"
#include "sol/sweep.hpp"

using sol::DType;
using namespace sol::kernels::api;

namespace {

// Distinct, 256-aligned fake device addresses far apart (validation never dereferences them).
const void* at(uintptr_t slot) { return reinterpret_cast<const void*>(slot << 40); }

MatmulCall tn(int64_t m, int64_t n, int64_t k, DType t = DType::bf16) {
  MatmulCall c;
  c.m = m, c.n = n, c.k = k;
  c.a_type = c.b_type = t;
  c.c_type = t == DType::f32 ? DType::f32 : DType::bf16;
  c.a = at(1), c.b = at(2), c.c = at(3);
  static const float scale = 1.f;
  if (t == DType::fp8_e4m3) c.scale_a = c.scale_b = &scale;
  return c;
}

std::string error_of(const MatmulCall& c) {
  try {
    validate(c);
  } catch (const sol::Error& e) {
    return e.line();
  }
  return "";
}

}  // namespace

TEST(ApiMatmulValidate, ResolvesPackedLeadingDimensionsPerLayout) {
  MatmulCall c = tn(5, 7, 3);
  const MatmulCall v = validate(c);
  EXPECT_EQ(v.lda, 3);
  EXPECT_EQ(v.ldb, 3);
  EXPECT_EQ(v.ldc, 7);
  c.trans_a = true, c.trans_b = false;  // A stored k×m, B stored k×n
  const MatmulCall w = validate(c);
  EXPECT_EQ(w.lda, 5);
  EXPECT_EQ(w.ldb, 7);
}

TEST(ApiMatmulValidate, EveryBadArgumentIsOneClearError) {
  const struct {
    const char* what;
    void (*edit)(MatmulCall&);
    const char* says;
  } cases[] = {
      {"m = 0", [](MatmulCall& c) { c.m = 0; }, "sizes must be ≥ 1"},
      {"k < 0", [](MatmulCall& c) { c.k = -3; }, "sizes must be ≥ 1"},
      {"null a", [](MatmulCall& c) { c.a = nullptr; }, "a is a null pointer"},
      {"null c", [](MatmulCall& c) { c.c = nullptr; }, "c is a null pointer"},
      {"lda short", [](MatmulCall& c) { c.lda = 2; }, "lda=2 is below the row length 3"},
      {"ldb short, B k×n", [](MatmulCall& c) { c.trans_b = false, c.ldb = 6; }, "ldb=6 is below the row length 7"},
      {"ldc short", [](MatmulCall& c) { c.ldc = 6; }, "ldc=6 is below the row length 7"},
      {"int8", [](MatmulCall& c) { c.a_type = c.b_type = DType::int8; }, "is not served"},
      {"mixed", [](MatmulCall& c) { c.b_type = DType::f16; }, "differ"},
      {"f32 in, bf16 out", [](MatmulCall& c) { c.a_type = c.b_type = DType::f32; }, "f32 inputs give f32 C"},
      {"fp8 out", [](MatmulCall& c) { c.c_type = DType::fp8_e4m3; }, "are not served"},
      {"fp8 no scales", [](MatmulCall& c) { c.a_type = c.b_type = DType::fp8_e4m3; }, "need scale_a and scale_b"},
      {"fp8 NN",
       [](MatmulCall& c) {
         static const float s = 1.f;
         c.a_type = c.b_type = DType::fp8_e4m3, c.scale_a = c.scale_b = &s, c.trans_b = false;
       },
       "trans_a=N, trans_b=T only"},
      {"scales on bf16",
       [](MatmulCall& c) {
         static const float s = 1.f;
         c.scale_a = &s;
       },
       "for fp8 inputs only"},
      {"nan beta", [](MatmulCall& c) { c.beta = std::nanf(""); }, "must be finite"},
      {"C is A with beta", [](MatmulCall& c) { c.c = c.a, c.beta = 1.f; }, "C overlaps A while beta ≠ 0 reads C"},
      {"C inside B", [](MatmulCall& c) { c.c = static_cast<const char*>(c.b) + 4; }, "C overlaps B"},
      {"odd bf16 pointer", [](MatmulCall& c) { c.a = static_cast<const char*>(c.a) + 1; }, "not aligned"},
  };
  for (const auto& t : cases) {
    MatmulCall c = tn(5, 7, 3);
    t.edit(c);
    const std::string e = error_of(c);
    EXPECT_NE(e.find(t.says), std::string::npos) << t.what << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << t.what << ": one line";
  }
  EXPECT_EQ(error_of(tn(5, 7, 3)), "");
}

TEST(ApiMatmulTable, TheCommittedTableCoversEveryFamilyAndNamesRunnableImplementations) {
  int per[4] = {0, 0, 0, 0};
  for (const Measured& e : table()) {
    EXPECT_GT(e.best_s, 0);
    const std::string best = e.best;
    EXPECT_TRUE(best == "cublasLt" || best.rfind('v', 0) == 0) << best;
    if (e.other[0]) {
      EXPECT_GE(e.other_s, e.best_s) << e.m << " " << e.n << " " << e.k;
    }
    per[e.dtype == DType::bf16 ? 0 : e.dtype == DType::f16 ? 1 : e.dtype == DType::fp8_e4m3 ? 2 : 3]++;
  }
  for (int n : per) EXPECT_GT(n, 0);
}

TEST(ApiMatmulTable, NearestPrefersTheSameAlignmentThenTheSmallestLogDistance) {
  const std::vector<Measured> t = {
      {DType::bf16, 4096, 4096, 4096, 4096, 4096, 4096, "cublasLt", 1e-4, "v08_tile_choice", 2e-4},
      {DType::bf16, 2049, 2049, 2049, 2049, 2049, 2049, "v08_tile_choice", 5e-5, "cublasLt", 9e-5},
      {DType::bf16, 8, 6144, 4096, 4096, 4096, 6144, "cublasLt", 4e-5, "v08_tile_choice", 9e-5},
      {DType::f16, 4095, 4095, 4095, 4095, 4095, 4095, "v07_tma_store", 3e-4, "cublasLt", 1e-3},
  };
  // 4095³ bf16 is next to 4096³ in size but unaligned like 2049³: that regime decides.
  EXPECT_EQ(nearest(t, DType::bf16, DType::bf16, 4095, 4095, 4095, 4095, 4095, 4095), &t[1]);
  EXPECT_EQ(nearest(t, DType::bf16, DType::bf16, 4000, 4096, 4096, 4096, 4096, 4096), &t[0]);
  EXPECT_EQ(nearest(t, DType::bf16, DType::bf16, 1, 6144, 4096, 4096, 4096, 6144), &t[2]);
  EXPECT_EQ(nearest(t, DType::f16, DType::bf16, 100, 100, 100, 100, 100, 100), &t[3]);  // only f16 entry
  EXPECT_EQ(nearest(t, DType::f32, DType::f32, 100, 100, 100, 100, 100, 100), nullptr);
}

TEST(ApiMatmulPlan, TheTableDecidesWhereBothServe) {
  // Committed measurements: cuBLASLt wins 1024³ bf16, sol's rungs win the unaligned 4095³.
  const MatmulPlan aligned = plan(validate(tn(1024, 1024, 1024)), 90);
  EXPECT_EQ(aligned.impl, Impl::cublaslt) << aligned.reason;
  EXPECT_NE(aligned.reason.find("nearest measured m=1024,n=1024,k=1024 bf16: cublasLt"), std::string::npos)
      << aligned.reason;
  EXPECT_GT(aligned.predicted_s, 0);
  const MatmulPlan odd = plan(validate(tn(4095, 4095, 4095)), 90);
  EXPECT_EQ(odd.impl, Impl::tc_rung) << odd.reason;
  EXPECT_NE(odd.reason.find(" vs cublasLt "), std::string::npos) << odd.reason;
  EXPECT_FALSE(odd.rung.empty());
  EXPECT_GT(odd.pack_bytes, 0u);  // a 8190-byte pitch is not 128-byte aligned: the rung packs A and B
  EXPECT_EQ(odd.workspace_bytes() % 256, 0u);
  EXPECT_EQ(aligned.family, "gemm_bf16");
  // The hot path's plan (no reason, no prediction) decides the same.
  for (const MatmulPlan* full : {&aligned, &odd}) {
    const int64_t s = full == &aligned ? 1024 : 4095;
    const MatmulPlan quick = plan(validate(tn(s, s, s)), 90, /*explain=*/false);
    EXPECT_EQ(quick.impl, full->impl);
    EXPECT_EQ(quick.rung, full->rung);
    EXPECT_EQ(quick.workspace_bytes(), full->workspace_bytes());
    EXPECT_TRUE(quick.reason.empty());
  }
}

TEST(ApiMatmulPlan, WhatOnlyCublasLtServesGoesToCublasLt) {
  const auto reason_of = [](MatmulCall c, int cc = 90) {
    const MatmulPlan p = plan(validate(c), cc);
    EXPECT_EQ(p.impl, Impl::cublaslt) << p.reason;
    EXPECT_GT(p.lt_bytes, 0u);
    return p.reason;
  };
  MatmulCall c = tn(4095, 4095, 4095);
  c.trans_a = true;
  EXPECT_NE(reason_of(c).find("trans_a=N, trans_b=T"), std::string::npos);
  c = tn(4095, 4095, 4095);
  c.beta = 1.f;
  EXPECT_NE(reason_of(c).find("beta = 0 only"), std::string::npos);
  c = tn(4095, 4095, 4095);
  c.c_type = DType::f32;
  EXPECT_NE(reason_of(c).find("bf16 C"), std::string::npos);
  EXPECT_NE(reason_of(tn(4095, 4095, 4095), 80).find("sm_80"), std::string::npos);
  EXPECT_NE(reason_of(tn(64, 64, 64, DType::f32)).find("bf16, f16 or fp8"), std::string::npos);
  // f16 in, bf16 out: cuBLASLt writes an fp32 D into the workspace and a pass converts it.
  c = tn(100, 60, 40, DType::f16);
  c.c_type = DType::bf16;
  c.trans_b = false;
  const MatmulPlan p = plan(validate(c), 90);
  EXPECT_EQ(p.scratch_bytes, size_t(100 * 60 * 4));
  EXPECT_GE(p.workspace_bytes(), p.lt_bytes + p.scratch_bytes);
}

TEST(ApiMatmulPlan, Fp8OutsideCublasLtRulesGoesToARungOrFailsClearly) {
  const MatmulPlan p = plan(validate(tn(1023, 1023, 1023, DType::fp8_e4m3)), 90);
  EXPECT_EQ(p.impl, Impl::tc_rung) << p.reason;
  EXPECT_NE(p.reason.find("k % 16 == 0"), std::string::npos) << p.reason;
  EXPECT_EQ(p.lt_bytes, 0u);
  try {
    plan(validate(tn(1023, 1023, 1023, DType::fp8_e4m3)), 89);
    ADD_FAILURE() << "expected an error on sm_89";
  } catch (const sol::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing serves this call"), std::string::npos) << e.what();
  }
  // Every pitch aligned (k = 64, ldc · 2 bytes = 608) but n % 16 ≠ 0: cuBLASLt's heuristic has no
  // fp8 algorithm there, so a rung serves it.
  MatmulCall ragged_n = tn(130, 301, 64, DType::fp8_e4m3);
  ragged_n.ldc = 304;
  const MatmulPlan rn = plan(validate(ragged_n), 90);
  EXPECT_EQ(rn.impl, Impl::tc_rung) << rn.reason;
  EXPECT_NE(rn.reason.find("n % 16 == 0"), std::string::npos) << rn.reason;
  // Aligned fp8: cuBLASLt gets two device scalars (alpha·scale_a·scale_b, beta) in the workspace.
  const MatmulPlan q = plan(validate(tn(1024, 1024, 1024, DType::fp8_e4m3)), 90);
  EXPECT_EQ(q.impl, Impl::cublaslt) << q.reason;
  EXPECT_EQ(q.scalars_bytes, 2 * sizeof(float));
  // fp8 reading C (beta ≠ 0) where cuBLASLt cannot run: the rung writes a bf16 D into the
  // workspace, after its packing copies, and a pass reads C; where cuBLASLt can, it reads C itself.
  MatmulCall odd = tn(1, 1, 1, DType::fp8_e4m3);
  odd.beta = 1.5f;
  const MatmulPlan r = plan(validate(odd), 90);
  EXPECT_EQ(r.impl, Impl::tc_rung) << r.reason;
  EXPECT_EQ(r.scratch_bytes, size_t(1 * 1 * 2));
  EXPECT_GE(r.workspace_bytes(), r.pack_bytes + r.scratch_bytes);
  MatmulCall even = tn(64, 64, 64, DType::fp8_e4m3);
  even.beta = 1.5f;
  const MatmulPlan s = plan(validate(even), 90);
  EXPECT_EQ(s.impl, Impl::cublaslt) << s.reason;
  EXPECT_EQ(s.scratch_bytes, 0u);
}

TEST(ApiMatmulPlan, EveryRungTheDispatcherRunsIsAGemmRungName) {
  for (const std::string& r : tc_rungs()) {
    EXPECT_EQ(r.rfind('v', 0), 0u) << r;
    EXPECT_EQ(r[3], '_') << r;
    if (sol::built_with_cuda()) {
      EXPECT_EQ(sol::select("gemm_bf16/" + r).front()->name, r);
    }
  }
}

// A rung that copies operands it cannot read in place (v02: 16-byte rows for cp.async; v03–v08:
// 128-byte rows for TMA) is given room for the copies in the caller's workspace.
TEST(ApiMatmulPlan, TheWorkspaceHoldsTheCopiesTheRungMakes) {
  const auto bytes = [](int64_t k, const char* rung) { return rung_pack_bytes(validate(tn(8, 50257, k)), rung); };
  const auto copies = [](int64_t k_pitch) { return size_t((8 * k_pitch * 2 + 255) / 256 * 256 + 50257 * k_pitch * 2); };
  EXPECT_EQ(bytes(767, "v01_mma_sync"), 0u);  // reads any pitch in place
  EXPECT_EQ(bytes(767, "v02_multistage"), copies(768));  // 1534-byte rows → 1536
  EXPECT_EQ(bytes(1000, "v02_multistage"), 0u);          // 2000-byte rows: 16-byte multiples
  EXPECT_EQ(bytes(1000, "v08_tile_choice"), copies(1024));  // → 2048, a multiple of 128
  EXPECT_EQ(bytes(1024, "v08_tile_choice"), 0u);
  EXPECT_THROW(bytes(1024, "v09"), sol::Error);
  // The plan reserves what its rung needs.
  for (int64_t k : {767, 1000, 1793, 4095}) {
    const MatmulPlan p = plan(validate(tn(8, 50257, k)), 90, false);
    if (p.impl == Impl::tc_rung) {
      EXPECT_EQ(p.pack_bytes, bytes(k, p.rung.c_str())) << p.rung << " at k=" << k;
    } else {
      EXPECT_EQ(p.pack_bytes, 0u) << "cuBLASLt reads any pitch, at k=" << k;
    }
  }
}

// plan(…, explain = false) answers repeated calls from a per-thread cache: it must give what the
// full decision gives, for calls that differ in shape, type, pitch or only in an operand's alignment.
TEST(ApiMatmulPlan, TheCachedDecisionIsTheDecision) {
  std::vector<MatmulCall> calls = {tn(8, 50257, 767),   tn(8, 50257, 1000), tn(8, 50257, 1024),
                                   tn(1, 768, 768),     tn(2049, 2049, 2049), tn(4096, 4096, 4096, DType::fp8_e4m3),
                                   tn(33, 300, 1023, DType::f16), tn(100, 100, 100, DType::f32)};
  for (MatmulCall c : {tn(8, 50257, 1024), tn(2049, 2049, 2048)}) {
    c.a = static_cast<const char*>(c.a) + 2;  // the same call but for A's alignment: rungs that need 128 bytes pack
    calls.push_back(c);
  }
  for (int64_t k = 64; k < 64 + 24 * 8; k += 8) calls.push_back(tn(8, 4096, k));  // more than the cache holds
  bool an_alignment_mattered = false;
  for (int round = 0; round < 3; ++round)
    for (const MatmulCall& c : calls) {
      const MatmulCall v = validate(c);
      const MatmulPlan fast = plan(v, 90, false), full = plan(v, 90, true);
      EXPECT_EQ(fast.impl, full.impl) << full.reason;
      EXPECT_EQ(fast.rung, full.rung) << full.reason;
      EXPECT_EQ(fast.family, full.family);
      EXPECT_EQ(fast.workspace_bytes(), full.workspace_bytes()) << full.reason;
      EXPECT_EQ(fast.reason, "");
      an_alignment_mattered |= c.a != at(1) && full.pack_bytes > 0;
    }
  EXPECT_TRUE(an_alignment_mattered);
}

// The decode rule reads the decode rows measured on the GPU the call runs on: an H100 its own
// (kernels/api/matmul_table_h100.inc, from its dispatch runs), every other GPU the H200's.
TEST(ApiMatmulPlan, DecodeCallsReadTheirGpusOwnMeasurements) {
  EXPECT_EQ(table_gpu("h100"), TableGpu::h100);
  EXPECT_EQ(table_gpu("h200"), TableGpu::h200);
  EXPECT_EQ(table_gpu("a100"), TableGpu::h200);
  ASSERT_EQ(decode_rows_of(TableGpu::h100), TableGpu::h100) << "the H100 table has no decode rows";
  const auto& h100 = decode_rows(TableGpu::h100);
  const auto& h200 = decode_rows(TableGpu::h200);
  ASSERT_FALSE(h100.empty());
  for (const Measured* e : h100) {
    EXPECT_LE(e->m, sol::kernels::gemm::gemv::kMaxM);
    EXPECT_EQ(std::find(h200.begin(), h200.end(), e), h200.end()) << "an H200 row among the H100's";
  }
  // The GPT-2 LM head at 64 tokens: the H100's measurements have a decode rung fastest there; the
  // plan on an H100 runs the rung they name, and says whose measurement it read.
  const MatmulCall c = validate(tn(64, 50257, 768));
  const Measured* nearest = nullptr;
  for (const Measured* e : h100)
    if (e->m == 64 && e->n == 50257 && e->k == 768) nearest = e;
  ASSERT_NE(nearest, nullptr) << "the H100 table lacks m=64,n=50257,k=768";
  const MatmulPlan on_h100 = plan(c, 90, true, Choices::measured, TableGpu::h100);
  if (std::find(gemv_rungs().begin(), gemv_rungs().end(), nearest->best) != gemv_rungs().end()) {
    EXPECT_EQ(on_h100.impl, Impl::gemv) << on_h100.reason;
    EXPECT_EQ(on_h100.rung, nearest->best) << on_h100.reason;
  }
  EXPECT_NE(on_h100.reason.find("on the H100"), std::string::npos) << on_h100.reason;
  const MatmulPlan on_h200 = plan(c, 90, true, Choices::measured, TableGpu::h200);
  EXPECT_EQ(on_h200.reason.find("on the H100"), std::string::npos) << on_h200.reason;
  // The per-thread cache keeps the two GPUs' decisions apart.
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(plan(c, 90, false, Choices::measured, TableGpu::h100).rung, on_h100.rung);
    EXPECT_EQ(plan(c, 90, false, Choices::measured, TableGpu::h200).rung, on_h200.rung);
  }
}

TEST(GemmRungs, OneTableNamesEveryRungOnce) {
  std::vector<std::string> names;
  for (const auto& r : sol::gemm_rungs::kRungs) {
    EXPECT_EQ(r.version, int(names.size()) + 1) << r.name;
    EXPECT_EQ(sol::gemm_rungs::find(r.name), &r);
    names.emplace_back(r.name);
  }
  EXPECT_EQ(tc_rungs(), names);
  EXPECT_EQ(sol::gemm_rungs::find("peer:cublasLt"), nullptr);
  // v08's tile: 2049³ on 132 SMs is 153 wide tiles (1.16 waves) against 289 narrow ones.
  EXPECT_EQ(sol::gemm_rungs::tile_choice(2049, 2049, 132).n, 128);
  EXPECT_EQ(sol::gemm_rungs::tile_choice(4096, 4096, 132).n, 256);
}

#ifdef SOL_SOURCE_DIR
TEST(ApiMatmulTable, TheCommittedTableIsWhatTheCommittedResultsGive) {
  if (std::system("python3 -c '' 2>/dev/null") != 0) GTEST_SKIP() << "python3 is not installed";
  const std::string cmd = std::string("python3 ") + SOL_SOURCE_DIR + "/scripts/dispatch-table.py --check";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "run scripts/dispatch-table.py";
}
#endif

// The dispatch variant (the API as a registry variant) is compared with the peers but is never a
// rung: not the family's best version, not a step of the ladder, not the rung a sweep measures.
TEST(DispatchVariant, IsNeitherAPeerNorARung) {
  const auto rec = [](const std::string& variant, int version, double t) {
    sol::results::Record r;
    r.family = "gemm_bf16", r.variant = variant, r.version = version, r.dtype = "bf16";
    r.shape = "m=4096,n=4096,k=4096", r.median_s = t, r.verified = true;
    return r;
  };
  sol::results::File f;
  f.family = "gemm_bf16";
  f.records = {rec("peer:cublasLt", 0, 177e-6), rec("v07_tma_store", 7, 181e-6), rec("dispatch", 0, 170e-6)};
  EXPECT_TRUE(sol::results::is_dispatch(f.records[2]));
  EXPECT_FALSE(sol::results::is_peer(f.records[2]));
  EXPECT_EQ(sol::results::best_peer(f, f.records[2]), &f.records[0]);
  const std::string md = sol::report::headline_markdown({f});
  EXPECT_NE(md.find("| gemm_bf16 | v07_tma_store |"), std::string::npos) << md;
  sol::Variant peer, rung, dispatch;
  peer.name = "peer:cublasLt";
  rung.name = "v08_tile_choice", rung.version = 8;
  dispatch.name = "dispatch";
  EXPECT_TRUE(dispatch.is_dispatch() && !dispatch.is_peer());
  // A decode rung of higher version (m ≤ 64 only) is not the rung the sweep measures.
  sol::Variant decode;
  decode.name = "v10_mma_swapped", decode.version = 10;
  decode.unsupported = [](const sol::Shape& s) { return s.at("m") > 64 ? std::string("m ≤ 64") : std::string(); };
  const auto chosen = sol::sweep::choose_variants({&peer, &dispatch, &rung, &decode});
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0], &peer);
  EXPECT_EQ(chosen[1], &rung);
}

TEST(RegistrySelectList, ACommaListSelectsEachNameOnceInRegistryOrder) {
  std::vector<sol::Variant> from(5);
  const char* names[] = {"peer:cublasLt", "dispatch", "v01_mma_sync", "v07_tma_store", "v08_tile_choice"};
  for (size_t i = 0; i < from.size(); ++i) from[i].family = "gemm_bf16", from[i].name = names[i];
  const auto got = sol::select(from, "gemm_bf16/v08,v07,peer,dispatch,v07_tma_store");
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0]->name, "peer:cublasLt");
  EXPECT_EQ(got[1]->name, "dispatch");
  EXPECT_EQ(got[2]->name, "v07_tma_store");
  EXPECT_EQ(got[3]->name, "v08_tile_choice");
  for (const char* bad : {"gemm_bf16/v08,", "gemm_bf16/v08,,v07", "gemm_bf16/v08,nosuch"}) {
    try {
      sol::select(from, bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const sol::Error& e) {
      EXPECT_EQ(e.kind(), sol::Error::Kind::BadInput) << bad;
    }
  }
}

TEST(BenchModelShapes, PlanListsTheFamilysModelShapesAndBadFlagsAreOneLine) {
  // The dispatch set, plus every decode token count (m = 1, 8, 16, 32, 64) of the full set.
  auto shapes = sol::model::model_shapes("gemm_bf16");
  const size_t dispatch_set = shapes.size();
  for (auto& s : sol::model::model_shapes("gemm_bf16", sol::model::TokenSet::Full))
    if (s.tokens < 512 && std::none_of(shapes.begin(), shapes.end(), [&](const auto& t) { return t.shape == s.shape; }))
      shapes.push_back(s);
  EXPECT_GT(shapes.size(), dispatch_set);
  for (int64_t m : {1, 8, 16, 32, 64})
    EXPECT_TRUE(std::any_of(shapes.begin(), shapes.end(), [&](const auto& s) {
      return s.shape.str() == "m=" + std::to_string(m) + ",n=6144,k=4096";  // Llama-3 8B's QKV
    })) << m;
  const sol::test::CliRun plan = sol::test::run_sol("bench gemm_bf16/v08,dispatch,peer --model-shapes --plan");
  ASSERT_EQ(plan.rc, 0) << plan.all();
  EXPECT_NE(plan.out.find("gemm_bf16: " + std::to_string(shapes.size()) + " model shapes"), std::string::npos)
      << plan.out;
  for (const auto& s : shapes) EXPECT_NE(plan.out.find("  " + s.shape.str() + "  "), std::string::npos) << s.shape.str();
  for (const char* args : {"bench copy --model-shapes --plan", "bench --model-shapes --plan",
                           "bench gemm_bf16 --model-shapes --shape m=1,n=1,k=1", "bench gemm_bf16 --model-shapes --sweep",
                           "bench gemm_bf16 --plan", "bench gemm_bf16 --model-shapes --plan --json x.json"}) {
    const sol::test::CliRun r = sol::test::run_sol(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.all();
    EXPECT_EQ(sol::test::count_lines(r.err), 1) << args << ": " << r.err;
  }
}

TEST(ApiMatmulPlan, V08SplitsKOnlyWhereTheTableMeasuredTheSplit) {
  // 511 × 1023 × 1535 bf16: the table's fastest is v08, whose 4 × 4 wide tiles leave 116 of 132
  // SMs idle, so its rule splits k (24 k-tiles) over 4 CTAs. A user's call splits only once the
  // table's v08 records measured the split; opted in, wherever the rule takes it.
  const MatmulCall c = validate(tn(511, 1023, 1535));
  const MatmulPlan any = plan(c, 90, true, Choices::any), measured = plan(c, 90, true, Choices::measured);
  ASSERT_EQ(any.impl, Impl::tc_rung) << any.reason;
  ASSERT_EQ(any.rung, "v08_tile_choice") << any.reason;
  EXPECT_EQ(sol::gemm_rungs::decomposition(511, 1023, 24, 132).splits, 4);
  EXPECT_EQ(any.max_splits, sol::gemm_rungs::kMaxSplitK);
  EXPECT_EQ(any.reason.find("k split"), std::string::npos) << any.reason;
  ASSERT_EQ(measured.rung, any.rung);
  if (table_measured_split_k()) {
    EXPECT_EQ(measured.max_splits, sol::gemm_rungs::kMaxSplitK);
  } else {
    EXPECT_EQ(measured.max_splits, 1);
    EXPECT_NE(measured.reason.find("v08's k split over 4 CTAs is not measured"), std::string::npos) << measured.reason;
  }
  // The hot path (no explanation, the per-thread cache) decides the same, per choice.
  EXPECT_EQ(plan(c, 90, false, Choices::measured).max_splits, measured.max_splits);
  EXPECT_EQ(plan(c, 90, false, Choices::any).max_splits, any.max_splits);
  // The shapes the GPU test (ApiMatmul.V08SplittingKMatchesTheReferenceWhereOptedIn) runs through
  // sol::matmul reach v08 and split 4 and 8 ways there.
  for (const auto& [m, n, k, splits] : {std::array<int64_t, 4>{511, 1023, 1535, 4}, {255, 1023, 1535, 4},
                                        {255, 511, 4095, 8}}) {
    const MatmulPlan p = plan(validate(tn(m, n, k)), 90, true, Choices::any);
    EXPECT_EQ(p.rung, "v08_tile_choice") << m << "x" << n << "x" << k << ": " << p.reason;
    EXPECT_EQ(sol::gemm_rungs::decomposition(m, n, (k * 2 + 127) / 128, 132).splits, splits) << m << "x" << n << "x" << k;
  }
  // Where the wide tiles fill the GPU the rule does not split, and explain says nothing of it.
  const MatmulPlan big = plan(validate(tn(4095, 4095, 4095)), 90, true, Choices::measured);
  ASSERT_EQ(big.impl, Impl::tc_rung) << big.reason;
  EXPECT_EQ(big.reason.find("k split"), std::string::npos) << big.reason;
}

// ---- the decode rule (kernels/gemm/gemv) ----------------------------------------------------------
namespace gemv = sol::kernels::gemm::gemv;

TEST(ApiMatmulDecode, UnmeasuredDecodeRungsAreNotTheDefault) {
  // Until the committed table holds a decode-rung measurement, a user's call keeps the measured
  // implementations, and explain says what the decode rung would have been and how to opt in.
  const char* was = std::getenv("SOL_DISPATCH_UNMEASURED");
  const std::string saved = was ? was : "";
  setenv("SOL_DISPATCH_UNMEASURED", "1", 1);
  EXPECT_EQ(choices_default(), Choices::any);
  unsetenv("SOL_DISPATCH_UNMEASURED");
  EXPECT_EQ(choices_default(), Choices::measured);
  if (was) setenv("SOL_DISPATCH_UNMEASURED", saved.c_str(), 1);

  const MatmulCall c = validate(tn(1, 768, 768));
  const MatmulPlan any = plan(c, 90, true, Choices::any), measured = plan(c, 90, true, Choices::measured);
  EXPECT_EQ(any.impl, Impl::gemv) << any.reason;
  if (table_measured_decode_rungs()) {
    // The default follows the table: a decode rung where it was measured fastest, else not.
    EXPECT_EQ(measured.impl == Impl::gemv, measured.reason.find("measured fastest: " + measured.rung) != std::string::npos)
        << measured.reason;
  } else {
    EXPECT_NE(measured.impl, Impl::gemv) << measured.reason;
    EXPECT_NE(measured.reason.find("not chosen: the dispatch table has no decode-rung measurement"),
              std::string::npos)
        << measured.reason;
  }
}

TEST(ApiMatmulDecode, LaunchBoundShapesGoToADecodeRungOfTheirLayout) {
  // GPT-2's 768² layer from 1 to 64 tokens, ~1.2 MB: launch-bound, so the prediction (opted in)
  // beats any measured time; the rung is one that reads B's layout (the one measured fastest
  // nearby where it does).
  const struct {
    int64_t m;
    bool trans_b;
  } cases[] = {{1, true}, {4, true}, {8, true}, {64, true}, {1, false}, {33, false}};
  for (const auto& t : cases) {
    MatmulCall c = tn(t.m, 768, 768);
    c.trans_b = t.trans_b;
    const MatmulPlan p = plan(validate(c), 90, true, Choices::any);
    SCOPED_TRACE(std::to_string(t.m) + (t.trans_b ? " T" : " N"));
    EXPECT_EQ(p.impl, Impl::gemv) << p.reason;
    if (t.trans_b)
      EXPECT_TRUE(p.rung == "v09_warp_dot" || p.rung == "v10_mma_swapped" || p.rung == "v12_cluster_split_k" ||
                  p.rung == "v13_cluster_prefetch" || p.rung == "v14_tma_ring")
          << p.rung;
    else EXPECT_EQ(p.rung, "v11_n_contiguous");
    EXPECT_EQ(p.family, "gemm_bf16");
    EXPECT_NE(p.reason.find("decode (m ≤ 64, W streamed once): predicted"), std::string::npos) << p.reason;
    EXPECT_NE(p.reason.find(" vs cublasLt "), std::string::npos) << p.reason;
    EXPECT_GT(p.predicted_s, 0);
    EXPECT_EQ(p.workspace_bytes(), gemv::workspace_bytes(gemv::Rung(std::find(gemv_rungs().begin(), gemv_rungs().end(),
                                                                             p.rung) - gemv_rungs().begin()),
                                                         c.m, c.n, c.k));
    const MatmulPlan quick = plan(validate(c), 90, /*explain=*/false, Choices::any);
    EXPECT_EQ(quick.impl, p.impl);
    EXPECT_EQ(quick.rung, p.rung);
    EXPECT_EQ(quick.workspace_bytes(), p.workspace_bytes());
    EXPECT_TRUE(quick.reason.empty());
  }
}

TEST(ApiMatmulDecode, SplitKReservesWhatItsRungNeeds) {
  // m=1 against 4096×4096: the N tiles alone are too few CTAs for the H200, so every W n×k rung
  // splits k — v09 and v10 through fp32 partials in the workspace and a second launch, v12, v13 and
  // v14 within a cluster (no workspace, one launch). The plan reserves exactly what its rung needs.
  for (gemv::Rung r : {gemv::Rung::v09_warp_dot, gemv::Rung::v10_mma_swapped, gemv::Rung::v12_cluster_split_k,
                       gemv::Rung::v13_cluster_prefetch, gemv::Rung::v14_tma_ring}) {
    const gemv::Geometry g = gemv::geometry(r, 1, 4096, 4096);
    SCOPED_TRACE(gemv::rung_name(r));
    EXPECT_GT(g.splits, 1);
    const bool on_chip = gemv::splits_on_chip(r);
    EXPECT_EQ(gemv::workspace_bytes(r, 1, 4096, 4096), on_chip ? 0 : size_t(g.splits) * 4096 * sizeof(float));
    EXPECT_EQ(gemv::launches(r, 1, 4096, 4096), on_chip ? 1 : 2);
  }
  const MatmulPlan p = plan(validate(tn(1, 4096, 4096)), 90, true, Choices::any);
  ASSERT_EQ(p.impl, Impl::gemv) << p.reason;
  const gemv::Rung r = gemv::Rung(std::find(gemv_rungs().begin(), gemv_rungs().end(), p.rung) - gemv_rungs().begin());
  EXPECT_EQ(p.partial_bytes, gemv::workspace_bytes(r, 1, 4096, 4096));
  EXPECT_EQ(p.workspace_bytes(), p.partial_bytes);
  EXPECT_NE(p.reason.find(gemv::launches(r, 1, 4096, 4096) == 2 ? "2 launches" : "1 launch"), std::string::npos)
      << p.reason;
}

TEST(ApiMatmulDecode, ServesWhatTheTensorCoreRungsDoNot) {
  // beta ≠ 0, f32 or f16 C, f16 inputs, B stored k×n: a decode rung serves each call (B k×n: v11),
  // and the plan either runs it or names it beside the measurement that ruled it out — whichever
  // the table holds, the rung is never refused.
  std::vector<MatmulCall> calls(4, tn(3, 768, 768));
  calls[0].beta = 0.5f;
  calls[1].c_type = DType::f32;
  calls[2].a_type = calls[2].b_type = calls[2].c_type = DType::f16;
  calls[3].trans_b = false, calls[3].c_type = DType::f16, calls[3].beta = 1.f;
  for (const MatmulCall& c : calls) {
    const DecodePrediction d = decode_prediction(validate(c), 90);
    EXPECT_EQ(d.refusal, "");
    EXPECT_EQ(d.rung, c.trans_b ? "v12_cluster_split_k" : "v11_n_contiguous");
    const MatmulPlan p = plan(validate(c), 90, true, Choices::any);
    if (p.impl == Impl::gemv) {
      EXPECT_EQ(p.family, c.a_type == DType::f16 ? "gemm_fp16" : "gemm_bf16");
    } else {
      EXPECT_NE(p.reason.find("decode rung " + d.rung), std::string::npos) << p.reason;
      EXPECT_NE(p.reason.find("measured slower"), std::string::npos) << p.reason;
    }
  }
}

TEST(ApiMatmulDecode, ByDefaultADecodeRungRunsWhereTheTableMeasuredItFastest) {
  // Every decode shape of the model set, both layouts of B: the default runs a decode rung exactly
  // where explain cites that rung as the nearest measurement's fastest, and otherwise says why not.
  for (const sol::model::ModelShape& s : sol::model::model_shapes("gemm_bf16", sol::model::TokenSet::Full)) {
    const int64_t m = s.shape.at("m"), n = s.shape.at("n"), k = s.shape.at("k");
    if (m > gemv::kMaxM) continue;
    for (bool trans_b : {true, false}) {
      MatmulCall c = tn(m, n, k);
      c.trans_b = trans_b;
      const MatmulPlan p = plan(validate(c), 90, true, Choices::measured);
      SCOPED_TRACE(s.shape.str() + (trans_b ? " T" : " N"));
      if (p.impl == Impl::gemv) {
        EXPECT_NE(p.reason.find("measured fastest: " + p.rung), std::string::npos) << p.reason;
      } else {
        EXPECT_NE(p.reason.find("; decode rung "), std::string::npos) << p.reason;
        EXPECT_NE(p.reason.find(", not chosen: "), std::string::npos) << p.reason;
      }
      const MatmulPlan quick = plan(validate(c), 90, /*explain=*/false, Choices::measured);
      EXPECT_EQ(quick.impl, p.impl);
      EXPECT_EQ(quick.rung, p.rung);
    }
  }
}

TEST(ApiMatmulDecode, WhatTheChoicesDoNotServeFollowsTheOtherRules) {
  const auto not_decode = [](MatmulCall c, int cc, const char* why) {
    const DecodePrediction d = decode_prediction(validate(c), cc);
    EXPECT_NE(d.refusal.find(why), std::string::npos) << d.refusal;
    EXPECT_NE(plan(validate(c), cc, true, Choices::any).impl, Impl::gemv);
  };
  not_decode(tn(65, 768, 768), 90, "m ≤ 64");
  MatmulCall c = tn(8, 768, 768);
  c.trans_a = true;
  not_decode(c, 90, "trans_a=N");
  not_decode(tn(8, 768, 768, DType::f32), 90, "bf16 or f16");
  not_decode(tn(8, 768, 768, DType::fp8_e4m3), 90, "bf16 or f16");
  not_decode(tn(8, 768, 768), 80, "sm_80");
}

TEST(ApiMatmulDecode, ThePredictionIsBytesOverBandwidthPlusLaunches) {
  MatmulCall c = validate(tn(8, 6144, 4096));
  const DecodePrediction a = decode_prediction(c, 90, "v10_mma_swapped");
  ASSERT_TRUE(a.refusal.empty()) << a.refusal;
  EXPECT_DOUBLE_EQ(a.bytes, 2.0 * (8 * 4096 + 6144.0 * 4096 + 8 * 6144));
  c.c_type = DType::f32, c.beta = 1.f;  // C read and written at 4 bytes
  const DecodePrediction b = decode_prediction(c, 90, "v10_mma_swapped");
  EXPECT_DOUBLE_EQ(b.bytes - a.bytes, 8.0 * 6144 * (4 + 4 - 2));
  EXPECT_GT(b.predicted_s, a.predicted_s);
  // 80 % of the database's HBM rate and 2 µs per launch (two here: k is split).
  EXPECT_EQ(a.launches, 2);
  EXPECT_NEAR(a.predicted_s, 2 * 2e-6 + a.bytes / (0.8 * sol::hw::find("h200").hbm_bytes_per_s), 1e-12);
  const DecodePrediction big = decode_prediction(validate(tn(8, 61440, 4096)), 90, "v10_mma_swapped");
  EXPECT_EQ(big.launches, 1);  // 3840 CTAs fill the GPU: no split
  EXPECT_GT(big.predicted_s, 9 * (a.predicted_s - 2 * 2e-6));
  // v12 splits k within a cluster: the same bytes in one launch (the rule's rung for W n×k).
  const DecodePrediction v12 = decode_prediction(validate(tn(8, 6144, 4096)), 90);
  EXPECT_EQ(v12.rung, "v12_cluster_split_k");
  EXPECT_EQ(v12.launches, 1);
  EXPECT_DOUBLE_EQ(v12.bytes, a.bytes);
  EXPECT_NEAR(v12.predicted_s, a.predicted_s - 2e-6, 1e-12);
}

TEST(GemvGeometry, SplitsCoverKExactlyWithAlignedSlicesAndBoundedPartials) {
  for (gemv::Rung r : gemv::kRungs)
    for (int64_t m : {1, 2, 3, 5, 8, 9, 16, 17, 33, 64})
      for (int64_t n : {1, 7, 768, 4096, 128256})
        for (int64_t k : {1, 63, 64, 65, 768, 4097, 14336, 28672}) {
          const gemv::Geometry g = gemv::geometry(r, m, n, k);
          SCOPED_TRACE(std::string(gemv::rung_name(r)) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                       " k=" + std::to_string(k));
          const bool on_chip = gemv::splits_on_chip(r);  // a cluster's CTAs, summed in shared memory
          ASSERT_GE(g.splits, 1);
          ASSERT_LE(g.splits, on_chip ? gemv::kMaxClusterSplits : gemv::kMaxSplits);
          EXPECT_GE(int64_t(g.splits) * g.k_slice, k);
          EXPECT_LT(int64_t(g.splits - 1) * g.k_slice, k) << "an empty split";
          if (g.splits > 1) {
            EXPECT_EQ(g.k_slice % gemv::kSliceAlign, 0);
            EXPECT_GE(g.k_slice, g.k_per_step) << "a split shorter than one step";
            if (on_chip) EXPECT_EQ(g.k_slice % g.k_per_step, 0) << "a cluster split's slices are whole chunks";
            else EXPECT_LE(8.0 * g.splits * m * n, 0.25 * 2.0 * n * k) << "partials over a quarter of W's bytes";
          }
          EXPECT_EQ(g.blocks_n * g.cols_per_cta >= n, true);
          EXPECT_LT((g.blocks_n - 1) * g.cols_per_cta, n);
          EXPECT_EQ(gemv::workspace_bytes(r, m, n, k), g.splits > 1 && !on_chip ? size_t(g.splits * m * n) * 4 : 0u);
          EXPECT_EQ(gemv::launches(r, m, n, k), g.splits > 1 && !on_chip ? 2 : 1);
        }
}

TEST(GemvGeometry, EachRungRefusesWhatItDoesNotServeWithAReason) {
  EXPECT_EQ(gemv::refusal(gemv::Rung::v09_warp_dot, 8, 5, 5, true), "");
  EXPECT_NE(gemv::refusal(gemv::Rung::v09_warp_dot, 9, 5, 5, true).find("m ≤ 8"), std::string::npos);
  EXPECT_NE(gemv::refusal(gemv::Rung::v09_warp_dot, 1, 5, 5, false).find("trans_b=T"), std::string::npos);
  EXPECT_EQ(gemv::refusal(gemv::Rung::v10_mma_swapped, 64, 1, 1, true), "");
  EXPECT_NE(gemv::refusal(gemv::Rung::v10_mma_swapped, 65, 1, 1, true).find("m ≤ 64"), std::string::npos);
  EXPECT_EQ(gemv::refusal(gemv::Rung::v11_n_contiguous, 64, 1, 1, false), "");
  EXPECT_NE(gemv::refusal(gemv::Rung::v11_n_contiguous, 1, 1, 1, true).find("trans_b=N"), std::string::npos);
  EXPECT_NE(gemv::refusal(gemv::Rung::v10_mma_swapped, 1, int64_t(1) << 32, 1, true).find("2^31"), std::string::npos);
}

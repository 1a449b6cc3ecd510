// The one explicit list of every kernel variant (DESIGN.md: one registry). This file says which
// versions exist, what each one changes, and on which shapes it is benched and tested. It is host
// C++ and builds in every build: a family's shape rules, cost and tolerance are host code too
// (kernels/<family>/spec.cpp), and only its Case factory (make, in case.cu) needs CUDA, so a build
// without CUDA describes every variant of those families and has no factory for any.
// Bench shapes: the first is the headline (≥ 1 GiB moved where memory is the question), the rest
// a sweep. Test shapes: tiny, odd, prime, misaligned, and > 2^31 elements where the family allows.
#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>

#include "kernels/banks/case.hpp"
#include "kernels/coalescing/case.hpp"
#include "kernels/crossentropy/case.hpp"
#include "kernels/copy/case.hpp"
#include "kernels/divergence/case.hpp"
#include "kernels/elementwise/case.hpp"
#include "kernels/gemm/fp32/case.hpp"
#include "kernels/gemm/gemv/case.hpp"
#include "kernels/linear_ce/case.hpp"
#include "kernels/rows/case.hpp"
#include "kernels/rows/case_bwd.hpp"
#include "kernels/precision/case.hpp"
#include "kernels/attention/case.hpp"  // host C++: the rungs' cost (spec.cpp); registered with CUDA only
#ifdef SOL_WITH_CUDA  // families whose description is still CUDA code (their case.cu)
#include "kernels/gemm/tc/case.hpp"
#include "kernels/gemm/tc/problem.cuh"
#include "kernels/mx/case.hpp"
#endif
#include "sol/core/error.hpp"
#include "sol/core/suggest.hpp"
#include "sol/gemm_rungs.hpp"
#include "sol/registry.hpp"

namespace sol {
namespace {

using Texts = std::initializer_list<const char*>;

std::vector<Shape> shapes(Texts texts) {
  std::vector<Shape> v;
  for (const char* t : texts) v.push_back(Shape::parse(t));
  return v;
}

// One entry; V is a family's Version enum, whose namespace provides unsupported, cost,
// tolerance and, in a CUDA build, make (found by argument-dependent lookup).
template <class V>
Variant entry(const char* family, V v, const char* name, int version, int min_cc, const char* technique, Texts bench,
              Texts test) {
  Variant x;
  x.family = family;
  x.name = name;
  x.version = version;
  x.technique = technique;
  x.min_cc = min_cc;
  x.unsupported = [v](const Shape& s) { return unsupported(v, s); };
  x.cost = [v](const Shape& s) { return cost(v, s); };
  x.bench_shapes = shapes(bench);
  x.test_shapes = shapes(test);
  x.tol = tolerance(v);
#ifdef SOL_WITH_CUDA
  x.make = [v](const Shape& s, const CaseOptions& o) { return make(v, s, o); };
#endif
  return x;
}

// A family's public entry (sol/kernels.hpp) as a variant: named "dispatch", version 0 (neither a
// peer nor a rung; Variant::is_dispatch), listed with the family's rungs.
template <class V>
Variant dispatch_entry(const char* family, V v, int min_cc, const char* technique, Texts bench, Texts test) {
  return entry(family, v, "dispatch", 0, min_cc, technique, bench, test);
}

#ifdef SOL_WITH_CUDA
// A variant whose kernels are compiled for sm_90a alone (wgmma, TMA: CMakeLists.txt's Hopper
// sources), which runs on compute capability 9.0 and no other.
Variant sm90a_only(Variant v) {
  v.min_cc = v.max_cc = 90;
  return v;
}

// ---- attention forward: b, h[, hkv], n[, nk], d[, causal, fp16] (BSHD layout) ------------------
// The grid: 16k tokens per batch, hidden 2048 (d=128 → h=16, d=64 → h=32), causal 0/1.
const Texts kAttentionBench = {
    "b=4,h=16,n=4096,d=128",           "b=4,h=16,n=4096,d=128,causal=1",  "b=16,h=16,n=1024,d=128",
    "b=16,h=16,n=1024,d=128,causal=1", "b=1,h=16,n=16384,d=128",          "b=1,h=16,n=16384,d=128,causal=1",
    "b=16,h=32,n=1024,d=64",           "b=16,h=32,n=1024,d=64,causal=1",  "b=4,h=32,n=4096,d=64",
    "b=4,h=32,n=4096,d=64,causal=1",   "b=1,h=32,n=16384,d=64",           "b=1,h=32,n=16384,d=64,causal=1"};
const Texts kAttentionTest = {
    "b=1,h=1,n=1,d=64",                     "b=1,h=1,n=1,d=128,causal=1",
    "b=2,h=3,n=17,d=64",                    "b=2,h=3,n=17,d=128,causal=1",
    "b=1,h=2,n=1000,d=64,causal=1",         "b=1,h=2,n=4097,d=128",
    "b=1,h=2,n=4097,d=64,causal=1,fp16=1",  "b=2,h=4,n=100,nk=333,d=128,causal=1",
    "b=2,h=4,n=333,nk=100,d=64,causal=1",   "b=2,h=8,hkv=2,n=257,d=128,causal=1",
    "b=1,h=4,hkv=1,n=129,nk=65,d=64,fp16=1", "b=3,h=2,n=77,d=128,fp16=1,causal=1",
    "b=1,h=1,n=1,nk=4097,d=64,causal=1"};

void add_attention(std::vector<Variant>& all) {
  using V = kernels::attention::Version;
  // The public entry first (version 0); it runs every rung's test shapes.
  const size_t fwd_dispatch = all.size();
  all.push_back(dispatch_entry("attention", V::dispatch, 80,
                      "sol::attention_forward: the rung the H200 table ranks first at the nearest measured shape "
                      "among those the device and layout allow",
                      kAttentionBench, kAttentionTest));
  // The standard version is benched where its S and P (6 bytes per score) stay modest.
  all.push_back(entry("attention", V::v01_standard, "v01_standard", 1, 70,
                      "S = QKᵀ (fp32) and P (bf16) in HBM, three SIMT kernels: scores | softmax | P·V",
                      {"b=4,h=16,n=4096,d=128", "b=4,h=16,n=4096,d=128,causal=1", "b=16,h=16,n=1024,d=128",
                       "b=16,h=32,n=1024,d=64", "b=4,h=32,n=4096,d=64"},
                      kAttentionTest));
  all.push_back(entry("attention", V::v02_flash_mma, "v02_flash_mma", 2, 80,
                      "FA2 forward: 64-row Q tile per CTA, 16 rows per warp, mma.sync + ldmatrix, K/V cp.async "
                      "double-buffered, online softmax in registers, P kept in registers",
                      kAttentionBench, kAttentionTest));
  all.push_back(entry("attention", V::v03_flash_mma_128, "v03_flash_mma_128", 3, 80,
                      "v02 with 128-row Q tiles: each warp owns 32 rows (two 16-row slices), so every K and V "
                      "fragment read from shared memory feeds two MMAs; Q re-read from shared memory",
                      kAttentionBench, kAttentionTest));
  // The Hopper rungs also run their own edges: one row or key past a 128 tile, a consumer with no
  // real rows, causal nk < n in fp16, a K/V ring that wraps (GQA).
  const Texts hopper_edges = {"b=1,h=2,n=129,nk=129,d=128", "b=2,h=2,n=64,nk=300,d=64,causal=1",
                              "b=1,h=3,n=300,nk=257,d=128,causal=1,fp16=1", "b=1,h=4,hkv=2,n=700,nk=1100,d=64"};
  Variant v04 = sm90a_only(entry("attention", V::v04_flash_wgmma, "v04_flash_wgmma", 4, 90,
                      "Hopper forward: a producer warp TMA-loads K/V tiles of 128 keys into a 2–3 stage mbarrier "
                      "ring; two consumer warpgroups (64 query rows each) run Q·Kᵀ on wgmma from shared memory and "
                      "P·V on wgmma with P from registers, online softmax between them",
                      kAttentionBench, kAttentionTest));
  Variant v05 = sm90a_only(entry("attention", V::v05_flash_wgmma_overlap, "v05_flash_wgmma_overlap", 5, 90,
                      "v04 with FA3's intra-warpgroup overlap: Q·Kᵀ of tile j and P·V of tile j−1 issued together, "
                      "the softmax of j runs while P·V of j−1 is on the tensor cores; no producer warp (256 threads "
                      "for 255 registers), a consumer thread refills each released stage",
                      kAttentionBench, kAttentionTest));
  for (const char* t : hopper_edges) all[fwd_dispatch].test_shapes.push_back(Shape::parse(t));
  // Sliding windows (wl, wr: keys left and right of the diagonal; causal is wr=0) and softcap,
  // which only the wgmma rungs (and the decode kernel) have: Mistral's causal window; a two-sided
  // one over odd lengths with GQA 4; width one (wl=wr=0) at GQA 8 with n > nk, where rows see no
  // key; softcaps 30 (Gemma 2's attention) and 50, alone and under a window; n = 17 and 4097.
  // The dispatcher serves them on sm_90 only, so they are the sm_90a variants' (the API's GPU
  // test runs them through the dispatcher). Bench: a Mistral-like layer, 8k tokens, 4k window.
  const Texts window_tests = {"b=1,h=2,n=1000,d=64,causal=1,wl=256",
                              "b=2,h=8,hkv=2,n=257,d=128,wl=127,wr=33",
                              "b=1,h=8,hkv=1,n=300,nk=129,d=128,wl=0,wr=0,fp16=1",
                              "b=2,h=3,n=17,d=64,wl=5,wr=2",
                              "b=1,h=2,n=4097,d=128,causal=1,softcap=30",
                              "b=2,h=4,n=100,nk=333,d=64,causal=1,wl=64,softcap=50,fp16=1",
                              "b=1,h=4,hkv=1,n=333,nk=100,d=128,wl=127,wr=33,softcap=30"};
  const char* const window_bench = "b=1,h=32,hkv=8,n=8192,d=128,causal=1,wl=4096";
  for (Variant* x : {&v04, &v05}) {
    for (const char* t : hopper_edges) x->test_shapes.push_back(Shape::parse(t));
    for (const char* t : window_tests) x->test_shapes.push_back(Shape::parse(t));
    x->bench_shapes.push_back(Shape::parse(window_bench));
    all.push_back(std::move(*x));
  }
  // Decode: 16 MHA heads against 4k keys (the headline), Llama-3-8B's GQA (32 query heads on 8 KV
  // heads) at 1, 8 and 16 new tokens against a 32k cache, a 128k cache at batch 1, batch 64 at 8k.
  // Tests: one key; GQA 4 and 8 at odd lengths; 16 tokens × 8 heads (two row blocks); n > nk (rows
  // that see no key); a split of the 32k cache at d = 64.
  const Texts decode_bench = {"b=2,h=16,n=1,nk=4096,d=128",  "b=8,h=32,hkv=8,n=1,nk=32768,d=128,causal=1",
                              "b=1,h=32,hkv=8,n=1,nk=131072,d=128",         "b=64,h=32,hkv=8,n=1,nk=8192,d=128",
                              "b=8,h=32,hkv=8,n=8,nk=32768,d=128,causal=1",  "b=8,h=32,hkv=8,n=16,nk=32768,d=128,causal=1",
                              "b=8,h=32,hkv=8,n=1,nk=32768,d=128,causal=1,wl=4096"};
  const Texts decode_tests = {"b=1,h=1,n=1,nk=1,d=64",
                              "b=2,h=4,hkv=1,n=1,nk=17,d=128",
                              "b=2,h=8,hkv=2,n=7,nk=1000,d=64,causal=1",
                              "b=1,h=8,hkv=1,n=16,nk=4097,d=128,causal=1,fp16=1",
                              "b=3,h=32,hkv=4,n=16,nk=333,d=64,causal=1",
                              "b=1,h=2,n=16,nk=5,d=128,causal=1",
                              "b=1,h=4,hkv=4,n=2,nk=32768,d=64,fp16=1",
                              // Windows and softcap (any device: the decode kernel has them): a causal
                              // window over two row blocks, a two-sided one at GQA 8 with softcap, width
                              // one at GQA 8, and n > nk (rows that see no key) with softcap 50.
                              "b=2,h=8,hkv=2,n=7,nk=1000,d=64,causal=1,wl=256",
                              "b=1,h=8,hkv=1,n=16,nk=4097,d=128,wl=127,wr=33,softcap=30",
                              "b=3,h=32,hkv=4,n=1,nk=333,d=64,wl=0,wr=0",
                              "b=1,h=2,n=16,nk=5,d=128,causal=1,wl=3,softcap=50,fp16=1"};
  all.push_back(entry("attention", V::v06_split_kv_decode, "v06_split_kv_decode", 6, 80,
                      "flash-decoding for n ≤ 16: a CTA per (split of the cache, KV head, batch) packs the n tokens × "
                      "h/h_kv query heads of one KV head into the MMA rows; 4 warps split each 64-key tile (3 cp.async "
                      "stages); the splits' fp32 partials merged by their logsumexp in a second kernel",
                      decode_bench, decode_tests));
  for (const char* t : decode_bench) all[fwd_dispatch].bench_shapes.push_back(Shape::parse(t));
  for (const char* t : decode_tests) all[fwd_dispatch].test_shapes.push_back(Shape::parse(t));
  // Every backward rung is benched and tested at det=1 too (dQ without atomics).
  std::vector<Shape> det_bench, det_tests;
  for (const char* t : {"b=4,h=16,n=4096,d=128,det=1", "b=4,h=16,n=4096,d=128,causal=1,det=1"})
    det_bench.push_back(Shape::parse(t));
  for (const char* t : {"b=2,h=4,n=333,nk=100,d=64,causal=1,det=1", "b=2,h=8,hkv=2,n=257,d=128,causal=1,det=1",
                        "b=1,h=2,n=1000,d=128,fp16=1,det=1", "b=1,h=1,n=17,nk=1,d=64,causal=1,det=1"})
    det_tests.push_back(Shape::parse(t));
  const size_t bwd_dispatch = all.size();  // the public entry; its shapes, every rung's, below
  all.push_back(dispatch_entry("attention_bwd", kernels::attention::BwdVersion::dispatch, 80,
                      "sol::attention_backward: the rung the H200 table ranks first at the nearest measured shape "
                      "(and det) among those the device allows",
                      {}, {}));
  Variant bwd = entry("attention_bwd", kernels::attention::BwdVersion::v01_flash_bwd, "v01_flash_bwd", 1, 80,
                       "FA2 backward: D pre-pass; a CTA per 64-key tile keeps dK, dV in registers while Q tiles stream, "
                       "recomputes P from L, dQ by fp32 atomics then a convert (det=1: a dQ kernel per query tile)",
                       kAttentionBench, kAttentionTest);
  bwd.bench_shapes.insert(bwd.bench_shapes.end(), det_bench.begin(), det_bench.end());
  bwd.test_shapes.insert(bwd.test_shapes.end(), det_tests.begin(), det_tests.end());
  all.push_back(std::move(bwd));
  Variant bwd2 = entry("attention_bwd", kernels::attention::BwdVersion::v02_flash_bwd_8warp, "v02_flash_bwd_8warp", 2, 90,
                       "8 warps per 64-key CTA in 32×32 warp blocks: warps 0–3 Sᵀ → P, 4–7 dPᵀ → dS, both staged in "
                       "shared memory; each warp keeps dK, dV for 32 keys × d/4 (128 registers, no spills, 2 CTAs/SM); "
                       "Q/dO double-buffered by cp.async; dQ by float4 atomics",
                       kAttentionBench, kAttentionTest);
  bwd2.bench_shapes.insert(bwd2.bench_shapes.end(), det_bench.begin(), det_bench.end());
  bwd2.test_shapes.insert(bwd2.test_shapes.end(), det_tests.begin(), det_tests.end());
  for (const char* t : {"b=1,h=6,hkv=3,n=200,nk=391,d=64,causal=1", "b=2,h=2,n=129,nk=4033,d=128,fp16=1"})
    bwd2.test_shapes.push_back(Shape::parse(t));
  all.push_back(std::move(bwd2));
  Variant bwd3 = sm90a_only(entry("attention_bwd", kernels::attention::BwdVersion::v03_flash_bwd_wgmma, "v03_flash_bwd_wgmma", 3, 90,
                       "Hopper backward: one warpgroup per 64-key CTA, K/V and a 2–3 stage Q/dO ring by TMA; Sᵀ, dPᵀ "
                       "by wgmma from shared memory, dV += Pᵀ·dO and dK += dSᵀ·Q with Pᵀ, dSᵀ as register A, dQ = dS·K "
                       "with dS staged in shared memory, float4 atomics",
                       {}, {}));
  bwd3.bench_shapes = all.back().bench_shapes;  // v02's: the grid and det=1
  bwd3.test_shapes = all.back().test_shapes;
  // And its own edges: one key and row past a 64 tile, a Q/dO ring that wraps over 8 query heads
  // of one K/V head with causal nk < n (rows that see no key: L = −∞), GQA in fp16.
  for (const char* t : {"b=1,h=2,n=65,nk=65,d=128", "b=1,h=8,hkv=1,n=300,nk=129,d=128,causal=1",
                        "b=1,h=4,hkv=2,n=700,nk=1100,d=64,fp16=1"})
    bwd3.test_shapes.push_back(Shape::parse(t));
  all.push_back(std::move(bwd3));
  Variant bwd4 = sm90a_only(entry("attention_bwd", kernels::attention::BwdVersion::v04_flash_bwd_2wg, "v04_flash_bwd_2wg", 4, 90,
                       "v03 with two consumer warpgroups per 128-key CTA sharing each Q/dO tile (128 rows at d=64): "
                       "half the Q/dO loads and dQ adds per FLOP; dQ in 64×64 blocks after one barrier per tile, "
                       "staged in shared memory and added by TMA reduce-add; dV/dK issued before the barrier",
                       {}, {}));
  bwd4.bench_shapes = all.back().bench_shapes;
  bwd4.test_shapes = all.back().test_shapes;
  // And its own edges: a key tile of 128 whose second warpgroup sees only keys past nk, and one
  // whose first 64 keys are whole but the second's partial.
  for (const char* t : {"b=1,h=2,n=100,nk=60,d=64", "b=2,h=4,hkv=2,n=191,nk=191,d=128,causal=1"})
    bwd4.test_shapes.push_back(Shape::parse(t));
  // Windows and softcap: the forward's shapes, det=1 too. v04 alone has them among the backward
  // rungs (it is the one the table ranks first everywhere; one more rung's forms would only add
  // compile time).
  for (const char* t : window_tests) bwd4.test_shapes.push_back(Shape::parse(t));
  for (const char* t : {"b=2,h=8,hkv=2,n=257,d=128,wl=127,wr=33,det=1", "b=1,h=2,n=1000,d=64,causal=1,wl=256,softcap=30,det=1"})
    bwd4.test_shapes.push_back(Shape::parse(t));
  bwd4.bench_shapes.push_back(Shape::parse(window_bench));
  // The public entry: v04's shapes but the windows (sm_90 only; the API's GPU test has them).
  for (const Shape& x : bwd4.bench_shapes)
    if (!x.has("wl") && !x.has("softcap")) all[bwd_dispatch].bench_shapes.push_back(x);
  for (const Shape& x : bwd4.test_shapes)
    if (!x.has("wl") && !x.has("wr") && !x.has("softcap")) all[bwd_dispatch].test_shapes.push_back(x);
  all.push_back(std::move(bwd4));
}

#endif  // SOL_WITH_CUDA

// ---- copy: n fp32 elements ------------------------------------------------------------------------
const Texts kCopyBench = {"n=2^28", "n=2^16", "n=2^20", "n=2^22", "n=2^24", "n=2^26", "n=2^30"};
const Texts kCopyTest = {"n=1", "n=2", "n=3", "n=5", "n=31", "n=4099", "n=1000003", "n=1048577",
                         "n=1000003,offset_in=1,offset_out=1", "n=4099,offset_in=3,offset_out=3",
                         "n=1000003,offset_in=1", "n=77,offset_out=2", "n=2147483659"};

void add_copy(std::vector<Variant>& all) {
  using V = kernels::copy::Version;
  all.push_back(entry("copy", V::peer_memcpy, "peer:cudaMemcpy", 0, 70, "cudaMemcpyAsync device-to-device",
                      kCopyBench, {"n=1", "n=3", "n=1000003", "n=1000003,offset_in=1"}));
  all.push_back(dispatch_entry("copy", V::dispatch, 70,
                      "sol::copy: v02/v03 or cudaMemcpyAsync by the H200 table at the nearest size", kCopyBench,
                      kCopyTest));
  all.push_back(entry("copy", V::v01_scalar, "v01_scalar", 1, 70, "one 4-byte load and store per thread", kCopyBench,
                      kCopyTest));
  all.push_back(entry("copy", V::v02_vec16, "v02_vec16", 2, 70, "16-byte float4 loads and stores, scalar head and tail",
                      kCopyBench, kCopyTest));
  all.push_back(entry("copy", V::v03_vec16_unroll, "v03_vec16_unroll", 3, 70,
                      "four 16-byte loads in flight per thread before the stores", kCopyBench, kCopyTest));
}

// ---- coalescing: rows × cols sums, and a strided read of n elements -----------------------------
const Texts kSumBench = {"rows=16384,cols=16384", "rows=2048,cols=2048", "rows=4096,cols=4096", "rows=8192,cols=8192",
                         "rows=32768,cols=32768"};
const Texts kSumTest = {"rows=1,cols=1",      "rows=1,cols=1000003",  "rows=1000003,cols=1", "rows=37,cols=41",
                        "rows=129,cols=4099", "rows=4099,cols=129",   "rows=1000,cols=1000"};

void add_coalescing(std::vector<Variant>& all) {
  using V = kernels::coalescing::Version;
  all.push_back(entry("coalescing", V::v01_row_per_thread, "v01_row_per_thread", 1, 70,
                      "thread per row, acc += A[row*N+k]: lanes N·4 bytes apart (uncoalesced)", kSumBench, kSumTest));
  all.push_back(entry("coalescing", V::v02_col_per_thread, "v02_col_per_thread", 2, 70,
                      "thread per column, acc += A[k*N+col]: lanes on adjacent words (coalesced)", kSumBench, kSumTest));
  all.push_back(entry("coalescing", V::v03_strided, "v03_strided", 3, 70,
                      "out[i] = in[i*stride]: 4 sectors per warp request at stride 1, 32 from stride 8",
                      {"n=2^27,stride=1", "n=2^27,stride=2", "n=2^27,stride=4", "n=2^27,stride=8", "n=2^27,stride=16",
                       "n=2^27,stride=32"},
                      {"n=1,stride=1", "n=1,stride=32", "n=2,stride=7", "n=1000003,stride=3", "n=4099,stride=32",
                       "n=65537,stride=8", "n=777,stride=13"}));
}

// ---- precision: ReLU over n elements ------------------------------------------------------------
const Texts kReluBench = {"n=2^29", "n=2^20", "n=2^24", "n=2^26", "n=2^28"};
const Texts kReluTest = {"n=1",       "n=2",       "n=3",
                         "n=15",      "n=17",      "n=33",
                         "n=1000003", "n=1000003,offset_in=1,offset_out=1", "n=4099,offset_in=5,offset_out=5",
                         "n=1000003,offset_in=1", "n=2147483659"};

void add_precision(std::vector<Variant>& all) {
  using V = kernels::precision::Version;
  all.push_back(entry("precision", V::v01_relu_fp32, "v01_relu_fp32", 1, 70,
                      "ReLU in fp32 with 16-byte vectors: 8 bytes per FLOP", kReluBench, kReluTest));
  all.push_back(entry("precision", V::v02_relu_bf16, "v02_relu_bf16", 2, 80,
                      "the same kernel on bf16: 4 bytes per FLOP", kReluBench, kReluTest));
  all.push_back(entry("precision", V::v03_relu_fp8_e4m3, "v03_relu_fp8_e4m3", 3, 89,
                      "the same kernel on fp8 e4m3: 2 bytes per FLOP", kReluBench, kReluTest));
}

// ---- divergence: a warp split `ways` ways; loops whose trip count varies -----------------------
const Texts kLoopBench = {"base=64,spread=32", "base=64,spread=0", "base=64,spread=8", "base=64,spread=128"};
const Texts kLoopTest = {"base=0,spread=0,threads=5",     "base=0,spread=1,threads=1",  "base=5,spread=3,threads=1000",
                         "base=1,spread=0,threads=31",    "base=3,spread=2,threads=4097",
                         "base=64,spread=32,threads=100003"};

void add_divergence(std::vector<Variant>& all) {
  using V = kernels::divergence::Version;
  all.push_back(entry("divergence", V::v01_warp_split, "v01_warp_split", 1, 70,
                      "lanes split `ways` ways, each path the same 1024-FMA chain: time ~ ways",
                      {"ways=1", "ways=2", "ways=4", "ways=8", "ways=16", "ways=32"},
                      {"ways=1,threads=1", "ways=32,threads=1", "ways=3,threads=1000", "ways=32,threads=33",
                       "ways=7,threads=4097", "ways=2,threads=1000003"}));
  all.push_back(entry("divergence", V::v02_loop_varied, "v02_loop_varied", 2, 70,
                      "lane i runs base + i·spread FMAs: each warp waits for its longest lane", kLoopBench, kLoopTest));
  all.push_back(entry("divergence", V::v03_loop_sorted, "v03_loop_sorted", 3, 70,
                      "the same trip counts sorted so that a warp's lanes agree", kLoopBench, kLoopTest));
}

// ---- banks: transpose of rows × cols fp32 through a shared-memory tile --------------------------
const Texts kTransposeBench = {"rows=16384,cols=16384", "rows=4096,cols=4096", "rows=8192,cols=8192",
                               "rows=16383,cols=16385", "rows=32768,cols=8192"};
const Texts kTransposeTest = {"rows=1,cols=1",   "rows=1,cols=37",     "rows=37,cols=1",     "rows=31,cols=33",
                              "rows=32,cols=32", "rows=97,cols=131",   "rows=1000,cols=1025", "rows=2049,cols=63"};

void add_banks(std::vector<Variant>& all) {
  using V = kernels::banks::Version;
  all.push_back(entry("banks", V::v01_tile32, "v01_tile32", 1, 70,
                      "32×32 shared tile: column reads hit one bank (32-way conflict)", kTransposeBench, kTransposeTest));
  Variant padded = entry("banks", V::v02_padded, "v02_padded", 2, 70, "tile padded to [32][33]: conflict-free",
                         kTransposeBench, kTransposeTest);
  padded.test_shapes.push_back(Shape::parse("rows=65537,cols=32771"));  // > 2^31 elements: 64-bit indexing, once
  all.push_back(std::move(padded));
  all.push_back(entry("banks", V::v03_swizzled, "v03_swizzled", 3, 70,
                      "tile column index XOR row index: conflict-free without padding", kTransposeBench, kTransposeTest));
}


#ifdef SOL_WITH_CUDA
// ---- mx: MXFP8 quantization, dequantization, emulated GEMM ---------------------------------------
// Quantize shapes: rows, cols of a bf16 tensor; e5m2=1 / ocp=1 switch the element format / scale
// rule (default e4m3, ceil); special=1 puts NaN, ±inf, ±0, subnormals and extreme magnitudes in
// the input (tests only). Headline: 16384² bf16.
const Texts kMxQuantBench = {"rows=16384,cols=16384", "rows=4096,cols=4096", "rows=8192,cols=8192",
                             "rows=16384,cols=16384,e5m2=1", "rows=16384,cols=16384,ocp=1", "rows=16383,cols=16385"};
const Texts kMxQuantTest = {"rows=1,cols=1",
                            "rows=1,cols=33,special=1",
                            "rows=37,cols=45,special=1",
                            "rows=33,cols=96,special=1",
                            "rows=64,cols=512,special=1,ocp=1",
                            "rows=100,cols=1000,special=1,e5m2=1",
                            "rows=257,cols=1031,special=1,ocp=1",
                            "rows=3,cols=2053,special=1,e5m2=1,ocp=1",
                            "rows=1000,cols=4100,special=1",
                            "rows=65,cols=31,special=1,e5m2=1",
                            "rows=4096,cols=4096,special=1",
                            "rows=2049,cols=2050"};
const Texts kMxDequantTest = {"rows=1,cols=1",           "rows=37,cols=45,special=1",
                              "rows=33,cols=96,special=1", "rows=64,cols=512,special=1,colwise=1",
                              "rows=100,cols=1000,special=1,e5m2=1", "rows=257,cols=1031,special=1,colwise=1,e5m2=1",
                              "rows=4096,cols=4096,special=1", "rows=4096,cols=4096,special=1,colwise=1"};
// GEMM test shapes keep ≥ 2000 outputs: the error of MXFP8 is a statistic (one product alone can
// be 13 % off in e4m3), and the tolerance is set for it.
const Texts kMxGemmBench = {"m=4096,n=4096,k=4096", "m=2048,n=2048,k=2048", "m=4096,n=4096,k=4096,e5m2=1",
                            "m=4096,n=4096,k=4096,ocp=1"};
const Texts kMxGemmTest = {"m=1,n=2048,k=33", "m=97,n=131,k=67", "m=33,n=65,k=129,e5m2=1", "m=128,n=96,k=1000,ocp=1",
                           "m=256,n=256,k=256"};

void add_mx(std::vector<Variant>& all) {
  using V = kernels::mx::Version;
  all.push_back(entry("mx", V::peer_cublas_bf16_gemm, "peer:cublas_bf16_gemm", 0, 80,
                      "cuBLAS bf16 GEMM, fp32 accumulate: the accuracy MXFP8 is compared with",
                      {"m=4096,n=4096,k=4096", "m=2048,n=2048,k=2048"}, {"m=1,n=1,k=1", "m=97,n=131,k=67", "m=256,n=256,k=256"}));
  all.push_back(dispatch_entry("mx", V::dispatch, 89,
                      "sol::mx_quantize, both orientations through the public entry (v04)", kMxQuantBench,
                      kMxQuantTest));
  all.push_back(entry("mx", V::v01_rowwise_shared_code, "v01_rowwise_shared_code", 1, 70,
                      "rowwise 1×32 MXFP8, thread per block, every conversion through the shared host/device scalar code",
                      kMxQuantBench, kMxQuantTest));
  all.push_back(entry("mx", V::v02_rowwise, "v02_rowwise", 2, 89,
                      "32-row register tile, 8-byte loads, amax on bf16x2 + 3 shuffles, hardware cvt.rn.satfinite fp8x2",
                      kMxQuantBench, kMxQuantTest));
  all.push_back(entry("mx", V::v03_columnwise, "v03_columnwise", 3, 89,
                      "the same tile reduced down columns: a thread owns whole 32×1 blocks, no shuffles", kMxQuantBench,
                      kMxQuantTest));
  Variant both = entry("mx", V::v04_both, "v04_both", 4, 89,
                       "rowwise and columnwise from one read of X: 4.06 B per element instead of 6.06", kMxQuantBench,
                       kMxQuantTest);
  both.test_shapes.push_back(Shape::parse("rows=65537,cols=32772"));  // > 2^31 elements: 64-bit indexing, once
  all.push_back(std::move(both));
  all.push_back(entry("mx", V::v05_dequantize, "v05_dequantize", 5, 89,
                      "MXFP8 → bf16: fp8x2 → f16x2 → fp32 × 2^k → bf16x2 in hardware; NaN vectors via the shared code",
                      {"rows=16384,cols=16384", "rows=16384,cols=16384,colwise=1", "rows=4096,cols=4096"},
                      kMxDequantTest));
  all.push_back(entry("mx", V::v06_gemm_emulated, "v06_gemm_emulated", 6, 89,
                      "MXFP8-emulated GEMM: v02 A along k, v03 B along k, v05 both, cuBLAS bf16; rel_l2 = MXFP8's error",
                      kMxGemmBench, kMxGemmTest));
}
// ==== end mx =======================================================================================
#endif  // SOL_WITH_CUDA

// ==== fusion block (elementwise, layernorm, rmsnorm, softmax) ==================================
// ---- elementwise: sin²x + cos²x over n elements -----------------------------------------------
const Texts kSinCosBench = {"n=2^28", "n=2^20", "n=2^24", "n=2^26"};
const Texts kSinCosTest = {"n=1",       "n=2",      "n=3",     "n=17",   "n=4099",
                           "n=1000003", "n=1000003,offset_in=1,offset_out=1", "n=4099,offset_in=3,offset_out=3",
                           "n=77,offset_in=1", "n=1000003,offset_out=2"};

void add_elementwise(std::vector<Variant>& all) {
  using V = kernels::elementwise::Version;
  all.push_back(entry("elementwise", V::v01_eager5_fp32, "v01_eager5_fp32", 1, 70,
                      "sin²x + cos²x as eager PyTorch runs it: five kernels, intermediates through HBM (44 B/element)",
                      kSinCosBench, kSinCosTest));
  Variant fused = entry("elementwise", V::v02_fused_fp32, "v02_fused_fp32", 2, 70,
                        "the same chain as one kernel: one read, one write (8 B/element), accurate sincosf",
                        kSinCosBench, kSinCosTest);
  fused.test_shapes.push_back(Shape::parse("n=2147483659"));  // > 2^31 elements: 64-bit indexing, once
  all.push_back(std::move(fused));
  all.push_back(entry("elementwise", V::v03_fused_bf16, "v03_fused_bf16", 3, 80,
                      "the fused chain on bf16 storage (4 B/element), fp32 arithmetic", kSinCosBench, kSinCosTest));
}
#ifdef SOL_WITH_CUDA
// ---- gemm_bf16, gemm_fp16, gemm_fp8: C[m×n] bf16 = alpha·A[m×k]·B[n×k]ᵀ (TN) on tensor cores ------
const Texts kGemmBench = {"m=4096,n=4096,k=4096", "m=8192,n=8192,k=8192", "m=32768,n=4096,k=4096",
                          "m=1024,n=1024,k=1024", "m=1792,n=1792,k=1792", "m=2048,n=2048,k=2048",
                          "m=1023,n=1023,k=1023", "m=1793,n=1793,k=1793", "m=2049,n=2049,k=2049",
                          "m=4095,n=4095,k=4095", "m=4097,n=4097,k=4097", "m=8193,n=8193,k=8193"};
const Texts kGemmTest = {"m=1,n=1,k=1",       "m=1,n=1,k=17",        "m=17,n=13,k=9",
                         "m=31,n=37,k=41",    "m=127,n=129,k=131",   "m=4097,n=65,k=33",
                         "m=1793,n=1793,k=1793", "m=64,n=64,k=64,lda=72", "m=256,n=256,k=256",
                         "m=700,n=1300,k=300",  // v08 takes 128×128 tiles here, 128×256 at 1793³
                         // C pitches wider than n (the gap must stay untouched): TMA cannot address
                         // the first two; in the third the pitch is TMA's but a row ends mid-chunk;
                         // at n=300 a 256-wide tile's second half lies past C's last column
                         "m=300,n=300,k=64,ldc=302", "m=129,n=515,k=72,ldc=517", "m=130,n=301,k=64,ldc=304",
                         // too few tiles for one wave, where v08 splits k over a cluster: 4 ways with a
                         // ragged last k-tile; 8 uneven ways over packed operands into an odd pitch; 8
                         // ways into a wider pitch; 2 ways (fp8, 128-element k-tiles: unsplit, 8, 8
                         // and unsplit)
                         "m=130,n=300,k=1500", "m=257,n=513,k=4097", "m=64,n=2048,k=8192,ldc=2056",
                         "m=512,n=4096,k=8000",
                         // pointers into the middle of a tensor: C mid-pair with an even pitch (bf16x2
                         // stores would be misaligned); A packed from an odd base, k split 4 ways into
                         // an odd C
                         "m=130,n=300,k=64,ldc=302,offset_c=1", "m=257,n=513,k=1500,offset_a=3,offset_c=5"};
// v08 with its tile forced (gemm_rungs::kTileNKey): the 128×64 tile through TMA-stored C (256²),
// C stored by rows (n = 129, an odd pitch), element by element (C mid-pair), packed operands from an
// odd base, n just past one tile, and a persistent walk of 435 tiles; the other widths forced where
// the rule would not take them.
const Texts kGemmV08Test = {"m=1,n=1,k=1,tile_n=64",          "m=127,n=129,k=131,tile_n=64",
                            "m=256,n=256,k=256,tile_n=64",    "m=300,n=300,k=64,ldc=302,tile_n=64",
                            "m=130,n=300,k=64,ldc=302,offset_c=1,tile_n=64",
                            "m=257,n=513,k=1500,offset_a=3,offset_c=5,tile_n=64",
                            "m=4097,n=65,k=33,tile_n=64",     "m=1793,n=1793,k=257,tile_n=64",
                            "m=700,n=1300,k=300,tile_n=256",  "m=1793,n=1793,k=257,tile_n=128"};

// ---- the decode rungs of gemm_bf16 and gemm_fp16 (kernels/gemm/gemv): m ≤ 64 --------------------
// Bench: decode shapes of the model set (Llama-3 8B's layers at 1 and 8 tokens, its LM head, GPT-2's
// 768-wide layer); `--model-shapes` runs them all. Tests: m 1 … 64 against odd, prime and tiny n, k,
// split k, misaligned pitches, beta, every C type; tb=0 shapes are v11's, det=1 checks the bits.
const Texts kGemvBench = {"m=1,n=4096,k=4096",  "m=1,n=6144,k=4096",  "m=1,n=28672,k=4096", "m=1,n=4096,k=14336",
                          "m=1,n=128256,k=4096", "m=1,n=768,k=768",    "m=8,n=6144,k=4096",  "m=8,n=4096,k=14336",
                          "m=16,n=4096,k=4096", "m=32,n=6144,k=4096", "m=64,n=4096,k=4096", "m=64,n=28672,k=4096"};
const Texts kGemvTest = {
    "m=1,n=1,k=1",          "m=1,n=1,k=17",          "m=2,n=3,k=5",            "m=3,n=37,k=41",
    "m=7,n=127,k=129",      "m=8,n=64,k=64",         "m=9,n=257,k=1000",       "m=16,n=100,k=4097",
    "m=17,n=33,k=31",       "m=31,n=65,k=333",       "m=64,n=129,k=511",       "m=64,n=100,k=8191",
    "m=1,n=4096,k=14336",   "m=3,n=14336,k=4096,det=1", "m=8,n=4096,k=14336,det=1", "m=64,n=4096,k=4096,det=1",
    "m=3,n=61,k=67,lda=69,ldb=71,ldc=63", "m=17,n=1000,k=1003,lda=1005,ldb=1009,ldc=1001",
    "m=7,n=300,k=200,beta=1", "m=9,n=77,k=555,c16=1", "m=2,n=300,k=4100,c32=1,beta=1", "m=33,n=200,k=100,c32=1",
    "m=1,n=5,k=3,tb=0",     "m=3,n=37,k=41,tb=0",    "m=9,n=257,k=1000,tb=0",  "m=64,n=129,k=511,tb=0",
    "m=1,n=4096,k=14336,tb=0", "m=8,n=14336,k=4096,tb=0,det=1", "m=5,n=1001,k=67,lda=69,ldb=1003,ldc=1005,tb=0",
    "m=17,n=300,k=200,tb=0,beta=1,c16=1", "m=2,n=255,k=4100,tb=0,c32=1,beta=1", "m=64,n=8,k=9000,tb=0",
    "m=33,n=4097,k=4099",   "m=16,n=1000,k=12289,lda=12291,ldb=12293,ldc=1003", "m=24,n=385,k=2049,det=1,beta=1",
    "m=64,n=257,k=20011,c32=1",
    // TMA-aligned pitches (v14's own path): ragged n and k chunks, k below one chunk, wide pitches.
    "m=5,n=300,k=1000,beta=1", "m=17,n=1000,k=1032,c32=1", "m=33,n=4097,k=4104", "m=64,n=257,k=2056,ldb=2064",
    "m=12,n=129,k=8",       "m=1,n=1,k=8",           "m=1,n=77,k=104",         "m=3,n=200,k=72,lda=80,ldb=88,ldc=201",
    "m=16,n=4096,k=4096,det=1", "m=1,n=14336,k=4096"};

void add_gemv(std::vector<Variant>& all, const char* family, bool fp16) {
  using kernels::gemm::gemv::Rung;
  const struct {
    Rung rung;
    int version;
    const char* technique;
  } rungs[] = {
      {Rung::v09_warp_dot, 9,
       "decode m ≤ 8, W n×k: a warp per 2 columns streams 16-byte loads (128 B per lane in flight), "
       "shuffle sum, deterministic split k"},
      {Rung::v10_mma_swapped, 10,
       "decode m ≤ 64, W n×k: Cᵀ = W·Aᵀ on mma.sync m16n8k16 (N the 16-row side), fragments straight from "
       "global in a k order both operands share"},
      {Rung::v11_n_contiguous, 11,
       "decode m ≤ 64, W k×n: a lane per 8 consecutive columns walks k, 4 warps split k and sum in order"},
      {Rung::v12_cluster_split_k, 12,
       "decode m ≤ 64, W n×k: v10's swapped mma.sync with the tokens staged once a CTA in shared memory; "
       "k split over a thread-block cluster, partials summed through distributed shared memory in rank order"},
      {Rung::v13_cluster_prefetch, 13,
       "decode m ≤ 64, W n×k: v12 with two half-size chunks of W in registers, the next one's loads in flight "
       "while this one's MMAs run"},
      {Rung::v14_tma_ring, 14,
       "decode m ≤ 64, W n×k: a producer warp streams W and the tokens by TMA through a ring of shared-memory "
       "stages, 8 consumer warps on ldmatrix + mma.sync, k split over a cluster and summed on chip; two CTAs "
       "an SM at m ≤ 16"},
  };
  for (const auto& r : rungs) {
    Variant x = entry(family, kernels::gemm::gemv::Version{fp16, r.rung}, kernels::gemm::gemv::rung_name(r.rung),
                      r.version, kernels::gemm::gemv::min_cc(r.rung), r.technique, kGemvBench, kGemvTest);
    // Each rung benches and tests the layout and m it serves (v11: the tb=0 form of the bench shapes).
    if (r.rung == Rung::v11_n_contiguous)
      for (Shape& s : x.bench_shapes) s.dims.emplace_back("tb", 0);
    for (auto* shapes : {&x.bench_shapes, &x.test_shapes})
      std::erase_if(*shapes, [&](const Shape& s) { return !x.unsupported(s).empty(); });
    all.push_back(std::move(x));
  }
}

// Every rung (sol/gemm_rungs.hpp) serves the three input types; v03 onwards need sm_90a (wgmma, TMA).
void add_gemm_tc(std::vector<Variant>& all) {
  using kernels::gemm::tc::InType;
  using R = kernels::gemm::tc::Rung;
  using V = kernels::gemm::tc::Version;
  const struct {
    const char* family;
    InType in;
    int min_cc;  // e4m3 mma.sync and cuBLASLt fp8: sm_89
  } families[] = {{"gemm_bf16", InType::bf16, 80}, {"gemm_fp16", InType::fp16, 80}, {"gemm_fp8", InType::fp8_e4m3, 89}};
  for (const auto& f : families) {
    Variant peer = entry(f.family, V{f.in, R::peer_cublaslt}, "peer:cublasLt", 0, f.min_cc,
                         "cublasLtMatmul, TN, fp32 compute, bf16 out, heuristic's best algorithm", kGemmBench, kGemmTest);
    // cuBLASLt's fp8 kernels need k % 16 == 0 and 16-byte pitches: bench and test it where it runs.
    for (auto* shapes : {&peer.bench_shapes, &peer.test_shapes})
      std::erase_if(*shapes, [&](const Shape& s) { return !peer.unsupported(s).empty(); });
    all.push_back(std::move(peer));
    all.push_back(dispatch_entry(f.family, V{f.in, R::dispatch}, f.min_cc,
                        "sol::matmul (the public API): the rung or cuBLASLt its measured table picks per shape",
                        kGemmBench, kGemmTest));
    for (size_t i = 0; i < std::size(gemm_rungs::kRungs); ++i) {
      const gemm_rungs::Rung& r = gemm_rungs::kRungs[i];
      Variant x = entry(f.family, V{f.in, kernels::gemm::tc::rung_at(int(i))}, std::string(r.name).c_str(), r.version,
                        f.min_cc, std::string(r.technique).c_str(), kGemmBench, kGemmTest);
      if (r.name == "v08_tile_choice")
        for (const Shape& s : shapes(kGemmV08Test)) x.test_shapes.push_back(s);
      all.push_back(r.sm90a ? sm90a_only(std::move(x)) : std::move(x));
    }
    if (f.in != InType::fp8_e4m3) add_gemv(all, f.family, f.in == InType::fp16);
  }
}

#endif  // SOL_WITH_CUDA

// ---- layernorm, rmsnorm, softmax: rows × cols, normalized over cols -----------------------------
// The grid, then a hidden size that is no power of two and qk-norm's rows of one head.
const Texts kRowBench = {"rows=32768,cols=4096", "rows=4096,cols=65536", "rows=65536,cols=1024",
                         "rows=16384,cols=5120", "rows=1048576,cols=128"};
const Texts kRowTest = {"rows=1,cols=1",      "rows=3,cols=2",       "rows=5,cols=7",        "rows=37,cols=1",
                        "rows=31,cols=33",    "rows=129,cols=127",   "rows=7,cols=1000",     "rows=17,cols=1023",
                        "rows=9,cols=1024",   "rows=13,cols=1032",   "rows=11,cols=4096",    "rows=3,cols=4099",
                        "rows=5,cols=8192",   "rows=3,cols=16384",   "rows=2,cols=32768",    "rows=3,cols=65536",
                        "rows=2,cols=65521",  "rows=1000,cols=96",   "rows=257,cols=4096,scale=30",
                        // the register kernel's lane groups with a warp's last rows missing, and its
                        // blocks of whole warps at hidden sizes that are no power of two
                        "rows=37,cols=128",   "rows=77,cols=256",    "rows=5,cols=8",        "rows=33,cols=64",
                        "rows=19,cols=5120",  "rows=3,cols=40960"};
const Texts kSoftmaxExtra = {"rows=31,cols=33,scale=30,mask=1", "rows=9,cols=4096,scale=30,mask=1",
                             "rows=7,cols=1000,mask=1",          "rows=6,cols=65536,scale=30,mask=1",
                             "rows=4,cols=1,mask=1",             "rows=5,cols=4099,scale=30,mask=1",
                             // vocabulary-sized rows (logits): past the register and cluster paths
                             "rows=3,cols=151936",               "rows=2,cols=152064,mask=1",
                             "rows=3,cols=100003,scale=30"};
// Vocabulary rows at every length the cluster rungs split differently (1 … 8 slices, 16-byte packs
// or single elements): the model set's vocabularies, 2^18 and one past it, a prime, 2^16 + 1.
const Texts kSoftmaxLong = {"rows=2,cols=262144", "rows=3,cols=262145,scale=30", "rows=5,cols=128256",
                            "rows=4,cols=50257",  "rows=3,cols=32000",           "rows=2,cols=65537,mask=1",
                            "rows=3,cols=131071", "rows=1,cols=1025",            "rows=300,cols=70001"};
// The norms' fused residual add (s = x + res normalized, s written): lane groups, whole-warp
// blocks, the 8-vector block, unaligned rows (the looped kernel), tiny ones; benched at a
// prefill's tokens × two hidden sizes.
const Texts kResidualTest = {"rows=37,cols=128,residual=1", "rows=19,cols=5120,residual=1", "rows=3,cols=4099,residual=1",
                             "rows=5,cols=7,residual=1",    "rows=2,cols=65536,residual=1", "rows=1000,cols=96,residual=1",
                             "rows=2,cols=65521,residual=1"};
const Texts kResidualBench = {"rows=16384,cols=4096,residual=1", "rows=16384,cols=5120,residual=1"};
// The norms' e4m3 codes of y (fp8=1 beside y, checked bit for bit against the y written; fp8=2 in
// its place) on every path that writes them: lane groups, whole-warp blocks, the 8-vector block,
// the looped kernel's vectors (past the registers) and its single elements (unaligned rows), tiny
// rows, the residual add; the dispatcher benched as a decoder layer runs it before an fp8 GEMM (one
// shape: the default report keeps to its time). The eager rung (v01) writes no codes.
const Texts kFp8Test = {"rows=37,cols=128,fp8=1",  "rows=19,cols=5120,fp8=1",  "rows=3,cols=4099,fp8=1",
                        "rows=5,cols=7,fp8=2",     "rows=2,cols=65536,fp8=1",  "rows=2,cols=70000,fp8=1",
                        "rows=1000,cols=96,fp8=2", "rows=33,cols=4096,residual=1,fp8=2", "rows=7,cols=4099,residual=1,fp8=1"};
const Texts kFp8Bench = {"rows=16384,cols=5120,residual=1,fp8=2"};
// Benched where rows are long: tokens × vocabulary (docs/model-shapes.md's softmax rows).
const Texts kSoftmaxLongBench = {"rows=4096,cols=151936", "rows=4096,cols=32000",  "rows=4096,cols=50257",
                                 "rows=4096,cols=128256", "rows=4096,cols=262144", "rows=16384,cols=151936"};
// The dispatch entry of each row family: its Case calls the public API (sol/kernels.hpp).
const char* kRowDispatch = "the public API (sol/kernels.hpp): its dispatcher picks the rung per shape, dtype and pitch";

void add_rows(std::vector<Variant>& all) {
  using V = kernels::rows::Version;
  struct Rung {
    V v;
    const char* name;
    int version;
    const char* technique;
  };
  const struct {
    const char* family;
    Rung rungs[4];
  } families[] = {
      {"layernorm",
       {{V::ln_v01_eager, "v01_eager_bf16", 1, "the lecture's passes: mean | center+var | normalize | affine (14 B/element)"},
        {V::ln_v02_looped, "v02_two_read_bf16", 2, "one kernel: shifted sums in one read, a second read (L2) to write"},
        {V::ln_v03_registers, "v03_one_read_bf16", 3,
         "one read: row in registers, four 16-byte vectors a thread (lanes of a warp per row to 1024 cols, a block "
         "of whole warps with a two-level reduction beyond)"},
        {V::ln_v04_registers_fp32, "v04_one_read_fp32", 4, "v03 on fp32 input and output"}}},
      {"rmsnorm",
       {{V::rms_v01_eager, "v01_eager_bf16", 1, "the lecture's passes: x² | mean → rstd | scale | ·γ"},
        {V::rms_v02_looped, "v02_two_read_bf16", 2, "one kernel: Σx² in one read, a second read (L2) to write"},
        {V::rms_v03_registers, "v03_one_read_bf16", 3, "one read: row in registers, as layernorm v03"},
        {V::rms_v04_registers_fp32, "v04_one_read_fp32", 4, "v03 on fp32 input and output"}}},
      {"softmax",
       {{V::sm_v01_eager, "v01_eager_bf16", 1, "naive passes: max | exp(x − max) | 1/Σ | multiply"},
        {V::sm_v02_online, "v02_online_bf16", 2, "online softmax: running max and sum in one read, a second to write"},
        {V::sm_v03_registers, "v03_one_pass_bf16", 3, "single pass for rows on chip: row in registers, max then Σexp"},
        {V::sm_v04_registers_fp32, "v04_one_pass_fp32", 4, "v03 on fp32 input and output"}}},
  };
  const V dispatch[] = {V::ln_dispatch, V::rms_dispatch, V::sm_dispatch};
  for (int f = 0; f < 3; ++f) {
    // The public entry first (version 0, as every family's dispatch entry), then the ladder.
    std::vector<Variant> xs = {dispatch_entry(families[f].family, dispatch[f], 80, kRowDispatch, kRowBench, kRowTest)};
    for (const Rung& r : families[f].rungs)
      xs.push_back(entry(families[f].family, r.v, r.name, r.version, 80, r.technique, kRowBench, kRowTest));
    if (f == 2) {  // softmax's cluster rungs (sm_90 clusters; a 1-CTA slice below)
      const char* cluster = "v03 where the row fits the registers; longer or unaligned rows split over a cluster, "
                            "slices in shared memory, (max, Σ) through DSMEM: one read, one write";
      xs.push_back(entry("softmax", V::sm_v05_cluster, "v05_cluster_bf16", 5, 80, cluster, kRowBench, kRowTest));
      xs.push_back(entry("softmax", V::sm_v06_cluster_fp32, "v06_cluster_fp32", 6, 80, "v05 on fp32 input and output",
                         kRowBench, kRowTest));
    }
    for (Variant& x : xs) {
      if (f < 2) {
        for (const char* t : kResidualTest) x.test_shapes.push_back(Shape::parse(t));
        for (const char* t : kResidualBench) x.bench_shapes.push_back(Shape::parse(t));
        if (x.version != 1)
          for (const char* t : kFp8Test) x.test_shapes.push_back(Shape::parse(t));
        if (x.version == 0)
          for (const char* t : kFp8Bench) x.bench_shapes.push_back(Shape::parse(t));
      }
      if (f == 2) {
        for (const char* t : kSoftmaxExtra) x.test_shapes.push_back(Shape::parse(t));
        for (const char* t : kSoftmaxLong) x.test_shapes.push_back(Shape::parse(t));
        // Benched at the long rows: the dispatcher, v02 (the looped path such rows took before the
        // cluster rungs) and v05/v06; v01's passes and the register rungs (looped there) are not.
        if (x.version != 1 && x.version != 3 && x.version != 4)
          for (const char* t : kSoftmaxLongBench) x.bench_shapes.push_back(Shape::parse(t));
      }
      all.push_back(std::move(x));
    }
  }
}
// ---- layernorm_bwd, rmsnorm_bwd, softmax_bwd: dx (and dγ, dβ) from x or y, dy ------------------
// Beyond the forward's test shapes: persistent blocks walking several rows (rows ≫ parts), lane
// groups of every width (16-bit: 16 → 1 lane, 64 → 2, 128 → 4, 256 → 8, 512 → 16, 520 → 32 with a
// partial last pack round) at row counts that leave a block's groups uneven, and cluster-split
// rows (cols > 8192 bf16) walking several rows (the exchange's double buffer).
const Texts kRowBwdTest = {"rows=333,cols=16",   "rows=2049,cols=64",   "rows=1037,cols=128",  "rows=1001,cols=256",
                           "rows=4097,cols=512", "rows=77,cols=520",
                           "rows=1,cols=1",      "rows=7,cols=3",       "rows=1025,cols=1",    "rows=5,cols=7",
                           "rows=31,cols=33",    "rows=129,cols=127",   "rows=7,cols=1000",    "rows=17,cols=1023",
                           "rows=1025,cols=96",  "rows=9,cols=1024",    "rows=13,cols=1032",   "rows=11,cols=4096",
                           "rows=3,cols=4099",   "rows=5,cols=8192",    "rows=3,cols=16384",   "rows=2,cols=32768",
                           "rows=3,cols=65536",  "rows=2,cols=65521",   "rows=5000,cols=1024", "rows=3000,cols=4096",
                           "rows=700,cols=16384", "rows=300,cols=65536", "rows=257,cols=4096,scale=30",
                           // past a cluster's 65536 columns: the looped kernel, parts walking several rows
                           "rows=300,cols=70000", "rows=3,cols=70001"};

void add_rows_bwd(std::vector<Variant>& all) {
  using V = kernels::rows_bwd::Version;
  const char* families[] = {"layernorm_bwd", "rmsnorm_bwd", "softmax_bwd"};
  const char* eager[] = {"eager backward: g = dy·γ | x̂ | g·x̂ | mean g | mean g·x̂ | dx | dy·x̂ | Σ_rows ×2 (34 B/element)",
                         "eager backward: g = dy·γ | x̂ | g·x̂ | mean g·x̂ | dx | dy·x̂ | Σ_rows (30 B/element)",
                         "eager backward: t = dy·y | Σ t | dx = y·(dy − Σ) (14 B/element)"};
  const char* one_read = "one read: x|y and dy in registers, both row sums in one sweep, dx written; rows > 8192 bf16 "
                         "split over a cluster (DSMEM sums), > 65536 looped (16-bit softmax: > 262144); dγ/dβ as "
                         "per-block partials + fixed-order column sum";
  for (int f = 0; f < 3; ++f) {
    const V v01 = V(3 * f), v02 = V(3 * f + 1), v03 = V(3 * f + 2);
    Variant rungs[] = {dispatch_entry(families[f], V(int(V::ln_dispatch) + f), 90, kRowDispatch, kRowBench, kRowBwdTest),
                       entry(families[f], v01, "v01_eager_bf16", 1, 90, eager[f], kRowBench, kRowBwdTest),
                       entry(families[f], v02, "v02_one_read_bf16", 2, 90, one_read, kRowBench, kRowBwdTest),
                       entry(families[f], v03, "v03_one_read_fp32", 3, 90, "v02 on fp32 input and output", kRowBench,
                             kRowBwdTest)};
    for (Variant& x : rungs) {
      if (f == 2) {  // softmax: the forward's extra and vocabulary rows; 16-bit ones stay one read to 2^18
        for (const char* t : kSoftmaxExtra) x.test_shapes.push_back(Shape::parse(t));
        for (const char* t : kSoftmaxLong) x.test_shapes.push_back(Shape::parse(t));
        if (x.version != 1)
          for (const char* t : kSoftmaxLongBench) x.bench_shapes.push_back(Shape::parse(t));
      }
      all.push_back(std::move(x));
    }
  }
}
// ==== end of fusion block =======================================================================

// ---- crossentropy: rows × vocab logits → per-row loss, reduced loss, dlogits --------------------
// Bench: tokens × the model set's vocabularies (docs/model-shapes.md). Tests: tiny, prime, odd and
// misaligned vocabularies, 2^18 and one past it, ignored rows (all of them, too), smoothing, sum,
// int32 labels, peaked logits, many rows; past what a cluster holds (v01 and the dispatcher only).
const Texts kCeBench = {"rows=4096,vocab=151936",  "rows=4096,vocab=32000",  "rows=4096,vocab=50257",
                        "rows=4096,vocab=128256",  "rows=4096,vocab=262144", "rows=16384,vocab=151936",
                        "rows=16384,vocab=128256,smooth=100"};
const Texts kCeTest = {"rows=1,vocab=1",           "rows=3,vocab=3",          "rows=1,vocab=151936",
                       "rows=2,vocab=262144",      "rows=3,vocab=262145",     "rows=37,vocab=1000,ignore=3",
                       "rows=5,vocab=50257,smooth=100", "rows=7,vocab=32000,sum=1", "rows=9,vocab=4099,i32=1,ignore=2",
                       "rows=4,vocab=128256,scale=30,smooth=50", "rows=1,vocab=17,ignore=1", "rows=3,vocab=17,ignore=1,sum=1",
                       "rows=1000,vocab=96,smooth=1000", "rows=300,vocab=70001,ignore=5", "rows=2,vocab=65537,i32=1",
                       "rows=31,vocab=33,sum=1,smooth=10", "rows=2,vocab=786433"};

void add_crossentropy(std::vector<Variant>& all) {
  using V = kernels::crossentropy::Version;
  const char* f = "crossentropy";
  all.push_back(dispatch_entry(f, V::dispatch, 80,
                               "sol::cross_entropy (the public API): the one-read rung where a row fits a cluster, the "
                               "passes beyond",
                               kCeBench, kCeTest));
  all.push_back(entry(f, V::v01_passes, "v01_passes_bf16", 1, 80,
                      "the formulas as passes: max | Σexp, Σx → loss | dlogits (3 reads + 1 write of the logits)",
                      kCeBench, kCeTest));
  all.push_back(entry(f, V::v02_one_read, "v02_one_read_bf16", 2, 90,
                      "one read: the row over a cluster's shared memory, online logsumexp and Σx through DSMEM, "
                      "dlogits from shared memory",
                      kCeBench, kCeTest));
  all.push_back(entry(f, V::v03_one_read_fp32, "v03_one_read_fp32", 3, 90, "v02 on fp32 logits and dlogits", kCeBench,
                      kCeTest));
}

// ---- linear_ce: the LM head and its cross-entropy, forward and gradients -------------------------------
// Bench: a training step's tokens × hidden × the model set's vocabularies, the headline 16384 tokens of
// a Llama-3 8B head (4096 × 128256). Tests: tiny, odd and prime sizes, ignored rows, smoothing, chunks
// of a few rows (the rule's chunk is the whole of these rows).
const Texts kLceBench = {"rows=16384,hidden=4096,vocab=128256", "rows=8192,hidden=4096,vocab=128256",
                         "rows=4096,hidden=4096,vocab=128256",  "rows=16384,hidden=4096,vocab=151936",
                         "rows=16384,hidden=4096,vocab=50257",  "rows=16384,hidden=2048,vocab=32000"};
const Texts kLceTest = {"rows=1,hidden=64,vocab=7",          "rows=1,hidden=4096,vocab=1",
                        "rows=17,hidden=520,vocab=32000,ignore=3", "rows=1000,hidden=64,vocab=50257,smooth=100",
                        "rows=300,hidden=4096,vocab=7,chunk=7", "rows=17,hidden=520,vocab=50257,chunk=5,ignore=4,smooth=50"};

void add_linear_ce(std::vector<Variant>& all) {
  using V = kernels::linear_ce::Version;
  const char* f = "linear_ce";
  all.push_back(dispatch_entry(f, V::dispatch, 80,
                               "sol::linear_cross_entropy (the public API): chunks of rows, one chunk's logits at a "
                               "time in the workspace, dW accumulated over the chunks",
                               kLceBench, kLceTest));
  all.push_back(entry(f, V::v01_unfused, "v01_unfused", 1, 80,
                      "sol's entries one after another: sol::matmul into all rows × vocab logits, sol::cross_entropy "
                      "in place, sol::matmul for dh and for dW",
                      kLceBench, kLceTest));
}

// ==== gemm_fp32: the fp32 matrix-multiply ladder, C = 1.25·A·B + beta·C ===========
const Texts kSgemmBench = {"m=4096,n=4096,k=4096", "m=1024,n=1024,k=1024", "m=2048,n=2048,k=2048",
                           "m=8192,n=8192,k=8192", "m=1023,n=1023,k=1023", "m=1025,n=1025,k=1025",
                           "m=4097,n=4097,k=4097"};
const Texts kSgemmTest = {"m=1,n=1,k=1",         "m=1,n=4097,k=3",          "m=17,n=13,k=9",
                          "m=31,n=37,k=41",      "m=127,n=129,k=131",       "m=4097,n=65,k=33",
                          "m=1000,n=1000,k=1000", "m=256,n=256,k=256",      "m=200,n=300,k=1023",
                          "m=130,n=1021,k=64",   "m=1,n=1,k=1,beta=1",      "m=31,n=37,k=41,beta=1",
                          "m=127,n=129,k=131,beta=1", "m=1000,n=1000,k=1000,beta=1",
                          // v08's tiles (256×128, 128×256; BK 8, 16) plus one, and whole tiles with a short k
                          "m=257,n=129,k=17",    "m=129,n=260,k=47,beta=1", "m=512,n=512,k=40"};

void add_gemm_fp32(std::vector<Variant>& all) {
  using V = kernels::gemm::fp32::Version;
  const char* f = "gemm_fp32";
  // Rung names carry no dtype token, nor does the fp32 peer: the report pairs them; the _tf32 peer stays apart.
  all.push_back(entry(f, V::peer_cublas_sgemm, "peer:cublasSgemm", 0, 70,
                      "cuBLAS SGEMM, CUBLAS_DEFAULT_MATH set explicitly: true fp32, TF32 off", kSgemmBench, kSgemmTest));
  all.push_back(entry(f, V::peer_cublas_tf32, "peer:cublas_tf32", 0, 80,
                      "cuBLAS SGEMM with CUBLAS_TF32_TENSOR_OP_MATH: fp32 data on TF32 tensor cores", kSgemmBench,
                      {"m=1,n=1,k=1", "m=31,n=37,k=41", "m=1000,n=1000,k=1000", "m=127,n=129,k=131,beta=1"}));
  all.push_back(dispatch_entry(f, V::dispatch, 70,
                      "sol::matmul (the public API), f32 NN: the implementation its measured table picks", kSgemmBench,
                      kSgemmTest));
  const Texts kSmallBench = {"m=4096,n=4096,k=4096", "m=1024,n=1024,k=1024", "m=2048,n=2048,k=2048",
                             "m=1023,n=1023,k=1023", "m=1025,n=1025,k=1025", "m=4097,n=4097,k=4097"};
  // The ladder (sol/gemm_rungs.hpp); the untiled rungs skip the 8192³ shape.
  for (size_t i = 0; i < std::size(gemm_rungs::kFp32Rungs); ++i) {
    const gemm_rungs::Fp32Rung& r = gemm_rungs::kFp32Rungs[i];
    all.push_back(entry(f, kernels::gemm::fp32::rung_at(int(i)), std::string(r.name).c_str(), r.version, r.min_cc,
                        std::string(r.technique).c_str(), r.tile_k == 0 ? kSmallBench : kSgemmBench, kSgemmTest));
  }
}
// ==== end gemm_fp32 ================================================================================


}  // namespace

const std::vector<Variant>& registry() {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
    add_copy(v);
    add_coalescing(v);
    add_precision(v);
    add_divergence(v);
    add_banks(v);
#ifdef SOL_WITH_CUDA
    add_mx(v);
#endif
    add_elementwise(v);  // fusion block
    add_rows(v);         // fusion block
    add_gemm_fp32(v);
#ifdef SOL_WITH_CUDA
    add_gemm_tc(v);
#endif
    add_rows_bwd(v);     // fusion block (backward)
    add_crossentropy(v);
    add_linear_ce(v);
#ifdef SOL_WITH_CUDA
    add_attention(v);
#endif
    return v;
  }();
  return all;
}

namespace {
// " (did you mean 'x'?)" for the candidate closest to what, when it is close enough to be a typo.
// Names are compared up to their first '_' (a version prefix such as "v04" matches "v04_flash_wgmma").
std::string name_hint(const std::string& what, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_d = 0;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(what, c.substr(0, std::max(what.size(), c.find('_'))));
    if (!best || d < best_d) best = &c, best_d = d;
  }
  if (!best || best_d > std::max<size_t>(2, what.size() / 3)) return {};
  return " (did you mean '" + *best + "'?)";
}
}  // namespace

std::vector<const Variant*> select(const std::vector<Variant>& from, const std::string& pattern) {
  const auto slash = pattern.find('/');
  if (slash != std::string::npos && pattern.find(',', slash) != std::string::npos) {
    // "family/a,b,c": every variant any of the names selects, once each, in registry order.
    std::vector<const Variant*> chosen;
    const std::string names = pattern.substr(slash + 1) + ",";
    for (size_t at = 0, comma; (comma = names.find(',', at)) != std::string::npos; at = comma + 1) {
      if (comma == at) bad_input("an empty variant name in '" + pattern + "'", "list names as FAMILY/A,B,C");
      for (const Variant* v : select(from, pattern.substr(0, slash + 1) + names.substr(at, comma - at)))
        if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) chosen.push_back(v);
    }
    std::sort(chosen.begin(), chosen.end());  // `from` is one vector: address order is registry order
    return chosen;
  }
  const std::string family = pattern.substr(0, slash);
  const std::string name = slash == std::string::npos ? "" : pattern.substr(slash + 1);
  std::vector<const Variant*> in_family, exact, prefixed;
  for (const auto& v : from) {
    if (!pattern.empty() && v.family != family) continue;
    in_family.push_back(&v);
    if (v.name == name) exact.push_back(&v);
    if (v.name.rfind(name, 0) == 0) prefixed.push_back(&v);
  }
  if (!exact.empty()) return exact;
  if (!prefixed.empty()) return prefixed;
  std::vector<std::string> families;
  for (const auto& v : from)
    if (std::find(families.begin(), families.end(), v.family) == families.end()) families.push_back(v.family);
  std::string list;
  for (const auto& f : families) list += (list.empty() ? "" : ", ") + f;
  if (in_family.empty())
    bad_input("no family '" + family + "' in this build's registry" + name_hint(family, families),
              "give FAMILY or FAMILY/VARIANT; families: " + (list.empty() ? "none" : list) +
                  (built_with_cuda() ? "" : "; some are described only in a build with CUDA"));
  std::vector<std::string> names;
  for (const Variant* v : in_family) names.push_back(v->name);
  std::string variants;
  for (const auto& n : names) variants += (variants.empty() ? "" : ", ") + n;
  bad_input("no variant of " + family + " starts with '" + name + "'" + name_hint(name, names),
            family + " has " + variants);
}

std::vector<const Variant*> select(const std::string& pattern) { return select(registry(), pattern); }

std::string Variant::cc_refusal(int cc) const {
  const auto text = [](int c) { return std::to_string(c / 10) + "." + std::to_string(c % 10); };
  if (cc < min_cc) return "needs compute capability " + text(min_cc) + ", this GPU has " + text(cc);
  if (max_cc > 0 && cc > max_cc)
    return "built for compute capability " + text(max_cc) + " alone (sm_" + std::to_string(max_cc) +
           "a), this GPU has " + text(cc);
  return "";
}

namespace {
// The attention rungs are registered only where their case.cu is compiled; their cost (spec.cpp)
// is host C++ in every build, so a host build still knows how each runs.
std::optional<model::Cost> attention_cost(const std::string& family, const std::string& variant, const Shape& s) {
  using V = kernels::attention::Version;
  using B = kernels::attention::BwdVersion;
  static const std::pair<const char*, V> fwd[] = {{"v01_standard", V::v01_standard},
                                                  {"v02_flash_mma", V::v02_flash_mma},
                                                  {"v03_flash_mma_128", V::v03_flash_mma_128},
                                                  {"v04_flash_wgmma", V::v04_flash_wgmma},
                                                  {"v05_flash_wgmma_overlap", V::v05_flash_wgmma_overlap},
                                                  {"v06_split_kv_decode", V::v06_split_kv_decode}};
  static const std::pair<const char*, B> bwd[] = {{"v01_flash_bwd", B::v01_flash_bwd},
                                                  {"v02_flash_bwd_8warp", B::v02_flash_bwd_8warp},
                                                  {"v03_flash_bwd_wgmma", B::v03_flash_bwd_wgmma},
                                                  {"v04_flash_bwd_2wg", B::v04_flash_bwd_2wg}};
  if (family == "attention")
    for (const auto& [name, v] : fwd)
      if (variant == name) return kernels::attention::cost(v, s);
  if (family == "attention_bwd")
    for (const auto& [name, v] : bwd)
      if (variant == name) return kernels::attention::cost(v, s);
  return std::nullopt;
}
}  // namespace

std::optional<model::Cost> declared_cost(const std::string& family, const std::string& variant, const Shape& shape) {
  try {
    std::optional<model::Cost> c;
    for (const Variant& v : registry())
      if (v.family == family && v.name == variant && v.unsupported(shape).empty()) c = v.cost(shape);
    if (!c) c = attention_cost(family, variant, shape);
    return c;
  } catch (const Error&) {
    return std::nullopt;  // a shape the variant's cost cannot read
  }
}

std::optional<model::Execution> declared_execution(const std::string& family, const std::string& variant,
                                                   const Shape& shape) {
  const std::optional<model::Cost> c = declared_cost(family, variant, shape);
  if (!c || !c->exec.declared) return std::nullopt;
  return c->exec;
}

#ifdef SOL_WITH_CUDA
bool built_with_cuda() { return true; }
#else
bool built_with_cuda() { return false; }
#endif

}  // namespace sol

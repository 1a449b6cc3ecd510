#pragma once
// The rungs of the GEMM ladders, each declared once: the tensor-core ladder (kernels/gemm/tc/:
// gemm_bf16, gemm_fp16, gemm_fp8) and the SGEMM ladder (kernels/gemm/fp32/: gemm_fp32). A rung's
// name, version, what it adds and the tile facts its kernel is built on are stated here; the
// registry's entries, the Version/Rung enums, the launchers' declarations and dispatch, the
// kernels' tile constants and the shape model's view of a rung (find, tile_choice) derive from it.
// Host-only and header-only: the host library, the kernels and the CUDA code read the same facts.
#include <cstdint>
#include <string>
#include <string_view>

namespace sol::gemm_rungs {

// How C leaves the CTA: stored from the accumulator registers, or staged in shared memory and
// written by TMA stores that overlap the next tile's math.
enum class Epilogue { registers, tma_store };

// The CTA tile of a rung: m × n outputs, k_bytes of k per stage (elements: k_bytes / element
// size), stages deep in shared memory, and CTAs resident per SM for 16-bit and 8-bit inputs.
struct Tile {
  int m, n, k_bytes, stages, ctas_16bit, ctas_8bit;
  constexpr int ctas_per_sm(int element_bytes) const { return element_bytes == 1 ? ctas_8bit : ctas_16bit; }
  constexpr int k_elems(int element_bytes) const { return k_bytes / element_bytes; }
};

// mma.sync rungs (kernels/gemm/tc/tile.cuh): 128×128, 64 bytes of k, 8 warps.
inline constexpr Tile kMmaSync{128, 128, 64, 1, 2, 1};
inline constexpr Tile kMmaSyncStaged{128, 128, 64, 4, 2, 1};
// The Hopper kernels (v03–v08, built on kernels/gemm/tc/hopper.cuh): two consumer warpgroups of
// 64 rows, one 128B swizzle row of k per stage, as many stages as fit in 227 KiB beside the C
// staging buffers.
inline constexpr Tile kHopperWide{128, 256, 128, 4, 1, 1};
inline constexpr Tile kHopperNarrow{128, 128, 128, 6, 1, 1};  // v08's alternative
// A third width (wgmma n = 64, 8 stages of 24 KiB): twice the wide tile's operand traffic per FLOP
// for four times its CTAs. v08 takes it only where a shape asks (kTileNKey) until its rule has
// measurements to weigh it by.
inline constexpr Tile kHopperSlim{128, 64, 128, 8, 1, 1};
// The Hopper tile of width n, or nullptr.
constexpr const Tile* hopper_tile(int n) {
  return n == kHopperWide.n ? &kHopperWide : n == kHopperNarrow.n ? &kHopperNarrow : n == kHopperSlim.n ? &kHopperSlim : nullptr;
}
// A GEMM shape's key that makes v08 run one tile width, one CTA a tile ("tile_n=64"), so that one
// run can time the widths side by side; absent, v08's rule picks (decomposition).
inline constexpr char kTileNKey[] = "tile_n";
// Why v08 cannot run tile_n=width, or "" where width is one of its tiles.
inline std::string tile_n_refusal(int64_t width) {
  if (hopper_tile(int(width))) return {};
  return std::string(kTileNKey) + "=" + std::to_string(width) + ": v08's tiles are " + std::to_string(kHopperSlim.n) +
         ", " + std::to_string(kHopperNarrow.n) + " or " + std::to_string(kHopperWide.n) + " wide";
}

// Where a rung stores C by TMA (Epilogue::tma_store), it can only where TMA can: a 16-byte aligned
// base and pitch, and rows of a whole number of 16-byte chunks (a TMA store writes whole chunks, so
// past column n of a row ending mid-chunk it would write into the caller's part of a wider pitch).
// This is the shape's half of that rule (C is bf16: 2 bytes an element); elsewhere the warps store C.
constexpr bool c_rows_tma_storable(int64_t n, int64_t ldc) { return (n * 2) % 16 == 0 && (ldc * 2) % 16 == 0; }

// X(name, version, sm90a, tile, pack_pitch_bytes, epilogue, technique), in ladder order.
// sm90a: wgmma/TMA code compiled for sm_90a alone; else the family's minimum (sm_80, fp8 sm_89).
// pack_pitch_bytes: an operand whose base or row pitch is not a multiple of it is first copied
// into an aligned workspace (0: unaligned rows are read in place).
#define SOL_GEMM_TC_RUNGS(X)                                                                                        \
  X(v01_mma_sync, 1, false, kMmaSync, 0, registers,                                                                 \
    "mma.sync (m16n8k16; e4m3 m16n8k32) fed by ldmatrix, 128×128 tile, one padded shared buffer")                   \
  X(v02_multistage, 2, false, kMmaSyncStaged, 16, registers,                                                        \
    "4-stage cp.async pipeline, XOR-swizzled shared memory, 16-byte epilogue stores")                               \
  X(v03_wgmma_tma, 3, true, kHopperWide, 128, registers,                                                            \
    "wgmma m64n256 fed by TMA into 128B-swizzled smem, 4 stages; a __syncthreads per k-tile")                       \
  X(v04_warp_specialized, 4, true, kHopperWide, 128, registers,                                                     \
    "a producer warpgroup issues TMA; consumers keep one wgmma group in flight (mbarriers)")                         \
  X(v05_persistent, 5, true, kHopperWide, 128, registers,                                                           \
    "one CTA per SM walks the tiles, 16 row tiles per column of B for L2 reuse")                                    \
  X(v06_cluster_multicast, 6, true, kHopperWide, 128, registers,                                                    \
    "clusters of 2 CTAs: each loads half of the shared B tile and TMA-multicasts it")                               \
  X(v07_tma_store, 7, true, kHopperWide, 128, tma_store,                                                            \
    "epilogue through swizzled smem and TMA stores, overlapping the next tile's wgmmas")                            \
  X(v08_tile_choice, 8, true, kHopperWide, 128, tma_store,                                                          \
    "v07 with a 128×256 or 128×128 tile (6 stages), whichever the wave count favours; where too few "              \
    "tiles for one wave, k split over a cluster of 2-8 CTAs, summed in rank order in distributed shared memory")

struct Rung {
  std::string_view name;
  int version;
  bool sm90a;
  Tile tile;
  int pack_pitch_bytes;
  Epilogue epilogue;
  std::string_view technique;
};

#define SOL_GEMM_TC_RUNG_FACTS(name, version, sm90a, tile, pack, epilogue, technique) \
  Rung{#name, version, sm90a, tile, pack, Epilogue::epilogue, technique},
inline constexpr Rung kRungs[] = {SOL_GEMM_TC_RUNGS(SOL_GEMM_TC_RUNG_FACTS)};
#undef SOL_GEMM_TC_RUNG_FACTS

// The rung named `name` ("v05_persistent"), or nullptr (a peer, the dispatcher, a typo).
constexpr const Rung* find(std::string_view name) {
  for (const Rung& r : kRungs)
    if (r.name == name) return &r;
  return nullptr;
}

// v08's choice: rounds of persistent CTAs (clusters of two along m, one CTA per SM) for each tile
// width, time ∝ rounds × tile work with 128-column tiles charged 10 % (a third more operand traffic
// per FLOP); the narrow tile where that is less.
inline constexpr double kNarrowTileCharge = 1.1;
constexpr int64_t rounds(int64_t m, int64_t n, int64_t tile_n, int sms) {
  const int64_t tiles_m = (m + kHopperWide.m - 1) / kHopperWide.m;
  const int64_t ctas = (tiles_m + 1) / 2 * 2 * ((n + tile_n - 1) / tile_n);
  const int64_t per_round = sms > 0 ? sms : 1;
  return (ctas + per_round - 1) / per_round;
}
constexpr bool takes_narrow_tile(int64_t m, int64_t n, int sms) {
  return double(rounds(m, n, kHopperNarrow.n, sms)) * double(kHopperNarrow.n) * kNarrowTileCharge <
         double(rounds(m, n, kHopperWide.n, sms)) * double(kHopperWide.n);
}
// The tile v08 runs for an m × n output on `sms` SMs.
constexpr Tile tile_choice(int64_t m, int64_t n, int sms) {
  return takes_narrow_tile(m, n, sms) ? kHopperNarrow : kHopperWide;
}

// v08's k split: S CTAs of a cluster (S = 2, 4 or 8; a cluster holds at most 8 portably) share
// one wide tile's k-tiles, each at least kMinSplitKTiles (so that its pipeline fills), where the
// tiles × S CTAs still fit one wave of `sms` SMs. It pays where the k-steps it saves on the
// critical path outweigh its fixed cost: the S fp32 partials summed across the cluster, and the
// wide tile's larger first stage and C tile than the narrow tile the unsplit kernel may take —
// the shape model's "split-k sum" and "fill" terms, 2.1 + 1.5 µs at an H200's ceilings against
// 0.77 µs for one k-step of the wide tile: kSplitCostKSteps. Unsplit, the critical path is the
// chosen tile's rounds × k-tiles, a narrow k-step half the wide one's work and charged as
// takes_narrow_tile charges it. S is the split of least cost, 1 where none beats the unsplit
// kernel; max_splits caps it (1: no split).
inline constexpr int kMinSplitKTiles = 4;
inline constexpr int kMaxSplitK = 8;
inline constexpr double kSplitCostKSteps = 5;
// A GEMM shape's key that caps v08's S for one measurement ("max_splits=1": one CTA a tile), so that
// one run can time the split beside the unsplit kernel; absent, S goes up to kMaxSplitK.
inline constexpr char kMaxSplitsKey[] = "max_splits";
// The critical path of v08 unsplit, in k-steps of the wide tile.
constexpr double unsplit_k_steps(int64_t m, int64_t n, int64_t k_tiles, int sms) {
  const bool narrow = takes_narrow_tile(m, n, sms);
  const Tile t = narrow ? kHopperNarrow : kHopperWide;
  return double(rounds(m, n, t.n, sms)) * double(k_tiles) * double(t.n) / double(kHopperWide.n) *
         (narrow ? kNarrowTileCharge : 1.0);
}
// The critical path of v08 with k split S ways: one round, the longest share, the fixed cost.
constexpr double split_k_steps(int64_t k_tiles, int s) {
  return double((k_tiles + s - 1) / s) + kSplitCostKSteps;
}
constexpr int split_k(int64_t m, int64_t n, int64_t k_tiles, int sms, int max_splits = kMaxSplitK) {
  const int64_t tiles = (m + kHopperWide.m - 1) / kHopperWide.m * ((n + kHopperWide.n - 1) / kHopperWide.n);
  int best = 1;
  double best_steps = unsplit_k_steps(m, n, k_tiles, sms);
  for (int s = 2; s <= max_splits && s <= kMaxSplitK && tiles * s <= sms && k_tiles >= s * kMinSplitKTiles; s *= 2)
    if (split_k_steps(k_tiles, s) < best_steps) {
      best = s;
      best_steps = split_k_steps(k_tiles, s);
    }
  return best;
}
// The k-tiles of the Hopper kernels (one k_bytes stage row each, both tiles) over k elements of
// element_bytes each.
constexpr int64_t hopper_k_tiles(int64_t k, int element_bytes) {
  return (k * element_bytes + kHopperWide.k_bytes - 1) / kHopperWide.k_bytes;
}
// v08's decomposition of an m × n output with k_tiles k-tiles (hopper_k_tiles): the wide tile with
// k split S ways where split_k finds a split that pays, else one CTA a tile, of the tile the wave
// count favours.
struct Decomposition {
  Tile tile;
  int splits;
};
// tile_n (a hopper_tile width) forces that tile, unsplit; 0 leaves the choice to the rule.
constexpr Decomposition decomposition(int64_t m, int64_t n, int64_t k_tiles, int sms, int max_splits = kMaxSplitK,
                                      int tile_n = 0) {
  if (const Tile* forced = tile_n > 0 ? hopper_tile(tile_n) : nullptr) return Decomposition{*forced, 1};
  const int s = split_k(m, n, k_tiles, sms, max_splits);
  return s > 1 ? Decomposition{kHopperWide, s} : Decomposition{tile_choice(m, n, sms), 1};
}

// The decode rungs (kernels/gemm/gemv: v09–v14, streams of W) serve m ≤ this many tokens: the
// decode regime, where FLOP/B ≈ m stays under the ridge. The dispatcher offers them there, and the
// shape model predicts its call there as the faster of a tiled GEMM and a stream of W.
inline constexpr int64_t kDecodeMaxM = 64;

// ---- the SGEMM ladder (gemm_fp32) ----------------------------------------------------------------
// X(name, version, min_cc, tile_m, tile_n, tile_k, stages, wavefronts, technique), in ladder
// order. The tile is a block's outputs (tile_m × tile_n) and the k depth of its shared-memory tile
// (0: v01, v02 read global memory only); stages: shared-memory buffers in flight (0: none).
// wavefronts: the L1 passes a warp's FMA waits on where its operands come one load per FMA (a
// global load takes one per distinct 128-byte line its lanes touch, a shared load one per bank
// pass): v01 reads A across 32 rows (32) and B as a broadcast (1); v02 and v03 read one operand as
// a broadcast and the other as one line or one conflict-free row (2). 0: register tiles, whose
// loads are amortized over many FMAs.
#define SOL_GEMM_FP32_RUNGS(X)                                                                                      \
  X(v01_naive, 1, 70, 32, 8, 0, 0, 33,                                                                              \
    "thread per output, lanes walk rows: A loads k·4 bytes apart (the §9 uncoalesced kernel)")                      \
  X(v02_coalesced, 2, 70, 8, 32, 0, 0, 2, "lanes walk columns: B and C coalesced, A broadcast")                     \
  X(v03_smem_tiled, 3, 70, 32, 32, 32, 1, 2, "the lecture's T=32 shared-memory tiles, both __syncthreads: 32× reuse") \
  X(v04_regblock_1d, 4, 70, 64, 64, 8, 1, 0, "64×64 tile, each thread a column of 8 results in registers")          \
  X(v05_regblock_2d, 5, 70, 128, 128, 8, 1, 0, "128×128 tile, each thread an 8×8 outer product in registers")       \
  X(v06_vectorized, 6, 70, 128, 128, 8, 1, 0,                                                                       \
    "float4 global loads and stores, A tile transposed in shared memory, float4 shared reads")                      \
  X(v07_warptile_cp_async, 7, 80, 128, 128, 8, 2, 0,                                                                \
    "64×32 warp tiles (conflict-free), double-buffered cp.async for B, swizzled transposed A, BK=8")                \
  X(v08_warptile_256x128, 8, 80, 256, 128, 16, 3, 0,                                                                \
    "256×128 tile, 64×64 warp tiles, 8×16 per thread, 3-stage cp.async (A transposed by 4-byte copies), BK=16")     \
  X(v08_warptile_128x256, 8, 80, 128, 256, 16, 4, 0,                                                                \
    "128×256 tile, 64×64 warp tiles, 8×16 per thread, 4-stage cp.async (A transposed by 4-byte copies), BK=16")

struct Fp32Rung {
  std::string_view name;
  int version;
  int min_cc;
  int tile_m, tile_n, tile_k, stages;
  int wavefronts_per_warp_fma;
  std::string_view technique;
};

#define SOL_GEMM_FP32_RUNG_FACTS(name, version, min_cc, tm, tn, tk, stages, wavefronts, technique) \
  Fp32Rung{#name, version, min_cc, tm, tn, tk, stages, wavefronts, technique},
inline constexpr Fp32Rung kFp32Rungs[] = {SOL_GEMM_FP32_RUNGS(SOL_GEMM_FP32_RUNG_FACTS)};
#undef SOL_GEMM_FP32_RUNG_FACTS

// The SGEMM rung named `name` ("v08_warptile_256x128"), or nullptr.
constexpr const Fp32Rung* find_fp32(std::string_view name) {
  for (const Fp32Rung& r : kFp32Rungs)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace sol::gemm_rungs

#pragma once
// GEMM shapes (lecture §0, §10): why 1792³ and 1793³ differ by far more than 0.2 % of the work.
// A tiled GEMM runs ⌈M/bm⌉·⌈N/bn⌉ output tiles, each ⌈K/bk⌉ steps deep, in waves over the SMs:
//   tile quantization   the padded tiles do work nobody asked for: M·N·K / (padded M·N·K)
//   wave quantization   the last wave leaves SMs idle: waves / ⌈waves⌉
//   alignment           a row pitch that is not a multiple of 16 bytes rules out 16-byte vector
//                       loads (and TMA, cp.async.16): loads narrow to the widest width the pitch
//                       allows, w, and the load path issues 16/w as many instructions. The model
//                       charges w/16; it is a bound (loads that overlap the MMAs cost less).
// predicted time = roofline floor ÷ (tile × wave × alignment efficiency).
#include <cstdint>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"
#include "sol/hw/spec.hpp"

namespace sol::model {

struct GemmTile {
  int64_t m = 128, n = 256, k = 64;
};
// "128x256x64" (also "128×256×64"); throws sol::Error (BadInput) otherwise.
GemmTile parse_tile(const std::string& text);
std::string tile_str(const GemmTile& t);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::bf16;
  GemmTile tile;
  int blocks_per_sm = 1;  // tiles resident per SM at once (a large-tile kernel: 1)
};

// The alignment of a row-major operand's row pitch (bytes between rows).
enum class AlignClass { B128, B16, Narrow };
std::string align_name(AlignClass a);  // "128 B", "16 B", "narrow"
struct OperandAlignment {
  std::string operand;   // "A (M×K)", "B (K×N)", "C (M×N)"
  int64_t pitch_bytes = 0;
  AlignClass cls = AlignClass::Narrow;
  int64_t vector_bytes = 0;  // widest load (≤ 16 B, power of two) the pitch keeps aligned
};

struct GemmEstimate {
  GemmShape shape;
  int64_t tiles_m = 0, tiles_n = 0, tiles_k = 0;
  int64_t tiles = 0;                 // output tiles = blocks
  int sms = 0;
  double waves = 0;
  int64_t full_waves = 0, last_wave_tiles = 0;
  double tile_efficiency = 0;        // useful / padded M·N·K
  double wave_efficiency = 0;
  std::vector<OperandAlignment> alignment;  // A, B, C
  int64_t vector_bytes = 0;          // the narrowest of the three
  double alignment_efficiency = 0;   // vector_bytes / 16
  double efficiency = 0;             // the product of the three
  double flops = 0;
  double floor_s = 0;                // roofline floor (datasheet peak, minimal traffic)
  std::string bound;                 // of the floor: "compute" | "memory"
  double predicted_s = 0;            // floor_s / efficiency
  double predicted_flops_per_s = 0;
  std::vector<std::string> derivation;
};

// Throws sol::Error (BadInput) for non-positive sizes or tiles, a chip without SMs or without a
// peak for the dtype, or blocks_per_sm < 1.
GemmEstimate gemm_estimate(const GemmShape& shape, const hw::HwSpec& hw);
// One estimate as the JSON `sol shapes --json` prints (and sol.model.shapes returns).
std::string gemm_estimate_json(const GemmEstimate& e);

// Square sizes from..to by step (to included), each estimated as gemm_estimate with m = n = k = size
// for the dimensions not fixed (fixed: a positive m/n/k in `base` keeps its value).
struct SweepRange {
  int64_t from = 0, to = 0, step = 0;
};
SweepRange parse_sweep(const std::string& text);  // "FROM:TO:STEP"; throws sol::Error (BadInput)
std::vector<GemmEstimate> gemm_sweep(const GemmShape& base, const SweepRange& r, const hw::HwSpec& hw);

}  // namespace sol::model

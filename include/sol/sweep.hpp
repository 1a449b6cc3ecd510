#pragma once
// The GEMM size sweep (lecture §0 and §10): which shapes `sol bench gemm --sweep` runs, which
// variants of each GEMM family it runs there, and what the shape model predicts for sol's own
// kernel at each shape. Host-only, so that the shape list, the variant choice and the predictions
// are tested without a GPU and the report renders a committed sweep on any machine.
//
// Shapes: square cubes N³ around the cliffs (multiples of 8 elements or not, whole waves or not),
// and for each family's tile four non-square shapes at k = 4096 whose tile count is exactly one or
// two waves of tiles on the chip's SMs, and one tile more (one SM busy for a whole extra round).
// Variants: every registry peer of the family plus its highest rung (the best sol kernel).
// Results: one file, family "gemm_sweep", whose records keep their own family (gemm_bf16, ...).
#include <cstdint>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/shapes.hpp"
#include "sol/registry.hpp"
#include "sol/results.hpp"

namespace sol::sweep {

// The results file's family name (bench/results/<gpu>/gemm_sweep.json).
inline constexpr const char* kFamily = "gemm_sweep";
// k of the non-square wave shapes.
inline constexpr int64_t kWaveK = 4096;

// How the sweep treats one GEMM family: the dtype and the tile of its best rung, for the model.
struct GemmFamily {
  std::string name;               // "gemm_bf16"
  DType dtype = DType::bf16;      // input type: the peak and the pitches in the model
  model::GemmTile tile;           // the best rung's block tile
  int blocks_per_sm = 1;          // tiles resident per SM at once
  bool packs_unaligned = false;   // the rung copies an operand whose pitch TMA cannot address
  int64_t max_cube = 16384;       // the largest cube swept
  std::string max_cube_why;       // why the sweep stops there (empty: the common end)
};
// gemm_fp32, gemm_bf16, gemm_fp16, gemm_fp8, in that order.
const std::vector<GemmFamily>& gemm_families();
// Throws sol::Error (BadInput) naming the known families.
const GemmFamily& gemm_family(const std::string& name);
// "gemm" → every family; a family name → that one; anything else throws sol::Error (BadInput).
std::vector<std::string> resolve(const std::string& pattern);

// The cube sizes N (m = n = k = N) of the sweep, ascending: 256 … 16384 with the cliff neighbours.
const std::vector<int64_t>& cube_sizes();

struct Point {
  int64_t m = 0, n = 0, k = 0;
  std::string kind;  // "cube" | "waves"
  std::string why;   // "132 tiles = 1 wave" ...
  Shape shape() const;  // m=..,n=..,k=..
  bool cube() const { return kind == "cube"; }
};
// A shape with exactly `tiles` output tiles of `tile` (whole tiles: tm·bm × tn·bn), the factor
// pair tm·tn = tiles closest to square (|log(tm·bm / tn·bn)| least; a tie goes to the larger m).
Point waves_point(int64_t tiles, const model::GemmTile& tile, int64_t k);
// The family's sweep: its cubes up to max_cube, then the wave shapes for `sms` SMs: tile counts
// slots, slots + 1, 2·slots, 2·slots + 1 with slots = sms × blocks_per_sm.
std::vector<Point> points(const GemmFamily& f, int sms);

// The variants a sweep runs from one family's members: every peer, and the non-peer of highest
// version among those that serve a 4096³ GEMM (so not the decode rungs). Throws sol::Error
// (BadInput) when the family has no such rung.
std::vector<const Variant*> choose_variants(const std::vector<const Variant*>& members);

// The model at one shape, for the family's best rung.
struct Prediction {
  model::GemmEstimate shape_model;  // floor ÷ (tile × wave × alignment efficiency)
  double pack_s = 0;                // copying operands whose pitch is not a multiple of 128 B (rungs that pack)
  double rung_s = 0;                // what the rung's design predicts: packing rungs pay pack_s and no alignment term
  double rung_flops_per_s = 0;
  std::string limit;                // the efficiencies below 95 %, e.g. "alignment 12.5 %, tiles 79.0 %"; "" none
};
Prediction predict(const GemmFamily& f, int64_t m, int64_t n, int64_t k, const hw::HwSpec& hw);

// |measured − predicted| / measured (both FLOP/s); 0 when nothing was measured.
double model_error(double measured, double predicted);
double median(std::vector<double> v);  // 0 for an empty list

// The shape-model table of a plan (what `sol bench gemm --sweep --plan` prints): per family and
// point the shape, tiles, waves, the three efficiencies, what limits it and both predictions.
std::string plan_text(const std::vector<std::string>& families, const hw::HwSpec& hw);

}  // namespace sol::sweep

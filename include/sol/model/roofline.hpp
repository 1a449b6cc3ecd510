#pragma once
// The lecture's roofline (§6): given F FLOPs and Q bytes, on a chip with peak P and bandwidth B,
//   I = F/Q, ridge I* = P/B, floor = max(F/P, Q/B), attainable = F / floor.
// The hierarchical form asks the same question at every memory level the database knows.
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"

namespace sol::model {

// Ceilings to evaluate against: the datasheet's, or the ones `sol probe` measured.
struct Ceilings {
  double flops_per_s = 0;
  double bytes_per_s = 0;
  std::string flops_label;  // "989.4 TFLOP/s bf16 matrix (datasheet)" or "... (measured)"
  std::string bytes_label;
};
Ceilings datasheet_ceilings(const hw::HwSpec& hw, DType dtype, hw::Unit unit);

// Whose peak bounds an op that prefers `preferred` for `dtype` data on this chip:
//  - the preferred unit, if the chip has a peak for dtype there;
//  - a matrix op in a type the matrix unit lacks (fp32 on Hopper) runs on the vector unit;
//  - a vector op in a type the vector unit lacks (fp8 anywhere, bf16 on TPU v5e) is computed in
//    fp32 after conversion, so the fp32 vector peak bounds it;
//  - otherwise the preferred unit and dtype unchanged, so that peak() reports what the chip has.
// `why` says which rule applied (empty for the first).
struct PeakChoice {
  hw::Unit unit = hw::Unit::Matrix;
  DType dtype = DType::bf16;
  std::string why;
};
PeakChoice resolve_peak(const hw::HwSpec& hw, DType dtype, hw::Unit preferred);

struct Estimate {
  double flops = 0, bytes = 0;
  double intensity = 0;          // FLOP/byte
  double ridge = 0;              // FLOP/byte
  std::string bound;             // "compute" | "memory"
  double t_compute_s = 0, t_memory_s = 0, t_floor_s = 0;
  double attainable_flops_per_s = 0;
  double fraction_of_peak = 0;   // attainable / peak
  double saved_bytes = 0;
  Ceilings ceilings;
};
Estimate roofline(const Cost& cost, const Ceilings& c);
// Datasheet ceilings for the cost's unit and its math type (math_dtype if set, else dtype).
Estimate roofline(const Cost& cost, const hw::HwSpec& hw);

struct LevelEstimate {
  std::string level;
  double bytes = 0, bytes_per_s = 0, intensity = 0, ridge = 0, t_s = 0;
  bool binding = false;  // the slowest level: the one that sets the floor
};
// One row per memory level for which the cost knows the traffic (HBM always).
std::vector<LevelEstimate> hierarchical(const Cost& cost, const hw::HwSpec& hw);

}  // namespace sol::model

// sol::mx_quantize / mx_dequantize (include/sol/kernels.hpp) on the registry's MX rungs. Both
// orientations: v04 (X read once, 4.06 bytes per element instead of v02 + v03's 6.06); one
// orientation: v02 (rowwise) or v03 (columnwise); dequantization: v05. v02–v05 convert with
// sm_89's fp8 instructions; below sm_89 only the rowwise quantization is served, by v01 (the
// shared scalar code). Predicted times scale the committed H200 measurement of the rung
// (kernels/api/mx_table.inc, scripts/api-tables.py) by the element count. Validation precedes
// any CUDA call.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/api/choice.hpp"
#include "kernels/api/entry_util.hpp"
#include "kernels/mx/mx.cuh"
#include "sol/kernels.hpp"

namespace sol {
namespace {

namespace kmx = kernels::mx;

enum Rung { kV01, kV02, kV03, kV04, kV05, kRungs };
const char* const kNames[kRungs] = {"mx/v01_rowwise_shared_code", "mx/v02_rowwise", "mx/v03_columnwise", "mx/v04_both",
                                    "mx/v05_dequantize"};

struct Measured {
  int rung;
  int64_t rows, cols;
  int colwise;
  double seconds;
};
constexpr Measured kTable[] = {
#include "kernels/api/mx_table.inc"
};

constexpr int kFp8Cc = 89;  // cvt to/from e4m3x2, e5m2x2

void check_size(int64_t rows, int64_t cols, DType elem, const std::string& op) {
  if (rows < 1 || cols < 1)
    bad_input(op + ": rows = " + std::to_string(rows) + ", cols = " + std::to_string(cols) + " is not a size",
              "give rows, cols ≥ 1");
  if (elem != DType::fp8_e4m3 && elem != DType::fp8_e5m2)
    bad_input(op + ": element type " + dtype_name(elem) + " is not an MXFP8 element", "use fp8_e4m3 or fp8_e5m2");
}

// The rung's measured time scaled to rows × cols (0 when not measured).
double predicted(int rung, int64_t rows, int64_t cols) {
  for (const Measured& m : kTable)
    if (m.rung == rung && m.colwise == 0) return m.seconds * double(rows) * double(cols) / (double(m.rows) * double(m.cols));
  return 0;
}

kmx::Spec spec_of(DType elem, MxScaleRule rule) {
  return {elem == DType::fp8_e4m3 ? kmx::Elem::e4m3 : kmx::Elem::e5m2,
          rule == MxScaleRule::Ceil ? formats::ScaleRule::Ceil : formats::ScaleRule::Ocp};
}

struct Plan {
  int rung = kV04;
  Choice choice;
};

// cc: the device's compute capability, 0 to ask the current device.
Plan plan_quantize(const MxQuantizeArgs& a, int cc = 0) {
  const std::string op = "mx_quantize";
  check_size(a.rows, a.cols, a.elem, op);
  if (a.rule != MxScaleRule::Ceil && a.rule != MxScaleRule::Floor) bad_input(op + ": unknown scale rule", "use Ceil or Floor");
  if (!a.x) bad_input(op + ": x is nullptr", "give the device address of x (rows × cols bf16)");
  if (bool(a.row_codes) != bool(a.row_scales) || bool(a.col_codes) != bool(a.col_scales))
    bad_input(op + ": an orientation has codes without scales or scales without codes",
              "give both pointers of each orientation written, nullptr for both of one skipped");
  const bool row = a.row_codes, col = a.col_codes;
  if (!row && !col) bad_input(op + ": both orientations are nullptr: nothing to write", "give row_* or col_* outputs");

  if (cc == 0) cc = api::current_cc(op.c_str());
  Plan p;
  const std::string what = std::to_string(a.rows) + " × " + std::to_string(a.cols) + " on " + api::cc_text(cc) + ": ";
  if (cc < kFp8Cc) {
    if (col)
      failure(op + ": columnwise MX quantization needs sm_89 or newer (fp8 conversions); this device is " +
                  api::cc_text(cc),
              "quantize rowwise only, or run on an sm_89+ GPU");
    p.rung = kV01;
    p.choice.reason = what + "rowwise below sm_89: the shared scalar code (no fp8 instructions)";
  } else if (row && col) {
    p.rung = kV04;
    p.choice.reason = what + "both orientations from one read of x (4.06 B per element; v02 + v03: 6.06)";
  } else {
    p.rung = row ? kV02 : kV03;
    p.choice.reason = what + (row ? "rowwise" : "columnwise") + " only: the one-orientation tile kernel";
  }
  p.choice.implementation = kNames[p.rung];
  p.choice.predicted_s = predicted(p.rung, a.rows, a.cols);
  return p;
}

Plan plan_dequantize(const MxDequantizeArgs& a) {
  const std::string op = "mx_dequantize";
  check_size(a.rows, a.cols, a.elem, op);
  if (!a.codes || !a.scales || !a.out)
    bad_input(op + ": " + (!a.codes ? "codes" : !a.scales ? "scales" : "out") + " is nullptr", "give device addresses");
  const int cc = api::current_cc(op.c_str());
  if (cc < kFp8Cc)
    failure(op + ": MX dequantization needs sm_89 or newer (fp8 conversions); this device is " + api::cc_text(cc),
            "run on an sm_89+ GPU");
  Plan p;
  p.rung = kV05;
  p.choice.implementation = kNames[kV05];
  p.choice.reason = std::to_string(a.rows) + " × " + std::to_string(a.cols) + (a.columnwise ? " columnwise" : " rowwise") +
                    " on " + api::cc_text(cc) + ": the one dequantization kernel (16-byte vectors where aligned)";
  p.choice.predicted_s = predicted(kV05, a.rows, a.cols);
  return p;
}

}  // namespace

Choice explain_mx_quantize(const MxQuantizeArgs& args) { return plan_quantize(args).choice; }
Choice api::explain_mx_quantize_on(const MxQuantizeArgs& args, int cc) { return plan_quantize(args, cc).choice; }
Choice explain_mx_dequantize(const MxDequantizeArgs& args) { return plan_dequantize(args).choice; }

void mx_quantize(const MxQuantizeArgs& a, cudaStream_t stream) {
  const Plan p = plan_quantize(a);
  const auto* x = static_cast<const __nv_bfloat16*>(a.x);
  const kmx::Spec spec = spec_of(a.elem, a.rule);
  const kmx::Out row{static_cast<uint8_t*>(a.row_codes), static_cast<uint8_t*>(a.row_scales)};
  const kmx::Out col{static_cast<uint8_t*>(a.col_codes), static_cast<uint8_t*>(a.col_scales)};
  switch (p.rung) {
    case kV01: return kmx::v01_rowwise_shared_code(x, a.rows, a.cols, spec, row, stream);
    case kV02: return kmx::v02_rowwise(x, a.rows, a.cols, spec, row, stream);
    case kV03: return kmx::v03_columnwise(x, a.rows, a.cols, spec, col, stream);
    default: return kmx::v04_both(x, a.rows, a.cols, spec, row, col, stream);
  }
}

void mx_dequantize(const MxDequantizeArgs& a, cudaStream_t stream) {
  plan_dequantize(a);
  kmx::v05_dequantize(static_cast<const uint8_t*>(a.codes), static_cast<const uint8_t*>(a.scales), a.rows, a.cols,
                      a.elem == DType::fp8_e4m3 ? kmx::Elem::e4m3 : kmx::Elem::e5m2,
                      a.columnwise ? formats::MxAxis::Colwise : formats::MxAxis::Rowwise, static_cast<__nv_bfloat16*>(a.out),
                      stream);
}

}  // namespace sol

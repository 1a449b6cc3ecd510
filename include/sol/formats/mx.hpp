#pragma once
// MX quantization of whole rows × cols tensors on the host: rowwise (1×32 blocks along a row)
// and columnwise (32×1 blocks down a column), dequantization, the error statistics `sol quant`
// prints, and the test distributions. The lecture's §7.2 point lives here: the columnwise
// quantization of X groups other elements than the rowwise one, so neither is derived from the
// other's fp8 data without a second rounding; training keeps both, each from the bf16 tensor.
// This is the format's definition, not a reference beside it (so it lives in formats/, not
// ref/): the MX kernels are bit-compared with these functions, and one of them runs the very
// block function (mx_block.hpp) on the device.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/formats/cast.hpp"
#include "sol/formats/mx_block.hpp"

namespace sol::formats {

enum class MxAxis { Rowwise, Colwise };

// "mxfp8-e4m3" → e4m3, "mxfp8-e5m2" → e5m2, "mxfp4-e2m1" → e2m1; BadInput otherwise.
Format parse_mx_format(const std::string& name);
std::string mx_format_name(Format elem);
// "ocp" | "ceil".
ScaleRule parse_scale_rule(const std::string& name);
std::string scale_rule_name(ScaleRule r);

// A quantized tensor. codes keep the input's row-major rows × cols layout, one code per byte
// (e2m1 unpacked); scales are row-major too: rowwise rows × ceil(cols/32), columnwise
// ceil(rows/32) × cols. A last block shorter than 32 (cols or rows not a multiple of 32)
// takes its amax over the elements it has.
struct MxTensor {
  int64_t rows = 0, cols = 0;
  Format elem = Format::e4m3;
  ScaleRule rule = ScaleRule::Ceil;
  MxAxis axis = MxAxis::Rowwise;
  std::vector<uint8_t> codes;
  std::vector<uint8_t> scales;
  int64_t scale_rows() const;
  int64_t scale_cols() const;
  // The scale index of element (r, c).
  int64_t scale_of(int64_t r, int64_t c) const;
};

// x is rows × cols row-major (fp32 values; bf16 tensors are passed widened). Throws sol::Error
// (BadInput) for non-positive sizes, x of the wrong length, or an element format MX lacks.
MxTensor mx_quantize(const std::vector<float>& x, int64_t rows, int64_t cols, Format elem, ScaleRule rule, MxAxis axis);
// Exact values of every element (NaN for NaN blocks), row-major.
std::vector<float> mx_dequantize(const MxTensor& q);

// How far a dequantized tensor is from its source, over the elements whose source is finite.
struct MxError {
  double rel_l2 = 0;           // ‖q − x‖₂ / ‖x‖₂
  double snr_db = 0;           // 10 log10(Σx² / Σ(q − x)²); infinity when exact
  double saturated = 0;        // fraction with |x| above the block's largest value (max_elem · X): clamped
  double flushed = 0;          // fraction with x ≠ 0 that became 0
  double max_rel = 0;          // largest |q − x| / |x| over x ≠ 0 and not flushed
  int64_t elements = 0;
};
MxError mx_error(const std::vector<float>& x, const MxTensor& q);

// Test tensors, rounded to bf16 (the GPU input type), a pure function of (seed, index):
//   normal     N(0, 1)
//   student-t  Student's t with 3 degrees of freedom: heavy tails, every element its own
//   outliers   N(0, 1) with one column in 64 (chosen by hash) multiplied by 100: the channel
//              outliers of LLM activations, which hurt rowwise blocks and spare columnwise ones
enum class Dist { Normal, StudentT, Outliers };
Dist parse_dist(const std::string& name);
std::string dist_name(Dist d);
std::vector<float> generate(Dist d, int64_t rows, int64_t cols, uint64_t seed);

// Rounds every value to bf16 (nearest even), as a bf16 tensor on the GPU holds it.
std::vector<float> round_to_bf16(std::vector<float> x);

}  // namespace sol::formats

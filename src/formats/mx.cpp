// Host MX quantization of whole tensors over formats/mx_block.hpp, error statistics, and the
// test distributions of `sol quant`.
#include "sol/formats/mx.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>

#include "sol/core/error.hpp"

namespace sol::formats {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void require_mx_elem(Format elem) {
  if (elem != Format::e4m3 && elem != Format::e5m2 && elem != Format::e2m1)
    bad_input("MX elements are e4m3, e5m2 or e2m1, not " + format_name(elem), "use mxfp8-e4m3, mxfp8-e5m2 or mxfp4-e2m1");
}

int64_t blocks(int64_t n) { return (n + kMxBlock - 1) / kMxBlock; }

// splitmix64, as kernels/common/random.cuh: (seed, i) → 64 well-spread bits.
uint64_t mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A standard normal from two hashes (Box–Muller); u1 in (0, 1] so the log is finite.
double normal(uint64_t seed, uint64_t i) {
  const double u1 = double((mix(seed, 2 * i) >> 11) + 1) * 0x1p-53;
  const double u2 = double(mix(seed, 2 * i + 1) >> 11) * 0x1p-53;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

}  // namespace

Format parse_mx_format(const std::string& name) {
  const std::string n = lower(name);
  if (n == "mxfp8-e4m3" || n == "mxfp8_e4m3" || n == "mxfp8") return Format::e4m3;
  if (n == "mxfp8-e5m2" || n == "mxfp8_e5m2") return Format::e5m2;
  if (n == "mxfp4-e2m1" || n == "mxfp4_e2m1" || n == "mxfp4") return Format::e2m1;
  bad_input("unknown MX format '" + name + "'", "use mxfp8-e4m3, mxfp8-e5m2 or mxfp4-e2m1");
}

std::string mx_format_name(Format elem) {
  require_mx_elem(elem);
  std::string name = elem == Format::e2m1 ? "mxfp4-" : "mxfp8-";
  name += format_name(elem);
  return name;
}

ScaleRule parse_scale_rule(const std::string& name) {
  const std::string n = lower(name);
  if (n == "ocp" || n == "floor") return ScaleRule::Ocp;
  if (n == "ceil" || n == "rceil" || n == "round-up") return ScaleRule::Ceil;
  bad_input("unknown scale rule '" + name + "'", "use ocp (floor(log2 amax) − emax) or ceil (ceil(log2(amax / max)))");
}

std::string scale_rule_name(ScaleRule r) { return r == ScaleRule::Ocp ? "ocp" : "ceil"; }

int64_t MxTensor::scale_rows() const { return axis == MxAxis::Rowwise ? rows : blocks(rows); }
int64_t MxTensor::scale_cols() const { return axis == MxAxis::Rowwise ? blocks(cols) : cols; }
int64_t MxTensor::scale_of(int64_t r, int64_t c) const {
  return axis == MxAxis::Rowwise ? r * scale_cols() + c / kMxBlock : (r / kMxBlock) * cols + c;
}

MxTensor mx_quantize(const std::vector<float>& x, int64_t rows, int64_t cols, Format elem, ScaleRule rule, MxAxis axis) {
  require_mx_elem(elem);
  if (rows <= 0 || cols <= 0)
    bad_input("tensor of " + std::to_string(rows) + " × " + std::to_string(cols) + " cannot be quantized", "give rows, cols ≥ 1");
  if (rows > std::numeric_limits<int64_t>::max() / cols || int64_t(x.size()) != rows * cols)
    bad_input("tensor has " + std::to_string(x.size()) + " values, not rows × cols", "pass rows × cols values");
  MxTensor q{.rows = rows, .cols = cols, .elem = elem, .rule = rule, .axis = axis, .codes = std::vector<uint8_t>(x.size()), .scales = {}};
  q.scales.assign(size_t(q.scale_rows() * q.scale_cols()), 0);
  const Minifloat& t = minifloat(elem);
  // Block (outer, b) covers elements first + i·step for i < n.
  const bool rowwise = axis == MxAxis::Rowwise;
  const int64_t step = rowwise ? 1 : cols;
  for (int64_t s = 0; s < int64_t(q.scales.size()); ++s) {
    const int64_t sr = s / q.scale_cols(), sc = s % q.scale_cols();
    const int64_t first = rowwise ? sr * cols + sc * kMxBlock : sr * kMxBlock * cols + sc;
    const int n = int(std::min<int64_t>(kMxBlock, rowwise ? cols - sc * kMxBlock : rows - sr * kMxBlock));
    q.scales[size_t(s)] = mx_quantize_block(
        n, t, rule, [&](int i) { return f32_bits(x[size_t(first + i * step)]); },
        [&](int i, uint32_t code) { q.codes[size_t(first + i * step)] = uint8_t(code); });
  }
  return q;
}

std::vector<float> mx_dequantize(const MxTensor& q) {
  const Minifloat& t = minifloat(q.elem);
  std::vector<float> out(q.codes.size());
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      const size_t i = size_t(r * q.cols + c);
      out[i] = f32_value(mx_value(q.codes[i], q.scales[size_t(q.scale_of(r, c))], t));
    }
  return out;
}

MxError mx_error(const std::vector<float>& x, const MxTensor& q) {
  if (x.size() != q.codes.size()) bad_input("source and quantized tensor differ in size");
  const std::vector<float> d = mx_dequantize(q);
  const double max_elem = max_finite(q.elem);
  double err2 = 0, ref2 = 0;
  int64_t n = 0, saturated = 0, flushed = 0;
  MxError e;
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      const size_t i = size_t(r * q.cols + c);
      const uint8_t s = q.scales[size_t(q.scale_of(r, c))];
      if (!std::isfinite(x[i]) || s == kE8m0Nan) continue;
      const double xi = x[i], di = d[i];
      ++n;
      err2 += (di - xi) * (di - xi);
      ref2 += xi * xi;
      if (std::fabs(xi) > std::ldexp(max_elem, int(s) - 127)) ++saturated;
      if (xi != 0 && di == 0) ++flushed;
      else if (xi != 0) e.max_rel = std::max(e.max_rel, std::fabs(di - xi) / std::fabs(xi));
    }
  e.elements = n;
  e.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  e.snr_db = err2 > 0 ? 10 * std::log10(ref2 / err2) : std::numeric_limits<double>::infinity();
  e.saturated = n ? double(saturated) / double(n) : 0;
  e.flushed = n ? double(flushed) / double(n) : 0;
  return e;
}

Dist parse_dist(const std::string& name) {
  const std::string n = lower(name);
  if (n == "normal") return Dist::Normal;
  if (n == "student-t" || n == "student_t" || n == "t") return Dist::StudentT;
  if (n == "outliers") return Dist::Outliers;
  bad_input("unknown distribution '" + name + "'", "use normal, student-t or outliers");
}

std::string dist_name(Dist d) {
  switch (d) {
    case Dist::Normal: return "normal";
    case Dist::StudentT: return "student-t";
    case Dist::Outliers: return "outliers";
  }
  return "?";
}

std::vector<float> round_to_bf16(std::vector<float> x) {
  for (float& v : x) v = f32_value(decode(encode(f32_bits(v), kBf16, Overflow::Plain), kBf16));
  return x;
}

std::vector<float> generate(Dist d, int64_t rows, int64_t cols, uint64_t seed) {
  if (rows <= 0 || cols <= 0 || rows > (int64_t(1) << 40) / cols)
    bad_input("shape " + std::to_string(rows) + "," + std::to_string(cols) + " is not a tensor to generate",
              "give rows, cols ≥ 1 with rows × cols ≤ 2^40");
  std::vector<float> x(size_t(rows * cols));
  constexpr int kDof = 3;          // Student's t degrees of freedom
  constexpr int kOutlierEvery = 64;  // one column in 64 is an outlier channel
  constexpr double kOutlierGain = 100;
  for (int64_t i = 0; i < rows * cols; ++i) {
    const uint64_t k = uint64_t(i) * (kDof + 1);
    double v = normal(seed, k);
    if (d == Dist::StudentT) {
      double chi2 = 0;
      for (int j = 1; j <= kDof; ++j) chi2 += std::pow(normal(seed, k + uint64_t(j)), 2);
      v /= std::sqrt(chi2 / kDof);
    }
    if (d == Dist::Outliers && mix(seed ^ 0x0C7u, uint64_t(i % cols)) % kOutlierEvery == 0) v *= kOutlierGain;
    x[size_t(i)] = float(v);
  }
  return round_to_bf16(std::move(x));
}

}  // namespace sol::formats

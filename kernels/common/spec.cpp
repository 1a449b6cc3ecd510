// The registry-side helpers of kernels/common/spec.hpp: shape rules, bounded products, the
// vector-unit cost.
#include "kernels/common/spec.hpp"

#include <utility>

namespace sol::kernels {

namespace {
// 288230376151711744 reads better as 2^58.
std::string bound(int64_t v) {
  if (v > 1024 && (v & (v - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) != v) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(v);
}
}  // namespace

std::string check_dims(const Shape& s, const std::vector<DimRule>& rules) {
  std::string names;
  for (const auto& r : rules) names += (names.empty() ? "" : ", ") + r.name;
  for (const auto& [key, value] : s.dims) {
    bool known = false;
    for (const auto& r : rules) known = known || r.name == key;
    if (!known) return "unknown dimension '" + key + "' (this variant takes " + names + ")";
  }
  for (const auto& r : rules) {
    if (!s.has(r.name)) {
      if (r.required) return "missing dimension '" + r.name + "' (this variant takes " + names + ")";
      continue;
    }
    const int64_t v = s.at(r.name);
    if (v < r.lo || v > r.hi)
      return r.name + "=" + std::to_string(v) + " is out of range: need " + bound(r.lo) + " ≤ " + r.name +
             (r.hi < (int64_t(1) << 62) ? " ≤ " + bound(r.hi) : "");
  }
  return {};
}

int64_t product_or_minus1(std::initializer_list<int64_t> factors, int64_t limit) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (f <= 0 || p > limit / f) return -1;
    p *= f;
  }
  return p;
}

model::Cost vector_cost(std::string op, double flops, double bytes, DType dtype, std::vector<std::string> notes) {
  model::Cost c;
  c.op = std::move(op);
  c.flops = flops;
  c.bytes = bytes;
  c.unit = hw::Unit::Vector;
  c.dtype = dtype;
  c.notes = std::move(notes);
  return c;
}

}  // namespace sol::kernels

// The registry's description of the banks family, host C++ in every build: which shapes it takes,
// its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds only.
#include "kernels/banks/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"

namespace sol::kernels::banks {

std::string unsupported(Version, const Shape& s) {
  std::string why = check_dims(s, {{"rows", 1}, {"cols", 1}});
  if (why.empty() && product_or_minus1({s.at("rows"), s.at("cols"), 4}) < 0) why = "rows·cols·4 bytes overflows";
  return why;
}

model::Cost cost(Version, const Shape& s) {
  const double elems = double(s.at("rows")) * double(s.at("cols"));
  return vector_cost("transpose of " + std::to_string(s.at("rows")) + "×" + std::to_string(s.at("cols")) + " fp32", 0,
                     2 * 4 * elems, DType::f32,
                     {"bytes = 2·rows·cols·4 (each element read once and written once)",
                      "shared-memory traffic (not HBM): 4 B written + 4 B read per element"});
}

Tolerance tolerance(Version) { return {0.0, "a transpose moves bits: exact"}; }

}  // namespace sol::kernels::banks

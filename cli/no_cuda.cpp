// Built instead of kernels/ when nvcc is absent: the registry is empty and says so.
#include "sol/registry.hpp"

namespace sol {
const std::vector<Variant>& registry() {
  static const std::vector<Variant> none;
  return none;
}
bool built_with_cuda() { return false; }
}  // namespace sol

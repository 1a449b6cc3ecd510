// The one explicit list of every kernel variant (DESIGN.md: one registry).
#include "sol/registry.hpp"

namespace sol {

const std::vector<Variant>& registry() {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
    return v;
  }();
  return all;
}

bool built_with_cuda() { return true; }

}  // namespace sol

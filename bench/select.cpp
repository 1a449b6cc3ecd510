// The harness's choice of variants: sol::select over the registry, or over the harness's own
// selftest family when it is asked for by name (it is never part of "all").
#include "bench/harness.hpp"

namespace sol::bench {

std::vector<const Variant*> select_variants(const std::string& pattern) {
  if (pattern == "selftest" || pattern.rfind("selftest/", 0) == 0) return select(selftest_variants(), pattern);
  return select(pattern);
}

}  // namespace sol::bench

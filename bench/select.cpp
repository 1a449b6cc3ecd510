// Picking variants by "family" or "family/name": sol::select over the registry, and the harness's
// own selftest family when it is asked for by name (it is never part of "all").
#include <set>

#include "bench/harness.hpp"
#include "sol/core/error.hpp"

namespace sol {

namespace {
std::vector<const Variant*> matching(const std::vector<Variant>& all, const std::string& pattern) {
  const auto slash = pattern.find('/');
  const std::string family = pattern.substr(0, slash);
  const std::string name = slash == std::string::npos ? "" : pattern.substr(slash + 1);
  std::vector<const Variant*> out;
  for (const auto& v : all)
    if (pattern.empty() || (v.family == family && (name.empty() || v.name == name))) out.push_back(&v);
  return out;
}

std::string families(const std::vector<Variant>& all) {
  std::string s;
  std::set<std::string> seen;
  for (const auto& v : all)
    if (seen.insert(v.family).second) s += (s.empty() ? "" : ", ") + v.family;
  return s.empty() ? "none (the registry is empty)" : s;
}
}  // namespace

std::vector<const Variant*> select(const std::string& pattern) {
  auto out = matching(registry(), pattern);
  if (out.empty())
    bad_input("no variant matches '" + pattern + "'",
              "give FAMILY or FAMILY/VARIANT (see `sol list`); families: " + families(registry()));
  return out;
}

namespace bench {
std::vector<const Variant*> select_variants(const std::string& pattern) {
  if (pattern == "selftest" || pattern.rfind("selftest/", 0) == 0) {
    auto out = matching(selftest_variants(), pattern);
    if (out.empty()) bad_input("no selftest variant matches '" + pattern + "'", "families: selftest");
    return out;
  }
  return select(pattern);
}
}  // namespace bench

}  // namespace sol

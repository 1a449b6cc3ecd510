#pragma once
// sol::Shape: a problem size as named integer dimensions. Core vocabulary: the registry, the
// models' shape sets, the harness and the results all speak it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sol {

// A problem size as named integer dimensions, e.g. {n=268435456} or {rows=4096, stride=8}.
struct Shape {
  std::vector<std::pair<std::string, int64_t>> dims;
  int64_t at(const std::string& name) const;            // throws sol::Error if absent
  int64_t get(const std::string& name, int64_t dflt) const;
  bool has(const std::string& name) const;
  std::string str() const;                              // "rows=4096,cols=4096"
  // Parses "rows=4096,cols=4096"; each value is a count (sol/core/size.hpp: 4k, 2^28).
  static Shape parse(const std::string& text);
  bool operator==(const Shape& o) const { return dims == o.dims; }
};

}  // namespace sol

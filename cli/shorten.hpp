#pragma once
// Names and shapes that must fit a column: the middle gives way, so a variant's rung and a
// shape's last dimension stay visible.
#include <string>

#include "sol/core/format.hpp"

namespace sol::cli {

// At most `width` (≥ 2) code points of an ASCII name, the middle replaced by "…".
inline std::string shorten(const std::string& s, size_t width) {
  if (display_width(s) <= width) return s;
  const size_t keep = width - 1, head = (keep + 1) / 2;
  return s.substr(0, head) + "…" + s.substr(s.size() - (keep - head));
}

}  // namespace sol::cli

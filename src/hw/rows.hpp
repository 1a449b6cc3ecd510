#pragma once
// Private to src/hw: parsing a --hw-file's text, which may hold one spec or an array of them.
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"

namespace sol::hw {

// Parses and validates every row; throws sol::Error (BadInput) naming origin, row and field.
std::vector<HwSpec> from_json_array_text(const std::string& text, const std::string& origin);

}  // namespace sol::hw

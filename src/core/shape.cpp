#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/size.hpp"
#include "sol/core/shape.hpp"

namespace sol {

int64_t Shape::at(const std::string& name) const {
  for (const auto& [k, v] : dims)
    if (k == name) return v;
  bad_input("shape '" + str() + "' has no dimension '" + name + "'", "give it as " + name + "=VALUE");
}

int64_t Shape::get(const std::string& name, int64_t dflt) const { return has(name) ? at(name) : dflt; }

bool Shape::has(const std::string& name) const {
  for (const auto& d : dims)
    if (d.first == name) return true;
  return false;
}

std::string Shape::str() const {
  std::string s;
  for (const auto& [k, v] : dims) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

Shape Shape::parse(const std::string& text) {
  Shape s;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      bad_input("bad shape item '" + item + "' in '" + text + "'", "write NAME=VALUE[,NAME=VALUE...], e.g. n=2^28");
    std::string key = item.substr(0, eq);
    if (s.has(key)) bad_input("dimension '" + key + "' given twice in '" + text + "'");
    s.dims.emplace_back(key, parse_count(key, item.substr(eq + 1)));
  }
  if (s.dims.empty()) bad_input("empty shape", "write NAME=VALUE[,NAME=VALUE...]");
  return s;
}

}  // namespace sol

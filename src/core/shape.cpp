#include <cctype>
#include <limits>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/registry.hpp"

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

namespace {
int64_t parse_value(const std::string& key, const std::string& text) {
  auto fail = [&]() -> int64_t {
    bad_input("bad value '" + text + "' for " + key, "use an integer, optionally with k/M/G (×1024) or as 2^N");
  };
  if (text.empty()) fail();
  if (auto caret = text.find('^'); caret != std::string::npos) {
    int64_t base = parse_value(key, text.substr(0, caret));
    int64_t exp = parse_value(key, text.substr(caret + 1));
    if (exp > 62) fail();
    int64_t v = 1;
    for (int64_t i = 0; i < exp; ++i) {
      if (v > std::numeric_limits<int64_t>::max() / base) bad_input(key + "=" + text + " overflows 64 bits");
      v *= base;
    }
    return v;
  }
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos, 10);
  } catch (...) {
    fail();
  }
  int64_t mult = 1;
  if (pos < text.size()) {
    if (pos + 1 != text.size()) fail();
    switch (text[pos]) {
      case 'k': case 'K': mult = int64_t(1) << 10; break;
      case 'M': case 'm': mult = int64_t(1) << 20; break;
      case 'G': case 'g': mult = int64_t(1) << 30; break;
      default: fail();
    }
  }
  if (v != 0 && mult > std::numeric_limits<int64_t>::max() / (v < 0 ? -v : v))
    bad_input(key + "=" + text + " overflows 64 bits");
  return v * mult;
}
}  // namespace

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
    s.dims.emplace_back(key, parse_value(key, item.substr(eq + 1)));
  }
  if (s.dims.empty()) bad_input("empty shape", "write NAME=VALUE[,NAME=VALUE...]");
  return s;
}

}  // namespace sol

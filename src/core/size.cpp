#include "sol/core/size.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "sol/core/error.hpp"

namespace sol {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

[[noreturn]] void bad(const std::string& what, const std::string& text, const std::string& why, const char* forms) {
  bad_input("bad value '" + text + "' for " + what + (why.empty() ? "" : ": " + why), std::string("use ") + forms);
}

// Decimal digits only, no sign: the pieces every form is built from.
bool digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Digits → value; false when it does not fit in int64.
bool to_int(const std::string& s, int64_t& v) {
  v = 0;
  for (char c : s) {
    const int d = c - '0';
    if (v > (kMax - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

int shift_of(char c) {
  switch (c) {
    case 'k': case 'K': return 10;
    case 'm': case 'M': return 20;
    case 'g': case 'G': return 30;
    case 't': case 'T': return 40;
    default: return -1;
  }
}

// A count; errors name `forms`, the grammar the caller offers.
int64_t count(const std::string& what, const std::string& text, const char* forms) {
  const std::string overflow = "it does not fit in 64 bits";
  if (!text.empty() && text[0] == '-') bad(what, text, "a size cannot be negative", forms);
  if (const size_t caret = text.find('^'); caret != std::string::npos) {
    const std::string b = text.substr(0, caret), e = text.substr(caret + 1);
    if (!e.empty() && e[0] == '-') bad(what, text, "the exponent must be ≥ 0", forms);
    int64_t base = 0, exp = 0;
    if (!digits(b) || !digits(e)) bad(what, text, "", forms);
    if (!to_int(b, base) || !to_int(e, exp)) bad(what, text, overflow, forms);
    if (base <= 1 || exp == 0) return exp == 0 ? 1 : base;  // 0^E (E ≥ 1) = 0, 1^E = 1
    int64_t v = 1;
    for (int64_t i = 0; i < exp; ++i) {
      if (v > kMax / base) bad(what, text, overflow, forms);
      v *= base;
    }
    return v;
  }
  std::string num = text;
  int shift = 0;
  if (!num.empty() && (shift = shift_of(num.back())) > 0) num.pop_back();
  else shift = 0;
  int64_t v = 0;
  if (!digits(num)) bad(what, text, "", forms);
  if (!to_int(num, v) || v > (kMax >> shift)) bad(what, text, overflow, forms);
  return v << shift;
}

}  // namespace

int64_t parse_count(const std::string& what, const std::string& text) { return count(what, text, kCountForms); }

double parse_bytes(const std::string& what, const std::string& text) {
  if (!text.empty() && text[0] == '-') bad(what, text, "a size cannot be negative", kBytesForms);
  // The unit: the trailing letters, with any space before them.
  size_t u = text.size();
  while (u > 0 && std::isalpha(static_cast<unsigned char>(text[u - 1]))) --u;
  std::string unit;
  for (size_t i = u; i < text.size(); ++i) unit += char(std::tolower(static_cast<unsigned char>(text[i])));
  std::string num = text.substr(0, u);
  while (!num.empty() && num.back() == ' ') num.pop_back();
  static const std::pair<const char*, double> kUnits[] = {
      {"b", 1},          {"kb", 1e3},        {"mb", 1e6},          {"gb", 1e9},         {"tb", 1e12},
      {"kib", 1024.0},   {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}};
  // No byte unit and only digits (or B^E): a count such as 4096, 4k or 2^30.
  const bool is_count = text.find('^') != std::string::npos ||
                     (num.find_first_not_of("0123456789") == std::string::npos &&
                      (unit.empty() || (unit.size() == 1 && shift_of(unit[0]) > 0)));
  if (is_count) {
    const int64_t n = count(what, text, kBytesForms);
    if (n <= 0) bad(what, text, "a size must be > 0", kBytesForms);
    return double(n);
  }
  double scale = unit.empty() ? 1 : 0;
  for (const auto& [name, s] : kUnits)
    if (unit == name) scale = s;
  if (scale == 0) bad(what, text, "unknown unit", kBytesForms);
  if (num.empty() || num.find_first_not_of("0123456789.eE+") != std::string::npos) bad(what, text, "", kBytesForms);
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) bad(what, text, "", kBytesForms);
  v *= scale;
  if (!std::isfinite(v) || v > 9.2e18) bad(what, text, "it is too large", kBytesForms);
  if (v <= 0) bad(what, text, "a size must be > 0", kBytesForms);
  return v;
}

std::vector<int64_t> parse_counts(const std::string& what, const std::string& given, size_t n_min, size_t n_max) {
  const std::string form = n_min == n_max ? std::to_string(n_min) : std::to_string(n_min) + " to " + std::to_string(n_max);
  const std::string fix = "give " + form + " sizes joined by ',' or 'x', e.g. 1000x1000x1000; each " + kCountForms;
  std::string text = given;  // "128×256×64" reads as "128x256x64"
  const std::string times = "×";
  for (size_t p; (p = text.find(times)) != std::string::npos;) text.replace(p, times.size(), 1, 'x');
  std::vector<int64_t> v;
  size_t start = 0;
  for (;;) {
    const size_t sep = text.find_first_of(",xX", start);
    const std::string cell = text.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
    if (cell.empty()) bad_input("bad value '" + given + "' for " + what + ": an empty size", fix);
    v.push_back(parse_count(what, cell));
    if (sep == std::string::npos) break;
    start = sep + 1;
  }
  if (v.size() < n_min || v.size() > n_max)
    bad_input("bad value '" + given + "' for " + what + ": " + std::to_string(v.size()) + " sizes", fix);
  return v;
}

}  // namespace sol

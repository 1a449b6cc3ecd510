// SI and binary-unit formatting and the aligned text table every command prints with.
// Significant digits rather than fixed decimals, so 3.35 TB/s and 989.4 TFLOP/s read alike.
#include "sol/core/format.hpp"

#include <cmath>
#include <cstdio>

#include "sol/core/error.hpp"

namespace sol {
namespace {

// `digits` significant digits of v (|v| in [1, 1000) after scaling), trailing zeros dropped.
std::string significant(double v, int digits) {
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// Scales v by powers of `base` until it lies in [1, base) and formats it with its prefix.
std::string scaled(double v, const std::string& unit, int digits, double base, const char* const* up,
                   int n_up, const char* const* down, int n_down) {
  if (!std::isfinite(v)) return std::string(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")) + " " + unit;
  if (digits < 1) digits = 1;
  double a = std::fabs(v);
  int step = 0;
  while (a >= base && step < n_up) a /= base, ++step;
  while (a != 0 && a < 1 && -step < n_down) a *= base, --step;
  // Rounding can carry 999.96 up to "1000"; move to the next prefix instead.
  if (step < n_up && std::stod(significant(a, digits)) >= base) a /= base, ++step;
  const char* prefix = step > 0 ? up[step - 1] : step < 0 ? down[-step - 1] : "";
  std::string out = significant(v < 0 ? -a : a, digits) + " " + prefix + unit;
  return out;
}

}  // namespace

std::string si(double v, const std::string& unit, int digits) {
  static const char* const up[] = {"k", "M", "G", "T", "P", "E"};
  static const char* const down[] = {"m", "µ", "n", "p"};
  return scaled(v, unit, digits, 1000.0, up, 6, down, 4);
}

std::string bytes_iec(double bytes, int digits) {
  static const char* const up[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  return scaled(bytes, "B", digits, 1024.0, up, 6, nullptr, 0);
}

std::string num(double v, int digits) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  return significant(v, digits);
}

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;  // count every byte that is not a UTF-8 continuation
  return n;
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {
  align_.assign(headers_.size(), Align::Right);
  if (!align_.empty()) align_[0] = Align::Left;
}

Table& Table::align(size_t column, Align a) {
  if (column >= align_.size()) failure("Table::align: column " + std::to_string(column) + " out of range");
  align_[column] = a;
  return *this;
}

Table& Table::add_row(std::vector<std::string> cells) {
  if (cells.size() > headers_.size())
    failure("Table::add_row: " + std::to_string(cells.size()) + " cells for " + std::to_string(headers_.size()) +
            " columns");
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

std::string Table::str() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], display_width(r[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      if (c) out += "  ";
      out += align_[c] == Align::Right ? pad + cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();  // no trailing blanks
    return out + "\n";
  };
  std::string out = line(headers_);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace sol

namespace sol {

std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string sci(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1e", v);
  return b;
}

}  // namespace sol

// SI and binary-unit formatting and the aligned text table every command prints with.
// Significant digits rather than fixed decimals, so 3.35 TB/s and 989.4 TFLOP/s read alike.
#include "sol/core/format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

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

std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::stringstream paragraphs(text);
  std::string para;
  while (std::getline(paragraphs, para)) {
    std::stringstream words(para);
    std::string word, line;
    while (words >> word) {
      if (!line.empty() && display_width(line) + 1 + display_width(word) > width) lines.push_back(line), line.clear();
      line += (line.empty() ? "" : " ") + word;
    }
    lines.push_back(line);
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

std::string reflow(const std::string& text, size_t width) {
  std::string out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    const bool table = line.find("  ", lead) != std::string::npos;
    if (display_width(line) <= width || table || lead + 20 > width) {
      out += line + "\n";
      continue;
    }
    const size_t hang = lead + (line.compare(lead, 2, "- ") == 0 ? 2 : 0);
    bool first = true;
    for (const auto& l : wrap(line.substr(lead), width - hang)) {
      out += std::string(first ? lead : hang, ' ') + l + "\n";
      first = false;
    }
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

namespace {
std::string unmarked(std::string s) {
  for (const char* mark : {"**", "`"})
    for (size_t p; (p = s.find(mark)) != std::string::npos;) s.erase(p, std::string(mark).size());
  return s;
}
// "| a | b |" → {"a", "b"}; {} when the line is no table row.
std::vector<std::string> md_cells(const std::string& line) {
  size_t b = line.find_first_not_of(' '), e = line.find_last_not_of(' ');
  if (b == std::string::npos || line[b] != '|' || line[e] != '|' || e == b) return {};
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = b + 1; i < e; ++i) {
    if (line[i] == '\\' && i + 1 < e && line[i + 1] == '|') cell += line[++i];
    else if (line[i] == '|') cells.push_back(cell), cell.clear();
    else cell += line[i];
  }
  cells.push_back(cell);
  for (auto& c : cells) {
    const size_t l = c.find_first_not_of(' '), r = c.find_last_not_of(' ');
    c = l == std::string::npos ? "" : unmarked(c.substr(l, r - l + 1));
  }
  return cells;
}
bool md_rule(const std::vector<std::string>& cells) {
  if (cells.empty()) return false;
  for (const auto& c : cells)
    if (c.empty() || c.find_first_not_of("-:") != std::string::npos) return false;
  return true;
}
}  // namespace

std::string markdown_text(const std::string& md) {
  std::vector<std::string> lines;
  std::stringstream in(md);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto head = md_cells(lines[i]);
    if (head.empty() || i + 1 >= lines.size() || !md_rule(md_cells(lines[i + 1]))) {
      out += unmarked(lines[i]) + "\n";
      continue;
    }
    Table t(head);
    std::vector<bool> numeric(head.size(), true);
    for (i += 2; i < lines.size(); ++i) {
      auto cells = md_cells(lines[i]);
      if (cells.empty()) break;
      cells.resize(head.size());
      for (size_t c = 0; c < cells.size(); ++c)
        if (!cells[c].empty() && !std::isdigit(static_cast<unsigned char>(cells[c][0]))) numeric[c] = false;
      t.add_row(cells);
    }
    for (size_t c = 0; c < head.size(); ++c) t.align(c, numeric[c] && c > 0 ? Table::Align::Right : Table::Align::Left);
    out += t.str();
    --i;
  }
  return out;
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

namespace {

// A cell's lines at `width`: wrapped at spaces; a word still too long (an identifier, a shape) is
// broken after a '_', '.', ',', '/', '|' or ')' where it can be, else cut.
std::vector<std::string> cell_lines(const std::string& cell, size_t width) {
  std::vector<std::string> out;
  for (std::string line : wrap(cell, width)) {
    while (display_width(line) > width) {
      // Byte offset of the code point at which the line exceeds width.
      size_t end = 0;
      for (size_t cps = 0; end < line.size() && cps < width; ++cps)
        do ++end;
        while (end < line.size() && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80);
      size_t cut = line.find_last_of("_.,/|)", end - 1);
      cut = cut == std::string::npos || cut == 0 ? end : cut + 1;
      out.push_back(line.substr(0, cut));
      line = line.substr(cut);
    }
    out.push_back(line);
  }
  return out;
}

// The narrowest a header can wrap to: its longest word, or 8 columns where that word is an
// identifier that breaks (cell_lines).
size_t header_floor(const std::string& text) {
  size_t most = 0;
  for (const auto& w : wrap(text, 1)) most = std::max(most, display_width(w));
  return std::min<size_t>(most, 8);
}

}  // namespace

std::string Table::str() const {
  const size_t n = headers_.size();
  std::vector<size_t> width(n);
  for (size_t c = 0; c < n; ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], display_width(r[c]));
  }
  size_t total = 0;
  for (size_t c = 0; c < n; ++c) total += width[c] + (c ? 2 : 0);
  // A table wider than the terminal wraps cells so that it fits: a left-aligned last column first
  // (down to 20 columns), then headers wider than their cells, then the other left-aligned
  // columns, widest first (down to 12); a table still too wide is split into groups of columns.
  const auto shrink = [&](size_t c, size_t least) {
    if (total <= kTerminalColumns || width[c] <= least) return;
    const size_t cut = std::min(width[c] - least, total - kTerminalColumns);
    width[c] -= cut;
    total -= cut;
  };
  if (n > 1 && align_[n - 1] == Align::Left) shrink(n - 1, 20);
  // Headers wider than their column's cells wrap at spaces.
  for (size_t c = 0; c < n && total > kTerminalColumns; ++c) {
    size_t cells = header_floor(headers_[c]);
    for (const auto& r : rows_) cells = std::max(cells, display_width(r[c]));
    shrink(c, cells);
  }
  while (total > kTerminalColumns) {
    size_t widest = n;
    for (size_t c = 0; c < n; ++c)
      if (align_[c] == Align::Left && width[c] > 12 && (widest == n || width[c] > width[widest])) widest = c;
    if (widest == n) break;
    // Down to the next narrower left-aligned column at most, so that wide columns share the cut.
    size_t next = 12;
    for (size_t c = 0; c < n; ++c)
      if (align_[c] == Align::Left && width[c] < width[widest]) next = std::max(next, width[c]);
    shrink(widest, std::max(next, width[widest] - std::min(width[widest], total - kTerminalColumns)));
  }
  // Still too wide: the columns in groups that fit, one table after another, each led by the first column.
  if (total > kTerminalColumns && n > 2) {
    std::vector<std::vector<size_t>> groups;
    for (size_t c = 1; c < n; ++c) {
      size_t used = width[0];
      if (!groups.empty())
        for (size_t g : groups.back()) used += (g ? 2 : 0) + width[g];
      if (groups.empty() || used + 2 + width[c] > kTerminalColumns) groups.push_back({0});
      groups.back().push_back(c);
    }
    std::string out;
    for (const auto& g : groups) {
      std::vector<std::string> head;
      for (size_t c : g) head.push_back(headers_[c]);
      Table part(head);
      for (size_t k = 0; k < g.size(); ++k) part.align(k, align_[g[k]]);
      for (const auto& row : rows_) {
        std::vector<std::string> cells;
        for (size_t c : g) cells.push_back(row[c]);
        part.add_row(cells);
      }
      if (!out.empty()) out += '\n';
      out += part.str();
    }
    return out;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> parts(n);
    size_t rows = 1;
    for (size_t c = 0; c < n; ++c) {
      parts[c] = display_width(cells[c]) > width[c] ? cell_lines(cells[c], width[c]) : std::vector<std::string>{cells[c]};
      rows = std::max(rows, parts[c].size());
    }
    std::string out;
    for (size_t k = 0; k < rows; ++k) {
      std::string l;
      for (size_t c = 0; c < n; ++c) {
        const std::string cell = k < parts[c].size() ? parts[c][k] : std::string();
        const std::string pad(width[c] > display_width(cell) ? width[c] - display_width(cell) : 0, ' ');
        if (c) l += "  ";
        l += align_[c] == Align::Right ? pad + cell : cell + pad;
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();  // no trailing blanks
      out += l + "\n";
    }
    return out;
  };
  std::string out = line(headers_);
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

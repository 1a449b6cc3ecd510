#pragma once
// Text output the way every sol command prints it: SI numbers with a few significant digits
// ("989.4 TFLOP/s", "3.35 TB/s", "1.2 ms"), byte sizes in binary units ("50 MiB"), and a small
// table with aligned columns. Widths count UTF-8 code points, so "×" and "µ" line up.
#include <string>
#include <vector>

namespace sol {

// v with an SI prefix (p n µ m – k M G T P E) and `digits` significant digits, trailing zeros
// dropped: si(989.4e12, "FLOP/s") == "989.4 TFLOP/s", si(3.35e12, "B/s") == "3.35 TB/s".
std::string si(double v, const std::string& unit, int digits = 4);
// Bytes in binary units: bytes_iec(50 * 1024 * 1024) == "50 MiB", bytes_iec(512) == "512 B".
std::string bytes_iec(double bytes, int digits = 4);
// A plain number: integers in full ("528", "32768"), others with `digits` significant digits.
std::string num(double v, int digits = 4);
// Fixed decimals: fixed(12.345, 1) == "12.3".
std::string fixed(double v, int decimals);
// Scientific with 2 significant digits: sci(0.00012) == "1.2e-04" (errors, tolerances).
std::string sci(double v);
// Display width of a UTF-8 string (code points, not bytes).
size_t display_width(const std::string& s);
// `text` broken at spaces into lines of at most `width` code points (a longer word gets a line
// of its own); a '\n' in the text starts a new line. Never empty: "" gives one empty line.
std::vector<std::string> wrap(const std::string& text, size_t width);
// Markdown as a terminal shows it: each table ("| a | b |" rows, the second a "| --- |" rule)
// becomes a Table (numeric-looking columns right-aligned), `code` and **bold** lose their marks,
// other lines are kept as they are.
std::string markdown_text(const std::string& md);
// The widest terminal line sol prints, in code points.
inline constexpr size_t kTerminalColumns = 100;
// Prose lines of `text` longer than `width` wrapped at spaces, continuing under their own indent
// (under the text of a "- " bullet); table rows (cells apart by two spaces) are left alone.
std::string reflow(const std::string& text, size_t width = kTerminalColumns);

// Columns of text, each left- or right-aligned, separated by two spaces.
class Table {
 public:
  enum class Align { Left, Right };
  explicit Table(std::vector<std::string> headers);
  // Alignment of column i (default: left for the first column, right for the others).
  Table& align(size_t column, Align a);
  // A row with fewer cells than headers is padded with empty cells; more cells is an error.
  Table& add_row(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }
  // Header line, a rule of dashes, then the rows; every line ends with '\n'.
  std::string str() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace sol

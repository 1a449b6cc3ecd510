#include "sol/core/input.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "sol/core/error.hpp"

namespace sol {

namespace fs = std::filesystem;

std::string read_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes) {
  const std::string named = what + " '" + printable(path, 200) + "'";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) bad_input("cannot open " + named, "check the path");
  if (!fs::is_regular_file(st))
    bad_input(named + " is not a regular file", "give a file, not a directory, device or pipe");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) bad_input("cannot read " + named + ": " + ec.message());
  const std::string limit = std::to_string(max_bytes >> 20) + " MiB";
  if (size > max_bytes) bad_input(named + " is larger than " + limit, "an input file holds at most " + limit);
  std::ifstream in(path, std::ios::binary);
  if (!in) bad_input("cannot open " + named, "check the permissions");
  // Read at most one byte past the limit, in case the file grew since it was measured.
  std::string text(size_t(size), '\0');
  in.read(text.data(), std::streamsize(size));
  text.resize(size_t(in.gcount()));
  if (in.peek() != std::char_traits<char>::eof())
    bad_input(named + " changed while it was read", "read it again when it is complete");
  return text;
}

namespace {
// Length of the valid UTF-8 sequence starting at s[i] (2..4), or 0 when there is none.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || b >= 0xF5 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}
}  // namespace

std::string printable(const std::string& text, size_t max_chars) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_chars) return out + "…";
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7F) {
      out += char(c);
    } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0; n > 0) {
      out.append(text, i, n);
      i += n - 1;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace sol

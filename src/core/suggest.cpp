#include "sol/core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace sol {

size_t edit_distance(const std::string& a, const std::string& b) {
  auto low = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (low(a[i - 1]) == low(b[j - 1]) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 3;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d && 2 * d < word.size()) best = c, best_d = d;
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string c = closest(word, candidates);
  return c.empty() ? "" : "; did you mean '" + c + "'?";
}

}  // namespace sol

#pragma once
// "Did you mean": the closest of a few known names to a mistyped one, by edit distance.
#include <string>
#include <vector>

namespace sol {

// Levenshtein distance (insert, delete, substitute; case-insensitive).
size_t edit_distance(const std::string& a, const std::string& b);
// The candidate nearest to `word` if it is near enough to be a typo (at most 2 edits, and
// fewer than half of the word's length), else "".
std::string closest(const std::string& word, const std::vector<std::string>& candidates);
// "; did you mean 'X'?" when closest() finds one, else "": appended to an error's what().
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace sol

#pragma once
// `sol compare A B`: two measuring runs side by side. Records are matched by family, variant and
// shape; each pair gets the speed-up of B over A and a verdict that allows for both runs' noise.
#include <string>
#include <vector>

#include "sol/results.hpp"

namespace sol::cli {

struct Pair {
  std::string family, variant, shape;
  double a_s = 0, b_s = 0;  // medians
  double speedup = 0;       // a_s / b_s: above 1, B is faster
  // How far apart two runs of the same code may land: the sum of both runs' half spreads
  // ((p90 − p10) / median / 2 each), as a relative change.
  double noise = 0;
  // B against A: "faster" / "slower" when |ln speedup| exceeds ln(1 + noise), else "same";
  // "unknown" when either run has fewer than 3 samples (no spread to judge by).
  std::string verdict;
};

struct Comparison {
  std::vector<Pair> pairs;                // in A's order
  std::vector<std::string> only_a, only_b;  // "family/variant shape"
  std::vector<std::string> invalid;       // in both, but skipped or failed verification in either
  int faster = 0, slower = 0, same = 0, unknown = 0;
  double geomean_speedup = 0;             // over the pairs with a verdict; 0 when none
};

Comparison compare(const std::vector<results::File>& a, const std::vector<results::File>& b);
// A table per family (fits 100 columns), then the summary and what could not be compared.
std::string comparison_text(const Comparison& c, const std::string& a_name, const std::string& b_name);
std::string comparison_json(const Comparison& c, const std::string& a_name, const std::string& b_name);
// Results from a file (one results file, or an array of them as `sol bench --json` writes for
// several families) or a folder of them. Throws sol::Error (BadInput) naming the path.
std::vector<results::File> read_results(const std::string& path);

}  // namespace sol::cli

#pragma once
// The access models (sol/model/access.hpp) set against measurement: for a committed result file
// of the memory-lesson families (coalescing, banks, divergence), each measured time ratio beside
// the ratio the models predict for the same shapes. The models never see a measurement; this is
// the report's side, which reads both.
#include <string>
#include <vector>

#include "sol/results.hpp"

namespace sol::report {

struct AgainstRow {
  std::string family;
  std::string compared;      // "stride 4 vs stride 1", "v01_tile32 vs v02_padded at rows=…"
  std::string model;         // the modeled quantity: "16 sectors/request", "32-way", "8 paths"
  double predicted = 0;      // predicted time ratio
  double predicted_alt = 0;  // a second account where one applies (coalescing: 64-byte DRAM granule); 0: none
  double measured = 0;       // measured median ratio
};
// Rows for every pair the file holds (records that did not run or verify are left out). Throws
// sol::Error (BadInput) for a family the access models do not cover.
std::vector<AgainstRow> predict_against(const results::File& f);
// The rows as a markdown table, with a line saying how each prediction is made (docs/access.md).
std::string against_markdown(const std::vector<AgainstRow>& rows);

}  // namespace sol::report

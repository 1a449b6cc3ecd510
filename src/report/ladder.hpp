#pragma once
// What every rendering of the report reads from results files: the records of a family grouped
// into its ladder, each variant's headline record, and which values can be drawn at all.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"
#include "sol/results.hpp"

namespace sol::report::detail {

// Records grouped: family → variant (rungs by version, peers last) → records in file order.
struct Ladder {
  const results::File* file = nullptr;
  std::string family;
  std::vector<std::string> variants;
  std::map<std::string, std::vector<const results::Record*>> by_variant;
};

// Every family of `files` except the GEMM size sweep (sweep_html draws that).
std::vector<Ladder> ladders(const std::vector<results::File>& files);

// A record that can be drawn: it ran, and its time is a positive number below a day (a larger
// one is a broken file, not a measurement).
bool usable(const results::Record& r);

// The headline record of a variant: its first usable shape, else its first record (a skip).
const results::Record* headline(const std::vector<const results::Record*>& recs);

// % of the floor a measurement reached: floor / measured (≤ 1 unless the model is wrong); 0 if
// the record has no usable time.
double fraction_of_floor(const results::Record& r);

// The element type a record computes in: its `dtype` (schema 2), else the one its variant's or
// its family's name mentions ("v02_relu_bf16", "gemm_fp8"); nullopt when neither says.
std::optional<DType> record_dtype(const results::Record& r);

}  // namespace sol::report::detail

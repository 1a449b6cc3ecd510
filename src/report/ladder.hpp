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

// Records grouped: family → variant (rungs by version, then dispatch, peers last) → records in file order.
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

// The floor a record's time is compared with: the model's floor on the ceilings measured in the
// run, else on the datasheet's; 0 when the record has neither.
double floor_of(const results::Record& r);

// Whether a floor base (results::floor_base) is a datasheet ceiling, not one measured in the run.
bool datasheet_base(const std::string& base);

// The mark a throttled record's time carries, and the sentence that explains it, naming each
// throttled record with its reasons (`who`: "v03 at n=4096: sw power cap"); "" when none.
inline constexpr const char* kThrottleMark = " †";
std::string throttle_note(const std::vector<std::string>& who);

// The mark a ratio carries when its peer's time holds host dispatch (results::host_in_time), and
// the sentence that explains it, naming the peers (`who`: "layernorm: torch.F.layer_norm_bf16").
inline constexpr const char* kHostTimeMark = " ‡";
std::string host_time_note(const std::vector<std::string>& who);

// The fastest comparable peer (results::best_peer) against `r`: "1.11× torch.matmul_fp16", with
// kHostTimeMark when that peer's time holds host dispatch; "" when there is none.
std::string vs_peer(const results::File& f, const results::Record& r);

// % of the floor a measurement reached: floor / measured (≤ 1 unless the model is wrong); 0 if
// the record has no usable time.
double fraction_of_floor(const results::Record& r);

// The element type a record computes in: its `dtype` (schema 2), else the one its variant's or
// its family's name mentions ("v02_relu_bf16", "gemm_fp8"); nullopt when neither says.
std::optional<DType> record_dtype(const results::Record& r);

}  // namespace sol::report::detail

// Lookups on a spec (peak, ridge) and the name space every command resolves --gpu against:
// the built-in rows, rows loaded from --hw-file, and the profile `sol probe` measured.
// Loaded rows live in deques so the references find() hands out stay valid.
#include "sol/hw/spec.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/input.hpp"
#include "sol/core/suggest.hpp"
#include "sol/core/format.hpp"
#include "rows.hpp"

namespace sol::hw {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

struct Loaded {
  HwSpec spec;
  std::string origin;
};
std::deque<Loaded>& extras() {
  static std::deque<Loaded> rows;
  return rows;
}
std::deque<HwSpec>& measured_profiles() {
  static std::deque<HwSpec> rows;
  return rows;
}

const HwSpec* find_builtin(const std::string& key) {
  for (const auto& s : builtin())
    if (lower(s.name) == key) return &s;
  return nullptr;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& s : builtin()) out.push_back(s.name);
  for (const auto& e : extras()) out.push_back(e.spec.name);
  out.push_back("measured");
  return out;
}

std::string valid_names() {
  std::string out;
  for (const auto& n : names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string read_text(const std::string& path) { return read_input_file(path, "hardware file"); }

}  // namespace

std::string unit_name(Unit u) { return u == Unit::Matrix ? "matrix" : "vector"; }

std::string Peak::derivation() const {
  std::string label = unit_label;
  if (units == 1 && !label.empty() && label.back() == 's') label.pop_back();  // "1 TensorCore"
  std::ostringstream ss;
  ss << num(units) << ' ' << label << " × " << num(flops_per_clock_per_unit)
     << " FLOP/clk × " << si(clock_hz, "Hz") << " = " << si(units * flops_per_clock_per_unit * clock_hz, "FLOP/s");
  return ss.str();
}

bool HwSpec::has(DType t, Unit u) const {
  const auto& peaks = u == Unit::Matrix ? matrix_peaks : vector_peaks;
  return peaks.count(dtype_peak_key(t)) != 0;
}

const Peak& HwSpec::peak(DType t, Unit u) const {
  const auto& peaks = u == Unit::Matrix ? matrix_peaks : vector_peaks;
  auto it = peaks.find(dtype_peak_key(t));
  if (it != peaks.end()) return it->second;
  std::string have;
  for (const auto& [k, p] : peaks) have += (have.empty() ? "" : ", ") + k;
  bad_input(name + " has no " + unit_name(u) + " peak for " + dtype_name(t),
            have.empty() ? "it has no " + unit_name(u) + " unit peaks at all"
                         : "its " + unit_name(u) + " unit has: " + have);
}

double HwSpec::ridge(DType t, Unit u) const {
  if (hbm_bytes_per_s <= 0) bad_input(name + " has no HBM bandwidth", "fix the hardware row");
  return peak(t, u).flops_per_s / hbm_bytes_per_s;
}

std::string Interconnect::derivation() const {
  const std::string each = si(link_bytes_per_s, "B/s");
  return std::to_string(links) + (links == 1 ? " link × " : " links × ") + each + " = " + si(bytes_per_s, "B/s") +
         " per direction (" + si(2 * bytes_per_s, "B/s") + " both ways)";
}

const Interconnect& HwSpec::interconnect(const std::string& key) const {
  const std::string k = lower(key);
  std::string have;
  for (const auto& ic : interconnects) {
    if (ic.key == k) return ic;
    have += (have.empty() ? "" : ", ") + ic.key;
  }
  bad_input(name + " has no interconnect '" + key + "'",
            have.empty() ? "its row lists no interconnects" : "it has: " + have);
}

std::vector<const HwSpec*> all_specs() {
  std::vector<const HwSpec*> out;
  for (const auto& s : builtin()) out.push_back(&s);
  for (const auto& e : extras()) out.push_back(&e.spec);
  return out;
}

std::string measured_profile_path() {
  if (const char* p = std::getenv("SOL_PROFILE"); p && *p) return p;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.cache/sol/measured.json";
}

const HwSpec& find(const std::string& raw) {
  const std::string key = lower(raw);
  if (const HwSpec* s = find_builtin(key)) return *s;
  for (const auto& e : extras())
    if (lower(e.spec.name) == key) return e.spec;
  if (key == "measured") {
    const std::string path = measured_profile_path();
    if (std::error_code ec; !std::filesystem::exists(path, ec))
      bad_input("no measured profile at " + path,
                "run `sol probe` on a GPU machine to create it, or set SOL_PROFILE to its path");
    HwSpec s = from_json_text(read_text(path), path);
    if (!s.measured) bad_input(path + ": not a measured profile (\"measured\" is not true)", "run `sol probe` again");
    measured_profiles().push_back(std::move(s));
    return measured_profiles().back();
  }
  bad_input("unknown hardware '" + raw + "'" + did_you_mean(raw, names()), "valid names: " + valid_names());
}

std::vector<HwSpec> load_file(const std::string& path) {
  const std::string text = read_text(path);
  std::vector<HwSpec> rows = from_json_array_text(text, path);
  // Check the whole file before registering any row, so a bad file leaves nothing behind.
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string key = lower(rows[i].name);
    if (find_builtin(key) || key == "measured")
      bad_input(path + ": row '" + rows[i].name + "': field 'name' clashes with a built-in name",
                "rename the row");
    for (size_t j = 0; j < i; ++j)
      if (lower(rows[j].name) == key)
        bad_input(path + ": row '" + rows[i].name + "': field 'name' appears twice in the file", "rename one");
    for (const auto& e : extras())
      if (lower(e.spec.name) == key && e.origin != path)
        bad_input(path + ": row '" + rows[i].name + "': field 'name' was already loaded from " + e.origin,
                  "rename the row");
  }
  for (const auto& s : rows) {
    auto& ex = extras();
    auto same = std::find_if(ex.begin(), ex.end(), [&](const Loaded& e) { return lower(e.spec.name) == lower(s.name); });
    if (same != ex.end())
      same->spec = s;  // reloading the same file replaces its rows
    else
      ex.push_back({s, path});
  }
  return rows;
}

}  // namespace sol::hw

// Reading SCALE-Sim's inputs and writing its reports. The config is an INI file read the way
// Python's configparser reads it (keys in any case, "key: value" or "key = value"); the
// topology is a CSV whose data rows end with a comma. Bad input names the file and line.
#include "sol/sim/scalesim_io.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/input.hpp"

namespace sol::sim {
namespace {

// Depthwise rows expand to one layer per channel; every layer costs a simulation and a report row.
constexpr int64_t kMaxLayers = 65536;

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string slurp(const std::string& path, const char* what) {
  return read_input_file(path, std::string(what) + " file");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

int64_t to_int(const std::string& v, const std::string& where, const std::string& what) {
  const std::string t = trim(v);
  int64_t x = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    bad_input(where + ": " + what + " is '" + printable(t) + "', not an integer");
  return x;
}

}  // namespace

// ---- config ------------------------------------------------------------------------------------

ArrayConfig parse_scalesim_config(const std::string& text, const std::string& where) {
  std::map<std::string, std::map<std::string, std::string>> ini;  // section → key (lower case) → value
  std::string section;
  int n = 0;
  for (const std::string& raw : lines_of(text)) {
    ++n;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']')
        bad_input(where + ":" + std::to_string(n) + ": malformed section header '" + printable(line) + "'");
      section = lower(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    const size_t eq = line.find_first_of(":=");
    if (eq == std::string::npos || section.empty())
      bad_input(where + ":" + std::to_string(n) + ": expected 'key: value' inside a [section], got '" + printable(line) +
                "'");
    std::string value = line.substr(eq + 1);
    for (const char* c : {" #", " ;", "\t#", "\t;"})  // tolerate trailing comments
      if (size_t p = value.find(c); p != std::string::npos) value = value.substr(0, p);
    ini[section][lower(trim(line.substr(0, eq)))] = trim(value);
  }
  auto get = [&](const char* sec, const char* key) -> std::string {
    auto s = ini.find(sec);
    if (s == ini.end()) bad_input(where + ": no [" + std::string(sec) + "] section", "see SCALE-Sim's configs/scale.cfg");
    auto k = s->second.find(lower(key));
    if (k == s->second.end())
      bad_input(where + ": [" + std::string(sec) + "] has no " + key, "see SCALE-Sim's configs/scale.cfg");
    return k->second;
  };
  auto num = [&](const char* key) { return to_int(get("architecture_presets", key), where, key); };

  ArrayConfig c;
  if (ini.count("general") && ini["general"].count("run_name")) c.run_name = ini["general"]["run_name"];
  c.rows = num("ArrayHeight");
  c.cols = num("ArrayWidth");
  c.ifmap_sram_kb = num("IfmapSramSzkB");
  c.filter_sram_kb = num("FilterSramSzkB");
  c.ofmap_sram_kb = num("OfmapSramSzkB");
  c.dataflow = parse_dataflow(get("architecture_presets", "Dataflow"));
  const std::string mode = get("run_presets", "InterfaceBandwidth");
  if (mode == "CALC") {
    c.bandwidth_mode = BandwidthMode::calc;
    c.dram_words_per_cycle = 10;
  } else if (mode == "USER") {
    c.bandwidth_mode = BandwidthMode::user;
    const std::string bw = get("architecture_presets", "Bandwidth");
    c.dram_words_per_cycle = double(to_int(bw.substr(0, bw.find(',')), where, "Bandwidth"));  // first value only
  } else {
    bad_input(where + ": InterfaceBandwidth is '" + printable(mode) + "'", "use CALC or USER");
  }
  c.word_bytes = 1;
  validate(c);
  return c;
}

ArrayConfig read_scalesim_config(const std::string& path) { return parse_scalesim_config(slurp(path, "config"), path); }

// ---- topology ------------------------------------------------------------------------------------

std::vector<Layer> parse_topology(const std::string& text, const std::string& where) {
  const std::vector<std::string> lines = lines_of(text);
  if (lines.empty()) bad_input(where + " is empty", "a header line and one row per layer");
  auto fields = [](const std::string& line) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) f.push_back(trim(cell));  // the empty field after a final ',' is dropped
    return f;
  };
  const std::vector<std::string> head = fields(lines[0]);
  const bool gemm = head.size() >= 4 && lower(head[1]) == "m" && lower(head[2]) == "n" && lower(head[3]) == "k";
  std::vector<Layer> layers;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) continue;
    if (layers.size() >= size_t(kMaxLayers))
      bad_input(where + " holds more than " + std::to_string(kMaxLayers) + " layers", "split the topology");
    const std::vector<std::string> f = fields(lines[i]);
    const std::string at = where + ":" + std::to_string(i + 1);
    auto v = [&](size_t j, const char* what) { return to_int(f[j], at, what); };
    if (gemm) {
      if (f.size() < 4) bad_input(at + ": a GEMM row needs name, M, N, K");
      layers.push_back(Layer::gemm(f[0], v(1, "M"), v(2, "N"), v(3, "K")));
      continue;
    }
    if (f.size() < 8)
      bad_input(at + ": a conv row needs name, IFMAP height, width, filter height, width, channels, filters, stride",
                "or use the GEMM header 'Layer, M, N, K,'");
    const int64_t sh = v(7, "stride"), sw = f.size() >= 9 && !f[8].empty() ? v(8, "column stride") : sh;
    const int64_t ch = v(5, "channels");
    if (f[0].find("DP") != std::string::npos) {  // depthwise: SCALE-Sim runs one layer per channel
      if (ch < 1) bad_input(at + ": channels is " + std::to_string(ch), "sizes must be at least 1");
      if (ch > kMaxLayers - int64_t(layers.size()))
        bad_input(at + ": a depthwise layer of " + std::to_string(ch) + " channels is " + std::to_string(ch) +
                      " layers", "a topology holds at most " + std::to_string(kMaxLayers) + " layers in all");
      for (int64_t c = 0; c < ch; ++c)
        layers.push_back(Layer::conv(f[0] + "Channel_" + std::to_string(c), v(1, "IFMAP height"), v(2, "IFMAP width"),
                                     v(3, "filter height"), v(4, "filter width"), 1, v(6, "filters"), sh, sw));
    } else {
      layers.push_back(Layer::conv(f[0], v(1, "IFMAP height"), v(2, "IFMAP width"), v(3, "filter height"),
                                   v(4, "filter width"), ch, v(6, "filters"), sh, sw));
    }
  }
  if (layers.empty()) bad_input(where + " has no layers", "one row per layer after the header");
  return layers;
}

std::vector<Layer> read_topology(const std::string& path) { return parse_topology(slurp(path, "topology"), path); }

// ---- reports ---------------------------------------------------------------------------------------

std::string python_float(double v) {
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // d.ddde±XX
  const size_t e = sci.find('e');
  const int exp10 = std::stoi(sci.substr(e + 1));
  std::string mant = sci.substr(0, e);
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char ch : mant)
    if (ch != '.') digits += ch;
  std::string out;
  if (exp10 < -4 || exp10 >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out.append(1, '.').append(digits, 1, std::string::npos);
    char ex[16];
    std::snprintf(ex, sizeof ex, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += ex;
  } else if (exp10 < 0) {
    out = "0." + std::string(size_t(-exp10 - 1), '0') + digits;
  } else if (size_t(exp10) + 1 >= digits.size()) {
    out = digits + std::string(size_t(exp10) + 1 - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, size_t(exp10) + 1) + "." + digits.substr(size_t(exp10) + 1);
  }
  return neg ? "-" + out : out;
}

namespace {

template <typename Row>
std::string report(const std::string& header, const std::vector<LayerResult>& layers, Row row) {
  std::string out = header + ",\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    std::vector<std::string> cells = row(layers[i]);
    out += std::to_string(i);
    for (const std::string& c : cells) out += ", " + c;
    out += ",\n";
  }
  return out;
}

std::string i64(int64_t v) { return std::to_string(v); }

}  // namespace

std::string compute_report_csv(const std::vector<LayerResult>& layers) {
  return report("LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %", layers,
                [](const LayerResult& r) {
                  return std::vector<std::string>{i64(r.total_cycles), i64(r.stall_cycles), python_float(r.overall_util),
                                                  python_float(r.mapping_eff), python_float(r.compute_util)};
                });
}

std::string bandwidth_report_csv(const std::vector<LayerResult>& layers) {
  return report(
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg FILTER DRAM BW, "
      "Avg OFMAP DRAM BW",
      layers, [](const LayerResult& r) {
        std::vector<std::string> c;
        for (const OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap}) c.push_back(python_float(t->avg_sram_bw));
        for (const OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap}) c.push_back(python_float(t->avg_dram_bw));
        return c;
      });
}

std::string detailed_access_report_csv(const std::vector<LayerResult>& layers) {
  std::string head = "LayerID";
  for (const char* mem : {"SRAM", "DRAM"})
    for (const char* op : {"IFMAP", "Filter", "OFMAP"}) {
      const std::string n = std::string(mem) + " " + op;
      const bool w = std::string(op) == "OFMAP";
      head += ", " + n + " Start Cycle, " + n + " Stop Cycle, " + n + (w ? " Writes" : " Reads");
    }
  return report(head, layers, [](const LayerResult& r) {
    std::vector<std::string> c;
    for (const OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap})
      c.insert(c.end(), {python_float(t->sram_start), python_float(t->sram_stop), i64(t->sram)});
    for (const OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap})
      c.insert(c.end(), {python_float(t->dram_start), python_float(t->dram_stop), i64(t->dram)});
    return c;
  });
}

void write_scalesim_reports(const std::string& dir, const std::vector<LayerResult>& layers) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) failure("cannot create the output folder '" + dir + "': " + ec.message());
  const std::pair<const char*, std::string> files[] = {{"COMPUTE_REPORT.csv", compute_report_csv(layers)},
                                                       {"BANDWIDTH_REPORT.csv", bandwidth_report_csv(layers)},
                                                       {"DETAILED_ACCESS_REPORT.csv", detailed_access_report_csv(layers)}};
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) failure("cannot write '" + path + "'");
  }
}

}  // namespace sol::sim

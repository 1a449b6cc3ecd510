// PyTorch peers run as a subprocess (bench/peers/torch_peers.py); its JSON array of records is
// read through the results-file parser, so a peer record is validated like any other.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/harness.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string last_line(const std::string& text) {
  std::string line, last;
  std::stringstream ss(text);
  while (std::getline(ss, line))
    if (!line.empty()) last = line;
  return last;
}

// Removes the temporary files however the function returns.
struct TempFiles {
  std::filesystem::path out, err;
  ~TempFiles() {
    std::error_code ec;
    std::filesystem::remove(out, ec);
    std::filesystem::remove(err, ec);
  }
};

// The peer's place on the roofline, as the script states it: its own FLOPs and bytes, the data's
// type ("dtype"), the unit that does the arithmetic ("unit": "matrix" or "vector") and, where it is
// not the data's, the math type ("math": "tf32" for an fp32 matmul on TF32 tensor cores).
model::Cost peer_cost(const nlohmann::json& j, const results::Record& r, const std::string& where) {
  const auto text = [&](const char* key) -> std::string {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
  };
  model::Cost c;
  c.op = r.technique;
  c.flops = r.flops;
  c.bytes = r.bytes;
  if (r.dtype.empty()) bad_input(where + " (" + r.variant + ") states no dtype");
  c.dtype = parse_dtype(r.dtype);
  const std::string unit = text("unit");
  if (unit == hw::unit_name(hw::Unit::Matrix))
    c.unit = hw::Unit::Matrix;
  else if (unit == hw::unit_name(hw::Unit::Vector))
    c.unit = hw::Unit::Vector;
  else
    bad_input(where + " (" + r.variant + "): unit '" + unit + "' is neither \"matrix\" nor \"vector\"");
  if (const std::string math = text("math"); !math.empty()) c.math_dtype = parse_dtype(math);
  return c;
}

}  // namespace

results::Record missing_peer_record(const std::string& family, const std::string& why) {
  results::Record r;
  r.family = family;
  r.variant = "peer:torch";
  r.technique = "PyTorch eager / torch.compile (bench/peers/torch_peers.py)";
  r.skipped = "PyTorch peers not run: " + why;
  return r;
}

PeerRun torch_peers(const std::string& family, const std::vector<Shape>& shapes, double budget_s,
                    const std::string& script_arg) {
  PeerRun run;
  if (family.empty() || family.find_first_of("\"\\'") != std::string::npos) bad_input("bad family name '" + family + "'");
  // The source tree the binary was built from, unless SOL_SOURCE_DIR says where it is now
  // (a build carried to another machine).
  const char* src_env = std::getenv("SOL_SOURCE_DIR");
  const std::string src = src_env && *src_env ? src_env : SOL_SOURCE_DIR;
  const std::string script = script_arg.empty() ? src + "/bench/peers/torch_peers.py" : script_arg;
  if (!std::filesystem::exists(script)) {
    run.missing = "no peer script at " + script;
    return run;
  }
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) {
    run.missing = "python3 is not installed";
    return run;
  }
  std::string shape_list;
  for (const auto& s : shapes) {
    if (!shape_list.empty()) shape_list += ';';
    shape_list += s.str();
  }
  static int calls = 0;
  const auto tmp = std::filesystem::temp_directory_path() /
                   ("sol-peers-" + std::to_string(::getpid()) + "-" + std::to_string(calls++));
  TempFiles files{tmp.string() + ".json", tmp.string() + ".err"};
  const std::string timeout = std::system("command -v timeout >/dev/null 2>&1") == 0 ? "timeout 1200 " : "";
  const std::string cmd = timeout + "python3 " + quote(script) + " --family " + quote(family) + " --budget " + num(budget_s, 3) + " --shapes " +
                          quote(shape_list) + " --out " + quote(files.out.string()) + " 2> " + quote(files.err.string()) +
                          " >/dev/null";
  const int status = std::system(cmd.c_str());
  const int code = status == -1 ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  const std::string err = last_line(read_text(files.err));
  if (code == 3) {
    run.missing = err.empty() ? "torch or CUDA is missing (exit 3)" : err;
    return run;
  }
  if (code != 0) {
    run.missing = "torch_peers.py failed (exit " + std::to_string(code) + ")" + (err.empty() ? "" : ": " + err);
    return run;
  }
  const std::string text = read_text(files.out);
  try {
    // The script writes an array of records; the results parser reads them inside a file object.
    const results::File f = results::from_json_text(
        "{\"family\": \"" + family + "\", \"ceilings\": {\"copy_bytes_per_s\": 0}, \"records\": " + text + "}",
        "torch_peers.py output");
    run.records = f.records;
    const nlohmann::json j = nlohmann::json::parse(text);
    for (size_t i = 0; i < run.records.size(); ++i)
      run.costs.push_back(peer_cost(j[i], run.records[i], "torch_peers.py record " + std::to_string(i)));
  } catch (const Error& e) {
    run.records.clear();
    run.costs.clear();
    run.missing = std::string("torch_peers.py wrote unreadable records: ") + e.what();
    return run;
  }
  if (run.records.empty()) {
    run.missing = err.empty() ? "torch_peers.py returned no records for family '" + family + "'" : err;
    return run;
  }
  for (auto& r : run.records) {
    if (r.family != family) {
      run.records.clear();
      run.costs.clear();
      run.missing = "torch_peers.py returned a record of family '" + r.family + "' when asked for '" + family + "'";
      return run;
    }
    if (r.variant.rfind("peer:", 0) != 0) r.variant = "peer:" + r.variant;
  }
  return run;
}

}  // namespace sol::bench

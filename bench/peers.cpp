// PyTorch peers run as one subprocess for all families (bench/peers/torch_peers.py); each family's
// records are read through the results-file parser, so a peer record is validated like any other.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
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

std::string peer_request_json(const std::vector<PeerRequest>& families, const PeerOptions& opts) {
  nlohmann::json req = {{"budget_s", opts.budget_s},   {"graph_below_s", results::kGraphBelowS},
                        {"compile", opts.compile},     {"dry_run", opts.dry_run},
                        {"families", nlohmann::json::array()}};
  for (const PeerRequest& f : families) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const Shape& s : f.shapes) {
      nlohmann::json costs = nlohmann::json::array();
      for (const Variant& v : registry()) {
        if (v.family != f.family || !v.cost || v.is_peer()) continue;
        try {
          if (v.unsupported && !v.unsupported(s).empty()) continue;
          const model::Cost c = v.cost(s);
          costs.push_back({{"variant", v.name}, {"dtype", dtype_name(c.dtype)}, {"flops", c.flops}, {"bytes", c.bytes}});
        } catch (const Error&) {
          // a shape of another variant of the family (coalescing's strided shapes): no cost here
        }
      }
      shapes.push_back({{"shape", s.str()}, {"costs", costs}});
    }
    req["families"].push_back({{"family", f.family}, {"shapes", shapes}});
  }
  return req.dump(1);
}

namespace {

// One family's part of the script's answer, validated like a results file.
void read_family(const nlohmann::json& j, PeerRun& run) {
  const std::string where = "torch_peers.py (" + run.family + ")";
  if (auto it = j.find("seconds"); it != j.end() && it->is_number()) run.seconds = it->get<double>();
  if (auto it = j.find("missing"); it != j.end() && it->is_string() && !it->get<std::string>().empty()) {
    run.missing = it->get<std::string>();
    return;
  }
  const auto recs = j.find("records");
  if (recs == j.end() || !recs->is_array()) {
    run.missing = where + " wrote no records array";
    return;
  }
  try {
    // The results parser reads the records inside a file object.
    const results::File f = results::from_json_text(
        "{\"family\": " + nlohmann::json(run.family).dump() + ", \"ceilings\": {\"copy_bytes_per_s\": 0}, \"records\": " +
            recs->dump() + "}",
        "torch_peers.py output");
    run.records = f.records;
    for (size_t i = 0; i < run.records.size(); ++i)
      run.costs.push_back(peer_cost((*recs)[i], run.records[i], "torch_peers.py record " + std::to_string(i)));
  } catch (const Error& e) {
    run.records.clear();
    run.costs.clear();
    run.missing = std::string("torch_peers.py wrote unreadable records: ") + e.what();
    return;
  }
  if (run.records.empty()) {
    run.missing = "torch_peers.py returned no records for family '" + run.family + "'";
    return;
  }
  for (auto& r : run.records) {
    if (r.family != run.family) {
      run.records.clear();
      run.costs.clear();
      run.missing = "torch_peers.py returned a record of family '" + r.family + "' when asked for '" + run.family + "'";
      return;
    }
    if (r.variant.rfind("peer:", 0) != 0) r.variant = "peer:" + r.variant;
  }
}

}  // namespace

PeerProcess::PeerProcess(const PeerOptions& opts) : opts_(opts) {
  // The source tree the binary was built from, unless SOL_SOURCE_DIR says where it is now
  // (a build carried to another machine).
  const char* src_env = std::getenv("SOL_SOURCE_DIR");
  const std::string src = src_env && *src_env ? src_env : SOL_SOURCE_DIR;
  const std::string script = opts.script.empty() ? src + "/bench/peers/torch_peers.py" : opts.script;
  if (!std::filesystem::exists(script)) {
    why_not_ = "no peer script at " + script;
    return;
  }
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) {
    why_not_ = "python3 is not installed";
    return;
  }
  static int calls = 0;
  const auto tmp = std::filesystem::temp_directory_path() /
                   ("sol-peers-" + std::to_string(::getpid()) + "-" + std::to_string(calls++));
  out_ = tmp.string() + ".json";
  err_ = tmp.string() + ".err";
  const std::string timeout = std::system("command -v timeout >/dev/null 2>&1") == 0 ? "timeout 1800 " : "";
  // The request comes down stdin (--request -): the script imports torch first, then reads it.
  const std::string cmd = timeout + "python3 " + quote(script) + " --request - --out " + quote(out_.string()) +
                          (opts.cpu ? " --cpu" : "") + (opts.dry_run ? " --dry-run" : "") + " 2> " + quote(err_.string()) + " >/dev/null";
  started_ = std::chrono::steady_clock::now();
  pipe_ = popen(cmd.c_str(), "we");  // close-on-exec: no later child holds the pipe open
  if (!pipe_) why_not_ = "cannot start python3 for the peer script";
}

PeerProcess::~PeerProcess() {
  if (pipe_) (void)pclose(pipe_);  // no request: the script reads end-of-file and exits
  std::error_code ec;
  for (const auto& p : {out_, err_, std::filesystem::path(out_.string() + ".part")})
    if (!p.empty()) std::filesystem::remove(p, ec);
}

PeerBatch PeerProcess::run(const std::vector<PeerRequest>& families) {
  PeerBatch batch;
  for (const PeerRequest& f : families) {
    if (f.family.empty() || f.family.find_first_of("\"\\'") != std::string::npos)
      bad_input("bad family name '" + f.family + "'");
    batch.families.push_back({});
    batch.families.back().family = f.family;
  }
  const auto all_missing = [&](const std::string& why) {
    for (PeerRun& r : batch.families) r.missing = why;
    return batch;
  };
  if (families.empty()) return batch;
  if (!pipe_) return all_missing(why_not_.empty() ? "the peer script has already run" : why_not_);
  const std::string request = peer_request_json(families, opts_);
  int code = 0;
  {
    // A script that has already exited (torch missing) closes the pipe: the write then fails with
    // EPIPE instead of raising SIGPIPE, and its exit status says why.
    struct sigaction ignore = {}, before = {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &before);
    (void)std::fwrite(request.data(), 1, request.size(), pipe_);
    (void)std::fflush(pipe_);
    const int status = pclose(pipe_);
    pipe_ = nullptr;
    sigaction(SIGPIPE, &before, nullptr);
    batch.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    code = status == -1 ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  const std::string err = last_line(read_text(err_));
  if (code == 3) return all_missing(err.empty() ? "torch or CUDA is missing (exit 3)" : err);
  const std::string failed =
      "torch_peers.py failed (exit " + std::to_string(code) + ")" + (err.empty() ? "" : ": " + err);
  // The script rewrites its answer after each family: a crash or a timeout keeps the families done.
  const std::string text = read_text(out_);
  if (code != 0 && text.empty()) return all_missing(failed);
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return all_missing(code != 0 ? failed : std::string("torch_peers.py wrote unreadable JSON: ") + e.what());
  }
  const auto fams = answer.is_object() ? answer.find("families") : answer.end();
  if (fams == answer.end() || !fams->is_object())
    return all_missing("torch_peers.py wrote no \"families\" object" + (err.empty() ? "" : ": " + err));
  if (auto it = answer.find("torch"); it != answer.end() && it->is_string()) batch.torch = it->get<std::string>();
  if (auto it = answer.find("import_s"); it != answer.end() && it->is_number()) batch.import_s = it->get<double>();
  for (PeerRun& run : batch.families) {
    if (auto it = fams->find(run.family); it != fams->end() && it->is_object())
      read_family(*it, run);
    else
      run.missing = code != 0 ? failed : "torch_peers.py did not answer for family '" + run.family + "'";
  }
  return batch;
}

PeerBatch torch_peers(const std::vector<PeerRequest>& families, const PeerOptions& opts) {
  if (families.empty()) return {};
  return PeerProcess(opts).run(families);
}

PeerRun torch_peers(const std::string& family, const std::vector<Shape>& shapes, double budget_s,
                    const std::string& script) {
  PeerOptions o;
  o.budget_s = budget_s;
  o.script = script;
  return torch_peers(std::vector<PeerRequest>{{family, shapes}}, o).families.front();
}

}  // namespace sol::bench

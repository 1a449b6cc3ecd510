// `sol bench comm` apart from CUDA and NCCL: the plan (collectives × sizes × placements), the NCCL
// environment, the model beside every record, the torch.distributed peer, and the results
// document (bench/results/<gpu>x<N>/comm.json). The measuring is nccl_run.cu's.
#include "bench/comm/comm_bench.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"
#ifdef SOL_WITH_NCCL
#include "bench/comm/nccl_run.hpp"
#endif

namespace sol::bench::comm {
namespace {

using ojson = nlohmann::ordered_json;

// The variables that change which algorithm, protocol or path NCCL takes.
constexpr const char* kNcclEnv[] = {"NCCL_NVLS_ENABLE", "NCCL_ALGO",         "NCCL_PROTO",        "NCCL_P2P_LEVEL",
                                    "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE",  "NCCL_IB_DISABLE",   "NCCL_NET",
                                    "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE", "NCCL_CUMEM_ENABLE",
                                    "NCCL_NTHREADS",    "NCCL_TUNER_PLUGIN", "CUDA_VISIBLE_DEVICES"};

// NVLS off for the whole run (the torch peer inherits it). Returns the environment to record.
ojson nccl_environment() {
  ojson env = ojson::object();
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  if (nvls && std::string(nvls) != "0")
    bad_input("NCCL_NVLS_ENABLE=" + printable(nvls) + ": sol bench comm measures with NVLink SHARP off",
              "unset NCCL_NVLS_ENABLE or set it to 0");
  const bool set_here = !nvls;
  if (set_here) setenv("NCCL_NVLS_ENABLE", "0", 1);
  for (const char* k : kNcclEnv)
    if (const char* v = std::getenv(k)) env[k] = v;
  env["NCCL_NVLS_ENABLE_set_by_sol"] = set_here;
  return env;
}

// The database row a GPU name matches (H200 before H100: "NVIDIA H200" holds no "H100").
std::string row_for(const std::string& device_name) {
  std::string up = device_name;
  for (char& c : up) c = char(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& [key, row] : {std::pair<const char*, const char*>{"H200", "h200"}, {"H100", "h100"},
                                 {"B200", "b200"}, {"A100-SXM4-80GB", "a100-80gb"}, {"A100", "a100"}})
    if (up.find(key) != std::string::npos) return row;
  failure("no database row matches the GPU '" + device_name + "'", "give --gpu NAME (see sol hw list)");
}

double bw(double bytes, double s) { return s > 0 ? bytes / s : 0; }

#ifdef SOL_WITH_NCCL
// Bytes a case moves as nccl-tests counts S, after rounding to whole float32 elements per rank.
double actual_bytes(const detail::Measured& m, int ranks) {
  const double per = double(m.count) * 4;
  switch (m.c.op) {
    case model::Collective::AllGather:
    case model::Collective::ReduceScatter:
    case model::Collective::AllToAll: return per * ranks;
    default: return per;
  }
}

ojson timing_json(const detail::Timing& t, double bytes, double factor) {
  if (t.samples == 0) return nullptr;
  return {{"median_s", t.median_s}, {"min_s", t.min_s},   {"p10_s", t.p10_s},
          {"p90_s", t.p90_s},       {"samples", t.samples}, {"alg_bw_bytes_per_s", bw(bytes, t.median_s)},
          {"bus_bw_bytes_per_s", bw(bytes, t.median_s) * factor}};
}

// The cases of a run: collectives × sizes (every power-of-two multiple of lo) × placements.
std::vector<detail::Case> plan_cases(const Options& o) {
  std::vector<detail::Case> cases;
  for (auto op : o.ops)
    for (double s = o.lo; s <= o.hi * (1 + 1e-12); s *= 2)
      for (bool in_place : {false, true})
        if ((in_place && o.in_place) || (!in_place && o.out_of_place)) cases.push_back({op, s, in_place});
  return cases;
}

std::string rank_file(const std::string& dir, int rank) {
  return (std::filesystem::path(dir) / ("rank-" + std::to_string(rank) + ".json")).string();
}

ojson machine_json(const detail::Machine& m) {
  return {{"gpus", m.gpus}, {"names", m.names}, {"pci_bus_ids", m.pci_bus_ids}, {"cc", m.cc},
          {"nccl_version", m.nccl_version}, {"cuda_runtime", m.cuda_runtime}, {"cuda_driver", m.cuda_driver},
          {"all_peer_access", m.all_peer_access}};
}

detail::Machine machine_of(const nlohmann::json& j) {
  detail::Machine m;
  m.gpus = j.at("gpus").get<int>();
  m.names = j.at("names").get<std::vector<std::string>>();
  m.pci_bus_ids = j.at("pci_bus_ids").get<std::vector<std::string>>();
  m.cc = j.at("cc").get<int>();
  m.nccl_version = j.at("nccl_version").get<int>();
  m.cuda_runtime = j.at("cuda_runtime").get<int>();
  m.cuda_driver = j.at("cuda_driver").get<int>();
  m.all_peer_access = j.at("all_peer_access").get<bool>();
  return m;
}

// The command line of rank r's worker: this program, the run's options, the worker's two.
std::vector<std::string> worker_args(const Options& o, int r, const std::string& dir) {
  std::string ops;
  for (auto op : o.ops) {
    if (!ops.empty()) ops += ',';
    ops += model::collective_name(op);
  }
  std::vector<std::string> a = {std::filesystem::read_symlink("/proc/self/exe").string(), "bench", "comm",
                                "--worker-rank", std::to_string(r), "--worker-dir", dir,
                                "--gpus", std::to_string(o.gpus), "--ops", ops,
                                "--bytes", std::to_string(int64_t(o.lo)) + ":" + std::to_string(int64_t(o.hi)),
                                "--iters", std::to_string(o.iters), "--warmup", std::to_string(o.warmup),
                                "--placement", o.in_place && o.out_of_place ? "both" : o.in_place ? "in" : "out",
                                "--no-peers"};
  if (!o.graph) a.push_back("--no-graph");
  if (!o.stream) a.push_back("--no-stream");
  return a;
}

// One process per GPU: starts the workers, waits for all of them (stopping the rest when one
// fails), and merges their records: wrong elements summed, each sample the slowest rank's.
std::pair<detail::Machine, std::vector<detail::Measured>> run_processes(const Options& o,
                                                                        const std::vector<detail::Case>& cases) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sol-comm-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<pid_t> pids(size_t(o.gpus), 0);
  for (int r = 0; r < o.gpus; ++r) {
    const std::vector<std::string> args = worker_args(o, r, dir.string());
    std::vector<char*> argv;
    for (const auto& x : args) argv.push_back(const_cast<char*>(x.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&pids[size_t(r)], argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      for (pid_t p : pids)
        if (p > 0) ::kill(p, SIGTERM);
      failure("cannot start the worker of rank " + std::to_string(r) + " (" + args[0] + ")");
    }
  }
  std::string failed;
  for (size_t left = pids.size(); left > 0;) {
    for (size_t r = 0; r < pids.size(); ++r) {
      if (pids[r] <= 0) continue;
      int status = 0;
      if (::waitpid(pids[r], &status, WNOHANG) != pids[r]) continue;
      pids[r] = 0, --left;
      const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok && failed.empty()) {
        failed = "the worker of rank " + std::to_string(r) + " " +
                 (WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                    : "was killed by signal " + std::to_string(WTERMSIG(status)));
        for (pid_t p : pids)
          if (p > 0) ::kill(p, SIGTERM);  // the others would wait for it in NCCL forever
      }
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!failed.empty()) {
    fs::remove_all(dir);
    failure(failed + " (its error is above)", "rerun without --process-per-gpu to compare, or check each GPU alone");
  }
  detail::Machine m;
  std::vector<detail::Measured> out(cases.size());
  std::vector<std::vector<std::vector<double>>> stream(cases.size()), graph(cases.size());
  for (int r = 0; r < o.gpus; ++r) {
    const auto j = nlohmann::json::parse(read_input_file(rank_file(dir.string(), r), "a worker's records"));
    if (r == 0) m = machine_of(j.at("machine"));
    const auto& recs = j.at("records");
    if (recs.size() != cases.size()) failure("the worker of rank " + std::to_string(r) + " wrote " +
                                             std::to_string(recs.size()) + " records for " + std::to_string(cases.size()) + " cases");
    for (size_t i = 0; i < cases.size(); ++i) {
      detail::Measured& x = out[i];
      x.c = cases[i];
      x.count = recs[i].at("count").get<size_t>();
      x.skipped = recs[i].at("skipped").get<std::string>();
      x.wrong += recs[i].at("wrong").get<uint64_t>();
      stream[i].push_back(recs[i].at("stream").get<std::vector<double>>());
      graph[i].push_back(recs[i].at("graph").get<std::vector<double>>());
    }
  }
  fs::remove_all(dir);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!out[i].skipped.empty()) continue;
    out[i].stream_samples = slowest_per_sample(stream[i]);
    out[i].graph_samples = slowest_per_sample(graph[i]);
    if (!out[i].stream_samples.empty()) out[i].stream = detail::summary(out[i].stream_samples);
    if (!out[i].graph_samples.empty()) out[i].graph = detail::summary(out[i].graph_samples);
  }
  return {m, out};
}

// torch.distributed over the same GPUs and sizes; its document, or why there is none.
ojson torch_peer(const Options& o, int ranks) {
  const std::string script = std::string(SOL_SOURCE_DIR) + "/bench/peers/torch_comm_peers.py";
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) return {{"missing", "python3 is not installed"}};
  const auto out = std::filesystem::temp_directory_path() / ("sol-comm-peer-" + std::to_string(::getpid()) + ".json");
  std::string ops;
  for (auto op : o.ops) {
    if (!ops.empty()) ops += ',';
    ops += model::collective_name(op);
  }
  const std::string cmd = "timeout 1800 python3 '" + script + "' --gpus " + std::to_string(ranks) + " --ops " + ops +
                          " --lo " + std::to_string(int64_t(o.lo)) + " --hi " + std::to_string(int64_t(o.hi)) +
                          " --warmup " + std::to_string(o.warmup) + " --iters " + std::to_string(o.iters) + " --out '" +
                          out.string() + "' 1>&2";
  std::fprintf(stderr, "sol: torch.distributed peer: %s\n", cmd.c_str());
  const int rc = std::system(cmd.c_str());
  if (rc != 0 || !std::filesystem::exists(out))
    return {{"missing", "torch_comm_peers.py failed (exit " + std::to_string(rc) + "); see its stderr above"}};
  try {
    ojson doc = ojson::parse(read_input_file(out.string(), "torch peer output"));
    std::filesystem::remove(out);
    return doc;
  } catch (const std::exception& e) {
    return {{"missing", std::string("torch_comm_peers.py wrote unreadable JSON: ") + e.what()}};
  }
}
#endif

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

bool nccl_built_in() {
#ifdef SOL_WITH_NCCL
  return true;
#else
  return false;
#endif
}

std::string run(const Options& o) {
  if (!(o.lo > 0) || !(o.hi >= o.lo)) bad_input("a size range needs 0 < LO ≤ HI");
  if (o.iters < 1 || o.iters > 10000 || o.warmup < 0 || o.warmup > 10000)
    bad_input("--iters must be 1..10000 and --warmup 0..10000");
  if (o.ops.empty()) bad_input("no collective to run");
  if (!o.stream && !o.graph) bad_input("no timing to take: drop --no-stream or --no-graph");
  if (!o.in_place && !o.out_of_place) bad_input("no placement to run: drop --in-place-only or --out-of-place-only");
#ifndef SOL_WITH_NCCL
  failure("sol was built without NCCL, so sol bench comm cannot run (a collective needs NCCL and at least 2 GPUs)",
          "install NCCL beside the CUDA toolkit (nccl.h, libnccl.so) and rebuild");
#else
  if (o.process_per_gpu && o.gpus < 2)
    bad_input("--process-per-gpu needs --gpus N (N ≥ 2): the run starts one process per GPU and touches none itself");
  const ojson env = nccl_environment();
  const std::vector<detail::Case> cases = plan_cases(o);
  detail::Machine m;
  std::vector<detail::Measured> measured;
  if (o.process_per_gpu) {
    std::fprintf(stderr, "sol: %zu cases, one process on each of %d GPUs, NCCL_NVLS_ENABLE=%s\n", cases.size(), o.gpus,
                 std::getenv("NCCL_NVLS_ENABLE"));
    std::tie(m, measured) = run_processes(o, cases);
  } else {
    m = detail::probe_machine(o.gpus);
    std::fprintf(stderr, "sol: %zu cases on %d × %s, NCCL %d, NCCL_NVLS_ENABLE=%s\n", cases.size(), m.gpus,
                 m.names.front().c_str(), m.nccl_version, std::getenv("NCCL_NVLS_ENABLE"));
    measured = detail::measure(m, cases, o);
  }
  const std::string row = o.gpu.empty() ? row_for(m.names.front()) : o.gpu;

  ojson doc;
  doc["schema_version"] = 1;
  doc["kind"] = "comm-bench";
  doc["gpu"] = row;
  doc["ranks"] = m.gpus;
  doc["launch"] = o.process_per_gpu ? "process-per-gpu" : "one-process";
  doc["time_utc"] = utc_now();
  doc["device"] = {{"names", m.names}, {"pci_bus_ids", m.pci_bus_ids}, {"compute_capability", m.cc},
                   {"all_peer_access", m.all_peer_access}, {"cuda_runtime", m.cuda_runtime},
                   {"cuda_driver", m.cuda_driver}};
  doc["nccl_version"] = m.nccl_version;
  doc["environment"] = env;
  doc["note"] = "NVLink SHARP (NVLS) off: NCCL_NVLS_ENABLE=0 for the whole run; the machine's other settings as found";
  doc["harness"] = {{"process", o.process_per_gpu ? "one process per GPU, ncclCommInitRank (rank 0 makes the id, the "
                                                    "others read it from a file); a sample is the slowest rank's"
                                                  : "one process, ncclCommInitAll over all ranks"},
                    {"dtype", "float32"},
                    {"warmup", o.warmup}, {"iters", o.iters},
                    {"stream", "per call, device events on every rank; a sample is the slowest rank"},
                    {"graph", "iters calls in one CUDA graph per GPU, 5 launches; a sample is the slowest rank / iters"},
                    {"check", "every element of every rank's output against the exact float32 result"}};
  doc["model_topology"] = o.topology;
  ojson recs = ojson::array();
  for (const auto& r : measured) {
    const double bytes = r.count > 0 ? actual_bytes(r, m.gpus) : r.c.bytes;
    const double factor = model::bus_factor(r.c.op, m.gpus);
    ojson j;
    j["op"] = model::collective_name(r.c.op);
    j["bytes"] = bytes;
    j["count"] = r.count;
    j["in_place"] = r.c.in_place;
    j["bus_factor"] = factor;
    if (!r.skipped.empty()) {
      j["skipped"] = r.skipped;
      recs.push_back(j);
      continue;
    }
    j["wrong_elements"] = r.wrong;
    j["verified"] = r.wrong == 0;
    j["stream"] = timing_json(r.stream, bytes, factor);
    j["graph"] = timing_json(r.graph, bytes, factor);
    model::CommQuery q;
    q.op = r.c.op;
    q.ranks = m.gpus;
    q.bytes = bytes;
    q.gpu = row;
    q.topology = o.topology;
    const auto a = model::comm(q);
    j["model"] = {{"estimate_s", a.best.time_s}, {"floor_s", a.floor_s},
                  {"algo", a.best.algo == model::CommAlgo::Torus ? "torus" : model::algo_name(a.best.algo)},
                  {"proto", model::proto_name(a.best.proto)}, {"alg_bw_bytes_per_s", a.best.alg_bw},
                  {"bus_bw_bytes_per_s", a.best.bus_bw}, {"regime", a.best.regime}};
    recs.push_back(j);
  }
  doc["records"] = recs;
  doc["peers"] = ojson::array();
  if (o.peers) doc["peers"].push_back(torch_peer(o, m.gpus));
  return doc.dump(2) + "\n";
#endif
}

void run_worker(const Options& o) {
  if (o.worker_rank < 0 || o.worker_rank >= o.gpus || o.worker_dir.empty())
    bad_input("--worker-rank R needs --gpus N (0 ≤ R < N) and --worker-dir: it is the worker of --process-per-gpu");
#ifndef SOL_WITH_NCCL
  failure("sol was built without NCCL, so a worker of sol bench comm cannot run");
#else
  (void)nccl_environment();  // NVLS off here too, whoever started the worker
  const std::vector<detail::Case> cases = plan_cases(o);
  ojson doc;
  doc["rank"] = o.worker_rank;
  doc["ranks"] = o.gpus;
  if (o.worker_rank == 0) doc["machine"] = machine_json(detail::probe_machine(o.gpus));
  const std::string id_file = (std::filesystem::path(o.worker_dir) / "nccl-id").string();
  ojson recs = ojson::array();
  for (const auto& r : detail::measure_rank(o.worker_rank, o.gpus, id_file, cases, o))
    recs.push_back({{"count", r.count}, {"skipped", r.skipped}, {"wrong", r.wrong}, {"stream", r.stream_samples},
                    {"graph", r.graph_samples}});
  doc["records"] = recs;
  const std::string path = rank_file(o.worker_dir, o.worker_rank), part = path + ".part";
  {
    std::ofstream f(part, std::ios::binary);
    f << doc.dump() << "\n";
    if (!f.flush()) failure("cannot write " + part);
  }
  std::filesystem::rename(part, path);
#endif
}

std::vector<double> slowest_per_sample(const std::vector<std::vector<double>>& per_rank) {
  std::vector<double> out;
  for (size_t r = 0; r < per_rank.size(); ++r) {
    if (r == 0) out = per_rank[r];
    else if (per_rank[r].size() != out.size())
      failure("rank " + std::to_string(r) + " took " + std::to_string(per_rank[r].size()) + " samples, rank 0 " +
              std::to_string(out.size()));
    else
      for (size_t i = 0; i < out.size(); ++i) out[i] = std::max(out[i], per_rank[r][i]);
  }
  return out;
}

std::string results_path(const std::string& dir, const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text);
  const bool per_gpu = j.value("launch", "one-process") == "process-per-gpu";
  return (std::filesystem::path(dir) / (j.at("gpu").get<std::string>() + "x" + std::to_string(j.at("ranks").get<int>())) /
          (per_gpu ? "comm-process-per-gpu.json" : "comm.json"))
      .string();
}

bool all_verified(const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text);
  for (const auto& r : j.at("records"))
    if (r.contains("verified") && !r.at("verified").get<bool>()) return false;
  return true;
}

std::string text(const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text);
  std::string out = "sol bench comm: " + std::to_string(j.at("ranks").get<int>()) + " × " +
                    j.at("device").at("names").at(0).get<std::string>() + ", NCCL " +
                    std::to_string(j.at("nccl_version").get<int>()) + ", NCCL_NVLS_ENABLE=0\n";
  Table t({"op", "size", "place", "check", "stream", "graph", "busBw", "model", "ratio"});
  for (const auto& r : j.at("records")) {
    const std::string place = r.at("in_place").get<bool>() ? "in" : "out";
    const std::string size = bytes_iec(r.at("bytes").get<double>(), 3);
    if (r.contains("skipped")) {
      t.add_row({r.at("op").get<std::string>(), size, place, "skip"});
      continue;
    }
    auto med = [&](const char* k) { return r.at(k).is_null() ? 0.0 : r.at(k).at("median_s").get<double>(); };
    const double best = r.at("graph").is_null() ? med("stream") : med("graph");
    const double bus = best > 0 ? r.at("bytes").get<double>() / best * r.at("bus_factor").get<double>() : 0;
    const double model_s = r.at("model").at("estimate_s").get<double>();
    t.add_row({r.at("op").get<std::string>(), size, place, r.at("verified").get<bool>() ? "ok" : "WRONG",
               med("stream") > 0 ? si(med("stream"), "s", 3) : "—", med("graph") > 0 ? si(med("graph"), "s", 3) : "—",
               si(bus, "B/s", 3), si(model_s, "s", 3), best > 0 ? fixed(model_s / best, 2) : "—"});
  }
  return out + t.str() + "busBw from the graph timing where taken; ratio = model time ÷ measured time\n";
}

}  // namespace sol::bench::comm

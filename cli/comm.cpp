// `sol comm OP --gpus N --bytes S --gpu NAME [--topology T] [--algo A] [--proto P] [--json]`: the
// speed of light of a collective (sol/model/comm.hpp). --bytes LO:HI sweeps LO, 2·LO, … HI and
// prints one row per size with the crossovers below. `sol bench comm` (the NCCL harness) is
// registered from here too, under `sol bench`.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/size.hpp"
#include "sol/model/comm.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/comm/comm_bench.hpp"
#endif

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;

struct Args {
  std::string op, bytes, gpu = "h200", topology, algo = "auto", proto = "auto";
  int gpus = 0;
  bool constants = false;
  JsonOut json;
};

std::string pair_label(const model::CommCandidate& c) {
  return c.algo == model::CommAlgo::Torus ? "torus" : model::algo_name(c.algo) + "/" + model::proto_name(c.proto);
}

std::string head(const model::CommAnswer& a) {
  const auto& q = a.query;
  std::string where = a.fabric->name;
  if (!a.torus.empty()) {
    where += " torus ";
    for (size_t i = 0; i < a.torus.size(); ++i)
      where += (i ? "×" : "") + std::to_string(a.torus[i]) + (a.torus[i] > 1 && !a.wrapped[i] ? " (line)" : "");
  }
  return model::collective_name(q.op) + " over " + std::to_string(q.ranks) + " " + (a.torus.empty() ? "GPUs" : "chips") +
         " on " + a.hw->name + ", " + where + " (" + si(a.link_bytes_per_s, "B/s") + " per rank, one direction)\n";
}

std::string crossover_text(const std::vector<model::CommCrossover>& xs) {
  if (xs.empty()) return "crossovers: none (one candidate is fastest at every size)\n";
  std::string out = "crossovers (where the fastest algorithm/protocol changes)\n";
  for (const auto& x : xs) out += "  " + bytes_iec(x.bytes, 3) + ": " + x.from + " → " + x.to + "\n";
  return out;
}

std::string one_text(const model::CommAnswer& a) {
  const auto& b = a.best;
  std::string out = head(a) + "\n";
  Table t({"quantity", "value"});
  t.align(1, Table::Align::Left);
  t.add_row({"size S", si(a.query.bytes, "B") + " (" + bytes_iec(a.query.bytes) + ")"});
  t.add_row({"on the wire per rank", si(a.floor_wire_bytes, "B") + " = S × " + num(a.bus_factor, 4)});
  t.add_row({"floor", si(a.floor_s, "s") + " = wire bytes ÷ " + si(a.link_bytes_per_s, "B/s")});
  t.add_row({"estimate", si(b.time_s, "s") + " (" + pair_label(b) + ", " + b.regime + "-bound)"});
  t.add_row({"  latency α", si(b.latency_s, "s")});
  t.add_row({"  bandwidth term", si(b.bandwidth_s, "s") + " at " + si(b.bus_bytes_per_s, "B/s")});
  t.add_row({"algBw", si(b.alg_bw, "B/s") + " = S ÷ time"});
  t.add_row({"busBw", si(b.bus_bw, "B/s") + " = algBw × " + num(a.bus_factor, 4)});
  t.add_row({"latency-bound below", bytes_iec(a.latency_bound_below, 3)});
  out += t.str();
  out += "\ncandidates (fastest first)\n";
  Table c({"algo/proto", "α", "B", "time", "algBw", "busBw", "regime"});
  c.align(6, Table::Align::Left);
  for (const auto& x : a.candidates)
    c.add_row({pair_label(x), si(x.latency_s, "s", 3), si(x.bus_bytes_per_s, "B/s", 3), si(x.time_s, "s", 3),
               si(x.alg_bw, "B/s", 3), si(x.bus_bw, "B/s", 3), x.regime});
  out += c.str() + "\n" + crossover_text(a.crossovers) + "\nnotes\n";
  for (const auto& x : a.candidates) out += "  - " + pair_label(x) + ": " + x.derivation + "\n";
  for (const auto& n : a.notes) out += "  - " + n + "\n";
  return out;
}

std::string sweep_text(const std::vector<model::CommAnswer>& pts) {
  std::string out = head(pts.front()) + "\n";
  Table t({"size", "algo/proto", "floor", "estimate", "algBw", "busBw", "regime"});
  t.align(6, Table::Align::Left);
  for (const auto& a : pts)
    t.add_row({bytes_iec(a.query.bytes, 3), pair_label(a.best), si(a.floor_s, "s", 3), si(a.best.time_s, "s", 3),
               si(a.best.alg_bw, "B/s", 3), si(a.best.bus_bw, "B/s", 3), a.best.regime});
  out += t.str() + "\n" + crossover_text(pts.front().crossovers) + "\nnotes\n";
  for (const auto& n : pts.front().notes) out += "  - " + n + "\n";
  return out;
}

struct BenchArgs {
  std::vector<std::string> ops{"all-reduce"};
  std::string bytes = "8:8GiB", gpu, topology = "nvswitch", placement = "both", json, out_dir;
  int gpus = 0, warmup = 5, iters = 20, worker_rank = -1;
  bool no_graph = false, no_stream = false, no_peers = false, process_per_gpu = false;
  std::string worker_dir;
};

// A size range LO:HI (or one size S = S:S) in the bytes grammar.
std::pair<double, double> byte_range(const std::string& flag, const std::string& text) {
  const size_t colon = text.find(':');
  const double lo = parse_bytes(flag, text.substr(0, colon));
  const double hi = colon == std::string::npos ? lo : parse_bytes(flag, text.substr(colon + 1));
  if (hi < lo) bad_input(flag + " " + text + ": HI is below LO");
  return {lo, hi};
}

#ifdef SOL_WITH_CUDA
void write_file(const std::string& path, const std::string& text) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path);
  if (!out || !(out << text) || !out.flush()) failure("cannot write " + path, "check that the folder is writable");
}
#endif

}  // namespace

Command add_bench_comm(CLI::App* bench) {
  auto b = std::make_shared<BenchArgs>();
  auto* app = bench->add_subcommand("comm", "NCCL collectives on this machine's GPUs (≥ 2), checked and timed, beside "
                                            "the model's prediction and torch.distributed");
  app->add_option("--ops", b->ops, "collectives, comma-separated (default all-reduce)")->delimiter(',');
  app->add_option("--bytes", b->bytes, "LO:HI, every power-of-two multiple of LO (default 8:8GiB)")->type_name("BYTES");
  app->add_option("--gpus", b->gpus, "ranks (default: every visible GPU)");
  app->add_option("--iters", b->iters, "timed calls per size (default 20)");
  app->add_option("--warmup", b->warmup, "untimed calls first (default 5)");
  app->add_option("--placement", b->placement, "both | in | out: in-place, out-of-place or both (default both)");
  app->add_flag("--no-graph", b->no_graph, "skip the CUDA-graph timing");
  app->add_flag("--no-stream", b->no_stream, "skip the stream timing");
  app->add_flag("--no-peers", b->no_peers, "skip torch.distributed");
  app->add_option("--gpu", b->gpu, "database row for the model (default: the row the GPU's name matches)");
  app->add_option("--topology", b->topology, "the model's fabric (default nvswitch)");
  app->add_option("--json", b->json, "write the results document to FILE");
  app->add_option("--out-dir", b->out_dir, "write DIR/<gpu>x<N>/comm.json (as bench/results/)");
  app->add_flag("--process-per-gpu", b->process_per_gpu,
                "one process per GPU (ncclCommInitRank) instead of one for all; needs --gpus N");
  // The worker of one rank under --process-per-gpu (the run starts them; not for users).
  app->add_option("--worker-rank", b->worker_rank)->group("");
  app->add_option("--worker-dir", b->worker_dir)->group("");
  return {app, [b]() -> int {
            std::vector<model::Collective> ops;
            for (const auto& o : b->ops) ops.push_back(model::parse_collective(o));
            const auto [lo, hi] = byte_range("--bytes", b->bytes);
            if (b->gpus == 1 || b->gpus < 0)
              bad_input("--gpus must be ≥ 2 (a collective needs two ranks), got " + std::to_string(b->gpus));
            if (b->placement != "both" && b->placement != "in" && b->placement != "out")
              bad_input("unknown --placement '" + b->placement + "'", "use both, in or out");
            if (b->no_graph && b->no_stream) bad_input("--no-graph and --no-stream leave nothing to time");
            if (b->iters < 1 || b->iters > 10000 || b->warmup < 0 || b->warmup > 10000)
              bad_input("--iters must be 1..10000 and --warmup 0..10000");
            if (b->process_per_gpu && b->gpus < 2)
              bad_input("--process-per-gpu needs --gpus N (N ≥ 2)", "e.g. sol bench comm --process-per-gpu --gpus 2");
#ifdef SOL_WITH_CUDA
            bench::comm::Options o;
            o.ops = ops;
            o.lo = lo;
            o.hi = hi;
            o.gpus = b->gpus;
            o.warmup = b->warmup;
            o.iters = b->iters;
            o.graph = !b->no_graph;
            o.stream = !b->no_stream;
            o.in_place = b->placement != "out";
            o.out_of_place = b->placement != "in";
            o.peers = !b->no_peers;
            o.gpu = b->gpu;
            o.topology = b->topology;
            o.process_per_gpu = b->process_per_gpu;
            if (b->worker_rank >= 0 || !b->worker_dir.empty()) {
              o.worker_rank = b->worker_rank;
              o.worker_dir = b->worker_dir;
              bench::comm::run_worker(o);
              return 0;
            }
            const std::string doc = bench::comm::run(o);
            std::fputs(bench::comm::text(doc).c_str(), stdout);
            if (!b->json.empty()) write_file(b->json, doc);
            if (!b->out_dir.empty()) {
              const std::string path = bench::comm::results_path(b->out_dir, doc);
              write_file(path, doc);
              std::fprintf(stderr, "sol: wrote %s\n", path.c_str());
            }
            if (!bench::comm::all_verified(doc)) failure("a collective returned a wrong result (see the check column)");
            return 0;
#else
            (void)lo, (void)hi;
            failure("this sol was built without CUDA, so NCCL is not built in: sol bench comm cannot run (a collective "
                    "needs NCCL and at least 2 GPUs)",
                    "build with CUDA and NCCL (SOL_ENABLE_CUDA=ON) on a machine with 2 or more GPUs");
#endif
          }};
}

Command add_comm(CLI::App& root, Global&) {
  auto a = std::make_shared<Args>();
  auto* app = root.add_subcommand("comm", "speed of light of a collective (all-reduce, all-gather, ...) over N GPUs "
                                          "or a TPU torus: floor, alpha-beta estimate, algBw, busBw, crossovers");
  app->add_option("op", a->op, "all-reduce | all-gather | reduce-scatter | all-to-all | broadcast | send-recv");
  app->add_option("--gpus", a->gpus, "ranks N (≥ 2); with a torus, the product of its axes (may be left out)");
  app->add_option("--bytes", a->bytes, "S, or LO:HI for every power-of-two multiple of LO up to HI (e.g. 8:8GiB); " +
                                           std::string(kBytesForms))
      ->type_name("BYTES");
  app->add_option("--gpu", a->gpu, "database row (default h200)");
  app->add_option("--topology", a->topology, "nvswitch | pcie | ib | torus:AxB[xC] (default: the chip's first "
                                             "interconnect, see sol hw show)");
  app->add_option("--algo", a->algo, "auto | ring | tree | nvls (all-reduce on NVSwitch, sm_90+)");
  app->add_option("--proto", a->proto, "auto | LL | LL128 | Simple");
  app->add_flag("--constants", a->constants, "print the model's constants with their sources");
  add_json(app, a->json, "the estimate (a sweep: one record per size)");
  return {app, [a]() -> int {
            if (a->constants) {
              if (!a->op.empty() || !a->bytes.empty()) bad_input("--constants takes no OP or --bytes");
              std::string out = "sol comm: the model's constants\n";
              for (const auto& l : model::comm_constant_lines()) out += "  - " + l + "\n";
              std::fputs(reflow(out).c_str(), stdout);
              return 0;
            }
            if (a->op.empty()) bad_input("sol comm needs an OP", "e.g. sol comm all-reduce --gpus 8 --bytes 1GiB");
            if (a->bytes.empty()) bad_input("sol comm needs --bytes S or --bytes LO:HI", kBytesForms);
            model::CommQuery q;
            q.op = model::parse_collective(a->op);
            q.ranks = a->gpus;
            if (a->gpus < 0 || (a->gpus != 0 && a->gpus < 2))
              bad_input("--gpus must be ≥ 2 (a collective needs two ranks), got " + std::to_string(a->gpus));
            q.gpu = a->gpu;
            q.topology = a->topology;
            q.algo = model::parse_algo(a->algo);
            q.proto = model::parse_proto(a->proto);
            const size_t colon = a->bytes.find(':');
            if (colon == std::string::npos) {
              q.bytes = parse_bytes("--bytes", a->bytes);
              const model::CommAnswer r = model::comm(q);
              if (a->json.on()) emit_json(a->json, ojson::parse(model::to_json(r)));
              else std::fputs(reflow(one_text(r)).c_str(), stdout);
              return 0;
            }
            const double lo = parse_bytes("--bytes", a->bytes.substr(0, colon));
            const double hi = parse_bytes("--bytes", a->bytes.substr(colon + 1));
            if (hi < lo) bad_input("--bytes " + a->bytes + ": HI is below LO");
            const auto pts = model::comm_sweep(q, lo, hi);
            if (a->json.on()) {
              ojson doc;
              doc["kind"] = "comm-sweep";
              doc["points"] = ojson::array();
              for (const auto& p : pts) doc["points"].push_back(ojson::parse(model::to_json(p)));
              emit_json(a->json, doc);
            } else {
              std::fputs(reflow(sweep_text(pts)).c_str(), stdout);
            }
            return 0;
          }};
}

}  // namespace sol::cli

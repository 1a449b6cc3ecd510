// The collective model of sol/model/comm.hpp. Every constant lives in the table below with its
// source; the rest is arithmetic on the hardware database's interconnects.
#include "sol/model/comm.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/size.hpp"
#include "sol/core/suggest.hpp"

namespace sol::model {
namespace {

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// ---- constants, with their sources -------------------------------------------------------------
const char* const kNcclTuning = "NVIDIA/nccl src/graph/tuning.cc (ncclTunerConstantsDefaults, ncclTopoTuneModel)";

// Latencies in µs, indexed [protocol] = {LL, LL128, Simple}: a launch-and-setup base per algorithm,
// and a per-step hop per fabric class and algorithm. NCCL's defaults.
struct ProtoTriple {
  double ll, ll128, simple;
  double at(CommProto p) const { return p == CommProto::LL ? ll : p == CommProto::LL128 ? ll128 : simple; }
};
constexpr ProtoTriple kBaseRing{6.6, 14.0, 8.4}, kBaseTree{6.8, 14.0, 8.4};
constexpr ProtoTriple kHopNvlinkRing{0.6, 1.9, 3.4}, kHopNvlinkTree{0.6, 1.25, 4.0};
constexpr ProtoTriple kHopPciRing{1.0, 2.5, 5.7}, kHopPciTree{1.0, 1.9, 4.0};
constexpr ProtoTriple kHopNetRing{2.7, 4.0, 14.0}, kHopNetTree{5.0, 8.5, 14.0};
// NVLS (NVLink SHARP, the switch reduces): NCCL's NVLink latency for NVLS Simple.
constexpr double kNvlsLatencyUs = 25.0;

// Bandwidth a protocol keeps of the Simple rate: LL sends a 4-byte flag with every 4 bytes of
// data; LL128 keeps 120 of every 128 bytes (NCCL models it as 0.92).
constexpr double kLLFactor = 0.5, kLL128Factor = 0.92;
// NCCL caps LL's bus rate (GB/s): one node by the GPU generation (Ampere, Hopper, Blackwell),
// several nodes by the CPU (Intel: two nodes, more).
constexpr double kLLCapAmpere = 87.7, kLLCapHopper = 141.0, kLLCapBlackwell = 282.0;
constexpr double kLLCapNet2 = 39.0, kLLCapNetMany = 20.4;
// A tree all-reduce moves 2·S per rank (reduce up, broadcast down); NCCL takes 0.92 of the bus rate.
constexpr double kTreeFactor = 0.92;

// What of the line rate a ring with Simple attains (bus rate / link rate), per fabric.
struct Efficiency {
  double value;
  const char* source;
};
// 8×H100 SXM: ring busBw 365–370 GB/s for 2 to 8 GPUs of the 450 GB/s line rate; "about 20 %
// protocol overhead".
constexpr Efficiency kNvlinkEff{370.0 / 450.0,
                                "NVIDIA/nccl-tests#212 (≈20 % NVLink protocol overhead, ≈370 GB/s busBw), NVIDIA/nccl#1455 "
                                "(ring 365–370 GB/s for 2–8 H100), NVIDIA/nccl-tests#309 (368.76 GB/s, NVLS off)"};
constexpr Efficiency kPcieEff{0.80, "PCIe TLP and flow-control overhead [unverified: no stored measurement]"};
constexpr Efficiency kNetEff{0.90, "InfiniBand NDR through one NIC per GPU [unverified: no stored measurement]"};
// NVLS: 8×H100 busBw 480 GB/s at 2–4 GB = algBw 274 GB/s over S per rank on a 450 GB/s link.
constexpr Efficiency kNvlsEff{480.0 * 8 / 14 / 450.0,
                              "fitted to 8×H100 NVLS busBw 480 GB/s at 2–4 GB (NVIDIA/nccl#1455; algBw = 480 × 8/14); "
                              "the same issue measures ring-like 370 GB/s busBw for 2–4 GPUs"};
// TPU ICI: the scaling book's model uses the link rate and about 1 µs per hop.
constexpr double kIciHopUs = 1.0;
const char* const kScalingBook = "jax-ml/scaling-book sharding.md (collectives on a bidirectional ring; ~1 µs per ICI hop)";

// ---- names ---------------------------------------------------------------------------------------
std::string canon(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '_') out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <class E>
E parse_named(const std::string& what, const std::string& text, const std::vector<std::pair<E, std::string>>& names) {
  std::vector<std::string> valid;
  for (const auto& [e, n] : names) {
    if (canon(n) == canon(text)) return e;
    valid.push_back(n);
  }
  std::string list;
  for (const auto& n : valid) list += (list.empty() ? "" : ", ") + n;
  bad_input("unknown " + what + " '" + text + "'" + did_you_mean(text, valid), "use one of " + list);
}

const std::vector<std::pair<Collective, std::string>>& collective_names() {
  static const std::vector<std::pair<Collective, std::string>> v = {
      {Collective::AllReduce, "all-reduce"}, {Collective::AllGather, "all-gather"},
      {Collective::ReduceScatter, "reduce-scatter"}, {Collective::AllToAll, "all-to-all"},
      {Collective::Broadcast, "broadcast"}, {Collective::SendRecv, "send-recv"}};
  return v;
}
const std::vector<std::pair<CommAlgo, std::string>>& algo_names() {
  static const std::vector<std::pair<CommAlgo, std::string>> v = {
      {CommAlgo::Auto, "auto"}, {CommAlgo::Ring, "ring"}, {CommAlgo::Tree, "tree"}, {CommAlgo::Nvls, "nvls"},
      {CommAlgo::Torus, "torus"}};
  return v;
}
const std::vector<std::pair<CommProto, std::string>>& proto_names() {
  static const std::vector<std::pair<CommProto, std::string>> v = {
      {CommProto::Auto, "auto"}, {CommProto::LL, "LL"}, {CommProto::LL128, "LL128"}, {CommProto::Simple, "Simple"}};
  return v;
}
template <class E>
std::string name_of(E e, const std::vector<std::pair<E, std::string>>& names) {
  for (const auto& [x, n] : names)
    if (x == e) return n;
  return "?";
}

// ---- the fabric as the model sees it ----------------------------------------------------------------
enum class FabricClass { Nvlink, Pci, Net, Ici };

struct Fabric {
  FabricClass cls;
  const hw::Interconnect* ic;
  Efficiency eff{1.0, ""};
};

std::string cand_label(const CommCandidate& c) {
  return c.algo == CommAlgo::Torus ? "torus" : algo_name(c.algo) + "/" + proto_name(c.proto);
}

double ll_cap_gbps(const hw::HwSpec& hw, FabricClass cls, int ranks) {
  if (cls == FabricClass::Net) return ranks <= 2 ? kLLCapNet2 : kLLCapNetMany;
  return hw.compute_capability >= 100 ? kLLCapBlackwell : hw.compute_capability >= 90 ? kLLCapHopper : kLLCapAmpere;
}

// Steps of a ring (NCCL's nsteps): all-reduce 2(N−1), all-gather and reduce-scatter N−1; the
// pipelined broadcast and all-to-all N−1, a send/recv one.
int ring_steps(Collective c, int n) {
  switch (c) {
    case Collective::AllReduce: return 2 * (n - 1);
    case Collective::SendRecv: return 1;
    default: return n - 1;
  }
}

CommCandidate gpu_candidate(const CommQuery& q, const hw::HwSpec& hw, const Fabric& f, CommAlgo algo, CommProto proto) {
  const int n = q.ranks;
  const double link = f.ic->bytes_per_s;
  CommCandidate c;
  c.algo = algo;
  c.proto = proto;
  const ProtoTriple& hop = f.cls == FabricClass::Nvlink ? (algo == CommAlgo::Tree ? kHopNvlinkTree : kHopNvlinkRing)
                           : f.cls == FabricClass::Pci  ? (algo == CommAlgo::Tree ? kHopPciTree : kHopPciRing)
                                                        : (algo == CommAlgo::Tree ? kHopNetTree : kHopNetRing);
  double factor = bus_factor(q.op, n), eff = f.eff.value;
  std::string lat;
  if (algo == CommAlgo::Nvls) {
    // The switch reduces: each rank sends its S once (ld_reduce of the others' slices, then one
    // multicast store of its own), instead of 2(N−1)/N × S.
    factor = 1;
    eff = kNvlsEff.value;
    c.latency_s = kNvlsLatencyUs * kUs;
    lat = "α " + si(c.latency_s, "s") + " (NVLS)";
  } else if (algo == CommAlgo::Tree) {
    factor = 2;
    eff *= kTreeFactor;
    // One node: a chain through the node's N ranks and back; between nodes: up and down a
    // binary tree of depth log2 N.
    const int depth = f.cls == FabricClass::Net ? int(std::ceil(std::log2(double(n)))) : n - 1;
    c.latency_s = (kBaseTree.at(proto) + 2 * depth * hop.at(proto)) * kUs;
    lat = "α " + num(kBaseTree.at(proto), 3) + " µs + " + std::to_string(2 * depth) + " × " + num(hop.at(proto), 3) + " µs";
  } else {
    const int steps = ring_steps(q.op, n);
    c.latency_s = (kBaseRing.at(proto) + steps * hop.at(proto)) * kUs;
    lat = "α " + num(kBaseRing.at(proto), 3) + " µs + " + std::to_string(steps) + " × " + num(hop.at(proto), 3) + " µs";
  }
  double bus = link * eff;
  std::string rate = si(link, "B/s") + " × " + num(eff, 3);
  if (proto == CommProto::LL128) bus *= kLL128Factor, rate += " × " + num(kLL128Factor, 3) + " (LL128)";
  if (proto == CommProto::LL) {
    bus *= kLLFactor;
    rate += " × " + num(kLLFactor, 3) + " (LL)";
    const double cap = ll_cap_gbps(hw, f.cls, n) * kGBps;
    if (cap < bus) bus = cap, rate = si(cap, "B/s") + " (NCCL's LL cap)";
  }
  c.bus_bytes_per_s = bus;
  c.wire_bytes = q.bytes * factor;
  c.bandwidth_s = c.wire_bytes / bus;
  c.time_s = c.latency_s + c.bandwidth_s;
  c.derivation = lat + "; B = " + rate;
  return c;
}

// The torus: every axis of more than one chip carries data at once, in both directions of its
// links where it wraps around (a ring), in one where it does not (a line).
CommCandidate torus_candidate(const CommQuery& q, const CommAnswer& a) {
  const double w = a.fabric->link_bytes_per_s;
  CommCandidate c;
  c.algo = CommAlgo::Torus;
  c.proto = CommProto::Simple;
  int hops = 0;
  double worst_a2a = 0;  // max over axes of chips / directions: the all-to-all's bisection
  for (size_t i = 0; i < a.torus.size(); ++i) {
    const int d = a.torus[i];
    if (d < 2) continue;
    hops += a.wrapped[i] ? d / 2 : d - 1;
    worst_a2a = std::max(worst_a2a, double(d) / (a.wrapped[i] ? 2 : 1));
  }
  const double rate = a.link_bytes_per_s;  // Σ over axes of directions × w
  double t_bw = 0;
  switch (q.op) {
    case Collective::AllReduce:  // a reduce-scatter, then an all-gather
      hops *= 2;
      t_bw = q.bytes * bus_factor(q.op, q.ranks) / rate;
      break;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::Broadcast: t_bw = q.bytes * bus_factor(q.op, q.ranks) / rate; break;
    case Collective::AllToAll:
      // Half the ranks send a quarter of all bytes across the bisection of the longest axis:
      // N·S/4 bytes over N/d cut links × directions × w.
      t_bw = q.bytes * worst_a2a / (4 * w);
      break;
    case Collective::SendRecv:
      hops = 1;
      t_bw = q.bytes / w;
      break;
  }
  c.latency_s = hops * kIciHopUs * kUs;
  c.bus_bytes_per_s = q.op == Collective::SendRecv ? w : rate;
  c.wire_bytes = q.bytes * bus_factor(q.op, q.ranks);
  c.bandwidth_s = t_bw;
  c.time_s = c.latency_s + t_bw;
  c.derivation = "α " + std::to_string(hops) + " hops × " + num(kIciHopUs) + " µs; B = " + si(c.bus_bytes_per_s, "B/s") +
                 (q.op == Collective::AllToAll ? "; all-to-all through the bisection of the longest axis" : "");
  return c;
}

void finish(CommCandidate& c, const CommQuery& q) {
  c.alg_bw = q.bytes / c.time_s;
  c.bus_bw = c.alg_bw * bus_factor(q.op, q.ranks);
  c.regime = c.latency_s >= c.bandwidth_s ? "latency" : "bandwidth";
}

// The candidates' times are lines in S, t = α + k·S: the fastest over all sizes is their lower
// envelope, walked from 1 byte up.
std::vector<CommCrossover> envelope(const std::vector<CommCandidate>& cands, double s_bytes) {
  std::vector<CommCrossover> out;
  if (cands.size() < 2) return out;
  auto slope = [&](const CommCandidate& c) { return c.bandwidth_s / s_bytes; };
  auto at = [&](const CommCandidate& c, double s) { return c.latency_s + slope(c) * s; };
  double s = 1;
  size_t best = 0;
  for (size_t i = 1; i < cands.size(); ++i)
    if (at(cands[i], s) < at(cands[best], s) || (at(cands[i], s) == at(cands[best], s) && slope(cands[i]) < slope(cands[best])))
      best = i;
  for (size_t guard = 0; guard < cands.size(); ++guard) {
    double next = std::numeric_limits<double>::infinity();
    size_t to = best;
    for (size_t j = 0; j < cands.size(); ++j) {
      const double dk = slope(cands[best]) - slope(cands[j]);
      if (j == best || dk <= 0) continue;
      const double x = (cands[j].latency_s - cands[best].latency_s) / dk;
      if (x > s && x < next) next = x, to = j;
    }
    if (to == best) break;
    out.push_back({next, cand_label(cands[best]), cand_label(cands[to])});
    s = next;
    best = to;
  }
  return out;
}

void resolve_topology(CommAnswer& a) {
  const hw::HwSpec& hw = *a.hw;
  CommQuery& q = a.query;
  std::string topo = canon(q.topology);
  if (topo.empty()) {
    if (hw.interconnects.empty()) bad_input(hw.name + " lists no interconnects", "give a row with interconnects (--hw-file)");
    topo = hw.interconnects.front().key;
  }
  if (topo == "ici" || topo == "torus") {
    bad_input("a TPU torus needs its shape: --topology torus:AxB or torus:AxBxC",
              "e.g. torus:4x4 (16 chips) or torus:4x4x4 (64 chips)");
  }
  if (topo.rfind("torus:", 0) == 0) {
    a.fabric = &hw.interconnect("ici");
    const auto dims = parse_counts("--topology torus", topo.substr(6), 1, 3);
    const auto& most = a.fabric->torus_dims;
    if (dims.size() > most.size())
      bad_input(hw.name + "'s ICI is a " + std::to_string(most.size()) + "D torus, not " + std::to_string(dims.size()) + "D");
    std::vector<int64_t> got(dims), cap(most.begin(), most.end());
    std::sort(got.begin(), got.end());
    std::sort(cap.begin(), cap.end());
    std::string max_text;
    for (size_t i = 0; i < most.size(); ++i) max_text += (i ? "x" : "") + std::to_string(most[i]);
    for (size_t i = 0; i < got.size(); ++i)
      if (got[got.size() - 1 - i] < 1 || got[got.size() - 1 - i] > cap[cap.size() - 1 - i])
        bad_input("torus " + topo.substr(6) + " does not fit " + hw.name + "'s largest slice " + max_text,
                  "every axis ≥ 1 and within " + max_text);
    int64_t ranks = 1;
    for (int64_t d : dims) ranks *= d;
    if (q.ranks != 0 && q.ranks != ranks)
      bad_input("--gpus " + std::to_string(q.ranks) + " disagrees with torus " + topo.substr(6) + " (" + std::to_string(ranks) +
                " chips)", "leave --gpus out or give the product of the axes");
    q.ranks = int(ranks);
    double rate = 0;
    for (int64_t d : dims) {
      a.torus.push_back(int(d));
      const bool wrap = d > 2 && a.fabric->wrap_multiple > 0 && d % a.fabric->wrap_multiple == 0;
      a.wrapped.push_back(wrap);
      if (d > 1) rate += (wrap ? 2 : 1) * a.fabric->link_bytes_per_s;
    }
    a.link_bytes_per_s = rate;
    q.topology = "torus:" + topo.substr(6);
    return;
  }
  a.fabric = &hw.interconnect(topo);
  if (a.fabric->key == "ici") bad_input("a TPU torus needs its shape: --topology torus:AxB or torus:AxBxC");
  q.topology = a.fabric->key;
  a.link_bytes_per_s = a.fabric->bytes_per_s;
}

}  // namespace

std::string collective_name(Collective c) { return name_of(c, collective_names()); }
std::string algo_name(CommAlgo a) { return name_of(a, algo_names()); }
std::string proto_name(CommProto p) { return name_of(p, proto_names()); }
Collective parse_collective(const std::string& text) {
  if (canon(text) == "p2p") return Collective::SendRecv;
  return parse_named("collective", text, collective_names());
}
CommAlgo parse_algo(const std::string& text) { return parse_named("algorithm", text, algo_names()); }
CommProto parse_proto(const std::string& text) { return parse_named("protocol", text, proto_names()); }
const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> v = [] {
    std::vector<Collective> out;
    for (const auto& [c, n] : collective_names()) out.push_back(c);
    return out;
  }();
  return v;
}

double bus_factor(Collective c, int n) {
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return double(n - 1) / n;
    default: return 1.0;
  }
}

CommAnswer comm(const CommQuery& query) {
  CommAnswer a;
  a.query = query;
  CommQuery& q = a.query;
  if (!(q.bytes > 0) || !std::isfinite(q.bytes)) bad_input("bytes must be > 0 and finite, got " + num(q.bytes));
  if (q.bytes > 1e15) bad_input("bytes " + si(q.bytes, "B") + " is more than any chip holds", "give at most 1 PB");
  if (q.ranks != 0 && (q.ranks < 2 || q.ranks > 1 << 20))
    bad_input("a collective needs 2 to 1048576 ranks, got " + std::to_string(q.ranks));
  a.hw = &hw::find(q.gpu);
  resolve_topology(a);
  const bool torus = !a.torus.empty();
  if (q.ranks < 2) bad_input("a collective needs at least 2 ranks; give --gpus N (N ≥ 2)");
  if (a.fabric->max_ranks > 0 && q.ranks > a.fabric->max_ranks)
    bad_input(a.fabric->name + " joins at most " + std::to_string(a.fabric->max_ranks) + " GPUs, not " +
                  std::to_string(q.ranks),
              "use --topology ib for more than one node");
  if (q.op == Collective::SendRecv && q.ranks != 2 && !torus)
    bad_input("send-recv is between 2 ranks, got " + std::to_string(q.ranks), "give --gpus 2");
  a.bus_factor = bus_factor(q.op, q.ranks);
  a.floor_wire_bytes = q.bytes * a.bus_factor;
  const double floor_rate = q.op == Collective::SendRecv && torus ? a.fabric->link_bytes_per_s : a.link_bytes_per_s;
  a.floor_s = a.floor_wire_bytes / floor_rate;

  if (torus) {
    if (q.algo != CommAlgo::Auto && q.algo != CommAlgo::Torus)
      bad_input("--algo " + algo_name(q.algo) + " does not apply to a TPU torus", "leave --algo out");
    if (q.proto != CommProto::Auto) bad_input("--proto does not apply to a TPU torus (NCCL's protocols are GPU-only)");
    q.algo = CommAlgo::Torus;
    CommCandidate c = torus_candidate(q, a);
    finish(c, q);
    a.candidates = {c};
    a.notes.push_back("torus " + q.topology.substr(6) + ": each axis of more than one chip a " +
                      "bidirectional ring where it wraps around, a line where it does not (" + a.fabric->note + "); " +
                      kScalingBook);
  } else {
    const std::string key = a.fabric->key;
    Fabric f{key == "nvswitch" ? FabricClass::Nvlink : key == "pcie" ? FabricClass::Pci : FabricClass::Net, a.fabric};
    f.eff = f.cls == FabricClass::Nvlink ? kNvlinkEff : f.cls == FabricClass::Pci ? kPcieEff : kNetEff;
    if (q.algo == CommAlgo::Torus) bad_input("--algo torus applies only to --topology torus:AxB[xC]");
    if (q.algo == CommAlgo::Tree && q.op != Collective::AllReduce)
      bad_input("--algo tree applies only to all-reduce (as in NCCL)", "use ring or leave --algo out");
    if (q.algo == CommAlgo::Nvls) {
      if (f.cls != FabricClass::Nvlink || a.hw->compute_capability < 90)
        bad_input("--algo nvls needs NVSwitch on sm_90 or newer (NVLink SHARP)", "use --topology nvswitch on an H100/H200/B200");
      if (q.op != Collective::AllReduce) bad_input("--algo nvls is modelled for all-reduce only");
      if (q.proto != CommProto::Auto && q.proto != CommProto::Simple) bad_input("NVLS runs only the Simple protocol");
    }
    std::vector<CommAlgo> algos;
    if (q.algo == CommAlgo::Auto) {
      algos.push_back(CommAlgo::Ring);
      if (q.op == Collective::AllReduce) algos.push_back(CommAlgo::Tree);
    } else {
      algos.push_back(q.algo);
    }
    // NCCL enables LL128 where NVLink joins the GPUs (and between nodes); not over PCIe.
    std::vector<CommProto> protos;
    if (q.proto != CommProto::Auto) protos = {q.proto};
    else if (q.algo == CommAlgo::Nvls) protos = {CommProto::Simple};
    else if (f.cls == FabricClass::Pci) protos = {CommProto::LL, CommProto::Simple};
    else protos = {CommProto::LL, CommProto::LL128, CommProto::Simple};
    for (CommAlgo al : algos)
      for (CommProto p : protos) {
        CommCandidate c = gpu_candidate(q, *a.hw, f, al, p);
        finish(c, q);
        a.candidates.push_back(c);
      }
    a.notes.push_back("ring Simple attains " + num(f.eff.value * 100, 3) + " % of the link rate: " + f.eff.source);
    a.notes.push_back(std::string("latencies (base + steps × hop) and protocol factors: ") + kNcclTuning);
    if (q.algo == CommAlgo::Nvls)
      a.notes.push_back("NVLS: each rank sends S once; busBw (× 2(N−1)/N) can pass the link rate. " +
                        std::string(kNvlsEff.source));
    else if (f.cls == FabricClass::Nvlink && a.hw->compute_capability >= 90 && q.op == Collective::AllReduce)
      a.notes.push_back("NVLS (NVLink SHARP) is left out unless asked (--algo nvls), as with NCCL_NVLS_ENABLE=0");
    if (f.cls == FabricClass::Net)
      a.notes.push_back("ib: one GPU per node, one NIC per GPU; a node's own NVLink ranks are not modelled");
  }
  a.crossovers = envelope(a.candidates, q.bytes);
  std::stable_sort(a.candidates.begin(), a.candidates.end(),
                   [](const CommCandidate& x, const CommCandidate& y) { return x.time_s < y.time_s; });
  a.best = a.candidates.front();
  a.latency_bound_below = a.best.latency_s * q.bytes / a.best.bandwidth_s;
  return a;
}

std::vector<CommAnswer> comm_sweep(CommQuery q, double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) bad_input("a size range needs 0 < lo ≤ hi, got " + num(lo) + ":" + num(hi));
  if (std::log2(hi / lo) > 64) bad_input("a size range spans at most 2^64 (65 sizes)");
  std::vector<CommAnswer> out;
  for (double s = lo; s <= hi * (1 + 1e-12); s *= 2) {
    q.bytes = s;
    out.push_back(comm(q));
  }
  return out;
}

std::string to_json(const CommAnswer& a, int indent) {
  const CommQuery& q = a.query;
  auto cand = [](const CommCandidate& c) {
    return nlohmann::ordered_json{{"algo", algo_name(c.algo)},
                                  {"proto", c.algo == CommAlgo::Torus ? std::string("-") : proto_name(c.proto)},
                                  {"latency_s", c.latency_s},
                                  {"bus_bytes_per_s", c.bus_bytes_per_s},
                                  {"wire_bytes", c.wire_bytes},
                                  {"bandwidth_s", c.bandwidth_s},
                                  {"time_s", c.time_s},
                                  {"alg_bw_bytes_per_s", c.alg_bw},
                                  {"bus_bw_bytes_per_s", c.bus_bw},
                                  {"regime", c.regime},
                                  {"derivation", c.derivation}};
  };
  nlohmann::ordered_json j;
  j["op"] = collective_name(q.op);
  j["ranks"] = q.ranks;
  j["bytes"] = q.bytes;
  j["gpu"] = a.hw->name;
  j["topology"] = q.topology;
  j["fabric"] = a.fabric->name;
  if (!a.torus.empty()) {
    j["torus"] = a.torus;
    j["wrapped"] = a.wrapped;
  }
  j["link_bytes_per_s"] = a.link_bytes_per_s;
  j["bus_factor"] = a.bus_factor;
  j["floor_wire_bytes"] = a.floor_wire_bytes;
  j["floor_s"] = a.floor_s;
  j["algo"] = algo_name(a.best.algo);
  j["proto"] = a.best.algo == CommAlgo::Torus ? std::string("-") : proto_name(a.best.proto);
  j["estimate_s"] = a.best.time_s;
  j["alg_bw_bytes_per_s"] = a.best.alg_bw;
  j["bus_bw_bytes_per_s"] = a.best.bus_bw;
  j["regime"] = a.best.regime;
  j["latency_bound_below_bytes"] = a.latency_bound_below;
  j["candidates"] = nlohmann::ordered_json::array();
  for (const auto& c : a.candidates) j["candidates"].push_back(cand(c));
  j["crossovers"] = nlohmann::ordered_json::array();
  for (const auto& x : a.crossovers) j["crossovers"].push_back({{"bytes", x.bytes}, {"from", x.from}, {"to", x.to}});
  j["notes"] = a.notes;
  return j.dump(indent);
}

std::vector<std::string> comm_constant_lines() {
  auto triple = [](const ProtoTriple& t) { return num(t.ll, 3) + " / " + num(t.ll128, 3) + " / " + num(t.simple, 3) + " µs"; };
  return {
      "base latency (LL / LL128 / Simple): ring " + triple(kBaseRing) + ", tree " + triple(kBaseTree) + "; " + kNcclTuning,
      "per-step hop, NVLink: ring " + triple(kHopNvlinkRing) + ", tree " + triple(kHopNvlinkTree) + "; PCIe: ring " +
          triple(kHopPciRing) + ", tree " + triple(kHopPciTree) + "; network: ring " + triple(kHopNetRing) + ", tree " +
          triple(kHopNetTree) + "; " + kNcclTuning,
      "NVLS latency " + num(kNvlsLatencyUs) + " µs; " + kNcclTuning,
      "protocol factors of the Simple rate: LL " + num(kLLFactor) + " (capped at " + num(kLLCapHopper) +
          " GB/s in a Hopper node), LL128 " + num(kLL128Factor) + "; tree all-reduce 2·S per rank at " + num(kTreeFactor) +
          " of the rate; " + kNcclTuning,
      "ring Simple efficiency: NVLink " + num(kNvlinkEff.value, 3) + " (" + kNvlinkEff.source + "); PCIe " +
          num(kPcieEff.value, 3) + " (" + kPcieEff.source + "); InfiniBand " + num(kNetEff.value, 3) + " (" + kNetEff.source + ")",
      "NVLS efficiency " + num(kNvlsEff.value, 3) + " (" + kNvlsEff.source + ")",
      "ICI: " + num(kIciHopUs) + " µs per hop, the link rate in both directions of a wrapped axis; " + kScalingBook,
  };
}

}  // namespace sol::model

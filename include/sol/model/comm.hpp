#pragma once
// The speed of light of a collective: how long all-reduce, all-gather, reduce-scatter, all-to-all,
// broadcast or send/recv of S bytes over N ranks takes on a fabric of the hardware database.
//
// Two answers, side by side:
//   floor      the bytes each rank puts on the wire over the link rate, with nothing else in the
//              way: S × 2(N−1)/N for all-reduce, S × (N−1)/N for all-gather, reduce-scatter and
//              all-to-all, S for broadcast and send/recv (the factors of nccl-tests' busBw).
//   estimate   an alpha-beta model per algorithm and protocol, t = α + S × factor / B, with α the
//              launch and per-step latency and B the bus rate the protocol attains on the fabric
//              (NCCL's own tuning model is the pattern: latency + bytes / bandwidth, per algorithm
//              and protocol). The chosen pair is the fastest; the crossovers are the sizes where
//              that choice changes.
// S is the size nccl-tests reports: the per-rank buffer for all-reduce, broadcast and send/recv,
// the whole gathered output for all-gather, the whole input for reduce-scatter, and each rank's
// send buffer for all-to-all. algBw = S / t and busBw = algBw × factor, as nccl-tests define them
// (doc/PERFORMANCE.md), so busBw is comparable with the link rate whatever N is.
//
// A TPU torus is modelled the scaling book's way: each axis a bidirectional ring (both directions
// of every link carry data), the axes used at once, about 1 µs per hop.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"

namespace sol::model {

enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv };
enum class CommAlgo { Auto, Ring, Tree, Nvls, Torus };
enum class CommProto { Auto, LL, LL128, Simple };

std::string collective_name(Collective c);  // "all-reduce", ...
std::string algo_name(CommAlgo a);          // "ring", "tree", "nvls", "torus", "auto"
std::string proto_name(CommProto p);        // "LL", "LL128", "Simple", "auto"
// Parse the names above (case-insensitive; '_' for '-', "allreduce" too); throws BadInput listing them.
Collective parse_collective(const std::string& text);
CommAlgo parse_algo(const std::string& text);
CommProto parse_proto(const std::string& text);
const std::vector<Collective>& all_collectives();

// The wire factor of a collective over n ranks: bytes each rank sends per byte of S.
double bus_factor(Collective c, int ranks);

struct CommQuery {
  Collective op = Collective::AllReduce;
  int ranks = 0;          // 0: from the torus dims (a torus topology) — otherwise ≥ 2
  double bytes = 0;       // S, > 0
  std::string gpu = "h200";
  std::string topology;   // "" (the chip's first interconnect), nvswitch | pcie | ib | torus:AxBxC
  CommAlgo algo = CommAlgo::Auto;   // Auto: the fastest of ring and tree (NVLS only when asked)
  CommProto proto = CommProto::Auto;
};

// One algorithm and protocol at one size.
struct CommCandidate {
  CommAlgo algo = CommAlgo::Ring;
  CommProto proto = CommProto::Simple;
  double latency_s = 0;      // α: launch plus per-step latency
  double bus_bytes_per_s = 0; // B: the bus rate the protocol attains
  double wire_bytes = 0;     // bytes each rank sends (S × the algorithm's factor)
  double bandwidth_s = 0;    // wire_bytes / B
  double time_s = 0;         // α + wire_bytes / B
  double alg_bw = 0;         // S / time
  double bus_bw = 0;         // alg_bw × bus_factor (nccl-tests' definition, whatever the algorithm)
  std::string regime;        // "latency" where α ≥ the bandwidth term, else "bandwidth"
  std::string derivation;    // "α 8.4 µs + 14 × 3.4 µs; B = 450 GB/s × 0.82 (Simple)"
};

// A size where the fastest candidate changes, from `from` to `to` (above `bytes` it is `to`).
struct CommCrossover {
  double bytes = 0;
  std::string from, to;  // "ring/LL", "ring/LL128"
};

struct CommAnswer {
  CommQuery query;                 // as resolved: ranks filled in, topology named
  const hw::HwSpec* hw = nullptr;
  const hw::Interconnect* fabric = nullptr;
  std::vector<int> torus;          // the torus axes (topology torus)
  std::vector<bool> wrapped;       // per axis: a ring (wraparound links) or a line
  double link_bytes_per_s = 0;     // one rank's injection rate, one direction (the floor's rate)
  double bus_factor = 0;
  double floor_wire_bytes = 0;     // S × bus_factor
  double floor_s = 0;              // floor_wire_bytes / link_bytes_per_s
  CommCandidate best;              // the fastest allowed candidate
  std::vector<CommCandidate> candidates;  // every allowed algorithm/protocol, fastest first
  std::vector<CommCrossover> crossovers;  // over all sizes, for the allowed candidates
  double latency_bound_below = 0;  // the size where the best candidate's α equals its bandwidth term
  std::vector<std::string> notes;
};

// Throws sol::Error (BadInput) for fewer than 2 ranks, more than the fabric joins, bytes ≤ 0 or
// not finite, an unknown chip or topology, an algorithm or protocol the fabric or collective
// does not have (tree is all-reduce only; NVLS needs NVSwitch on sm_90+; a torus has neither
// algorithms nor protocols), or torus dims that do not fit the chip's largest slice.
CommAnswer comm(const CommQuery& q);

// The same question over sizes lo, 2·lo, 4·lo, … up to hi (both included when hi is lo × 2^k).
std::vector<CommAnswer> comm_sweep(CommQuery q, double lo, double hi);

// The `sol comm --json` record of one answer (the CLI wraps it with schema_version).
std::string to_json(const CommAnswer& a, int indent = 2);

// The constants the model uses, each with its source, for docs and `sol comm --constants`.
std::vector<std::string> comm_constant_lines();

}  // namespace sol::model

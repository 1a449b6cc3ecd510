#pragma once
// Private to bench/comm: the part of `sol bench comm` that talks to CUDA and NCCL (nccl_run.cu,
// built only where NCCL is found), kept apart from the plan, the model and the JSON.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/comm/comm_bench.hpp"

namespace sol::bench::comm::detail {

struct Machine {
  int gpus = 0;
  std::vector<std::string> names, pci_bus_ids;
  int cc = 0;               // of GPU 0
  int nccl_version = 0;     // ncclGetVersion: 22809 for 2.28.9
  int cuda_runtime = 0, cuda_driver = 0;
  bool all_peer_access = false;  // every pair can reach the other's memory (NVLink or PCIe P2P)
};

struct Case {
  model::Collective op = model::Collective::AllReduce;
  double bytes = 0;
  bool in_place = false;
};

struct Timing {
  double median_s = 0, min_s = 0, p10_s = 0, p90_s = 0;
  int samples = 0;
};

struct Measured {
  Case c;
  size_t count = 0;          // float32 elements per NCCL call (per rank, per peer for all-to-all)
  std::string skipped;       // why the case was not run ("" = it ran)
  uint64_t wrong = 0;        // elements that differ from the expected result, over this process's ranks
  Timing stream, graph;      // samples == 0: not taken
  // Each sample's time on the slowest of this process's ranks (the summaries above are of these):
  // with one process per GPU, the parent takes the slowest rank per sample across processes.
  std::vector<double> stream_samples, graph_samples;
};

// The first `gpus` visible GPUs (0: all). Throws Failure with fewer than 2.
Machine probe_machine(int gpus);
// Every case checked, then timed as the options ask; one communicator for the whole run.
std::vector<Measured> measure(const Machine& m, const std::vector<Case>& cases, const Options& o);
// One process per GPU: this process is rank `rank` of `ranks` on GPU `rank`. Rank 0 makes NCCL's
// unique id and writes it to `id_file` (whole, by a rename); the others wait for it (up to
// kIdWaitS), then all join one communicator (ncclCommInitRank) and run every case as measure does.
inline constexpr int kIdWaitS = 120;
std::vector<Measured> measure_rank(int rank, int ranks, const std::string& id_file, const std::vector<Case>& cases,
                                   const Options& o);
// Timing of per-sample times (median, min, p10, p90).
Timing summary(std::vector<double> samples);

}  // namespace sol::bench::comm::detail

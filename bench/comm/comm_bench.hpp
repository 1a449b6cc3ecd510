#pragma once
// `sol bench comm`: NCCL collectives timed on this machine's GPUs, one process driving all of them
// (ncclCommInitAll) or one process per GPU (ncclCommInitRank: the run starts a worker per rank and
// touches no GPU itself), beside the collective model's prediction (sol/model/comm.hpp).
//
// Per collective, size (powers of two, LO…HI) and placement (out-of-place, in-place): the result
// is checked first (float32 data whose sums are exact; one wrong element fails the record), then
// timed on device events, per iteration and rank, after a warm-up: stream timing (the calls
// launched back to back) and CUDA-graph timing (ITERS calls captured into one graph per GPU). A
// sample is the slowest rank's time; the record holds the median. algBw = S / t and busBw =
// algBw × the collective's factor, as nccl-tests define them.
//
// NVLink SHARP stays off: NCCL_NVLS_ENABLE is set to 0 when unset, refused when set otherwise,
// and recorded with the other NCCL variables that change what NCCL picks. The peer in the same
// run is torch.distributed (NCCL backend), bench/peers/torch_comm_peers.py, timed the same way.
#include <string>
#include <vector>

#include "sol/model/comm.hpp"

namespace sol::bench::comm {

struct Options {
  std::vector<model::Collective> ops{model::Collective::AllReduce};
  double lo = 8, hi = 8.0 * (1 << 30);  // bytes, S as nccl-tests counts it
  int gpus = 0;                         // 0: every visible GPU
  bool stream = true, graph = true;     // the timings to take
  bool in_place = true, out_of_place = true;
  int warmup = 5, iters = 20;
  bool peers = true;                    // torch.distributed in the same run
  std::string gpu;                      // database row for the model ("" = the one the GPU's name matches)
  std::string topology = "nvswitch";    // the model's fabric
  bool process_per_gpu = false;         // one process per GPU instead of one for all (needs gpus ≥ 2)
  // A worker of a process_per_gpu run (set by the run, not by users): its rank, and the folder
  // where it reads NCCL's id and leaves its records (rank-R.json).
  int worker_rank = -1;
  std::string worker_dir;
};

// True where this sol was built with NCCL.
bool nccl_built_in();

// Runs the plan and returns the results document (JSON text, `kind` "comm-bench"). Throws
// sol::Error: Failure without NCCL or with fewer than 2 GPUs ("a collective needs at least 2
// GPUs"), BadInput for NCCL_NVLS_ENABLE set to anything but 0. A wrong result does not throw: its
// record says verified false and the caller exits non-zero.
std::string run(const Options& o);

// A process_per_gpu run's worker: measures rank o.worker_rank of o.gpus and writes
// o.worker_dir/rank-R.json (its records with every sample; rank 0 adds the machine).
void run_worker(const Options& o);

// The slowest rank's time per sample, the element-wise maximum of each rank's samples (sample i
// of every rank is the same call); throws sol::Error where the ranks' sample counts differ.
std::vector<double> slowest_per_sample(const std::vector<std::vector<double>>& per_rank);

// The path a run's document goes to under DIR: DIR/<gpu>x<N>/comm.json, or
// comm-process-per-gpu.json for a process_per_gpu run.
std::string results_path(const std::string& dir, const std::string& json_text);

// True when every record of the document verified.
bool all_verified(const std::string& json_text);

// The document as a terminal table (≤ 100 columns).
std::string text(const std::string& json_text);

}  // namespace sol::bench::comm

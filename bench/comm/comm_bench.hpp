#pragma once
// `sol bench comm`: NCCL collectives timed on this machine's GPUs, one process driving all of them
// (ncclCommInitAll), beside the collective model's prediction (sol/model/comm.hpp).
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
};

// True where this sol was built with NCCL.
bool nccl_built_in();

// Runs the plan and returns the results document (JSON text, `kind` "comm-bench"). Throws
// sol::Error: Failure without NCCL or with fewer than 2 GPUs ("a collective needs at least 2
// GPUs"), BadInput for NCCL_NVLS_ENABLE set to anything but 0. A wrong result does not throw: its
// record says verified false and the caller exits non-zero.
std::string run(const Options& o);

// The path a run's document goes to under DIR: DIR/<gpu>x<N>/comm.json.
std::string results_path(const std::string& dir, const std::string& json_text);

// True when every record of the document verified.
bool all_verified(const std::string& json_text);

// The document as a terminal table (≤ 100 columns).
std::string text(const std::string& json_text);

}  // namespace sol::bench::comm

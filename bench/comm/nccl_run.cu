// NCCL collectives over every GPU of one process (ncclCommInitAll), or over one GPU per process
// (ncclCommInitRank), checked against the exact float32 result and then timed on device events;
// see comm_bench.hpp for what a record means.
// Rank r's element i starts as (r + 1) × (i mod 251 + 1): integers whose sums stay exact in
// float32 for any rank count a node has, so "equal" is the check, not a tolerance.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/comm/nccl_run.hpp"
#include "bench/stats.hpp"
#include "kernels/common/check.cuh"
#include "sol/core/error.hpp"

#define SOL_NCCL_CHECK(call)                                                                            \
  do {                                                                                                  \
    ncclResult_t sol_nccl_ = (call);                                                                    \
    if (sol_nccl_ != ncclSuccess)                                                                       \
      ::sol::failure(std::string(#call) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + ": " + \
                     ncclGetErrorString(sol_nccl_));                                                    \
  } while (0)

namespace sol::bench::comm::detail {
namespace {

using model::Collective;

constexpr int kThreads = 256, kMaxBlocks = 4096;
constexpr int kGraphReps = 5;  // graph launches per case, each of `iters` calls

__host__ __device__ inline float pattern(int rank, size_t i) { return float((rank + 1) * int(i % 251 + 1)); }

__device__ float expected(int op, int rank, int ranks, size_t c, size_t i) {
  const float tri = float(ranks * (ranks + 1) / 2);
  switch (Collective(op)) {
    case Collective::AllReduce: return tri * pattern(0, i);
    case Collective::AllGather: return pattern(int(i / c), i % c);
    case Collective::ReduceScatter: return tri * pattern(0, size_t(rank) * c + i);
    case Collective::AllToAll: return pattern(int(i / c), size_t(rank) * c + i % c);
    case Collective::Broadcast: return pattern(0, i);
    case Collective::SendRecv: return pattern((rank + ranks - 1) % ranks, i);
  }
  return -1;
}

__global__ void fill_kernel(float* p, size_t n, int rank) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = pattern(rank, i);
}

__global__ void check_kernel(const float* p, size_t n, int op, int rank, int ranks, size_t c, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    mine += p[i] != expected(op, rank, ranks, c, i);  // NaN (the poison) differs from everything
  if (mine) atomicAdd(bad, mine);
}

int blocks_for(size_t n) { return int(std::clamp<size_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks)); }

// One GPU's share of the run.
struct Rank {
  int device = 0;
  int rank = 0, ranks = 1;  // this rank's index among all ranks, and how many there are
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float *send = nullptr, *recv = nullptr;
  unsigned long long* bad = nullptr;
  std::vector<cudaEvent_t> start, stop;
};

// Elements per call, and the floats each buffer needs, for S bytes over n ranks (0: too small).
size_t count_of(Collective op, double bytes, int n) {
  const auto elems = size_t(bytes / 4);
  switch (op) {
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return elems / size_t(n);
    default: return elems;
  }
}
size_t send_floats(Collective op, size_t c, int n) {
  return op == Collective::ReduceScatter || op == Collective::AllToAll ? c * n : c;
}
size_t recv_floats(Collective op, size_t c, int n) {
  return op == Collective::AllGather || op == Collective::AllToAll ? c * n : c;
}

void issue(const Case& k, size_t c, Rank& x) {
  const int r = x.rank, n = x.ranks;
  float* in = x.send;
  switch (k.op) {
    case Collective::AllReduce:
      SOL_NCCL_CHECK(ncclAllReduce(k.in_place ? x.recv : in, x.recv, c, ncclFloat, ncclSum, x.comm, x.stream));
      break;
    case Collective::AllGather:
      SOL_NCCL_CHECK(ncclAllGather(k.in_place ? x.recv + size_t(r) * c : in, x.recv, c, ncclFloat, x.comm, x.stream));
      break;
    case Collective::ReduceScatter:
      SOL_NCCL_CHECK(ncclReduceScatter(in, k.in_place ? in + size_t(r) * c : x.recv, c, ncclFloat, ncclSum, x.comm, x.stream));
      break;
    case Collective::AllToAll: SOL_NCCL_CHECK(ncclAlltoAll(in, x.recv, c, ncclFloat, x.comm, x.stream)); break;
    case Collective::Broadcast:
      SOL_NCCL_CHECK(ncclBroadcast(k.in_place ? x.recv : in, x.recv, c, ncclFloat, 0, x.comm, x.stream));
      break;
    case Collective::SendRecv:
      SOL_NCCL_CHECK(ncclGroupStart());
      SOL_NCCL_CHECK(ncclSend(in, c, ncclFloat, (r + 1) % n, x.comm, x.stream));
      SOL_NCCL_CHECK(ncclRecv(x.recv, c, ncclFloat, (r + n - 1) % n, x.comm, x.stream));
      SOL_NCCL_CHECK(ncclGroupEnd());
      break;
  }
}

void issue_all(const Case& k, size_t c, std::vector<Rank>& ranks) {
  SOL_NCCL_CHECK(ncclGroupStart());
  for (Rank& x : ranks) issue(k, c, x);
  SOL_NCCL_CHECK(ncclGroupEnd());
}

void sync_all(std::vector<Rank>& ranks) {
  for (auto& x : ranks) {
    SOL_CUDA_CHECK(cudaSetDevice(x.device));
    SOL_CUDA_CHECK(cudaStreamSynchronize(x.stream));
  }
}

// Sets the inputs (and poisons the outputs), runs the case once, and counts wrong elements.
uint64_t check_case(const Case& k, size_t c, std::vector<Rank>& ranks) {
  for (Rank& x : ranks) {
    const int r = x.rank, n = x.ranks;
    SOL_CUDA_CHECK(cudaSetDevice(x.device));
    SOL_CUDA_CHECK(cudaMemsetAsync(x.recv, 0xFF, recv_floats(k.op, c, n) * sizeof(float), x.stream));
    SOL_CUDA_CHECK(cudaMemsetAsync(x.bad, 0, sizeof(unsigned long long), x.stream));
    float* in = x.send;
    size_t len = send_floats(k.op, c, n);
    if (k.in_place && k.op == Collective::AllGather) in = x.recv + size_t(r) * c;
    else if (k.in_place && (k.op == Collective::AllReduce || k.op == Collective::Broadcast)) in = x.recv;
    if (k.op == Collective::Broadcast && r != 0) len = 0;  // only the root's input matters
    if (len > 0) {
      fill_kernel<<<blocks_for(len), kThreads, 0, x.stream>>>(in, len, r);
      SOL_LAUNCH_CHECK();
    }
  }
  issue_all(k, c, ranks);
  uint64_t wrong = 0;
  for (Rank& x : ranks) {
    const int r = x.rank, n = x.ranks;
    SOL_CUDA_CHECK(cudaSetDevice(x.device));
    const float* out = k.op == Collective::ReduceScatter && k.in_place ? x.send + size_t(r) * c : x.recv;
    const size_t len = recv_floats(k.op, c, n);
    check_kernel<<<blocks_for(len), kThreads, 0, x.stream>>>(out, len, int(k.op), r, n, c, x.bad);
    SOL_LAUNCH_CHECK();
    unsigned long long bad = 0;
    SOL_CUDA_CHECK(cudaMemcpyAsync(&bad, x.bad, sizeof bad, cudaMemcpyDeviceToHost, x.stream));
    SOL_CUDA_CHECK(cudaStreamSynchronize(x.stream));
    wrong += bad;
  }
  return wrong;
}

// Records event `i` of every rank (its start or its stop) on the rank's stream.
void record(std::vector<Rank>& ranks, int i, bool start) {
  for (auto& x : ranks) {
    SOL_CUDA_CHECK(cudaSetDevice(x.device));
    SOL_CUDA_CHECK(cudaEventRecord(start ? x.start[size_t(i)] : x.stop[size_t(i)], x.stream));
  }
}

// The slowest rank's time between event pair i's start and stop, divided by `calls`.
double slowest(std::vector<Rank>& ranks, int i, int calls) {
  double worst = 0;
  for (auto& x : ranks) {
    SOL_CUDA_CHECK(cudaSetDevice(x.device));
    SOL_CUDA_CHECK(cudaEventSynchronize(x.stop[size_t(i)]));
    float ms = 0;
    SOL_CUDA_CHECK(cudaEventElapsedTime(&ms, x.start[size_t(i)], x.stop[size_t(i)]));
    worst = std::max(worst, ms * 1e-3 / calls);
  }
  return worst;
}

std::vector<double> time_stream(const Case& k, size_t c, std::vector<Rank>& ranks, const Options& o) {
  for (int w = 0; w < o.warmup; ++w) issue_all(k, c, ranks);
  for (int i = 0; i < o.iters; ++i) {
    record(ranks, i, true);
    issue_all(k, c, ranks);
    record(ranks, i, false);
  }
  std::vector<double> samples;
  for (int i = 0; i < o.iters; ++i) samples.push_back(slowest(ranks, i, 1));
  return samples;
}

// `iters` calls captured into one graph per GPU, launched kGraphReps times after one warm-up launch.
std::vector<double> time_graph(const Case& k, size_t c, std::vector<Rank>& ranks, const Options& o) {
  std::vector<cudaGraph_t> graphs(ranks.size());
  std::vector<cudaGraphExec_t> execs(ranks.size());
  for (auto& x : ranks) {
    SOL_CUDA_CHECK(cudaSetDevice(x.device));
    SOL_CUDA_CHECK(cudaStreamBeginCapture(x.stream, cudaStreamCaptureModeGlobal));
  }
  for (int i = 0; i < o.iters; ++i) issue_all(k, c, ranks);
  for (size_t r = 0; r < ranks.size(); ++r) {
    SOL_CUDA_CHECK(cudaSetDevice(ranks[r].device));
    SOL_CUDA_CHECK(cudaStreamEndCapture(ranks[r].stream, &graphs[r]));
    SOL_CUDA_CHECK(cudaGraphInstantiate(&execs[r], graphs[r], 0));
  }
  auto launch = [&] {
    for (size_t r = 0; r < ranks.size(); ++r) {
      SOL_CUDA_CHECK(cudaSetDevice(ranks[r].device));
      SOL_CUDA_CHECK(cudaGraphLaunch(execs[r], ranks[r].stream));
    }
  };
  launch();
  sync_all(ranks);
  for (int rep = 0; rep < kGraphReps; ++rep) {
    record(ranks, rep, true);
    launch();
    record(ranks, rep, false);
  }
  std::vector<double> samples;
  for (int rep = 0; rep < kGraphReps; ++rep) samples.push_back(slowest(ranks, rep, o.iters));
  for (size_t r = 0; r < ranks.size(); ++r) {
    SOL_CUDA_CHECK(cudaSetDevice(ranks[r].device));
    SOL_CUDA_CHECK(cudaGraphExecDestroy(execs[r]));
    SOL_CUDA_CHECK(cudaGraphDestroy(graphs[r]));
  }
  return samples;
}

// The largest buffers any case needs, in floats, over n ranks.
std::pair<size_t, size_t> buffer_floats(const std::vector<Case>& cases, int n) {
  size_t send_max = 1, recv_max = 1;
  for (const Case& k : cases) {
    const size_t c = count_of(k.op, k.bytes, n);
    send_max = std::max(send_max, send_floats(k.op, c, n));
    recv_max = std::max(recv_max, recv_floats(k.op, c, n));
  }
  return {send_max, recv_max};
}

// A rank's stream, buffers and events on its device; its communicator is the caller's.
void set_up(Rank& x, const std::vector<Case>& cases, const Options& o) {
  const auto [send_max, recv_max] = buffer_floats(cases, x.ranks);
  const int events = std::max(o.iters, kGraphReps);
  SOL_CUDA_CHECK(cudaSetDevice(x.device));
  SOL_CUDA_CHECK(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking));
  SOL_CUDA_CHECK(cudaMalloc(&x.send, send_max * sizeof(float)));
  SOL_CUDA_CHECK(cudaMalloc(&x.recv, recv_max * sizeof(float)));
  SOL_CUDA_CHECK(cudaMalloc(&x.bad, sizeof(unsigned long long)));
  x.start.resize(size_t(events));
  x.stop.resize(size_t(events));
  for (int i = 0; i < events; ++i) {
    SOL_CUDA_CHECK(cudaEventCreate(&x.start[size_t(i)]));
    SOL_CUDA_CHECK(cudaEventCreate(&x.stop[size_t(i)]));
  }
}

void tear_down(Rank& x) {
  SOL_CUDA_CHECK(cudaSetDevice(x.device));
  for (auto e : x.start) SOL_CUDA_CHECK(cudaEventDestroy(e));
  for (auto e : x.stop) SOL_CUDA_CHECK(cudaEventDestroy(e));
  SOL_CUDA_CHECK(cudaFree(x.send));
  SOL_CUDA_CHECK(cudaFree(x.recv));
  SOL_CUDA_CHECK(cudaFree(x.bad));
  SOL_CUDA_CHECK(cudaStreamDestroy(x.stream));
  SOL_NCCL_CHECK(ncclCommDestroy(x.comm));
}

// Every case over this process's ranks: checked, then timed as the options ask.
std::vector<Measured> run_cases(std::vector<Rank>& ranks, const std::vector<Case>& cases, const Options& o) {
  const int n = ranks.front().ranks;
  std::vector<Measured> out;
  for (const Case& k : cases) {
    Measured r;
    r.c = k;
    r.count = count_of(k.op, k.bytes, n);
    if (r.count == 0) r.skipped = "fewer than one float32 element per rank";
    else if (k.in_place && (k.op == Collective::AllToAll || k.op == Collective::SendRecv))
      r.skipped = "NCCL has no in-place form of this collective";
    if (r.skipped.empty()) {
      r.wrong = check_case(k, r.count, ranks);
      if (o.stream) r.stream = summary(r.stream_samples = time_stream(k, r.count, ranks, o));
      if (o.graph) r.graph = summary(r.graph_samples = time_graph(k, r.count, ranks, o));
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace

Timing summary(std::vector<double> samples) {
  const Summary s = summarize(std::move(samples));
  return {s.median, s.min, s.p10, s.p90, s.samples};
}

Machine probe_machine(int gpus) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  const std::string why = err == cudaSuccess ? "" : std::string(" (") + cudaGetErrorString(err) + ")";
  if (err != cudaSuccess) count = 0;
  if (count < 2)
    failure("a collective needs at least 2 GPUs; this machine has " + std::to_string(count) + why,
            "run sol bench comm on a machine with 2 or more GPUs");
  if (gpus == 1 || gpus < 0) bad_input("--gpus must be ≥ 2 (a collective needs two ranks), got " + std::to_string(gpus));
  if (gpus > count) failure("--gpus " + std::to_string(gpus) + ": this machine has " + std::to_string(count) + " GPUs");
  Machine m;
  m.gpus = gpus == 0 ? count : gpus;
  for (int d = 0; d < m.gpus; ++d) {
    cudaDeviceProp p{};
    SOL_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    m.names.push_back(p.name);
    char bus[32] = {};
    SOL_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
    m.pci_bus_ids.push_back(bus);
    if (d == 0) m.cc = p.major * 10 + p.minor;
  }
  m.all_peer_access = true;
  for (int a = 0; a < m.gpus; ++a)
    for (int b = 0; b < m.gpus; ++b)
      if (a != b) {
        int can = 0;
        SOL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
        m.all_peer_access = m.all_peer_access && can;
      }
  SOL_NCCL_CHECK(ncclGetVersion(&m.nccl_version));
  SOL_CUDA_CHECK(cudaRuntimeGetVersion(&m.cuda_runtime));
  SOL_CUDA_CHECK(cudaDriverGetVersion(&m.cuda_driver));
  return m;
}

std::vector<Measured> measure(const Machine& m, const std::vector<Case>& cases, const Options& o) {
  const int n = m.gpus;
  std::vector<Rank> ranks(static_cast<size_t>(n));
  std::vector<ncclComm_t> comms(static_cast<size_t>(n));
  std::vector<int> devs(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) devs[size_t(r)] = r;
  SOL_NCCL_CHECK(ncclCommInitAll(comms.data(), n, devs.data()));
  for (int r = 0; r < n; ++r) {
    Rank& x = ranks[size_t(r)];
    x.device = x.rank = r;
    x.ranks = n;
    x.comm = comms[size_t(r)];
    set_up(x, cases, o);
  }
  std::vector<Measured> out = run_cases(ranks, cases, o);
  for (auto& x : ranks) tear_down(x);
  return out;
}

std::vector<Measured> measure_rank(int rank, int ranks, const std::string& id_file, const std::vector<Case>& cases,
                                   const Options& o) {
  if (rank < 0 || rank >= ranks) failure("measure_rank: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  ncclUniqueId id{};
  if (rank == 0) {
    SOL_NCCL_CHECK(ncclGetUniqueId(&id));
    const std::string part = id_file + ".part";
    std::FILE* f = std::fopen(part.c_str(), "wb");
    if (!f || std::fwrite(&id, sizeof id, 1, f) != 1 || std::fclose(f) != 0 || std::rename(part.c_str(), id_file.c_str()) != 0)
      failure("cannot write NCCL's unique id to " + id_file);
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kIdWaitS);
    for (;;) {
      if (std::FILE* f = std::fopen(id_file.c_str(), "rb")) {
        const bool whole = std::fread(&id, sizeof id, 1, f) == 1;
        std::fclose(f);
        if (whole) break;
      }
      if (std::chrono::steady_clock::now() > deadline)
        failure("rank " + std::to_string(rank) + ": rank 0 wrote no NCCL id to " + id_file + " within " +
                std::to_string(kIdWaitS) + " s");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::vector<Rank> mine(1);
  Rank& x = mine.front();
  x.device = x.rank = rank;
  x.ranks = ranks;
  SOL_CUDA_CHECK(cudaSetDevice(rank));
  SOL_NCCL_CHECK(ncclCommInitRank(&x.comm, ranks, id, rank));
  set_up(x, cases, o);
  std::vector<Measured> out = run_cases(mine, cases, o);
  tear_down(x);
  return out;
}

}  // namespace sol::bench::comm::detail

#pragma once
// The harness's CUDA plumbing, private to bench/*.cu: owned streams, events and graphs, the
// device being measured, the L2 flush, and the sampling loop every measurement goes through.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/clocks.hpp"
#include "bench/harness.hpp"
#include "bench/stats.hpp"
#include "kernels/common/buffer.cuh"
#include "kernels/common/check.cuh"

namespace sol::bench::gpu {

class Stream {
 public:
  Stream() { SOL_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { SOL_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// Pairs of timing events, reused round after round.
class EventPairs {
 public:
  explicit EventPairs(int n);
  ~EventPairs();
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;
  int size() const { return int(start_.size()); }
  void start(int i, cudaStream_t s) { SOL_CUDA_CHECK(cudaEventRecord(start_[size_t(i)], s)); }
  void stop(int i, cudaStream_t s) { SOL_CUDA_CHECK(cudaEventRecord(stop_[size_t(i)], s)); }
  void sync(int i) { SOL_CUDA_CHECK(cudaEventSynchronize(stop_[size_t(i)])); }
  double seconds(int i);  // after sync

 private:
  std::vector<cudaEvent_t> start_, stop_;
};

// The current device as the harness needs it.
struct Device {
  int ordinal = 0;
  std::string pci_bus_id;
  int cc = 0;
  int sms = 0;
  int64_t l2_bytes = 0;
};
Device current_device();
ClockSample read_clock(const Device& d);

// Evicts L2 by reading and writing a buffer of twice its size.
class L2Flush {
 public:
  explicit L2Flush(int64_t l2_bytes);
  void flush(cudaStream_t s);
  int64_t bytes() const { return buf_.bytes(); }

 private:
  kernels::DeviceBuffer<uint4> buf_;
};

// A sampled measurement of `run`, which enqueues run number i on the stream (the caller maps i
// to an input set). Samples are per run; in graph mode one sample replays runs_per_sample runs.
struct Timed {
  Summary summary;
  int runs_per_sample = 1;
  bool graph = false;
  bool settled = false;
  double eager_median = 0;  // timed from a graph because short: the median from the stream; else 0
  ClockWatch clocks;
  std::vector<std::string> notes;
};
Timed time_runs(const std::function<void(int, cudaStream_t)>& run, int sets, const Options& opts, cudaStream_t s);

}  // namespace sol::bench::gpu

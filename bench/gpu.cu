// The sampling loop and the device it runs on. One measurement: a first run (module load, lazy
// initialization), warm-up batches until warmup_s, then rounds of event-timed samples until the
// median settles (or its confidence interval is within max_noise), the budget runs out, or the
// record's timeout passes. Clocks are read before, during each round (while the
// GPU is busy) and after, so a throttled result is marked as such.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <limits>
#include <optional>

#include "bench/gpu.cuh"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace gpu {

EventPairs::EventPairs(int n) : start_(size_t(n), nullptr), stop_(size_t(n), nullptr) {
  for (int i = 0; i < n; ++i) {
    SOL_CUDA_CHECK(cudaEventCreate(&start_[size_t(i)]));
    SOL_CUDA_CHECK(cudaEventCreate(&stop_[size_t(i)]));
  }
}

EventPairs::~EventPairs() {
  for (auto* v : {&start_, &stop_})
    for (cudaEvent_t e : *v)
      if (e) (void)cudaEventDestroy(e);
}

double EventPairs::seconds(int i) {
  float ms = 0;
  SOL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_[size_t(i)], stop_[size_t(i)]));
  return double(ms) * 1e-3;
}

Device current_device() {
  Device d;
  SOL_CUDA_CHECK(cudaGetDevice(&d.ordinal));
  char bus[32] = {};
  SOL_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, int(sizeof bus), d.ordinal));
  d.pci_bus_id = bus;
  int major = 0, minor = 0, l2 = 0;
  SOL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d.ordinal));
  SOL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d.ordinal));
  SOL_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, d.ordinal));
  SOL_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d.ordinal));
  d.cc = major * 10 + minor;
  d.l2_bytes = l2;
  return d;
}

ClockSample read_clock(const Device& d) { return bench::read_clock(d.pci_bus_id, d.ordinal); }

namespace {
__global__ void flush_kernel(uint4* gBuf, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint4 v = gBuf[i];
    v.x += 1;
    gBuf[i] = v;
  }
}

// Owned CUDA graph of `runs` consecutive runs, captured from the stream.
struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
  }
};

std::unique_ptr<Graph> capture(const std::function<void(cudaStream_t)>& run_next, int runs, cudaStream_t s) {
  auto g = std::make_unique<Graph>();
  SOL_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < runs; ++i) run_next(s);
  } catch (...) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(s, &partial);
    if (partial) (void)cudaGraphDestroy(partial);
    (void)cudaGetLastError();  // capture errors are not sticky; clear so later checks see only new ones
    throw;
  }
  SOL_CUDA_CHECK(cudaStreamEndCapture(s, &g->graph));
  SOL_CUDA_CHECK(cudaGraphInstantiate(&g->exec, g->graph, 0));
  SOL_CUDA_CHECK(cudaGraphUpload(g->exec, s));
  return g;
}
}  // namespace

L2Flush::L2Flush(int64_t l2_bytes) : buf_(std::max<int64_t>(2 * l2_bytes, 64 << 20) / int64_t(sizeof(uint4))) {
  SOL_CUDA_CHECK(cudaMemset(buf_.get(), 1, size_t(buf_.bytes())));
}

void L2Flush::flush(cudaStream_t s) {
  flush_kernel<<<1024, 256, 0, s>>>(buf_.get(), buf_.count());
  SOL_LAUNCH_CHECK();
}

Timed time_runs(const std::function<void(int, cudaStream_t)>& run, int sets, const Options& opts, cudaStream_t s) {
  if (opts.cold_l2 && opts.graph)
    bad_input("--cold-l2 and --graph cannot be combined",
              "cold L2 flushes before every sample; a graph replays runs back to back without a flush");
  if (!(opts.budget_s > 0) || opts.min_samples < 1 || opts.max_samples < 3 || opts.warmup_s < 0 || opts.settle < 0 ||
      !(opts.max_noise >= 0) || !(opts.timeout_s >= 0))
    bad_input("timing options out of range (budget " + std::to_string(opts.budget_s) + " s, samples " +
                  std::to_string(opts.min_samples) + "–" + std::to_string(opts.max_samples) + ", max noise " +
                  std::to_string(opts.max_noise) + ", timeout " + std::to_string(opts.timeout_s) + " s)",
              "give a positive budget, at least 3 samples, and a noise target and timeout ≥ 0");
  if (sets < 1) failure("a Case reported " + std::to_string(sets) + " input sets");
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto out_of_time = [&] {
    return opts.timeout_s > 0 && std::chrono::duration<double>(clock::now() - start).count() >= opts.timeout_s;
  };
  const Device dev = current_device();
  Timed t;
  t.clocks.add(read_clock(dev));

  int next = 0;
  auto run_next = [&](cudaStream_t st) { run(next++ % sets, st); };
  std::optional<L2Flush> flusher;
  if (opts.cold_l2) flusher.emplace(dev.l2_bytes);

  // First run alone (module load, lazy allocations), then doubling batches until warm.
  run_next(s);
  SOL_CUDA_CHECK(cudaStreamSynchronize(s));
  EventPairs warm(1);
  double per_run = 0, warm_s = 0;
  int warm_runs = 1;
  for (int batch = 1;; batch *= 2) {
    warm.start(0, s);
    for (int i = 0; i < batch; ++i) run_next(s);
    warm.stop(0, s);
    warm.sync(0);
    const double e = warm.seconds(0);
    per_run = e / batch;
    warm_s += e;
    warm_runs += batch;
    if ((warm_s >= opts.warmup_s && warm_runs >= 3) || warm_s >= opts.budget_s || batch >= (1 << 16) || out_of_time())
      break;
  }
  per_run = std::max(per_run, 1e-7);

  if (opts.full_budget) t.notes.push_back("sampled for the whole budget (--full-budget)");
  if (flusher)
    t.notes.push_back("cold L2: " + std::to_string(flusher->bytes() >> 20) + " MiB flushed before every sample");

  // Samples until the median settles (or `budget_s` or the timeout ends it): each sample one run
  // from the stream, or one replay of `graph`.
  struct Sampled {
    Summary summary;
    bool settled = false;
    std::vector<std::string> notes;
  };
  const auto sample = [&](const Graph* graph, int runs_per_sample, double budget_s) {
    Sampled out;
    const double per_sample = per_run * runs_per_sample;
    // Every record samples for its whole budget where asked (full_budget): records compared under
    // a power cap then spend equal time in it, whichever settles first.
    const int wanted = opts.full_budget ? std::numeric_limits<int>::max() : opts.min_samples;
    const int min_samples = std::max(3, std::min(wanted, int(budget_s / per_sample)));
    const int round = int(std::clamp(std::ceil(0.025 / per_sample), 1.0, 256.0));
    EventPairs ev(round);
    std::vector<double> samples;
    double before = 0;
    const auto t0 = clock::now();
    while (true) {
      const int n = std::min(round, opts.max_samples - int(samples.size()));
      for (int i = 0; i < n; ++i) {
        if (flusher) flusher->flush(s);
        ev.start(i, s);
        if (graph)
          SOL_CUDA_CHECK(cudaGraphLaunch(graph->exec, s));
        else
          run_next(s);
        ev.stop(i, s);
      }
      t.clocks.add(read_clock(dev));  // the GPU is busy with this round now
      ev.sync(n - 1);
      SOL_CUDA_CHECK(cudaGetLastError());
      for (int i = 0; i < n; ++i) samples.push_back(ev.seconds(i) / runs_per_sample);
      out.summary = summarize(samples);
      const double wall = std::chrono::duration<double>(clock::now() - t0).count();
      const bool quiet = opts.max_noise > 0 ? out.summary.median_ci <= opts.max_noise
                                            : settled(before, out.summary.median, opts.settle);
      if (int(samples.size()) >= min_samples && quiet) {
        out.settled = true;
        break;
      }
      before = out.summary.median;
      if (int(samples.size()) >= opts.max_samples) break;
      if (int(samples.size()) >= min_samples && wall >= budget_s) break;
      if (wall >= 4 * budget_s && samples.size() >= 3) break;  // slow runs: accept fewer samples
      if (out_of_time()) {
        out.notes.push_back("stopped at the " + num(opts.timeout_s, 3) + " s timeout after " +
                            std::to_string(samples.size()) + " samples");
        break;
      }
    }
    const std::string within = " within the " + num(budget_s, 3) + " s budget";
    if (opts.max_noise > 0)
      out.notes.push_back("median ±" + num(100 * out.summary.median_ci, 2) + " % (95 % CI) over " +
                          std::to_string(samples.size()) + " samples" +
                          (out.settled ? "" : ", above the ±" + num(100 * opts.max_noise, 2) + " % target" + within));
    else if (!out.settled)
      out.notes.push_back("median not settled to " + num(opts.settle * 100, 2) + " %" + within);
    return out;
  };
  const auto keep = [&](Sampled&& sampled) {
    t.summary = sampled.summary;
    t.settled = sampled.settled;
    for (auto& n : sampled.notes) t.notes.push_back(std::move(n));
  };

  // A short run is timed from the stream first (what a loop of launches sees, gaps included), then
  // from a graph (device time), each way half the budget, unless the caller chose one way.
  const bool from_graph = opts.graph || (!opts.events && !opts.cold_l2 && per_run < results::kGraphBelowS);
  const bool both_ways = from_graph && !opts.graph;
  const double budget_s = both_ways ? opts.budget_s / 2 : opts.budget_s;
  std::optional<Sampled> stream;
  if (both_ways) stream = sample(nullptr, 1, budget_s);
  std::unique_ptr<Graph> graph;
  if (from_graph) {
    // Enough runs per replay that a replay lasts ≥ 200 µs, and every input set appears.
    int k = int(std::clamp(std::ceil(200e-6 / per_run), 1.0, 128.0));
    k = std::max(k, std::min(sets, 128));
    try {
      graph = capture(run_next, k, s);
      t.graph = true;
      t.runs_per_sample = k;
      t.notes.push_back("CUDA graph of " + std::to_string(k) + " runs per replay; time per run = replay / " +
                        std::to_string(k));
      for (int i = 0; i < 2; ++i) SOL_CUDA_CHECK(cudaGraphLaunch(graph->exec, s));
      SOL_CUDA_CHECK(cudaStreamSynchronize(s));
    } catch (const Error& e) {
      graph.reset();
      t.notes.push_back(std::string("graph capture failed, timed from the stream instead: ") + e.what());
    }
  }
  if (stream && !graph) {  // the capture failed: the stream's samples are the timing
    keep(std::move(*stream));
  } else {
    if (stream) {
      t.eager_median = stream->summary.median;
      t.notes.push_back("shorter than " + num(results::kGraphBelowS * 1e6, 3) + " µs: from the stream one run took " +
                        num(t.eager_median * 1e6, 3) + " µs (launch gaps included; eager_median_s), the median is "
                        "device time from a graph (--events: the stream only)");
    }
    keep(sample(graph.get(), t.runs_per_sample, budget_s));
  }
  t.clocks.add(read_clock(dev));
  return t;
}

}  // namespace gpu

bool gpu_available(std::string* why) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  std::string reason;
  if (err != cudaSuccess) {
    reason = std::string("no CUDA device: ") + cudaGetErrorString(err);
    (void)cudaGetLastError();
  } else if (n == 0) {
    reason = "no CUDA device: cudaGetDeviceCount found none";
  }
  if (why) *why = reason;
  return reason.empty();
}

void require_gpu() {
  std::string why;
  if (!gpu_available(&why)) failure(why, "run on a machine with an NVIDIA GPU and its driver");
}

void select_device(int ordinal) {
  require_gpu();
  int n = 0;
  SOL_CUDA_CHECK(cudaGetDeviceCount(&n));
  if (ordinal < 0 || ordinal >= n)
    bad_input("--device " + std::to_string(ordinal) + ": this machine has " + std::to_string(n) + " CUDA device" +
                  (n == 1 ? "" : "s"),
              "give --device 0" + (n > 1 ? "…" + std::to_string(n - 1) : std::string()));
  SOL_CUDA_CHECK(cudaSetDevice(ordinal));
}

results::Device device_info() {
  require_gpu();
  const gpu::Device g = gpu::current_device();
  results::Device d;
  char name[256] = {};
  cudaDeviceProp prop{};
  SOL_CUDA_CHECK(cudaGetDeviceProperties(&prop, g.ordinal));
  std::copy(std::begin(prop.name), std::end(prop.name), name);
  d.name = name;
  d.compute_capability = g.cc;
  d.sms = g.sms;
  d.memory_bytes = double(prop.totalGlobalMem);
  d.l2_bytes = double(g.l2_bytes);
  int khz = 0;
  SOL_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, g.ordinal));
  d.sm_clock_hz = double(khz) * 1e3;
  int driver = 0;
  SOL_CUDA_CHECK(cudaDriverGetVersion(&driver));
  d.driver = "CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  if (std::string v = nvml_driver_version(); !v.empty()) d.driver += ", driver " + v;
  d.database_row = match_database_row(d);
  return d;
}

}  // namespace sol::bench

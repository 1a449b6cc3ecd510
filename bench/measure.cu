// Verify, then time: one variant at one shape (measure), a family with its peers (run_family),
// the whole registry (measure_registry), and the data the doctor needs from a compiled kernel.
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <thread>

#include "bench/gpu.cuh"
#include "kernels/common/buffer.cuh"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace {

void add_note(results::Record& r, const std::string& note) {
  if (!note.empty()) r.note += (r.note.empty() ? "" : "; ") + note;
}

std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

// Every check in a process draws different inputs: the seed the user gives, advanced per check.
uint64_t fresh_seed(uint64_t seed) {
  static std::atomic<uint64_t> checks{0};
  return seed + 0x9E3779B97F4A7C15ull * checks.fetch_add(1);
}

results::Record base_record(const Variant& v, const Shape& s, const Options& opts) {
  results::Record r;
  r.family = v.family;
  r.variant = v.name;
  r.technique = v.technique;
  r.version = v.version;
  r.shape = s.str();
  r.tolerance = v.tol.rel_l2;
  r.tolerance_why = v.tol.why;
  r.cold_l2 = opts.cold_l2;
  r.graph = opts.graph;
  return r;
}

// Why this variant cannot run here at this shape, or "".
std::string cannot_run(const Variant& v, const Shape& s, int device_cc) {
  if (v.unsupported)
    if (std::string why = v.unsupported(s); !why.empty()) return why;
  if (std::string why = v.cc_refusal(device_cc); !why.empty()) return why;
  if (!v.make) return "the registry entry has no Case factory";
  return "";
}

// An NVTX range (what a profiler's timeline shows) for the life of a scope.
struct NvtxRange {
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// How to make the one checked run visible: inside an NVTX range of this name (when not empty),
// timed by one event pair into *seconds (when not null).
struct Visible {
  std::string range;
  double* seconds = nullptr;
};

// One run on the Case's current inputs, into a poisoned output, checked.
CheckResult run_checked(Case& c, cudaStream_t st, const Visible& how = {}) {
  c.poison(0);
  // randomize/poison may use the legacy default stream, which a non-blocking stream ignores.
  SOL_CUDA_CHECK(cudaDeviceSynchronize());
  if (how.range.empty() && !how.seconds) {
    c.run(0, st);
  } else {
    gpu::EventPairs ev(1);
    {
      std::optional<NvtxRange> range;
      if (!how.range.empty()) range.emplace(how.range);
      ev.start(0, st);
      c.run(0, st);
      ev.stop(0, st);
    }
    ev.sync(0);
    if (how.seconds) *how.seconds = ev.seconds(0);
  }
  SOL_CUDA_CHECK(cudaGetLastError());
  SOL_CUDA_CHECK(cudaStreamSynchronize(st));
  return c.check();
}

CheckResult verify_case(Case& c, uint64_t seed, cudaStream_t st, const Visible& how = {}) {
  c.randomize(seed);
  return run_checked(c, st, how);
}

std::string check_text(const CheckResult& c) {
  std::string s = "rel_l2 " + num(c.rel_l2, 3);
  if (c.unwritten) s += ", " + std::to_string(c.unwritten) + " unwritten";
  if (c.nonfinite) s += ", " + std::to_string(c.nonfinite) + " non-finite";
  if (!c.detail.empty()) s += ", " + c.detail;
  return s;
}

// After an error, a broken context (an illegal address, a trap) makes every later call fail too;
// stop there instead of recording the same error for every remaining variant.
void rethrow_if_context_broken(const std::string& what) {
  (void)cudaGetLastError();
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    failure(what + " left the CUDA context broken (" + cudaGetErrorName(err) + "); later measurements cannot run",
            "run `sol bench` on that variant alone, or the GPU tests, to see the fault");
}

void append_unique(std::vector<Shape>& shapes, const Shape& s) {
  for (const auto& x : shapes)
    if (x == s) return;
  shapes.push_back(s);
}

// The memory probe: a fresh Case holding one input set (as a caller would), filled and run once.
// The most that device_alloc held at once meanwhile is what one call needs: inputs, outputs and
// workspace (S and P for standard attention). Allocations outside device_alloc (a library's own
// workspace) are not seen.
double peak_device_bytes(const Variant& v, const Shape& s, uint64_t seed, cudaStream_t stream) {
  const int64_t before = kernels::alloc_stats().live;
  kernels::reset_alloc_peak();
  {
    auto c = v.make(s, CaseOptions{.single_set = true});
    if (!c) failure("make() returned no Case");
    c->randomize(seed);
    c->run(0, stream);
    SOL_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return double(kernels::alloc_stats().peak - before);
}

}  // namespace

std::unique_ptr<Case> make_checked(const Variant& v, const Shape& s) {
  const gpu::Device dev = gpu::current_device();
  if (std::string why = cannot_run(v, s, dev.cc); !why.empty())
    bad_input(v.family + "/" + v.name + " cannot run at " + s.str() + ": " + why);
  auto c = v.make(s, {});
  if (!c) failure(v.family + "/" + v.name + ": make() returned no Case");
  return c;
}

CheckResult verify(const Variant& v, const Shape& s, uint64_t seed) {
  auto c = make_checked(v, s);
  gpu::Stream st;
  return verify_case(*c, fresh_seed(seed), st.get());
}

std::pair<CheckResult, CheckResult> verify_twice(const Variant& v, const Shape& s, uint64_t seed) {
  auto c = make_checked(v, s);
  gpu::Stream st;
  const CheckResult first = verify_case(*c, fresh_seed(seed), st.get());
  return {first, run_checked(*c, st.get())};
}

results::Record measure(const Variant& v, const Shape& s, const Options& opts, const results::MeasuredCeilings& ceilings,
                        const hw::HwSpec& row) {
  if (opts.cold_l2 && opts.graph)
    bad_input("--cold-l2 and --graph cannot be combined",
              "cold L2 flushes before every sample; a graph replays runs back to back without a flush");
  if (opts.events && opts.graph)
    bad_input("--events and --graph cannot be combined", "--events times from the stream alone; pick one");
  results::Record r = base_record(v, s, opts);
  try {
    const gpu::Device dev = gpu::current_device();
    if (std::string why = cannot_run(v, s, dev.cc); !why.empty()) {
      r.skipped = why;
      return r;
    }
    if (v.cost) apply_model(r, v.cost(s), ceilings, row);
    using clock = std::chrono::steady_clock;
    auto lap = clock::now();
    const auto stage = [&](double StageTimes::*field) {
      const auto now = clock::now();
      if (opts.stages) opts.stages->*field += std::chrono::duration<double>(now - lap).count();
      lap = now;
    };
    auto c = v.make(s, {});
    if (!c) failure("make() returned no Case");
    gpu::Stream st;
    stage(&StageTimes::build_s);
    double once_s = 0;
    const Visible how = opts.run_once ? Visible{v.family + "/" + v.name + "/" + s.str(), &once_s} : Visible{};
    const CheckResult chk = verify_case(*c, fresh_seed(opts.seed), st.get(), how);
    stage(&StageTimes::verify_s);
    r.verified = chk.ok;
    r.rel_l2 = chk.rel_l2;
    if (!chk.ok) add_note(r, "FAILED verification (" + check_text(chk) + "): the time is not a valid result");
    if (opts.run_once) {
      r.median_s = r.min_s = r.max_s = once_s;
      r.samples = 1;
      r.timing = "once";
      set_achieved(r);
      add_note(r, "one run (--run-once), cold and unrepeated: a profiler's view, not a timing; NVTX range " + how.range);
      return r;
    }
    const int sets = c->sets();
    if (opts.rest_s > 0) {
      SOL_CUDA_CHECK(cudaDeviceSynchronize());
      std::this_thread::sleep_for(std::chrono::duration<double>(opts.rest_s));
      add_note(r, "timed after " + num(opts.rest_s, 3) + " s with the GPU idle (--rest)");
    }
    gpu::Timed t = gpu::time_runs([&](int set, cudaStream_t stream) { c->run(set, stream); }, sets, opts, st.get());
    stage(&StageTimes::time_s);
    r.timing = t.graph ? "graph" : "events";
    r.median_s = t.summary.median;
    r.min_s = t.summary.min;
    r.max_s = t.summary.max;
    r.spread = t.summary.spread;
    r.samples = t.summary.samples;
    r.graph = t.graph;
    r.eager_median_s = t.eager_median;
    r.throttled = t.clocks.throttled();
    r.throttle_reasons = t.clocks.known() ? describe_clock_reasons(t.clocks.reasons() & ~uint64_t(1)) : "unknown";
    if (t.clocks.clock_fell() && !is_throttle(t.clocks.reasons()))
      r.throttle_reasons = "SM clock fell " + num(100 * t.clocks.fall(), 2) + " % (no reason bit read)";
    set_achieved(r);
    if (const std::string d = c->detail(); !d.empty()) add_note(r, d);
    add_note(r, std::to_string(sets) + (sets == 1 ? " input set" : " input sets rotated"));
    for (const auto& n : t.notes) add_note(r, n);
    add_note(r, t.clocks.note());
    if (opts.memory) {
      c.reset();  // the timed Case's rotated sets are not part of one call
      r.peak_device_bytes = peak_device_bytes(v, s, fresh_seed(opts.seed), st.get());
      add_note(r, "peak device memory of one call (inputs, outputs, workspace; one input set): " +
                      bytes_iec(r.peak_device_bytes));
    }
  } catch (const Error& e) {
    r.skipped = "error: " + e.line();
    r.verified = false;
    rethrow_if_context_broken(v.family + "/" + v.name + " at " + s.str());
  }
  return r;
}

std::vector<std::pair<std::string, std::vector<const Variant*>>> by_family(const std::vector<const Variant*>& variants) {
  std::vector<std::pair<std::string, std::vector<const Variant*>>> out;
  for (const Variant* v : variants) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& f) { return f.first == v->family; });
    if (it == out.end()) {
      out.push_back({v->family, {}});
      it = out.end() - 1;
    }
    it->second.push_back(v);
  }
  return out;
}

results::File run_family(const std::string& family, const std::vector<const Variant*>& variants, const RunOptions& opts,
                         const ProbeResult& probed, const hw::HwSpec& row) {
  results::File f;
  f.family = family;
  f.created = now_utc();
  f.sol_version = kSolVersion;
  f.device = probed.device;
  f.environment = opts.environment;
  f.ceilings = probed.ceilings;
  auto emit = [&](const results::Record& r) {
    f.records.push_back(r);
    if (opts.on_record) opts.on_record(r);
  };
  PeerOptions po;
  po.budget_s = opts.timing.budget_s;
  po.compile = opts.compile_peers;
  // Started now, so that python3's start and torch's import overlap the measurements below.
  std::optional<PeerProcess> peers;
  if (opts.peers && !opts.timing.run_once) peers.emplace(po);
  // Shape by shape: every variant at a shape is measured back to back, so that the ratios of one
  // shape come from seconds apart, not minutes. A long compute-bound run heats the card into its
  // power cap; measured variant by variant, the first variant would meet a cooler card than the
  // last at every shape.
  std::vector<Shape> measured_shapes;
  std::vector<std::vector<const Variant*>> at_shape;  // at_shape[i]: the variants measured at measured_shapes[i]
  for (const Variant* v : variants) {
    if (v->family != family) bad_input(v->family + "/" + v->name + " is not in family " + family);
    std::vector<Shape> shapes = opts.shapes;
    if (shapes.empty() && !v->bench_shapes.empty())
      shapes = opts.headline_only ? std::vector<Shape>{v->bench_shapes.front()} : v->bench_shapes;
    for (const Shape& s : shapes) {
      const auto at = std::find(measured_shapes.begin(), measured_shapes.end(), s);
      const size_t i = size_t(at - measured_shapes.begin());
      if (at == measured_shapes.end()) measured_shapes.push_back(s), at_shape.emplace_back();
      if (std::find(at_shape[i].begin(), at_shape[i].end(), v) == at_shape[i].end()) at_shape[i].push_back(v);
    }
  }
  for (size_t i = 0; i < measured_shapes.size(); ++i)
    for (const Variant* v : at_shape[i]) emit(measure(*v, measured_shapes[i], opts.timing, probed.ceilings, row));
  if (!peers || measured_shapes.empty()) return f;
  PeerBatch batch = peers->run(std::vector<PeerRequest>{{family, measured_shapes}});
  const size_t before = f.records.size();
  add_peers(f, batch.families.front(), probed.ceilings, row);
  if (opts.on_record)
    for (size_t i = before; i < f.records.size(); ++i) opts.on_record(f.records[i]);
  return f;
}

void add_peers(results::File& f, PeerRun& peers, const results::MeasuredCeilings& ceilings, const hw::HwSpec& row) {
  if (!peers.missing.empty()) {
    f.records.push_back(missing_peer_record(f.family, peers.missing));
    return;
  }
  for (size_t i = 0; i < peers.records.size(); ++i) {
    // The peer on the roofline of its own dtype, unit and math type, with its own FLOPs and bytes.
    results::Record& p = peers.records[i];
    const model::Cost& c = peers.costs[i];
    if (p.skipped.empty() && c.bytes > 0) {
      apply_model(p, c, ceilings, row);
      add_note(p, "floor on " + dtype_name(c.math_dtype.value_or(c.dtype)) + " " + hw::unit_name(c.unit) +
                      " ceilings, as the peer script states its math");
    }
    set_achieved(p);
    f.records.push_back(p);
  }
}

const results::Record* headline_record(const results::File& f) {
  const results::Record* best = nullptr;
  std::string shape;
  for (const auto& r : f.records)
    if (!results::is_peer(r) && r.skipped.empty() && r.median_s > 0) {
      if (shape.empty()) shape = r.shape;
      if (r.shape == shape && r.verified && (!best || r.median_s < best->median_s)) best = &r;
    }
  return best;
}

double eta_s(double elapsed_s, size_t done, size_t total) {
  if (done == 0 || elapsed_s <= 0) return -1;
  return elapsed_s / double(done) * double(total > done ? total - done : 0);
}

std::map<std::string, std::string> run_environment(const results::Device& d, bool ask_torch) {
  const gpu::Device g = gpu::current_device();
  std::map<std::string, std::string> env = nvml_environment(g.pci_bus_id, g.ordinal);
  env["gpu"] = d.name + " (" + cc_text(d.compute_capability) + ", " + std::to_string(d.sms) + " SMs, " +
               bytes_iec(d.memory_bytes) + ", bus " + g.pci_bus_id + ")";
  if (std::string v = nvml_driver_version(); !v.empty()) env["driver"] = v;
  int runtime = 0, driver_api = 0;
  SOL_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  SOL_CUDA_CHECK(cudaDriverGetVersion(&driver_api));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  env["cuda_runtime"] = version(runtime);
  env["cuda_driver_api"] = version(driver_api);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) env["host"] = host;
  env["date"] = now_utc();
  env["sol"] = kSolVersion;
  if (ask_torch) {
    // One question to python3, bounded in time; any failure is recorded, never fatal.
    const char* cmd =
        "timeout 60 python3 -c 'import torch; print(torch.__version__, \"(CUDA\", str(torch.version.cuda) + \")\")' "
        "2>/dev/null";
    std::string out;
    if (FILE* p = popen(cmd, "r")) {
      char buf[256];
      while (fgets(buf, sizeof buf, p)) out += buf;
      const int status = pclose(p);
      while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
      if (status != 0) out.clear();
    }
    env["torch"] = out.empty() ? "not available (python3 -c 'import torch' failed)" : out;
  }
  return env;
}

// The doctor's findings on a measured record, from what was measured (no new timing).
static std::vector<std::string> headline_findings(const results::Record& r, const ProbeResult& probed, const hw::HwSpec& row) {
  const Variant* v = nullptr;
  for (const Variant& x : registry())
    if (x.family == r.family && x.name == r.variant) v = &x;
  if (!v || !v->cost) return {};
  return finding_lines(diagnose(doctor_inputs(*v, Shape::parse(r.shape), r, probed, row)));
}

std::vector<results::File> measure_registry(const RegistryRun& run, std::string* note, Phases* phases) {
  require_gpu();
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto lap = clock::now();
  Phases spent;
  const auto phase = [&](const std::string& what) {
    const auto now = clock::now();
    spent.push_back({what, std::chrono::duration<double>(now - lap).count()});
    lap = now;
  };
  // The peers' script starts first: python3's start and torch's import overlap the probe and sol's
  // own measurements; it is asked for the peers when they are done.
  PeerOptions popts;
  popts.budget_s = run.timing.budget_s;
  popts.compile = run.compile_peers;
  std::optional<PeerProcess> peers;
  if (run.peers) peers.emplace(popts);
  ProbeOptions po;
  po.gpu = run.gpu;
  po.quick = !run.full_probe;
  ProbeResult probed = probe(po);
  const hw::HwSpec& row = datasheet_for(probed.device, run.gpu);
  phase("probe");
  std::vector<const Variant*> all;
  for (const Variant& v : registry()) all.push_back(&v);
  const auto families = by_family(all);
  RegistryProgress pr;
  pr.families = families.size();
  for (const Variant* v : all) pr.total += run.headline_only ? std::min<size_t>(1, v->bench_shapes.size()) : v->bench_shapes.size();
  auto report = [&](bool done) {
    if (!run.progress) return;
    pr.elapsed_s = std::chrono::duration<double>(clock::now() - t0).count();
    pr.eta_s = eta_s(pr.elapsed_s, pr.records, pr.total);
    pr.family_done = done;
    run.progress(pr);
  };
  RunOptions ro;
  ro.timing = run.timing;
  ro.peers = false;  // every family's peers run afterwards, in one process
  ro.headline_only = run.headline_only;
  // torch's version comes from the peer script, which imports torch anyway.
  ro.environment = run_environment(probed.device, false);
  phase("environment");
  ro.on_record = [&](const results::Record& r) {
    ++pr.records;
    pr.variant = r.variant;
    pr.shape = r.shape;
    report(false);
  };
  std::vector<results::File> files;
  for (const auto& [family, variants] : families) {
    ++pr.family;
    pr.name = family;
    pr.variant = pr.shape = "";
    report(false);
    StageTimes stages;
    ro.timing.stages = &stages;
    files.push_back(run_family(family, variants, ro, probed, row));
    // The family's wall time by stage: building its Cases, verifying, timing, and the rest (the
    // model's costs, skips, progress).
    spent.push_back({"sol kernels, building cases: " + family, stages.build_s});
    spent.push_back({"sol kernels, verifying: " + family, stages.verify_s});
    spent.push_back({"sol kernels, timing: " + family, stages.time_s});
    lap += std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(stages.build_s + stages.verify_s + stages.time_s));
    phase("sol kernels, the rest: " + family);
    report(true);
    if (!run.out_dir.empty() && run.peers)  // rewritten with the peers below; kept if the peers fail
      results::write(files.back(), (std::filesystem::path(run.out_dir) / (family + ".json")).string());
  }
  ro.timing.stages = nullptr;
  if (run.peers) {
    std::vector<PeerRequest> requests;
    for (const results::File& f : files) {
      PeerRequest q{f.family, {}};
      for (const results::Record& r : f.records)
        if (!r.shape.empty()) append_unique(q.shapes, Shape::parse(r.shape));
      if (!q.shapes.empty()) requests.push_back(q);
    }
    pr.peers = true;
    pr.name = "peers";
    pr.variant = "PyTorch peers of " + std::to_string(requests.size()) + " families, one python3";
    report(false);
    PeerBatch batch = peers->run(requests);
    // The script times each family; what is left of the wait is its start beyond torch's import,
    // which ran ahead (CUDA's initialisation, the first family's warm-up outside its timing).
    double families_s = 0;
    for (const PeerRun& p : batch.families) families_s += p.seconds;
    spent.push_back({"PyTorch peers: start (torch imported ahead)",
                     std::max(0.0, std::chrono::duration<double>(clock::now() - lap).count() - families_s)});
    for (PeerRun& p : batch.families) {
      spent.push_back({"PyTorch peers: " + p.family, p.seconds});
      for (results::File& f : files)
        if (f.family == p.family) add_peers(f, p, probed.ceilings, row);
    }
    lap = clock::now();
    for (results::File& f : files)
      f.environment["torch"] = batch.torch.empty() ? "not imported by the peer script" : batch.torch;
  }
  size_t records = 0;
  for (results::File& f : files) {
    if (const results::Record* h = run.findings ? headline_record(f) : nullptr) {
      results::Record& r = f.records[size_t(h - f.records.data())];
      try {
        r.findings = headline_findings(r, probed, row);
      } catch (const Error& e) {
        r.findings = {std::string("no diagnosis: ") + e.line()};
      }
    }
    records += f.records.size();
    if (!run.out_dir.empty()) results::write(f, (std::filesystem::path(run.out_dir) / (f.family + ".json")).string());
  }
  phase("diagnoses and results files");
  pr.finished = true;
  report(true);
  if (note)
    *note = "Measured on " + probed.device.name + " (database row " + row.name + ") in this run: " +
            std::to_string(files.size()) + " families, " + std::to_string(records) + " records" +
            (run.headline_only ? " at each variant's headline shape" : " at every bench shape") +
            "; ceilings from `sol probe`" + (probed.saved_to.empty() ? "" : " (profile saved to " + probed.saved_to + ")") +
            "." + (run.peers && !run.compile_peers ? " torch.compile peers: run with --full." : "");
  if (phases) *phases = spent;
  return files;
}

KernelReport inspect_kernel(const LaunchInfo& li) {
  KernelReport k;
  if (!li.func) return k;
  cudaFuncAttributes a{};
  SOL_CUDA_CHECK(cudaFuncGetAttributes(&a, li.func));
  k.known = true;
  k.resources.block_threads = li.block_threads;
  k.resources.registers_per_thread = a.numRegs;
  k.resources.static_shared_bytes = int64_t(a.sharedSizeBytes);
  k.resources.dynamic_shared_bytes = li.dynamic_smem_bytes;
  k.local_bytes_per_thread = int64_t(a.localSizeBytes);
  if (li.block_threads > 0) {
    int blocks = 0;
    SOL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, li.func, li.block_threads,
                                                                 size_t(li.dynamic_smem_bytes)));
    k.runtime_blocks_per_sm = blocks;
  }
  return k;
}

DoctorInputs doctor_inputs(const Variant& v, const Shape& s, const results::Record& measured, const ProbeResult& probed,
                           const hw::HwSpec& row) {
  DoctorInputs in;
  in.record = measured;
  in.measured = measured_ceilings(v.cost(s), probed.ceilings, row);
  in.launch_overhead_s = probed.ceilings.launch_overhead_s;
  auto c = make_checked(v, s);
  in.launch = c->launch();
  const KernelReport k = inspect_kernel(in.launch);
  in.has_kernel = k.known;
  in.registers_per_thread = k.resources.registers_per_thread;
  in.static_shared_bytes = k.resources.static_shared_bytes;
  in.local_bytes_per_thread = k.local_bytes_per_thread;
  in.runtime_blocks_per_sm = k.runtime_blocks_per_sm;
  in.limits = row.limits;
  in.sms = probed.device.sms > 0 ? probed.device.sms : row.compute_units;
  in.model = predict::ceilings_for(probed.ceilings, row);
  in.model->spec.compute_units = in.sms;
  return in;
}

Diagnosis doctor(const Variant& v, const Shape& s, const Options& opts, const ProbeResult& probed, const hw::HwSpec& row) {
  const results::Record r = measure(v, s, opts, probed.ceilings, row);
  if (!r.skipped.empty()) bad_input(v.family + "/" + v.name + " at " + s.str() + ": " + r.skipped);
  DoctorInputs in = doctor_inputs(v, s, r, probed, row);
  // A short kernel is timed from a graph as well: the difference is what launch gaps cost.
  if (r.graph && r.eager_median_s > 0) {
    in.graph_median_s = r.median_s;
  } else if (!r.graph && r.median_s > 0 && r.median_s < results::kGraphBelowS) {
    Options g = opts;
    g.graph = true;
    g.cold_l2 = g.events = false;
    const results::Record rg = measure(v, s, g, probed.ceilings, row);
    if (rg.skipped.empty() && rg.graph) in.graph_median_s = rg.median_s;
  }
  return diagnose(in);
}

}  // namespace sol::bench

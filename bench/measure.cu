// Verify, then time: one variant at one shape (measure), a family with its peers (run_family),
// the whole registry (measure_registry), and the data the doctor needs from a compiled kernel.
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>

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
  if (device_cc < v.min_cc)
    return "needs compute capability " + cc_text(v.min_cc) + ", this GPU has " + cc_text(device_cc);
  if (!v.make) return "the registry entry has no Case factory";
  return "";
}

// One run on the Case's current inputs, into a poisoned output, checked.
CheckResult run_checked(Case& c, cudaStream_t st) {
  c.poison(0);
  // randomize/poison may use the legacy default stream, which a non-blocking stream ignores.
  SOL_CUDA_CHECK(cudaDeviceSynchronize());
  c.run(0, st);
  SOL_CUDA_CHECK(cudaGetLastError());
  SOL_CUDA_CHECK(cudaStreamSynchronize(st));
  return c.check();
}

CheckResult verify_case(Case& c, uint64_t seed, cudaStream_t st) {
  c.randomize(seed);
  return run_checked(c, st);
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
  struct SingleSet {
    SingleSet() { kernels::set_single_input_set(true); }
    ~SingleSet() { kernels::set_single_input_set(false); }
  } single;
  const int64_t before = kernels::alloc_stats().live;
  kernels::reset_alloc_peak();
  {
    auto c = v.make(s);
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
  auto c = v.make(s);
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
  results::Record r = base_record(v, s, opts);
  try {
    const gpu::Device dev = gpu::current_device();
    if (std::string why = cannot_run(v, s, dev.cc); !why.empty()) {
      r.skipped = why;
      return r;
    }
    if (v.cost) apply_model(r, v.cost(s), ceilings, row);
    auto c = v.make(s);
    if (!c) failure("make() returned no Case");
    gpu::Stream st;
    const CheckResult chk = verify_case(*c, fresh_seed(opts.seed), st.get());
    r.verified = chk.ok;
    r.rel_l2 = chk.rel_l2;
    if (!chk.ok) add_note(r, "FAILED verification (" + check_text(chk) + "): the time is not a valid result");
    const int sets = c->sets();
    gpu::Timed t = gpu::time_runs([&](int set, cudaStream_t stream) { c->run(set, stream); }, sets, opts, st.get());
    r.timing = t.graph ? "graph" : "events";
    r.median_s = t.summary.median;
    r.min_s = t.summary.min;
    r.max_s = t.summary.max;
    r.spread = t.summary.spread;
    r.samples = t.summary.samples;
    r.graph = t.graph;
    r.throttled = t.clocks.throttled();
    r.throttle_reasons = t.clocks.known() ? describe_clock_reasons(t.clocks.reasons() & ~uint64_t(1)) : "unknown";
    set_achieved(r);
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
  f.ceilings = probed.ceilings;
  auto emit = [&](const results::Record& r) {
    f.records.push_back(r);
    if (opts.on_record) opts.on_record(r);
  };
  std::vector<Shape> measured_shapes;
  for (const Variant* v : variants) {
    if (v->family != family) bad_input(v->family + "/" + v->name + " is not in family " + family);
    std::vector<Shape> shapes = opts.shapes;
    if (shapes.empty() && !v->bench_shapes.empty())
      shapes = opts.headline_only ? std::vector<Shape>{v->bench_shapes.front()} : v->bench_shapes;
    for (const Shape& s : shapes) {
      emit(measure(*v, s, opts.timing, probed.ceilings, row));
      append_unique(measured_shapes, s);
    }
  }
  if (!opts.peers || measured_shapes.empty()) return f;
  PeerRun peers = torch_peers(family, measured_shapes);
  if (!peers.missing.empty()) {
    emit(missing_peer_record(family, peers.missing));
    return f;
  }
  for (size_t i = 0; i < peers.records.size(); ++i) {
    // The peer on the roofline of its own dtype, unit and math type, with its own FLOPs and bytes.
    results::Record& p = peers.records[i];
    const model::Cost& c = peers.costs[i];
    if (p.skipped.empty() && c.bytes > 0) {
      apply_model(p, c, probed.ceilings, row);
      add_note(p, "floor on " + dtype_name(c.math_dtype.value_or(c.dtype)) + " " + hw::unit_name(c.unit) +
                      " ceilings, as the peer script states its math");
    }
    set_achieved(p);
    emit(p);
  }
  return f;
}

std::vector<results::File> measure_registry(const RegistryRun& run, std::string* note) {
  require_gpu();
  ProbeOptions po;
  po.gpu = run.gpu;
  po.quick = !run.full_probe;
  ProbeResult probed = probe(po);
  const hw::HwSpec& row = datasheet_for(probed.device, run.gpu);
  std::vector<const Variant*> all;
  for (const Variant& v : registry()) all.push_back(&v);
  std::vector<results::File> files;
  size_t records = 0;
  for (const auto& [family, variants] : by_family(all)) {
    if (run.progress) run.progress("measuring " + family + " (" + std::to_string(variants.size()) + " variants)");
    RunOptions ro;
    ro.timing = run.timing;
    ro.peers = run.peers;
    files.push_back(run_family(family, variants, ro, probed, row));
    records += files.back().records.size();
    if (!run.out_dir.empty()) results::write(files.back(), (std::filesystem::path(run.out_dir) / (family + ".json")).string());
  }
  if (note)
    *note = "Measured on " + probed.device.name + " (database row " + row.name + ") in this run: " +
            std::to_string(files.size()) + " families, " + std::to_string(records) + " records; ceilings from `sol probe`" +
            (probed.saved_to.empty() ? "" : " (profile saved to " + probed.saved_to + ")") + ".";
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

Diagnosis doctor(const Variant& v, const Shape& s, const Options& opts, const ProbeResult& probed, const hw::HwSpec& row) {
  DoctorInputs in;
  in.record = measure(v, s, opts, probed.ceilings, row);
  if (!in.record.skipped.empty()) bad_input(v.family + "/" + v.name + " at " + s.str() + ": " + in.record.skipped);
  in.measured = measured_ceilings(v.cost(s), probed.ceilings, row);
  in.launch_overhead_s = probed.ceilings.launch_overhead_s;
  // A short kernel is timed again from a graph: the difference is what launch gaps cost.
  if (!opts.graph && in.record.median_s > 0 && in.record.median_s < 50e-6) {
    Options g = opts;
    g.graph = true;
    g.cold_l2 = false;
    const results::Record rg = measure(v, s, g, probed.ceilings, row);
    if (rg.skipped.empty() && rg.graph) in.graph_median_s = rg.median_s;
  }
  auto c = v.make(s);
  in.launch = c->launch();
  const KernelReport k = inspect_kernel(in.launch);
  in.has_kernel = k.known;
  in.registers_per_thread = k.resources.registers_per_thread;
  in.static_shared_bytes = k.resources.static_shared_bytes;
  in.local_bytes_per_thread = k.local_bytes_per_thread;
  in.runtime_blocks_per_sm = k.runtime_blocks_per_sm;
  in.limits = row.limits;
  in.sms = probed.device.sms > 0 ? probed.device.sms : row.compute_units;
  return diagnose(in);
}

}  // namespace sol::bench

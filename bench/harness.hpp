#pragma once
// The measuring harness as a library: `sol probe`, `sol bench`, `sol doctor`, `sol report` and the
// GPU tests all call these functions, so a number means the same thing wherever it is printed.
// No CUDA types here. Files: *.cu hold everything that touches the CUDA runtime; *.cpp are plain
// host code (statistics, clocks through NVML, the peers' subprocess, diagnosis, text), testable
// without a GPU.
//
// Method (docs/architecture.md): verify before timing (fresh random inputs, poisoned output,
// CPU reference, the variant's tolerance); device events around each sample; warm-up; rounds of
// samples until the median settles; inputs rotated across Case::sets() so they exceed L2;
// optional cold-L2 flush before each sample, or a CUDA graph that removes launch gaps; clocks and
// throttle reasons read during the run; the model's floor on both the datasheet and the ceilings
// measured in the same run.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/occupancy.hpp"
#include "sol/model/roofline.hpp"
#include "sol/predict.hpp"
#include "sol/registry.hpp"
#include "sol/results.hpp"

namespace sol::bench {

inline constexpr const char* kSolVersion = "0.1";

// ---- the device -------------------------------------------------------------------------------
// Makes CUDA device `ordinal` current for this thread; throws sol::Error (BadInput) naming the
// devices there are when it is out of range, (Failure) when there is no usable device.
void select_device(int ordinal);
// True if a CUDA device can be used; otherwise *why says "no CUDA device: <cudaGetErrorString>".
bool gpu_available(std::string* why = nullptr);
// Throws sol::Error (Failure) with gpu_available's reason when there is no usable device.
void require_gpu();
// The current device; database_row filled by match_database_row ("" when nothing matches).
results::Device device_info();
// The database row this device is: same compute capability and SM count, and the memory size
// closest to the row's HBM (within 20 %: drivers report a little more or less than the datasheet).
// Returns "" and says why in *why when no row matches.
std::string match_database_row(const results::Device& d, std::string* why = nullptr);
// The row to compare against: `override_name` if given (any hw::find name), else the matched row.
// Throws sol::Error (BadInput) when neither exists, telling the user to pass --gpu.
const hw::HwSpec& datasheet_for(const results::Device& d, const std::string& override_name = "");

// ---- how to time ------------------------------------------------------------------------------
// Wall time measure() spends per stage, summed over the records it is given to.
struct StageTimes {
  double build_s = 0;   // the Case: its inputs allocated and filled
  double verify_s = 0;  // one run checked against the CPU reference
  double time_s = 0;    // warm-up and samples
};
struct Options {
  bool cold_l2 = false;      // flush L2 before every sample (the question is DRAM)
  bool graph = false;        // replay runs from a CUDA graph: no launch gaps
  bool events = false;       // time from the stream only, short runs too (launch gaps included)
  double budget_s = 0.5;     // wall time for the samples of one variant at one shape, at most
  double warmup_s = 0.02;    // at least this long, and at least 3 runs, before any sample
  int min_samples = 10;      // fewer only when one run alone exceeds budget_s / min_samples (≥ 3)
  int max_samples = 2000;
  double settle = 0.005;     // stop once the median moves less than this between rounds
  double max_noise = 0;      // > 0: stop instead once the median's 95 % CI is within ± this (relative)
  double timeout_s = 0;      // > 0: wall time for one record (warm-up and samples), at most; stops early
  // > 0: the GPU idles this long before a record's warm-up, so that every record starts on a card
  // out of its power cap (a sustained compute-bound run drops the SM clock by up to 30 %, and the
  // variant timed next would meet the lower clock).
  double rest_s = 0;
  // Sample for the whole budget instead of stopping once the median settles: every record of a
  // comparison spends the same time on the card, so a power cap reached late meets them alike.
  bool full_budget = false;
  uint64_t seed = 0x5eed5eedull;
  bool memory = false;       // also measure the peak device memory of one call (one input set)
  // For profilers: one verified run per variant and shape inside an NVTX range named
  // "family/variant/shape", timed by one event pair; no warm-up, no sampling loop, no peers.
  bool run_once = false;
  StageTimes* stages = nullptr;  // when given, measure() adds its stages' wall time here
};

// ---- sol probe: this card's ceilings ----------------------------------------------------------
struct ProbeOptions {
  bool quick = false;        // copy bandwidth and launch overhead only (what bench needs)
  bool save = true;          // write the measured profile (full probes only)
  std::string profile_path;  // default hw::measured_profile_path()
  std::string gpu;           // database row to start the profile from (default: the matched row)
};
struct ProbeResult {
  results::Device device;
  results::MeasuredCeilings ceilings;   // copy = the better of the copy kernel and cudaMemcpy
  double copy_kernel_bytes_per_s = 0;   // 16-byte loads, 4 in flight per thread, read + write
  double memcpy_bytes_per_s = 0;        // cudaMemcpyAsync device to device, read + write
  double launch_host_s = 0;             // host time per launch call, back to back
  std::string row;                      // database row the profile is based on ("" if none)
  std::string saved_to;                 // "" when not saved
  std::vector<std::string> notes;       // how each figure was measured; what was not measured and why
};
// Throws sol::Error when no GPU is usable or a CUDA/cuBLAS call fails.
ProbeResult probe(const ProbeOptions& opts);
// The measured profile: `row` with peaks and bandwidths replaced by what was measured (each
// peak's clock becomes the effective clock that gives the measured rate), measured = true.
hw::HwSpec measured_profile(const ProbeResult& p, const hw::HwSpec& row);
// "what | measured | datasheet | %" for every figure; row may be null (no datasheet column).
std::string probe_table(const ProbeResult& p, const hw::HwSpec* row);

// ---- ceilings for one cost ------------------------------------------------------------------
// The measured ceilings that apply to a cost: the copy bandwidth; the matrix rate for the cost's
// dtype (cuBLASLt) or, on the vector unit, the fp32 FMA rate for fp32. Whatever was not measured
// falls back to the datasheet, and the label says which.
model::Ceilings measured_ceilings(const model::Cost& cost, const results::MeasuredCeilings& m, const hw::HwSpec& row);
// Fills a record's dtype, flops, bytes, floor_s (datasheet), floor_measured_s with the ceiling that
// binds it (floor_measured_base), bound and predicted_s (sol/predict.hpp, on the run's ceilings) from
// the model; what cannot be computed (a dtype the row lacks) goes into the note.
void apply_model(results::Record& r, const model::Cost& cost, const results::MeasuredCeilings& m, const hw::HwSpec& row);
// achieved FLOP/s and B/s from flops, bytes and the median.
void set_achieved(results::Record& r);

// ---- verify and time one variant at one shape -------------------------------------------------
// One verification: fresh random inputs from `seed`, output poisoned, one run, compared with the
// CPU reference. Throws sol::Error on CUDA failures or an unsupported shape.
CheckResult verify(const Variant& v, const Shape& s, uint64_t seed);
// Two runs of one Case on the same inputs (output poisoned before each): a deterministic kernel
// must give the same output_digest twice.
std::pair<CheckResult, CheckResult> verify_twice(const Variant& v, const Shape& s, uint64_t seed);
// Verifies, then times. Never throws for the variant's own problems: an unsupported shape, a
// compute capability too low, or a failing CUDA call come back as Record::skipped. A variant that
// fails verification is timed but recorded verified = false, and its note says the time is invalid.
results::Record measure(const Variant& v, const Shape& s, const Options& opts, const results::MeasuredCeilings& ceilings,
                        const hw::HwSpec& row);

// ---- whole families ---------------------------------------------------------------------------
struct RunOptions {
  Options timing;
  std::vector<Shape> shapes;   // instead of each variant's bench_shapes
  bool headline_only = false;  // only the first bench shape
  bool peers = true;           // run bench/peers/torch_peers.py for the family (not with run_once)
  bool compile_peers = true;   // the torch.compile peers too
  std::map<std::string, std::string> environment;  // copied into the file (run_environment)
  std::function<void(const results::Record&)> on_record;  // progress, called after each record
};
// Measures `variants` (all of one family) and its PyTorch peers into one results file.
results::File run_family(const std::string& family, const std::vector<const Variant*>& variants, const RunOptions& opts,
                         const ProbeResult& probed, const hw::HwSpec& row);
// Groups select(pattern) by family, in registry order.
std::vector<std::pair<std::string, std::vector<const Variant*>>> by_family(const std::vector<const Variant*>& variants);

// What the run has done so far, after each of sol's own records and at each family's start and end.
struct RegistryProgress {
  size_t family = 0, families = 0;  // the family being measured (1-based), of how many
  std::string name;                 // that family
  std::string variant, shape;       // the record just measured ("" at a family's start)
  size_t records = 0, total = 0;    // sol's records measured so far, of how many (peers not counted)
  double elapsed_s = 0;             // since the run began, probe included
  double eta_s = -1;                // time left at the pace so far (eta_s()); -1 before the first record
  bool family_done = false;         // the family's own records are measured
  bool peers = false;               // the PyTorch peers of every family run now, in one process
  bool finished = false;            // everything is measured, peers included
};
// Time left when `done` of `total` items took `elapsed_s`: the mean so far times what is left;
// -1 when nothing is done yet.
double eta_s(double elapsed_s, size_t done, size_t total);

// The whole registry, as `sol report` measures it: a probe (saving the profile when full_probe),
// then every family with its peers; writes out_dir/<family>.json when out_dir is given.
struct RegistryRun {
  Options timing;
  bool peers = true;
  bool compile_peers = true;  // the torch.compile peers (seconds of compilation each)
  bool full_probe = true;
  bool headline_only = false;  // only each variant's first (headline) bench shape
  bool findings = false;       // the doctor's findings at each family's headline record (no re-timing)
  std::string gpu;       // database row override ("" = the matched row)
  std::string out_dir;   // "" = do not write files
  std::function<void(const RegistryProgress&)> progress;
};
// Where a run's wall time went, in order: ("probe", 9.1), ("sol kernels", 61.0), ...
using Phases = std::vector<std::pair<std::string, double>>;
// *note says what ran (device, row, families, records, profile path); *phases where the time went:
// the probe, the run's environment, each family's own records (building the Cases, verifying,
// timing, the rest), the peers (start and import of torch, then each family) and the diagnoses.
std::vector<results::File> measure_registry(const RegistryRun& run, std::string* note, Phases* phases = nullptr);
// A family's headline record: the fastest verified record of sol's own at the first shape any of
// them was measured at; nullptr when none.
const results::Record* headline_record(const results::File& f);
// What a results file records about the run beside the device (results::File::environment):
// "gpu", "driver", "cuda_runtime", "cuda_driver_api", NVML's "sm_clock", "memory_clock" and
// "power_limit", "host", "date", "sol", and (ask_torch) "torch", asked of python3 once.
std::map<std::string, std::string> run_environment(const results::Device& d, bool ask_torch);

// PyTorch peers (bench/peers/torch_peers.py), every family of a run in one python3 process, so
// torch is imported once: `python3 <script> --request REQ.json --out OUT.json`. The request names
// each family's shapes and, at each shape, the registry's cost (variant, dtype, FLOPs, bytes) of
// every variant that runs there: the script takes its FLOPs and bytes from them. When python3,
// torch or CUDA is missing, each family's `missing` says why and its `records` are empty.
struct PeerRun {
  std::string family;
  std::vector<results::Record> records;
  std::vector<model::Cost> costs;  // per record: its FLOPs, bytes, dtype, unit and math type, as the script states
  std::string missing;
  double seconds = 0;  // the script's wall time for this family (0 when it did not say)
};
struct PeerRequest {
  std::string family;
  std::vector<Shape> shapes;
};
struct PeerOptions {
  double budget_s = 0.5;  // seconds of sampling per peer and shape, each way (the script's budget)
  bool compile = true;    // also the torch.compile peers (seconds of compilation each)
  bool dry_run = false;   // the script checks the request and measures nothing (no torch needed)
  bool cpu = false;       // the script runs on the CPU, host-clock timed (a check where no GPU is)
  std::string script;     // "" = bench/peers/torch_peers.py of the source tree
};
struct PeerBatch {
  std::vector<PeerRun> families;  // one per request, in request order
  std::string torch;              // "2.5.1 (CUDA 12.4)" as the script found it; "" when not imported
  double import_s = 0;            // the script's time to import torch
  double seconds = 0;             // the whole subprocess, wall time
};
PeerBatch torch_peers(const std::vector<PeerRequest>& families, const PeerOptions& opts);
// The script started ahead of its request (`--request -`): python3 starts and imports torch while
// the caller measures its own kernels, then run() sends the request down its stdin and waits.
// torch_peers is a PeerProcess run at once. Destroyed without run(), the script reads end-of-file
// and exits having measured nothing.
class PeerProcess {
 public:
  explicit PeerProcess(const PeerOptions& opts);
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;
  ~PeerProcess();
  PeerBatch run(const std::vector<PeerRequest>& families);  // once; batch.seconds from the start

 private:
  PeerOptions opts_;
  std::FILE* pipe_ = nullptr;
  std::string why_not_;  // why the script did not start
  std::filesystem::path out_, err_;
  std::chrono::steady_clock::time_point started_;
};
// One family: the batch of one.
PeerRun torch_peers(const std::string& family, const std::vector<Shape>& shapes, double budget_s = 0.5,
                    const std::string& script = "");
// The request file's JSON: per family and shape, the cost of every registry variant that runs there.
std::string peer_request_json(const std::vector<PeerRequest>& families, const PeerOptions& opts);
// The peers' records added to their family's file, each on the roofline of its own dtype, unit
// and math type; a record saying why when they are missing.
void add_peers(results::File& f, PeerRun& peers, const results::MeasuredCeilings& ceilings, const hw::HwSpec& row);
// The record that stands in a results file for peers that could not run.
results::Record missing_peer_record(const std::string& family, const std::string& why);

// ---- text ----------------------------------------------------------------------------------
// One table per file: time, achieved FLOP/s and B/s, the floor and % of it reached (datasheet and
// measured), the bound, speed-up over the previous version and over the fastest peer; then notes
// (failed verification, skips, throttling, missing peers).
std::string records_table(const results::File& f);
// Speed-up of a record over the previous version (highest version below it, same shape, valid)
// and over the fastest valid peer at the same shape; 0 when there is none.
double speedup_over_previous(const results::File& f, const results::Record& r);
double speedup_over_peer(const results::File& f, const results::Record& r);
// Every record of the files as CSV: a header row, then one row per record with the raw figures
// in SI units (seconds, FLOP/s, B/s; fractions, not percents), status ok | invalid | skipped, the
// fractions of the floors and the speed-ups derived as in records_table; fields quoted per RFC 4180.
std::string records_csv(const std::vector<results::File>& files);
// One Markdown table per file (the columns of records_table), skips and failures as a list below.
std::string records_markdown(const std::vector<results::File>& files);

// ---- a compiled kernel's resources ---------------------------------------------------------------
struct KernelReport {
  bool known = false;                 // false for library peers (no function pointer)
  model::KernelResources resources;   // registers, static and dynamic shared memory, block size
  int64_t local_bytes_per_thread = 0; // spills and stack
  int runtime_blocks_per_sm = -1;     // cudaOccupancyMaxActiveBlocksPerMultiprocessor
};
// cudaFuncGetAttributes and the runtime's occupancy for LaunchInfo::func.
KernelReport inspect_kernel(const LaunchInfo& launch);

// ---- the harness's own test variants ---------------------------------------------------------------
// Not in the registry: family "selftest", y = 2x + 1 over n fp32 elements. "v01_axpb" is right;
// "broken_tail" leaves the last elements unwritten; "broken_values" computes 2x (wrong by 1);
// "v02_staged" goes through 40 KiB of static shared memory (an occupancy cross-check).
const std::vector<Variant>& selftest_variants();
// sol::select(pattern), or the selftest variants when the pattern names that family.
std::vector<const Variant*> select_variants(const std::string& pattern);

// ---- sol doctor ---------------------------------------------------------------------------------
struct Finding {
  std::string topic;         // "verdict", "launch", "occupancy", "spills", "waves", "memory", "compute", ...
  std::string observation;   // what was measured, with numbers
  std::string prescription;  // one sentence: what to try
  bool problem = false;      // false: looked at and fine
};
// What the diagnosis is made from; filled on the GPU by doctor(), by hand in tests.
struct DoctorInputs {
  results::Record record;
  model::Ceilings measured;          // flops and bytes ceilings measured in this run
  double launch_overhead_s = 0;      // from the probe; 0 unknown
  double graph_median_s = 0;         // the same variant timed from a CUDA graph; 0 not timed
  bool has_kernel = false;           // LaunchInfo::func known (false for library peers)
  LaunchInfo launch;
  int registers_per_thread = 0;      // cudaFuncGetAttributes
  int64_t static_shared_bytes = 0;
  int64_t local_bytes_per_thread = 0;  // spills and stack
  hw::SmLimits limits;
  int sms = 0;
  int runtime_blocks_per_sm = -1;    // cudaOccupancyMaxActiveBlocksPerMultiprocessor; -1 unknown
  std::optional<predict::Ceilings> model;  // the run's ceilings for the family's model findings (sol/predict.hpp)
};
struct Diagnosis {
  results::Record record;
  std::string verdict;               // "compute" | "memory" | "neither" | "invalid"
  std::string verdict_line;          // one sentence
  double compute_fraction = 0;       // achieved FLOP/s / measured compute ceiling
  double memory_fraction = 0;        // achieved B/s / measured copy bandwidth
  std::string compute_label, memory_label;  // what the fractions are of
  std::optional<model::Occupancy> occupancy;
  std::optional<model::Waves> waves;
  std::vector<Finding> findings;     // each with its prescription
};
// Near a roof: at least this fraction of the measured ceiling (NVIDIA reviewers' 60 % rule).
inline constexpr double kNearRoof = 0.60;
// Saturated: at least this fraction; between kNearRoof and this a kernel is bound by the roof but
// still has headroom that access width and bytes in flight usually win back (copy v01 → v02: 64 → 100 %).
inline constexpr double kSaturated = 0.85;
// The §12 workflow on numbers already measured (pure; host-tested).
Diagnosis diagnose(const DoctorInputs& in);
// The inputs for a record already measured: the measured ceilings for its cost, the probe's
// launch overhead, and its kernel's resources (a Case is made, nothing is run or timed).
DoctorInputs doctor_inputs(const Variant& v, const Shape& s, const results::Record& measured, const ProbeResult& probed,
                           const hw::HwSpec& row);
// Measures the variant (and, if it is short, again from a graph), reads its kernel's resources,
// and diagnoses. Throws sol::Error if the variant cannot run at this shape.
Diagnosis doctor(const Variant& v, const Shape& s, const Options& opts, const ProbeResult& probed, const hw::HwSpec& row);
// One line each: "verdict: …", then every finding as "[!] topic: observation → prescription"
// (a problem) or "[ok] topic: observation" (Record::findings).
std::vector<std::string> finding_lines(const Diagnosis& d);
std::string diagnosis_text(const Diagnosis& d);
std::string diagnosis_json(const Diagnosis& d);

// ---- clocks (NVML, loaded at run time) ----------------------------------------------------------
// Names of NVML clock-event (throttle) reason bits, e.g. "sw power cap, hw thermal slowdown".
std::string describe_clock_reasons(uint64_t reasons);
// True if any of the bits means the clocks were held down (power cap, thermal, hw slowdown).
bool is_throttle(uint64_t reasons);

}  // namespace sol::bench

#pragma once
// The bridge from `sol report` to the harness: is there a GPU, and measure the whole registry.
#include <string>
#include <vector>

#include "sol/results.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace sol::cli {

// True if a CUDA device can be used; otherwise *why says why not (no CUDA build, no device, ...).
bool gpu_present(std::string* why);

struct MeasureAll {
  bool no_peers = false;
  // Every variant at every bench shape with the harness's default sampling (minutes per family);
  // else each variant's headline shape with the report's shorter sampling (kReportTiming).
  bool full = false;
  std::string out_dir;  // writes out_dir/<family>.json
  int device = 0;       // the CUDA device to measure on
};
// Where the run's time went, in order (bench::Phases in a CUDA build).
using Phases = std::vector<std::pair<std::string, double>>;
// Probe, then bench every family of the registry, then every family's PyTorch peers in one
// process (unless no_peers; the torch.compile peers only when full), the doctor's findings stored
// at each family's headline record; returns the files. Progress goes to stderr: one line
// rewritten in place on a terminal, one line per family otherwise. *note says what ran, *phases
// where the time went.
std::vector<results::File> measure_registry(const MeasureAll& how, std::string* note, Phases* phases = nullptr);

// Where the time went, one line per phase: "group: item" phases summed into their group, its
// slowest items named beside it; the total first. At most 100 columns.
std::string time_breakdown(const Phases& phases);

#ifdef SOL_WITH_CUDA
// The report's sampling: a quarter second per record at most (at least 10 samples, unless the
// median settles sooner or one run is long), never more than 2 s of wall time per record.
bench::Options report_timing();
// "sol: [ 3/19] gemm_bf16  v05_wgmma m=4096,…  41/96  0:27 elapsed, ETA 0:36": the family i/N,
// the record just measured, records done, and the time left; at most 100 columns.
std::string progress_line(const bench::RegistryProgress& p);
#endif
// "1:05", "12:00", "1:02:03"; "?" for a negative time.
std::string clock_text(double seconds);

}  // namespace sol::cli

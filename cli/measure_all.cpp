#include "cli/measure_all.hpp"

#include <unistd.h>

#include <cstdio>

#include "sol/core/error.hpp"
#include "sol/registry.hpp"
#ifdef SOL_WITH_CUDA
#include "cli/shorten.hpp"
#endif

namespace sol::cli {

#ifndef SOL_WITH_CUDA
bool gpu_present(std::string* why) {
  *why = "this sol was built without CUDA (the launcher builds host-only where no GPU is found; nvcc may also be missing)";
  return false;
}
std::vector<results::File> measure_registry(const MeasureAll&, std::string*) {
  failure("this sol was built without CUDA", "install the CUDA toolkit and rebuild");
}
#else
bool gpu_present(std::string* why) { return bench::gpu_available(why); }

bench::Options report_timing() {
  bench::Options o;
  o.budget_s = 0.25;
  o.min_samples = 10;
  o.timeout_s = 2;
  return o;
}

std::string clock_text(double seconds) {
  if (!(seconds >= 0)) return "?";
  const long s = long(seconds + 0.5), h = s / 3600, m = s / 60 % 60;
  char b[32];
  if (h > 0) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", h, m, s % 60);
  else std::snprintf(b, sizeof b, "%ld:%02ld", m, s % 60);
  return b;
}

std::string progress_line(const bench::RegistryProgress& p) {
  const std::string n = std::to_string(p.families);
  std::string i = std::to_string(p.family);
  i = std::string(n.size() > i.size() ? n.size() - i.size() : 0, ' ') + i;
  std::string line = "sol: [" + i + "/" + n + "] " + shorten(p.name, 20);
  const std::string tail = "  " + std::to_string(p.records) + "/" + std::to_string(p.total) + "  " +
                           clock_text(p.elapsed_s) + " elapsed, ETA " + (p.eta_s < 0 ? "…" : clock_text(p.eta_s));
  std::string what = p.family_done ? "done" : p.variant.empty() ? "starting" : p.variant + " " + p.shape;
  const size_t room = 100 - std::min<size_t>(100, display_width(line) + 2 + display_width(tail));
  return line + "  " + shorten(what, std::max<size_t>(room, 8)) + tail;
}

std::vector<results::File> measure_registry(const MeasureAll& how, std::string* note) {
  bench::select_device(how.device);
  bench::RegistryRun run;
  run.peers = !how.no_peers;
  run.out_dir = how.out_dir;
  run.headline_only = !how.full;
  run.findings = true;
  if (!how.full) run.timing = report_timing();
  const bool tty = isatty(fileno(stderr)) != 0;
  run.progress = [tty](const bench::RegistryProgress& p) {
    if (tty) {
      std::fprintf(stderr, "\r%s\033[K", progress_line(p).c_str());
      if (p.family_done && p.family == p.families) std::fputc('\n', stderr);
    } else if (p.family_done) {
      std::fprintf(stderr, "%s\n", progress_line(p).c_str());
    }
    std::fflush(stderr);
  };
  return bench::measure_registry(run, note);
}
#endif

}  // namespace sol::cli

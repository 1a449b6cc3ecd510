#include "cli/measure_all.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "sol/core/format.hpp"

#include "sol/core/error.hpp"
#include "sol/registry.hpp"
#ifdef SOL_WITH_CUDA
#include "cli/shorten.hpp"
#endif

namespace sol::cli {

std::string time_breakdown(const Phases& phases) {
  struct Group {
    std::string name;
    double s = 0;
    std::vector<std::pair<std::string, double>> items;
  };
  std::vector<Group> groups;
  double total = 0;
  for (const auto& [what, s] : phases) {
    const size_t colon = what.find(": ");
    const std::string name = what.substr(0, colon);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.name == name; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{name, 0, {}});
    g->s += s;
    if (colon != std::string::npos) g->items.push_back({what.substr(colon + 2), s});
    total += s;
  }
  const auto secs = [](double s) { return s >= 10 ? num(s, 3) + " s" : num(s, 2) + " s"; };
  size_t width = 0;
  for (const Group& g : groups) width = std::max(width, display_width(g.name));
  std::string out = "where the time went (" + clock_text(total) + " in all):\n";
  for (Group& g : groups) {
    std::string line = "  " + g.name + std::string(width - display_width(g.name), ' ') + "  ";
    const std::string t = secs(g.s);
    line += std::string(t.size() < 8 ? 8 - t.size() : 0, ' ') + t;
    std::stable_sort(g.items.begin(), g.items.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string slowest;
    for (const auto& [item, s] : g.items) {
      const std::string next = (slowest.empty() ? "" : ", ") + item + " " + secs(s);
      if (display_width(line) + 3 + display_width(slowest + next) + 2 > 100) {
        slowest += ", …";
        break;
      }
      slowest += next;
    }
    out += line + (slowest.empty() ? "" : "   " + slowest) + "\n";
  }
  return out;
}

std::string clock_text(double seconds) {
  if (!(seconds >= 0)) return "?";
  const long s = long(seconds + 0.5), h = s / 3600, m = s / 60 % 60;
  char b[32];
  if (h > 0) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", h, m, s % 60);
  else std::snprintf(b, sizeof b, "%ld:%02ld", m, s % 60);
  return b;
}

#ifndef SOL_WITH_CUDA
bool gpu_present(std::string* why) {
  *why = "this sol was built without CUDA (the launcher builds host-only where no GPU is found; nvcc may also be missing)";
  return false;
}
std::vector<results::File> measure_registry(const MeasureAll&, std::string*, Phases*) {
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

std::string progress_line(const bench::RegistryProgress& p) {
  const std::string n = std::to_string(p.families);
  std::string i = std::to_string(p.family);
  i = std::string(n.size() > i.size() ? n.size() - i.size() : 0, ' ') + i;
  std::string line = "sol: [" + i + "/" + n + "] " + shorten(p.name, 20);
  // The peers come after every record: the ETA of sol's own records says nothing about them.
  const std::string eta = p.peers ? "" : ", ETA " + (p.eta_s < 0 ? std::string("…") : clock_text(p.eta_s));
  const std::string tail = "  " + std::to_string(p.records) + "/" + std::to_string(p.total) + "  " +
                           clock_text(p.elapsed_s) + " elapsed" + eta;
  std::string what = p.family_done ? "done" : p.variant.empty() ? "starting" : p.variant + " " + p.shape;
  const size_t room = 100 - std::min<size_t>(100, display_width(line) + 2 + display_width(tail));
  return line + "  " + shorten(what, std::max<size_t>(room, 8)) + tail;
}

std::vector<results::File> measure_registry(const MeasureAll& how, std::string* note, bench::Phases* phases) {
  bench::select_device(how.device);
  bench::RegistryRun run;
  run.peers = !how.no_peers;
  run.compile_peers = how.full;
  run.out_dir = how.out_dir;
  run.headline_only = !how.full;
  run.findings = true;
  if (!how.full) run.timing = report_timing();
  const bool tty = isatty(fileno(stderr)) != 0;
  run.progress = [tty](const bench::RegistryProgress& p) {
    if (tty) {
      std::fprintf(stderr, "\r%s\033[K", progress_line(p).c_str());
      if (p.finished) std::fputc('\n', stderr);
    } else if (p.family_done || p.peers) {
      std::fprintf(stderr, "%s\n", progress_line(p).c_str());
    }
    std::fflush(stderr);
  };
  return bench::measure_registry(run, note, phases);
}
#endif

}  // namespace sol::cli

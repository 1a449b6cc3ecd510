// sol report — the main job. On a GPU machine: probe, bench the whole registry (each variant at its
// headline shape, or with --full at every bench shape), then every family's PyTorch peers in one
// python3 process (torch.compile peers only with --full), render everything and say where the
// time went; without one: the model-only report of the lecture's operations (or a report rendered
// from committed results with --results DIR).
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/measure_all.hpp"
#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint_measure.hpp"
#include "sol/predict.hpp"
#include "sol/registry.hpp"
#include "sol/report.hpp"

namespace sol::cli {

namespace {

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p);
  if (!out) failure("cannot write " + p.string(), "check that the folder is writable");
  out << text;
  if (!out) failure("error while writing " + p.string());
}

struct Opts {
  std::string gpu;
  std::string out = "out/report";
  std::string results_dir;
  bool model_only = false;
  bool no_peers = false;
  bool full = false;
  int device = 0;
};

}  // namespace

Command add_report(CLI::App& root, Global&) {
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand(
      "report", "the roofline report: the lecture's operations on a chip, plus every kernel measured on this GPU");
  app->add_option("--gpu", o->gpu, "database row for the model (default: this GPU's row, else h100)");
  add_device(app, o->device);
  app->add_option("--out-dir", o->out, "folder for report.html, report.json, report.txt (and results/)")->capture_default_str();
  app->add_option("--out", o->out)->group("");  // the older name of --out-dir
  app->add_option("--results", o->results_dir, "render measured results from this folder instead of measuring")
      ->check(CLI::ExistingDirectory);
  app->add_flag("--model-only", o->model_only, "do not measure even if a GPU is present");
  app->add_flag("--no-peers", o->no_peers, "skip the PyTorch peers when measuring");
  app->add_flag("--full", o->full,
                "measure every bench shape with the full sampling budget (tens of minutes), "
                "not only each variant's headline shape, and the torch.compile peers");
  return {app, [o]() -> int {
            namespace fs = std::filesystem;
            using clock = std::chrono::steady_clock;
            report::Input in;
            in.created = now_utc();
            Phases phases;
            std::string why_not;
            bool measure = !o->model_only && o->results_dir.empty() && gpu_present(&why_not);
            if (!o->results_dir.empty()) {
              in.measured = results::read_dir(o->results_dir);
              in.measured_profile = report::measured_profile_beside(o->results_dir);
              if (in.measured.empty()) bad_input("no results files (*.json) in " + o->results_dir);
              in.measured_note = "Rendered from the results in " + o->results_dir + ".";
              in.checkpoint_markdown = model::measurement_markdown_in(o->results_dir);
              const predict::Validation v = predict::validate(
                  in.measured, in.measured_profile ? &*in.measured_profile : nullptr, declared_execution);
              if (!v.checks.empty()) {
                in.validation_text = predict::validation_text(v);
                in.validation_markdown = predict::validation_markdown(v, o->results_dir);
              }
            } else if (measure) {
              MeasureAll how;
              how.no_peers = o->no_peers;
              how.full = o->full;
              how.device = o->device;
              how.out_dir = (fs::path(o->out) / "results").string();
              in.measured = measure_registry(how, &in.measured_note, &phases);
            } else {
              in.measured_note = o->model_only ? "--model-only was given."
                                               : "Measuring needs a GPU: " + why_not +
                                                     ". Run `sol report` on a GPU machine, or render committed results "
                                                     "with `sol report --results bench/results/h200`.";
            }
            std::string gpu = o->gpu;
            if (gpu.empty() && !in.measured.empty() && !in.measured.front().device.database_row.empty())
              gpu = in.measured.front().device.database_row;
            if (gpu.empty()) gpu = "h100";
            const hw::HwSpec& spec = hw::find(gpu);
            in.hw = &spec;
            in.model = report::lecture_operations(spec);
            std::error_code ec;
            fs::create_directories(o->out, ec);
            if (ec) failure("cannot create " + o->out + ": " + ec.message());
            const auto render0 = clock::now();
            std::string txt = report::text(in);
            write_file(fs::path(o->out) / "report.txt", txt);
            write_file(fs::path(o->out) / "report.json", report::json(in));
            write_file(fs::path(o->out) / "report.html", report::html(in));
            std::cout << txt << "\nwritten: " << (fs::path(o->out) / "report.html").string() << ", report.json, report.txt\n";
            if (!phases.empty()) {  // a measuring run: where its time went
              phases.push_back({"rendering the report", std::chrono::duration<double>(clock::now() - render0).count()});
              std::cout << "\n" << time_breakdown(phases);
            }
            return 0;
          }};
}

}  // namespace sol::cli

// `sol validate [--results DIR] [--doc FILE] [--json]`: the model's prediction for every verified
// record of committed results against its measured time — MAPE, median and p90 per family and
// overall, the worst records with their causes (sol/predict.hpp). --doc FILE rewrites the
// "validation" block of a Markdown page (docs/validation.md); --write-json writes the summary
// beside the results (DIR/validation.json).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/input.hpp"
#include "sol/predict.hpp"
#include "sol/registry.hpp"
#include "sol/report.hpp"

namespace sol::cli {

namespace {
struct Opts {
  std::string results = "bench/results/h200", doc;
  bool write_json = false;
  size_t worst = 10;
  JsonOut json;
};

nlohmann::ordered_json stats_json(const predict::Stats& s) {
  return {{"family", s.family.empty() ? "overall" : s.family}, {"records", s.count}, {"mape", s.mape},
          {"median", s.median}, {"p90", s.p90}};
}

nlohmann::ordered_json validation_json(const predict::Validation& v, const std::string& dir, size_t worst) {
  nlohmann::ordered_json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["results"] = dir;
  j["ceilings"] = v.ceilings;
  j["overall"] = stats_json(v.overall);
  j["sol_kernels"] = stats_json(v.sol_kernels);
  j["peers"] = stats_json(v.peers);
  j["families"] = nlohmann::ordered_json::array();
  for (const auto& s : v.families) j["families"].push_back(stats_json(s));
  j["worst"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < std::min(worst, v.checks.size()); ++i) {
    const predict::Check& c = v.checks[i];
    j["worst"].push_back({{"family", c.record.family}, {"variant", c.record.variant}, {"shape", c.record.shape},
                          {"measured_s", c.record.median_s}, {"predicted_s", c.prediction.seconds}, {"error", c.error},
                          {"cause", predict::cause(c)}});
  }
  j["unpredicted"] = v.unpredicted;
  j["host_timed"] = v.host_timed;  // per family: verified records whose time holds host dispatch, not in the error
  return j;
}

void write_text(const std::string& path, const std::string& text, const std::string& what) {
  std::ofstream out(path);
  if (!out) failure("cannot write " + what + " " + path);
  out << text;
  if (!out) failure("error while writing " + path);
}

int run_validate(const Opts& o) {
  namespace fs = std::filesystem;
  if (std::error_code ec; !fs::is_directory(o.results, ec)) bad_input("--results '" + o.results + "' is not a folder");
  const auto files = results::read_dir(o.results);
  if (files.empty()) bad_input("no results files (*.json) in " + o.results);
  const std::optional<hw::HwSpec> profile = report::measured_profile_beside(o.results);
  const predict::Validation v = predict::validate(files, profile ? &*profile : nullptr, declared_execution);
  if (v.checks.empty()) bad_input("no verified record with a time in " + o.results + ": nothing to validate");
  if (!o.doc.empty()) {
    std::error_code ec;
    std::string page = fs::exists(o.doc, ec) ? read_input_file(o.doc, "page") : std::string("# Model validation\n");
    if (page.find("<!-- sol:BEGIN validation -->") == std::string::npos)
      page += "\n<!-- sol:BEGIN validation -->\n<!-- sol:END validation -->\n";
    write_text(o.doc, report::replace_block(page, "validation", predict::validation_markdown(v, o.results, o.worst)), "page");
  }
  const nlohmann::ordered_json j = validation_json(v, o.results, o.worst);
  if (o.write_json) write_text((fs::path(o.results) / results::kValidationFile).string(), j.dump(2) + "\n", "summary");
  if (o.json.on()) emit_json(o.json, j);
  else std::cout << predict::validation_text(v, o.worst);
  return 0;
}
}  // namespace

Command add_validate(CLI::App& root, Global&) {
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand("validate", "the model's predictions against committed measurements, per family");
  app->add_option("--results", o->results, "folder of results files")->capture_default_str();
  app->add_option("--doc", o->doc, "rewrite the validation block of this Markdown page (docs/validation.md)");
  app->add_flag("--write-json", o->write_json, "write the summary to DIR/validation.json beside the results");
  add_size(app, "--worst", o->worst, "how many of the worst records to list (default 10)");
  add_json(app, o->json, "the summary");
  return {app, [o]() -> int { return run_validate(*o); }};
}

}  // namespace sol::cli

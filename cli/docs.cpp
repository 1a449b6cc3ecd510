// sol docs — regenerates docs/<family>.md and the README's headline table from results JSON.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/model/checkpoint_measure.hpp"
#include "sol/report.hpp"

namespace sol::cli {

Command add_docs(CLI::App& root, Global&) {
  struct Opts {
    std::string results = "bench/results/h200", out = "docs", readme = "README.md", gpu;
  };
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand("docs", "regenerate docs/ pages and the README headline table from results JSON");
  app->add_option("--results", o->results, "folder of results files")->capture_default_str();
  app->add_option("--out-dir", o->out, "folder for the Markdown pages")->capture_default_str();
  app->add_option("--out", o->out)->group("");  // the older name of --out-dir
  app->add_option("--readme", o->readme, "README whose headline block is replaced (\"\" to skip)")->capture_default_str();
  app->add_option("--gpu", o->gpu, "database row for datasheet figures (default: the results' device row)");
  return {app, [o]() -> int {
            namespace fs = std::filesystem;
            auto files = results::read_dir(o->results);
            if (files.empty()) bad_input("no results files (*.json) in " + o->results);
            std::string gpu = o->gpu.empty() ? files.front().device.database_row : o->gpu;
            if (gpu.empty()) bad_input("results do not name a database row", "pass --gpu NAME");
            const auto& spec = hw::find(gpu);
            const std::optional<hw::HwSpec> probed = report::measured_profile_beside(o->results);
            fs::create_directories(o->out);
            // A family page may hold prose around its numbers: only the block between the
            // "results" markers is generated; a page without them gets the block appended.
            for (const auto& f : files) {
              // The GEMM sweep is many families at many shapes: its own page, docs/gemm-sweep.md.
              const bool sweep = report::is_sweep(f);
              fs::path p = fs::path(o->out) / (sweep ? std::string("gemm-sweep.md") : f.family + ".md");
              std::string page;
              if (std::ifstream in(p); in) {
                std::stringstream ss;
                ss << in.rdbuf();
                page = ss.str();
              }
              const std::string block = sweep ? report::sweep_markdown(f, spec, probed ? &*probed : nullptr) : report::family_markdown(f, spec);
              if (page.find("<!-- sol:BEGIN results -->") == std::string::npos)
                page += (page.empty() ? "" : "\n") + std::string("<!-- sol:BEGIN results -->\n<!-- sol:END results -->\n");
              std::ofstream(p) << report::replace_block(page, "results", block);
              std::cout << "wrote the results block of " << p.string() << "\n";
            }
            // The checkpointing planner's GPU proof (a subfolder: it is not a kernel results file).
            if (const std::string measured = model::measurement_markdown_in(o->results); !measured.empty()) {
              std::stringstream page;
              const fs::path p = fs::path(o->out) / "checkpoint.md";
              if (std::ifstream in(p); in) page << in.rdbuf();
              std::string doc = page.str();
              if (doc.find("<!-- sol:BEGIN measured -->") == std::string::npos)
                doc += "\n<!-- sol:BEGIN measured -->\n<!-- sol:END measured -->\n";
              std::ofstream(p) << report::replace_block(doc, "measured", measured);
              std::cout << "wrote the measured block of " << p.string() << "\n";
            }
            if (!o->readme.empty()) {
              std::ifstream in(o->readme);
              if (!in) bad_input("cannot read " + o->readme);
              std::stringstream ss;
              ss << in.rdbuf();
              std::string doc = report::replace_block(ss.str(), "headline", report::headline_markdown(files));
              std::ofstream(o->readme) << doc;
              std::cout << "updated the headline table in " << o->readme << "\n";
            }
            return 0;
          }};
}

}  // namespace sol::cli

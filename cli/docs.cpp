// sol docs — regenerates docs/<family>.md and the README's headline table from results JSON.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/input.hpp"
#include "sol/model/checkpoint_measure.hpp"
#include "sol/report/comm.hpp"
#include "sol/report.hpp"

namespace sol::cli {
namespace {
struct Page {
  std::filesystem::path path;
  std::string text, what;
};
}  // namespace

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
            // Every page is computed before any is written: a failure part-way leaves no file changed.
            std::vector<Page> pages;
            // A page's current text: the one about to be written, or the file, or "" when absent.
            auto current = [&](const fs::path& p) -> std::string {
              for (auto it = pages.rbegin(); it != pages.rend(); ++it)
                if (it->path == p) return it->text;
              std::error_code ec;
              return fs::exists(p, ec) ? read_input_file(p.string(), "page") : std::string();
            };
            if (std::error_code ec; fs::exists(o->out, ec) && !fs::is_directory(o->out, ec))
              bad_input("--out '" + o->out + "' is a file, not a folder", "give a folder for the Markdown pages");
            auto files = results::read_dir(o->results);
            // The runs at the model shape set (<results>/model-shapes/*.json). A folder may hold
            // only these (a GPU measured at the model shapes alone): then its pages are those runs'.
            std::vector<fs::path> runs;
            if (const fs::path dir = fs::path(o->results) / "model-shapes"; fs::is_directory(dir))
              for (const auto& e : fs::directory_iterator(dir))
                if (e.path().extension() == ".json") runs.push_back(e.path());
            std::sort(runs.begin(), runs.end());
            if (files.empty() && runs.empty())
              bad_input("no results files (*.json) in " + o->results + " nor in its model-shapes/ folder");
            std::string gpu = !o->gpu.empty()   ? o->gpu
                              : !files.empty() ? files.front().device.database_row
                                               : results::read(runs.front().string()).device.database_row;
            if (gpu.empty()) bad_input("results do not name a database row", "pass --gpu NAME");
            const auto& spec = hw::find(gpu);
            const std::optional<hw::HwSpec> probed = report::measured_profile_beside(o->results);
            // A family page may hold prose around its numbers: only the block between the
            // "results" markers is generated; a page without them gets the block appended.
            for (const auto& f : files) {
              // The GEMM sweep is many families at many shapes: its own page, docs/gemm-sweep.md.
              // (results::read checked that a family is a plain name, so the page stays in --out.)
              const bool sweep = report::is_sweep(f);
              const fs::path p = fs::path(o->out) / (sweep ? std::string("gemm-sweep.md") : f.family + ".md");
              std::string page = current(p);
              const std::string block = sweep ? report::sweep_markdown(f, spec, probed ? &*probed : nullptr) : report::family_markdown(f, spec);
              if (page.find("<!-- sol:BEGIN results -->") == std::string::npos)
                page += (page.empty() ? "" : "\n") + std::string("<!-- sol:BEGIN results -->\n<!-- sol:END results -->\n");
              pages.push_back({p, report::replace_block(page, "results", block), "the results block of " + p.string()});
            }
            // The runs at the model shape set: docs/model-shapes.md, one block per file, named by
            // its stem, appended where the page lacks its markers.
            {
              const fs::path p = fs::path(o->out) / "model-shapes.md";
              std::string page = current(p);
              for (const fs::path& run : runs) {
                const std::string name = run.stem().string();
                if (page.find("<!-- sol:BEGIN " + name + " -->") == std::string::npos)
                  page += "\n<!-- sol:BEGIN " + name + " -->\n<!-- sol:END " + name + " -->\n";
                page = report::replace_block(page, name, report::model_shapes_markdown(results::read(run.string()),
                                                                                        run.generic_string()));
              }
              if (!runs.empty()) pages.push_back({p, page, "the model-shape blocks of " + p.string()});
            }
            // The checkpointing planner's GPU proof (a subfolder: it is not a kernel results file).
            if (const std::string measured = model::measurement_markdown_in(o->results); !measured.empty()) {
              const fs::path p = fs::path(o->out) / "checkpoint.md";
              std::string doc = current(p);
              if (doc.find("<!-- sol:BEGIN measured -->") == std::string::npos)
                doc += "\n<!-- sol:BEGIN measured -->\n<!-- sol:END measured -->\n";
              pages.push_back({p, report::replace_block(doc, "measured", measured), "the measured block of " + p.string()});
            }
            // The collective model's page; the NCCL runs live beside the GPU's folder, in <gpu>x<N>/.
            // (Written with a GPU's family pages; a model-shapes-only folder writes its runs alone.)
            fs::path results_dir = fs::path(o->results).lexically_normal();
            if (results_dir.filename().empty()) results_dir = results_dir.parent_path();  // "…/h200/"
            const fs::path comm_root = results_dir.parent_path();
            if (!files.empty())
              for (const auto& [name, text] : report::comm_docs(comm_root.empty() ? "." : comm_root.string()))
                pages.push_back({fs::path(o->out) / name, text, (fs::path(o->out) / name).string()});
            if (!o->readme.empty() && !files.empty()) {
              const std::string doc = read_input_file(o->readme, "README");
              pages.push_back({o->readme, report::replace_block(doc, "headline", report::headline_markdown(files)),
                               "the headline table in " + o->readme});
            }
            std::error_code ec;
            fs::create_directories(o->out, ec);
            if (ec) failure("cannot create folder " + o->out + ": " + ec.message());
            for (const Page& pg : pages) {
              std::ofstream out(pg.path, std::ios::binary);
              out << pg.text;
              if (!out.flush()) failure("cannot write " + pg.path.string());
              std::cout << "wrote " << pg.what << "\n";
            }
            return 0;
          }};
}

}  // namespace sol::cli

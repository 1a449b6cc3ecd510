#pragma once
// Each subcommand lives in its own file and registers itself here. A command's run function
// throws sol::Error on failure; main() turns that into one line on stderr and an exit code.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace sol::cli {

struct Global {
  std::vector<std::string> hw_files;  // --hw-file, loaded before any command runs
};

using Run = std::function<int()>;
struct Command {
  CLI::App* app;
  Run run;
};

Command add_hw(CLI::App& root, Global& g);
Command add_roofline(CLI::App& root, Global& g);
Command add_report(CLI::App& root, Global& g);
Command add_list(CLI::App& root, Global& g);
Command add_probe(CLI::App& root, Global& g);
Command add_bench(CLI::App& root, Global& g);
Command add_doctor(CLI::App& root, Global& g);
Command add_docs(CLI::App& root, Global& g);
Command add_cast(CLI::App& root, Global& g);
Command add_quant(CLI::App& root, Global& g);
Command add_systolic(CLI::App& root, Global& g);
Command add_occupancy(CLI::App& root, Global& g);
Command add_shapes(CLI::App& root, Global& g);
Command add_access(CLI::App& root, Global& g);
Command add_checkpoint(CLI::App& root, Global& g);
Command add_compare(CLI::App& root, Global& g);

}  // namespace sol::cli

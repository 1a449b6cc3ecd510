#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_report(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("report", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol report is not implemented yet"); }};
}
}  // namespace sol::cli

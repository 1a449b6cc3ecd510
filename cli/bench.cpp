#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_bench(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("bench", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol bench is not implemented yet"); }};
}
}  // namespace sol::cli

#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_list(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("list", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol list is not implemented yet"); }};
}
}  // namespace sol::cli

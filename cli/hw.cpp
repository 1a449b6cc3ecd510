#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_hw(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("hw", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol hw is not implemented yet"); }};
}
}  // namespace sol::cli

#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_roofline(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("roofline", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol roofline is not implemented yet"); }};
}
}  // namespace sol::cli

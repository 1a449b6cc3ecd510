#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_doctor(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("doctor", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol doctor is not implemented yet"); }};
}
}  // namespace sol::cli

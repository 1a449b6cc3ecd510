#include "cli/commands.hpp"
#include "sol/core/error.hpp"

namespace sol::cli {
Command add_probe(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("probe", "(not built yet)");
  return {app, [] () -> int { sol::failure("sol probe is not implemented yet"); }};
}
}  // namespace sol::cli

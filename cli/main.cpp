// sol — speed of light for GPU and TPU kernels. One binary, one subcommand per question.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/input.hpp"
#include "sol/hw/spec.hpp"

// An error is one printable line, whatever input it quotes.
static std::string error_line(const std::string& message) { return sol::printable(message, 1000); }

int main(int argc, char** argv) {
  using namespace sol::cli;
  CLI::App app{"sol: how fast could it run, how fast does it run, and what holds it back", "sol"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sol 0.1");
  Global g;
  app.add_option("--hw-file", g.hw_files, "extra hardware rows from a JSON file (one spec or an array)")
      ->check(CLI::ExistingFile);
  std::vector<Command> cmds = {add_hw(app, g),    add_roofline(app, g), add_report(app, g), add_list(app, g),
                               add_probe(app, g), add_bench(app, g),    add_doctor(app, g), add_docs(app, g),
                               add_cast(app, g),  add_quant(app, g), add_systolic(app, g),
                               add_occupancy(app, g), add_shapes(app, g), add_access(app, g), add_checkpoint(app, g)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "sol: error: %s (see sol --help)\n", error_line(e.what()).c_str());
    return 2;
  }
  try {
    for (const auto& f : g.hw_files) sol::hw::load_file(f);
    for (auto& c : cmds)
      if (c.app->parsed()) return c.run();
    return 2;
  } catch (const sol::Error& e) {
    std::fprintf(stderr, "sol: error: %s\n", error_line(e.line()).c_str());
    return e.kind() == sol::Error::Kind::BadInput ? 2 : 1;
  } catch (const std::exception& e) {
    // Library code throws sol::Error for everything it expects; anything else is a bug in sol.
    std::fprintf(stderr, "sol: internal error: %s\n", error_line(e.what()).c_str());
    return 1;
  }
}

// sol — speed of light for GPU and TPU kernels. One binary, one subcommand per question.
#include <algorithm>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"
#include "sol/core/suggest.hpp"
#include "sol/hw/spec.hpp"

namespace sol::cli {
namespace {

// CLI11's help, with each description wrapped so that no line passes kTerminalColumns.
class Formatter : public CLI::Formatter {
 public:
  Formatter() { column_width(26); }
  std::string make_option(const CLI::Option* opt, bool positional) const override {
    return entry(make_option_name(opt, positional) + make_option_opts(opt), make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return entry(sub->get_display_name(true), sub->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    std::string out;
    for (const auto& l : wrap(app->get_description(), kTerminalColumns)) out += l + "\n";
    return out + "\n";
  }

 private:
  std::string entry(const std::string& name, const std::string& desc) const {
    const size_t col = get_column_width();
    std::string left = "  " + name, out;
    const auto lines = wrap(desc, kTerminalColumns - col);
    if (display_width(left) >= col) out = left + "\n", left.clear();
    for (const auto& l : lines) {
      out += left + std::string(col - display_width(left), ' ') + l + "\n";
      left.clear();
    }
    return out;
  }
};

// The parse error as one line, with a did-you-mean for the word it refused: an unknown command
// against the commands, an unknown flag against the flags of the deepest command named.
std::string parse_error_line(const CLI::App& root, int argc, char** argv, const std::string& message) {
  auto all = [](const CLI::App*) { return true; };
  const CLI::App* app = &root;
  for (int i = 1; i < argc; ++i)
    for (const CLI::App* sub : app->get_subcommands(all))
      if (sub->get_name() == argv[i]) {
        app = sub;
        break;
      }
  std::vector<std::string> subs, flags;
  for (const CLI::App* sub : app->get_subcommands(all)) subs.push_back(sub->get_name());
  for (const CLI::Option* o : app->get_options())
    for (const auto& n : o->get_lnames()) flags.push_back("--" + n);
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) == 0) {
      word.resize(std::min(word.size(), word.find('=')));
      // A known flag in the message is one whose value was refused: no suggestion for it.
      const bool known = std::find(flags.begin(), flags.end(), word) != flags.end();
      if (!known && message.find(word) != std::string::npos)
        if (std::string s = did_you_mean(word, flags); !s.empty()) return message + s;
    } else if (app == &root && !subs.empty() && word[0] != '-' && std::string(argv[i - 1]) != "--hw-file") {
      return "unknown command '" + word + "'" + did_you_mean(word, subs);
    }
  }
  return message;
}

// Runs a quick model command with its text output reflowed to the terminal's width: stdout is
// caught in a scratch file and printed through reflow() when the command returns.
int run_reflowed(const Command& c) {
  std::fflush(stdout);
  std::FILE* scratch = std::tmpfile();
  const int saved = scratch ? dup(fileno(stdout)) : -1;
  if (saved < 0 || dup2(fileno(scratch), fileno(stdout)) < 0) return c.run();
  auto restore = [&] {
    std::fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    std::string text;
    std::rewind(scratch);
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, scratch)) > 0;) text.append(buf, n);
    std::fclose(scratch);
    std::fputs(reflow(text).c_str(), stdout);
  };
  try {
    const int rc = c.run();
    restore();
    return rc;
  } catch (...) {
    restore();
    throw;
  }
}

// The commands whose text is prose and tables computed on the host in a moment.
bool reflows(const CLI::App& app) {
  static const std::vector<std::string> kQuick = {"hw", "roofline", "cast", "quant", "systolic", "occupancy",
                                                  "shapes", "access", "checkpoint"};
  if (std::find(kQuick.begin(), kQuick.end(), app.get_name()) == kQuick.end()) return false;
  auto given = [&](const char* flag) {
    auto in = [&](const CLI::App& a) {
      const CLI::Option* o = a.get_option_no_throw(flag);
      return o && o->count() > 0;
    };
    if (in(app)) return true;
    for (const CLI::App* sub : app.get_subcommands())
      if (in(*sub)) return true;
    return false;
  };
  return !given("--json") && !given("--out") && !given("--measure");
}

}  // namespace

}  // namespace sol::cli

// An error is one printable line, whatever input it quotes.
static std::string error_line(const std::string& message) { return sol::printable(message, 1000); }

int main(int argc, char** argv) {
  using namespace sol::cli;
  CLI::App app{"sol: how fast could it run, how fast does it run, and what holds it back", "sol"};
  app.formatter(std::make_shared<Formatter>());
  app.require_subcommand(1);
  app.set_version_flag("--version", "sol 0.1");
  Global g;
  app.add_option("--hw-file", g.hw_files, "extra hardware rows from a JSON file (one spec or an array)")
      ->check(CLI::ExistingFile);
  std::vector<Command> cmds = {add_hw(app, g),    add_roofline(app, g), add_report(app, g), add_list(app, g),
                               add_probe(app, g), add_bench(app, g),    add_doctor(app, g), add_docs(app, g),
                               add_cast(app, g),  add_quant(app, g), add_systolic(app, g),
                               add_occupancy(app, g), add_shapes(app, g), add_access(app, g), add_checkpoint(app, g),
                               add_compare(app, g), add_validate(app, g), add_comm(app, g)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "sol: error: %s (see sol --help)\n", error_line(parse_error_line(app, argc, argv, e.what())).c_str());
    return 2;
  } catch (const sol::Error& e) {  // a value the size grammar refused while parsing
    std::fprintf(stderr, "sol: error: %s\n", error_line(e.line()).c_str());
    return 2;
  }
  try {
    for (const auto& f : g.hw_files) sol::hw::load_file(f);
    for (auto& c : cmds)
      if (c.app->parsed()) return reflows(*c.app) ? run_reflowed(c) : c.run();
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

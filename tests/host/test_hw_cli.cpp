// `sol hw` as a user runs it: exit codes, one-line errors on stderr, the --hw-file flag, and
// that `show` prints every peak's derivation and source. Runs the built binary ($SOL_BIN, or
// `sol` beside this test binary).
#include <gtest/gtest.h>

#include <cctype>

#include "tests/host/sol_cli.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sol/hw/spec.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("sol_test_hw_cli_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

using sol::test::sol_bin;

struct CliRun {
  int code = -1;
  std::string out, err;
};

// Runs `sol ARGS` with an optional environment prefix; captures stdout, stderr and the exit code.
CliRun run_sol(const std::string& args, const std::string& env = "") {
  const auto r = sol::test::run_sol(args, sol::test::with_env(env));
  return {r.rc, r.out, r.err};
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

std::string write(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST(HwCli, BinaryExists) { ASSERT_TRUE(fs::exists(sol_bin())) << sol_bin() << " (set SOL_BIN)"; }

TEST(HwCli, ListShowsEveryRow) {
  CliRun r = run_sol("hw list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const auto& s : sol::hw::builtin()) {  // a row per chip, its name first (a long cell wraps)
    EXPECT_NE(r.out.find("\n" + s.name + " "), std::string::npos) << s.name;
    EXPECT_NE(r.out.find(s.full_name), std::string::npos) << s.full_name;
  }
}

TEST(HwCli, ShowUnknownIsOneLineAndExit2) {
  CliRun r = run_sol("hw show nosuch");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("h100"), std::string::npos) << "valid names not listed: " << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(HwCli, BadHwFileIsExit2) {
  const std::string bad = write("bad.json", "{\"name\": \"oops\", \"full_name\": 3}");
  CliRun r = run_sol("--hw-file '" + bad + "' hw list");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("full_name"), std::string::npos) << r.err;

  CliRun missing = run_sol("--hw-file '" + (scratch() / "absent.json").string() + "' hw list");
  EXPECT_EQ(missing.code, 2) << missing.err;
}

TEST(HwCli, GoodHwFileAddsItsRow) {
  std::string text = sol::hw::to_json(sol::hw::find("a100"));
  text.replace(text.find("\"a100\""), 6, "\"cli-chip\"");
  const std::string good = write("good.json", text);
  CliRun list = run_sol("--hw-file '" + good + "' hw list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("cli-chip"), std::string::npos);
  CliRun show = run_sol("--hw-file '" + good + "' hw show CLI-CHIP --json");
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_EQ(sol::hw::from_json_text(show.out, "stdout").name, "cli-chip");
}

// Runs of blanks and line breaks as one space: long lines wrap to fit the terminal.
std::string squashed(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  return out;
}

TEST(HwCli, ShowPrintsEveryDerivationAndSource) {
  for (const char* name : {"h100", "tpu-v5p"}) {
    CliRun r = run_sol(std::string("hw show ") + name);
    r.out = squashed(r.out);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto& s = sol::hw::find(name);
    for (const auto* peaks : {&s.matrix_peaks, &s.vector_peaks})
      for (const auto& [k, p] : *peaks) {
        EXPECT_NE(r.out.find(squashed(p.derivation())), std::string::npos) << name << " " << k;
        EXPECT_NE(r.out.find(squashed(p.source)), std::string::npos) << name << " " << k;
      }
    for (const auto& m : s.levels) EXPECT_NE(r.out.find(squashed(m.derivation)), std::string::npos) << m.name;
    for (const auto& src : s.sources) EXPECT_NE(r.out.find(squashed(src)), std::string::npos) << src;
    EXPECT_NE(r.out.find(s.chip_link.name), std::string::npos);
  }
}

TEST(HwCli, ShowJsonIsTheHwFileFormat) {
  CliRun r = run_sol("hw show h200 --json");
  EXPECT_EQ(r.code, 0) << r.err;
  const sol::hw::HwSpec back = sol::hw::from_json_text(r.out, "stdout");
  EXPECT_EQ(sol::hw::to_json(back), sol::hw::to_json(sol::hw::find("h200")));
}

TEST(HwCli, MeasuredWithoutProfileSaysRunProbe) {
  CliRun r = run_sol("hw show measured", "SOL_PROFILE='" + (scratch() / "none.json").string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("sol probe"), std::string::npos) << r.err;
}

TEST(HwCli, MissingSubcommandIsExit2) {
  EXPECT_EQ(run_sol("hw").code, 2);
  EXPECT_EQ(run_sol("hw show").code, 2);
}

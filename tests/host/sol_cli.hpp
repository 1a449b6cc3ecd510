#pragma once
// Runs the built `sol` the way a user does, for the CLI tests: `SOL_BIN` (ctest sets it), else
// the `sol` beside the test binary. stdin, stdout and stderr go through scratch files, so each
// stream is kept whole and apart; the exit code comes back as rc (-1 if sol did not exit normally).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sol::test {

struct CliRun {
  int rc = -1;
  std::string out, err;
  std::string all() const { return out + err; }  // what a terminal shows (stderr is empty on success)
};

struct CliOptions {
  std::string env;    // "NAME=value ..." put before the command
  std::string input;  // fed to stdin
  std::string cwd;    // run from this folder ("" = the test's own)
};

inline CliOptions with_env(std::string env) {
  CliOptions o;
  o.env = std::move(env);
  return o;
}
inline CliOptions with_input(std::string input) {
  CliOptions o;
  o.input = std::move(input);
  return o;
}
inline CliOptions with_cwd(std::string cwd) {
  CliOptions o;
  o.cwd = std::move(cwd);
  return o;
}

inline std::string sol_bin() {
  if (const char* p = std::getenv("SOL_BIN"); p && *p) return p;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "sol").string();
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

inline CliRun run_sol(const std::string& args, const CliOptions& o = {}) {
  namespace fs = std::filesystem;
  static int calls = 0;
  const fs::path base = fs::temp_directory_path() /
                        ("sol-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(calls++));
  const std::string in = base.string() + ".in", out = base.string() + ".out", err = base.string() + ".err";
  std::ofstream(in) << o.input;
  std::string cmd = o.cwd.empty() ? "" : "cd '" + o.cwd + "' && ";
  cmd += o.env + " '" + sol_bin() + "' " + args + " <'" + in + "' >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  for (const auto& p : {in, out, err}) fs::remove(p);
  return r;
}

}  // namespace sol::test

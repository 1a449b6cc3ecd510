#pragma once
// Each subcommand lives in its own file and registers itself here. A command's run function
// throws sol::Error on failure; main() turns that into one line on stderr and an exit code.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>
#include <string>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/core/size.hpp"

namespace sol::cli {

struct Global {
  std::vector<std::string> hw_files;  // --hw-file, loaded before any command runs
};

using Run = std::function<int()>;
struct Command {
  CLI::App* app;
  Run run;
};

// A size flag in the one grammar of sol/core/size.hpp (4096, 4k, 2^28); `bytes` also takes
// units (48KiB, 40GB). A bad value is one line naming the flag and the accepted forms.
template <class T>
CLI::Option* add_size(CLI::App* app, const std::string& name, T& target, const std::string& help, bool bytes = false) {
  static_assert(std::is_integral_v<T>);
  auto set = [&target, name, bytes](const std::string& text) {
    // Plain digits are read exactly: a double cannot tell 2^63 − 2 from 2^63.
    T exact{};
    const char* end = text.data() + text.size();
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])))
      if (auto [p, ec] = std::from_chars(text.data(), end, exact); ec == std::errc() && p == end) {
        target = exact;
        return;
      }
    const double v = bytes ? parse_bytes(name, text) : double(parse_count(name, text));
    // 2^digits is the first value T cannot hold; double(max) rounds up to it for 64-bit T.
    if (v >= std::ldexp(1.0, std::numeric_limits<T>::digits))
      bad_input("bad value '" + text + "' for " + name + ": more than " + std::to_string(std::numeric_limits<T>::max()));
    if (bytes && v != double(int64_t(v))) bad_input("bad value '" + text + "' for " + name + ": not a whole number of bytes");
    target = T(v);
  };
  return app->add_option_function<std::string>(name, set, help)->type_name(bytes ? "BYTES" : "SIZE");
}

// --device N: which CUDA device a command that runs on a GPU uses (default 0).
CLI::Option* add_device(CLI::App* app, int& device);

// Every command's JSON: --json prints one document to stdout, --out FILE writes it to FILE
// instead. Each document is an object whose first field is "schema_version", which changes
// when a field of any command's JSON changes name or meaning.
inline constexpr int kJsonSchemaVersion = 1;
struct JsonOut {
  bool flag = false;  // --json
  std::string file;   // --out FILE
  bool on() const { return flag || !file.empty(); }
};
void add_json(CLI::App* app, JsonOut& o, const std::string& what);
// `doc` with "schema_version" put first, to stdout or to --out FILE.
void emit_json(const JsonOut& o, const nlohmann::ordered_json& doc);

Command add_hw(CLI::App& root, Global& g);
Command add_roofline(CLI::App& root, Global& g);
Command add_report(CLI::App& root, Global& g);
Command add_list(CLI::App& root, Global& g);
Command add_probe(CLI::App& root, Global& g);
Command add_bench(CLI::App& root, Global& g);
Command add_doctor(CLI::App& root, Global& g);
Command add_docs(CLI::App& root, Global& g);
Command add_cast(CLI::App& root, Global& g);
Command add_quant(CLI::App& root, Global& g);
Command add_systolic(CLI::App& root, Global& g);
Command add_occupancy(CLI::App& root, Global& g);
Command add_shapes(CLI::App& root, Global& g);
Command add_access(CLI::App& root, Global& g);
Command add_checkpoint(CLI::App& root, Global& g);
Command add_compare(CLI::App& root, Global& g);
Command add_validate(CLI::App& root, Global& g);
Command add_comm(CLI::App& root, Global& g);
// `sol bench comm` (cli/comm.cpp), a subcommand of `sol bench`.
Command add_bench_comm(CLI::App* bench);

}  // namespace sol::cli

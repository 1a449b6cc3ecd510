// The flags every command shares: --json / --out FILE, and --device N.
#include <cstdio>
#include <fstream>

#include "cli/commands.hpp"

namespace sol::cli {

CLI::Option* add_device(CLI::App* app, int& device) {
  return add_size(app, "--device", device, "which CUDA device to run on, numbered as cudaSetDevice does (default 0)")
      ->type_name("N");
}

void add_json(CLI::App* app, JsonOut& o, const std::string& what) {
  app->add_flag("--json", o.flag, "print " + what + " as JSON");
  app->add_option("--out", o.file, "write the JSON to FILE instead of stdout")->type_name("FILE");
}

void emit_json(const JsonOut& o, const nlohmann::ordered_json& doc) {
  nlohmann::ordered_json j = {{"schema_version", kJsonSchemaVersion}};
  if (doc.is_object())
    for (const auto& [k, v] : doc.items())
      if (k != "schema_version") j[k] = v;
  if (!doc.is_object()) failure("a command's JSON must be an object");
  const std::string text = j.dump(2) + "\n";
  if (o.file.empty()) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream out(o.file);
  if (!out || !(out << text) || !out.flush()) bad_input("cannot write --out " + o.file, "give a path in a writable directory");
}

}  // namespace sol::cli

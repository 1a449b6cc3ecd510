// `sol cast --to FORMAT [--saturate] [--json] [VALUE ...]`: what a number becomes in a small
// format — its bits, field by field, and the value they hold. Values are read as fp32 (correctly
// rounded from the decimal text; nan, inf and hex floats accepted), one per argument or, with
// none, one per line of stdin; then rounded to nearest even into the format. Plain overflow is
// PyTorch's (NaN for e4m3 and e8m0, infinity for bf16, fp16, e5m2); --saturate clamps to the
// largest finite value (NaN stays NaN). e2m1 has neither infinity nor NaN: it always clamps.
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/formats/cast.hpp"

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;
using namespace sol::formats;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

float parse_value(const std::string& text) {
  const std::string t = trim(text);
  char* end = nullptr;
  const float v = std::strtof(t.c_str(), &end);  // overflow gives ±inf, as the fp32 rounding does
  if (t.empty() || end != t.c_str() + t.size())
    bad_input("'" + text + "' is not a number", "give decimal, hex-float, nan or inf values");
  return v;
}

// The shortest text that reads back as the same fp32.
std::string shortest(float v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// JSON has no NaN or infinity: those are written as the strings "nan", "inf", "-inf".
ojson json_number(float v) {
  if (std::isfinite(v)) return double(v);
  return shortest(v);
}

std::string hex(uint32_t code, int bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", (bits + 3) / 4, code);
  return buf;
}

}  // namespace

Command add_cast(CLI::App& root, Global&) {
  struct Args {
    std::string to;
    bool saturate = false;
    JsonOut json;
  };
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("cast", "the bits and value of numbers in bf16, fp16, fp8 e4m3/e5m2, e8m0 or fp4 e2m1");
  app->add_option("--to", args->to, "bf16 | fp16 | e4m3 | e5m2 | e8m0 | e2m1")->required();
  app->add_flag("--saturate", args->saturate, "clamp overflow to the largest finite value (default: PyTorch's plain cast)");
  add_json(app, args->json, "{\"values\": [{in, bits, value, fields}, ...]}");
  // The values are taken as extras, not a positional option, so that "-inf" and "-1e3" are
  // numbers rather than unknown flags; they keep their order.
  app->allow_extras();
  app->footer("VALUE ...: numbers, read as fp32 (decimal, hex float, nan, inf); none: one per line from stdin");

  return {app, [args, app]() -> int {
            const Format f = parse_format(args->to);
            const Overflow mode = args->saturate ? Overflow::Saturate : Overflow::Plain;
            std::vector<std::string> texts = app->remaining();
            if (texts.empty()) {
              std::string line;
              while (std::getline(std::cin, line))
                if (!trim(line).empty()) texts.push_back(line);
            }
            ojson out = ojson::array();
            Table t({"in", "fields", "bits", "value"});
            for (const std::string& text : texts) {
              const float in = parse_value(text);
              const uint32_t code = encode_checked(f, in, mode);
              const float value = decode_value(f, code);
              out.push_back({{"in", json_number(in)}, {"bits", code}, {"value", json_number(value)}, {"fields", fields(f, code)}});
              t.add_row({shortest(in), fields(f, code), hex(code, format_bits(f)), shortest(value)});
            }
            if (args->json.on()) {
              emit_json(args->json, {{"format", format_name(f)}, {"saturate", args->saturate}, {"values", out}});
            } else {
              std::printf("%s%s\n", format_name(f).c_str(),
                          args->saturate ? ", saturating" : ", plain (overflow as PyTorch's cast)");
              std::printf("%s", t.str().c_str());
            }
            return 0;
          }};
}

}  // namespace sol::cli

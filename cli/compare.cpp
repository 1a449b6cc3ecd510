#include "cli/compare.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/shorten.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"

namespace sol::cli {

namespace {

std::string key(const results::Record& r) { return r.family + "/" + r.variant + " " + r.shape; }

void list(std::string& out, const std::string& title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  constexpr size_t kShown = 10;
  out += title + " (" + std::to_string(items.size()) + "):\n";
  for (size_t i = 0; i < items.size() && i < kShown; ++i) out += "  " + shorten(items[i], 96) + "\n";
  if (items.size() > kShown) out += "  … and " + std::to_string(items.size() - kShown) + " more (--json lists all)\n";
}

}  // namespace

Comparison compare(const std::vector<results::File>& a, const std::vector<results::File>& b) {
  std::map<std::string, const results::Record*> in_b;
  for (const auto& f : b)
    for (const auto& r : f.records) in_b.emplace(key(r), &r);
  Comparison c;
  std::map<std::string, bool> seen;
  double log_sum = 0;
  for (const auto& f : a)
    for (const auto& ra : f.records) {
      const std::string k = key(ra);
      if (seen[k]) continue;  // the first record of a key speaks for it, as in B
      seen[k] = true;
      const auto it = in_b.find(k);
      if (it == in_b.end()) {
        c.only_a.push_back(k);
        continue;
      }
      const results::Record& rb = *it->second;
      if (!results::valid(ra) || !results::valid(rb)) {
        auto why = [](const results::Record& r) {
          return !r.skipped.empty() ? "skipped" : !r.verified ? "failed verification" : "has no time";
        };
        std::string line = k + ":";
        if (!results::valid(ra)) line += std::string(" A ") + why(ra);
        if (!results::valid(rb)) line += std::string(results::valid(ra) ? "" : ",") + " B " + why(rb);
        c.invalid.push_back(line);
        continue;
      }
      Pair p{ra.family, ra.variant, ra.shape, ra.median_s, rb.median_s, ra.median_s / rb.median_s,
             (ra.spread + rb.spread) / 2, ""};
      if (ra.samples < 3 || rb.samples < 3) {
        p.verdict = "unknown";
        ++c.unknown;
      } else {
        log_sum += std::log(p.speedup);
        if (std::fabs(std::log(p.speedup)) <= std::log1p(p.noise)) {
          p.verdict = "same";
          ++c.same;
        } else if (p.speedup > 1) {
          p.verdict = "faster";
          ++c.faster;
        } else {
          p.verdict = "slower";
          ++c.slower;
        }
      }
      c.pairs.push_back(p);
    }
  for (const auto& f : b)
    for (const auto& r : f.records)
      if (!seen.count(key(r))) {
        seen[key(r)] = true;
        c.only_b.push_back(key(r));
      }
  const int judged = c.faster + c.slower + c.same;
  c.geomean_speedup = judged > 0 ? std::exp(log_sum / judged) : 0;
  return c;
}

std::string comparison_text(const Comparison& c, const std::string& a_name, const std::string& b_name) {
  std::string out = "B = " + shorten(b_name, 90) + "\nA = " + shorten(a_name, 90) +
                    "\nspeed-up = A's median / B's (above 1: B is faster); noise = both runs' half spreads "
                    "added;\n\"same\" when the speed-up is within the noise\n";
  std::string family;
  std::unique_ptr<Table> t;
  auto flush = [&] {
    if (t) out += "\n" + family + "\n" + t->str();
  };
  for (const auto& p : c.pairs) {
    if (!t || p.family != family) {
      flush();
      family = p.family;
      t = std::make_unique<Table>(std::vector<std::string>{"variant", "shape", "A", "B", "speed-up", "noise", "verdict"});
      t->align(1, Table::Align::Left).align(6, Table::Align::Left);
    }
    t->add_row({shorten(p.variant, 26), shorten(p.shape, 22), si(p.a_s, "s", 3), si(p.b_s, "s", 3),
                num(p.speedup, 3) + "×", "±" + num(100 * p.noise, 2) + " %", p.verdict});
  }
  flush();
  out += "\n" + std::to_string(c.pairs.size()) + " compared: " + std::to_string(c.faster) + " faster, " +
         std::to_string(c.slower) + " slower, " + std::to_string(c.same) + " same" +
         (c.unknown ? ", " + std::to_string(c.unknown) + " unknown (under 3 samples)" : "") +
         (c.geomean_speedup > 0 ? "; geometric mean speed-up " + num(c.geomean_speedup, 3) + "×" : "") + "\n";
  list(out, "only in A", c.only_a);
  list(out, "only in B", c.only_b);
  list(out, "not comparable", c.invalid);
  return out;
}

std::string comparison_json(const Comparison& c, const std::string& a_name, const std::string& b_name) {
  using nlohmann::json;
  json pairs = json::array();
  for (const auto& p : c.pairs)
    pairs.push_back({{"family", p.family},
                     {"variant", p.variant},
                     {"shape", p.shape},
                     {"a_median_s", p.a_s},
                     {"b_median_s", p.b_s},
                     {"speedup", p.speedup},
                     {"noise", p.noise},
                     {"verdict", p.verdict}});
  json j = {{"schema_version", results::kSchemaVersion},
            {"a", a_name},
            {"b", b_name},
            {"pairs", pairs},
            {"summary",
             {{"compared", c.pairs.size()},
              {"faster", c.faster},
              {"slower", c.slower},
              {"same", c.same},
              {"unknown", c.unknown},
              {"geomean_speedup", c.geomean_speedup}}},
            {"only_a", c.only_a},
            {"only_b", c.only_b},
            {"not_comparable", c.invalid}};
  return j.dump(2) + "\n";
}

std::vector<results::File> read_results(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<results::File> files = results::read_dir(path);
    if (files.empty()) bad_input("no results files (*.json) in " + path);
    return files;
  }
  const std::string text = read_input_file(path, "results file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
    std::string what = e.what();  // "[json.exception.parse_error.101] parse error at …"
    if (const size_t end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && end != std::string::npos)
      what.erase(0, end + 2);
    bad_input(path + ": not valid JSON: " + printable(what, 200));
  }
  if (!j.is_array()) return {results::from_json_text(text, path)};
  std::vector<results::File> files;
  for (size_t i = 0; i < j.size(); ++i)
    files.push_back(results::from_json_text(j[i].dump(), path + " [" + std::to_string(i) + "]"));
  if (files.empty()) bad_input(path + " holds an empty array, no results");
  return files;
}

Command add_compare(CLI::App& root, Global&) {
  struct Opts {
    std::string a, b;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand(
      "compare", "two results (files or folders) record by record: B's speed-up over A, judged against their noise");
  app->add_option("A", o->a, "the baseline: a results file, an array of them (sol bench --json), or a folder")
      ->required();
  app->add_option("B", o->b, "the run to judge, in the same forms")->required();
  app->add_flag("--json", o->json, "print the comparison as JSON");
  return {app, [o]() -> int {
            const Comparison c = compare(read_results(o->a), read_results(o->b));
            if (c.pairs.empty() && c.invalid.empty())
              bad_input("no record of " + o->a + " matches one of " + o->b,
                        "records match by family, variant and shape; compare runs of the same families");
            std::cout << (o->json ? comparison_json(c, o->a, o->b) : comparison_text(c, o->a, o->b));
            return 0;
          }};
}

}  // namespace sol::cli

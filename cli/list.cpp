// `sol list [PATTERN]`: the registry as data — every variant with its family, version, technique,
// minimum compute capability, headline shape and tolerance. Nothing else keeps a list of kernels.
#include <iostream>
#include <vector>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/registry.hpp"

namespace sol::cli {

namespace {
std::string cc(int v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); }

constexpr size_t kColumns = 100;  // a terminal's width

// Words of text, each line at most `width` columns after `indent` spaces.
std::string wrapped(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  size_t used = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const size_t w = display_width(word);
    if (used > 0 && used + 1 + w > width - indent) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
      used = 0;
    }
    line += (used > 0 ? " " : "") + word;
    used += (used > 0 ? 1 : 0) + w;
    start = end + 1;
  }
  if (used > 0) out += std::string(indent, ' ') + line + "\n";
  return out;
}
}  // namespace

Command add_list(CLI::App& root, Global&) {
  auto pattern = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto wide = std::make_shared<bool>(false);
  auto* app = root.add_subcommand("list", "the registry: every kernel variant, its technique, shapes and tolerance");
  app->add_option("pattern", *pattern, "FAMILY or FAMILY/VARIANT, where VARIANT may be a prefix (default: all)");
  app->add_flag("--json", *json, "print a JSON array instead of the table");
  app->add_flag("--wide", *wide, "one row per variant with the technique and the tolerance's reason in full");
  return {app, [pattern, json, wide]() -> int {
            if (registry().empty()) {
              std::cout << "the registry is empty\n";
              return 0;
            }
            const auto variants = select(*pattern);
            if (*json) {
              nlohmann::json a = nlohmann::json::array();
              for (const Variant* v : variants) {
                // The model's count at the headline shape: FLOPs, HBM bytes and, where the model
                // knows them, the bytes through faster levels (what ncu can be held against).
                nlohmann::json model = nullptr;
                if (v->cost && !v->bench_shapes.empty()) {
                  const model::Cost c = v->cost(v->bench_shapes.front());
                  nlohmann::json levels = nlohmann::json::array();
                  for (const auto& l : c.levels) levels.push_back({{"level", l.level}, {"bytes", l.bytes}});
                  model = {{"flops", c.flops}, {"bytes", c.bytes}, {"levels", levels}, {"notes", c.notes}};
                }
                a.push_back({{"family", v->family},
                             {"version", v->version},
                             {"name", v->name},
                             {"technique", v->technique},
                             {"min_cc", v->min_cc},
                             {"max_cc", v->max_cc},
                             {"headline_shape", v->bench_shapes.empty() ? "" : v->bench_shapes.front().str()},
                             {"bench_shapes", v->bench_shapes.size()},
                             {"test_shapes", v->test_shapes.size()},
                             {"tolerance", v->tol.rel_l2},
                             {"tolerance_why", v->tol.why},
                             {"model", model}});
              }
              std::cout << a.dump(2) << "\n";
              return 0;
            }
            const auto headline = [](const Variant* v) {
              return v->bench_shapes.empty() ? "—" : v->bench_shapes.front().str();
            };
            std::string out;
            if (*wide) {
              // One line per variant, as wide as its text (a Table would wrap it to the terminal).
              std::vector<std::vector<std::string>> rows = {
                  {"family", "ver", "name", "technique", "min cc", "headline shape", "tolerance"}};
              for (const Variant* v : variants)
                rows.push_back({v->family, std::to_string(v->version), v->name, v->technique, cc(v->min_cc), headline(v),
                                "≤ " + num(v->tol.rel_l2, 2) + (v->tol.why.empty() ? "" : " (" + v->tol.why + ")")});
              std::vector<size_t> width(rows[0].size());
              for (const auto& r : rows)
                for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], display_width(r[c]));
              for (const auto& r : rows) {
                std::string line;
                for (size_t c = 0; c < r.size(); ++c) {
                  const std::string pad(width[c] - display_width(r[c]), ' ');
                  line += (c ? "  " : "") + (c == 1 || c == 4 ? pad + r[c] : r[c] + (c + 1 < r.size() ? pad : ""));
                }
                out += line + "\n";
                if (out.size() == line.size() + 1) out += std::string(display_width(line), '-') + "\n";
              }
            } else {
              // Each row, then its technique wrapped beneath it: the table fits a terminal.
              Table t({"family", "ver", "name", "min cc", "headline shape", "tolerance"});
              t.align(2, Table::Align::Left).align(4, Table::Align::Left).align(5, Table::Align::Left);
              for (const Variant* v : variants)
                t.add_row({v->family, std::to_string(v->version), v->name, cc(v->min_cc), headline(v),
                           "≤ " + num(v->tol.rel_l2, 2)});
              const std::string table = t.str();
              std::vector<std::string> lines;
              for (size_t at = 0; at < table.size();) {
                const size_t nl = table.find('\n', at);
                const size_t end = nl == std::string::npos ? table.size() : nl + 1;
                lines.push_back(table.substr(at, end - at));
                at = end;
              }
              if (lines.size() == variants.size() + 2) {  // a header, its rule, one line per row
                for (size_t i = 0; i < lines.size(); ++i) {
                  out += lines[i];
                  if (i >= 2) out += wrapped(variants[i - 2]->technique, 4, kColumns);
                }
              } else {  // a cell wrapped or the columns split: the techniques follow the table
                out += table + "\n";
                for (const Variant* v : variants)
                  out += v->family + "/" + v->name + "\n" + wrapped(v->technique, 4, kColumns);
              }
            }
            std::cout << out << variants.size() << " variants; tolerance = ‖out − ref‖₂ / ‖ref‖₂, and no output element may be\n"
                      << "left unwritten" << (*wide ? "" : " (--wide: each tolerance's reason; --json: everything)") << "\n";
            if (!built_with_cuda()) std::cout << "this sol was built without CUDA: every variant is described, none can run\n";
            return 0;
          }};
}

}  // namespace sol::cli

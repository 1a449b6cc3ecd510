// `sol list [PATTERN]`: the registry as data — every variant with its family, version, technique,
// minimum compute capability, headline shape and tolerance. Nothing else keeps a list of kernels.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/registry.hpp"

namespace sol::cli {

namespace {
std::string cc(int v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); }

std::vector<const Variant*> chosen(const std::string& pattern) {
#ifdef SOL_WITH_CUDA  // sol::select lives beside the registry, which only a CUDA build has
  if (!pattern.empty()) return select(pattern);
#endif
  std::vector<const Variant*> all;
  for (const auto& v : registry()) all.push_back(&v);
  return all;
}
}  // namespace

Command add_list(CLI::App& root, Global&) {
  auto pattern = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* app = root.add_subcommand("list", "the registry: every kernel variant, its technique, shapes and tolerance");
  app->add_option("pattern", *pattern, "FAMILY or FAMILY/VARIANT (default: all)");
  app->add_flag("--json", *json, "print a JSON array instead of the table");
  return {app, [pattern, json]() -> int {
            if (registry().empty()) {
              std::cout << (built_with_cuda() ? "the registry is empty\n"
                                              : "the registry is empty: this sol was built without CUDA (nvcc was not "
                                                "found at configure time)\n");
              return 0;
            }
            const auto variants = chosen(*pattern);
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
            Table t({"family", "ver", "name", "technique", "min cc", "headline shape", "tolerance"});
            t.align(2, Table::Align::Left).align(3, Table::Align::Left).align(5, Table::Align::Left).align(6, Table::Align::Left);
            for (const Variant* v : variants)
              t.add_row({v->family, std::to_string(v->version), v->name, v->technique, cc(v->min_cc),
                         v->bench_shapes.empty() ? "—" : v->bench_shapes.front().str(),
                         "≤ " + num(v->tol.rel_l2, 2) + (v->tol.why.empty() ? "" : " (" + v->tol.why + ")")});
            std::cout << t.str() << variants.size() << " variants; tolerance = ‖out − ref‖₂ / ‖ref‖₂, and no output "
                                                        "element may be left unwritten\n";
            return 0;
          }};
}

}  // namespace sol::cli

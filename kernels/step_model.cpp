// A transformer stack's step predicted kernel by kernel (include/sol/step_model.hpp). It lives
// beside the registry because it reads the registry's declared costs.
#include "sol/step_model.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/registry.hpp"
#include "sol/report.hpp"
#include "sol/results.hpp"

namespace sol {

StepModel step_model(const model::StackShape& shape, const hw::HwSpec& spec, const std::string& results_dir) {
  StepModel m;
  std::vector<results::File> files;
  std::optional<hw::HwSpec> profile;
  if (!results_dir.empty()) {
    if (std::error_code ec; !std::filesystem::is_directory(results_dir, ec))
      bad_input("--results '" + results_dir + "' is not a folder");
    files = results::read_dir(results_dir);
    if (files.empty()) bad_input("no results files (*.json) in " + results_dir);
    profile = report::measured_profile_beside(results_dir);
  }
  const auto file_of = [&](const std::string& family) -> const results::File* {
    for (const auto* want : {family.c_str(), "copy"})
      for (const auto& f : files)
        if (f.family == want) return &f;
    return files.empty() ? nullptr : &files.front();
  };
  const auto for_family = [&](const std::string& family) {
    const results::File* f = file_of(family);
    return f ? predict::ceilings_for(*f, profile ? &*profile : nullptr, spec) : predict::ceilings_for(results::File{}, nullptr, spec);
  };
  m.source = results_dir.empty() ? "the " + spec.name + " datasheet (no launch overhead; --results for measured ceilings)"
             : profile           ? "the measured profile and the runs' copy and launch in " + results_dir
                                 : "the " + spec.name + " datasheet and the runs' copy and launch in " + results_dir;
  if (!shape.flash || shape.dtype != DType::bf16 || (shape.head_dim() != 64 && shape.head_dim() != 128)) {
    m.why_not = "the stack runs flash attention in bf16 at head dim 64 or 128";
    return m;
  }
  predict::StackOps ops = predict::stack_ops(shape, declared_cost);
  predict::predict_stack(ops, for_family);
  m.ops = std::move(ops);
  return m;
}

std::string step_kernels_json(const predict::StackOps& ops) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto* list : {&ops.forward, &ops.backward, &ops.once})
    for (const auto& op : *list)
      kernels.push_back({{"phase", list == &ops.forward ? "forward" : list == &ops.backward ? "backward" : "step"},
                         {"op", op.name}, {"family", op.work.family}, {"variant", op.work.variant},
                         {"shape", op.work.shape.str()}, {"launches", op.count}, {"predicted_s", op.seconds()},
                         {"limit", op.prediction.limit}});
  return kernels.dump(-1);
}

}  // namespace sol

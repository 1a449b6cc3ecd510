#pragma once
// A transformer stack's step predicted kernel by kernel: the kernels the stack launches
// (predict::stack_ops) with the registry's declared costs, on the ceilings of a results folder
// (the measured profile beside it, each family's run for its copy bandwidth and launch overhead)
// or the datasheet row. `sol checkpoint` and sol.model.checkpoint both run it.
#include <optional>
#include <string>

#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/predict.hpp"

namespace sol {

struct StepModel {
  std::optional<predict::StackOps> ops;  // nullopt: the shape is not one the stack runs
  std::string source;                    // the ceilings under the predictions
  std::string why_not;                   // why there are no ops
};

// results_dir "": the datasheet row. Throws sol::Error (BadInput) for a folder that is not one or
// holds no results files.
StepModel step_model(const model::StackShape& shape, const hw::HwSpec& spec, const std::string& results_dir);
// The kernels of one layer's step as `sol checkpoint --json` lists them ("kernels"): a JSON array of
// {phase, op, family, variant, shape, launches, predicted_s, limit}.
std::string step_kernels_json(const predict::StackOps& ops);

}  // namespace sol

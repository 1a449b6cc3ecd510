#pragma once
// The checkpoint planner's schedules (sol/model/checkpoint.hpp) drawn for the report.
#include <cstdint>
#include <string>
#include <vector>

#include "sol/model/checkpoint.hpp"

namespace sol::report {

// The schedules as a picture (SVG text): one row per plan, one column per layer × (its input and
// each op that saves something); a filled cell where the plan keeps that tensor through the forward,
// a pale one where it is rebuilt; each plan's peak as a bar beside it, with the budget marked.
std::string plans_svg(const model::LayerModel& layer, int64_t layers, const std::vector<model::Plan>& plans, double budget_bytes,
                      const std::string& title);

}  // namespace sol::report

#pragma once
// The checkpoint planner's GPU proof as a harness entry point: the transformer stack
// (kernels/transformer/stack.hpp) run forward + backward under each plan's schedule on the
// device, its measured memory and step times filled in beside the plan.
#include <vector>

#include "sol/model/checkpoint.hpp"
#include "sol/model/checkpoint_measure.hpp"

namespace sol::bench {

// Selects device `ordinal`, builds the stack of m.shape and runs every plan: m.warmup steps, then
// m.reps timed ones; fills m.device and one m.schedules entry per plan, whose gradients are
// compared bit for bit with the first plan's. Throws sol::Error without a CUDA device, for a shape
// the stack does not run, or when a schedule leaves a gradient NaN or infinite.
void measure_checkpoint_plans(model::CheckpointMeasurement& m, const std::vector<model::Plan>& plans, int ordinal);

}  // namespace sol::bench

#include "sol/core/error.hpp"
#include "sol/sim/systolic.hpp"
namespace sol::sim {
LayerResult stepped(const Layer&, const ArrayConfig&, Model, const StepOptions&) { failure("todo"); }
}

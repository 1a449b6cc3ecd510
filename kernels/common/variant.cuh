#pragma once
// The registry-side helpers (kernels/common/spec.hpp) and the LaunchPlan → LaunchInfo conversion.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/launch.cuh"
#include "kernels/common/spec.hpp"
#include "sol/registry.hpp"

namespace sol::kernels {

inline LaunchInfo launch_info(const LaunchPlan& p) { return LaunchInfo{p.func, p.block, p.grid, p.smem}; }

}  // namespace sol::kernels

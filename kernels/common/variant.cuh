#pragma once
// What a variant's Case includes: the spec helpers (kernels/common/spec.hpp), the registry's types
// (Case, LaunchInfo) and the plans that fill a LaunchInfo (kernels/common/launch.cuh).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/launch.cuh"
#include "kernels/common/spec.hpp"
#include "sol/registry.hpp"

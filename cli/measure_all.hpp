#pragma once
// The bridge from `sol report` to the harness: is there a GPU, and measure the whole registry.
#include <string>
#include <vector>

#include "sol/results.hpp"

namespace sol::cli {

// True if a CUDA device can be used; otherwise *why says why not (no CUDA build, no device, ...).
bool gpu_present(std::string* why);
// Probe, then bench every family of the registry (with peers unless no_peers); writes
// out_dir/<family>.json and returns the files. *note describes what ran.
std::vector<results::File> measure_registry(bool no_peers, const std::string& out_dir, std::string* note);

}  // namespace sol::cli

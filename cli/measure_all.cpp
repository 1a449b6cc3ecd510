#include "cli/measure_all.hpp"

#include <cstdio>

#include "sol/core/error.hpp"
#include "sol/registry.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace sol::cli {

#ifndef SOL_WITH_CUDA
bool gpu_present(std::string* why) {
  *why = "this sol was built without CUDA (nvcc was not found at configure time)";
  return false;
}
std::vector<results::File> measure_registry(bool, const std::string&, std::string*) {
  failure("this sol was built without CUDA", "install the CUDA toolkit and rebuild");
}
#else
bool gpu_present(std::string* why) { return bench::gpu_available(why); }
std::vector<results::File> measure_registry(bool no_peers, const std::string& out_dir, std::string* note) {
  bench::RegistryRun run;
  run.peers = !no_peers;
  run.out_dir = out_dir;
  run.progress = [](const std::string& line) { std::fprintf(stderr, "sol: %s\n", line.c_str()); };
  return bench::measure_registry(run, note);
}
#endif

}  // namespace sol::cli

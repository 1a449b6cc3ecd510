#include "cli/measure_all.hpp"

#include "sol/core/error.hpp"
#include "sol/registry.hpp"

namespace sol::cli {

#ifndef SOL_WITH_CUDA
bool gpu_present(std::string* why) {
  *why = "this sol was built without CUDA (nvcc was not found at configure time)";
  return false;
}
std::vector<results::File> measure_registry(bool, const std::string&, std::string*) {
  failure("this sol was built without CUDA", "install the CUDA toolkit and rebuild");
}
#endif

}  // namespace sol::cli

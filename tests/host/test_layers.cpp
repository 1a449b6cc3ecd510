// The layers of docs/architecture.md, checked on the source tree: every quoted #include of a file
// in a lower layer names nothing from a layer above it. A violation is listed as file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Rule {
  std::vector<std::string> dirs;       // relative to the source root
  std::vector<std::string> forbidden;  // prefixes of a quoted include's path
};

// Quoted includes of every C++/CUDA file under the rule's folders that start with a forbidden prefix.
std::vector<std::string> violations(const Rule& rule) {
  const fs::path root = SOL_SOURCE_DIR;
  std::vector<std::string> out;
  for (const std::string& dir : rule.dirs) {
    if (!fs::exists(root / dir)) {
      out.push_back(dir + ": no such folder");
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".cuh" && ext != ".cu") continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const auto at = line.find("#include \"");
        if (at == std::string::npos) continue;
        const std::string path = line.substr(at + 10, line.find('"', at + 10) - at - 10);
        for (const std::string& bad : rule.forbidden)
          if (path.rfind(bad, 0) == 0)
            out.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) + ": " + path);
      }
    }
  }
  return out;
}

const std::vector<std::string> kAboveTheModels = {"sol/results.hpp", "sol/report", "sol/registry.hpp", "sol/kernels.hpp",
                                                  "../report/", "kernels/", "bench/", "cli/"};

TEST(Layers, HostLibraryBelowResultsSeesNoMeasurement) {
  const Rule rule{{"include/sol/core", "include/sol/hw", "include/sol/model", "include/sol/formats", "include/sol/sim",
                   "include/sol/ref", "src/core", "src/hw", "src/model", "src/formats", "src/sim", "src/ref"},
                  kAboveTheModels};
  const std::vector<std::string> v = violations(rule);
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

TEST(Layers, KernelsDoNotReachIntoTheHarnessOrTheCli) {
  const std::vector<std::string> v = violations({{"kernels"}, {"bench/", "cli/"}});
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

TEST(Layers, TheCliReachesKernelsThroughTheRegistryOrTheHarness) {
  const std::vector<std::string> v = violations({{"cli"}, {"kernels/"}});
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

TEST(Layers, TheCheckFindsAViolation) {
  // The rule itself: tests/host includes the library's headers, so forbidding them must report.
  EXPECT_FALSE(violations({{"tests/host"}, {"sol/"}}).empty());
  EXPECT_FALSE(violations({{"no/such/folder"}, {"x"}}).empty());
}

}  // namespace

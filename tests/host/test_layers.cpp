// The source tree checked as a whole: the layers of docs/architecture.md (every quoted #include
// of a file in a lower layer names nothing from a layer above it), and comments and docs that
// speak of the code, not of how its writing was organised. A violation is listed as file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
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

// Lines of the tree's own text (docs, sources, scripts) that match `pattern`; measured data,
// test inputs and this file are left out. Only lines holding one of `hints` are matched (std::regex
// is slow; a hint is a substring every match contains).
std::vector<std::string> lines_matching(const std::regex& pattern, const std::vector<std::string>& hints = {""}) {
  const fs::path root = SOL_SOURCE_DIR;
  std::vector<std::string> out;
  for (const char* dir : {"README.md", "docs", "include", "src", "kernels", "bench", "cli", "scripts", "tests"}) {
    if (!fs::exists(root / dir)) continue;
    std::vector<fs::path> files;
    if (fs::is_regular_file(root / dir)) files.push_back(root / dir);
    else
      for (const auto& e : fs::recursive_directory_iterator(root / dir))
        if (e.is_regular_file()) files.push_back(e.path());
    for (const fs::path& f : files) {
      const std::string rel = fs::relative(f, root).string();
      const std::string ext = f.extension().string();
      if (rel.rfind("bench/results/", 0) == 0 || rel.rfind("tests/data/", 0) == 0 || rel == "tests/host/test_layers.cpp")
        continue;
      if (ext != ".md" && ext != ".hpp" && ext != ".cpp" && ext != ".cuh" && ext != ".cu" && ext != ".py" && ext != ".sh")
        continue;
      std::ifstream in(f);
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        for (const std::string& hint : hints)
          if ((hint.empty() || line.find(hint) != std::string::npos) && std::regex_search(line, pattern))
          {
            out.push_back(rel + ":" + std::to_string(n) + ": " + line.substr(0, 80));
            break;
          }
    }
  }
  return out;
}

TEST(Tree, CommentsAndDocsSpeakOfTheCode) {
  // Work-tracking vocabulary: numbered issues and sessions, briefs, branches, who leads.
  const std::regex residue(R"(\b[Ii]ssue #?[0-9]|\b[Ss]essions? ?[0-9]|[Ss]ession[0-9]|\b[Tt]he brief\b|\bbrief's\b|)"
                           R"(\bthe lead\b|\bthis branch\b|None of it ran on a GPU)");
  const std::vector<std::string> hints = {"ssue", "ession", "brief", "lead", "branch", "None of it"};
  const std::vector<std::string> found = lines_matching(residue, hints);
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

TEST(Layers, TheCheckFindsAViolation) {
  // The rule itself: tests/host includes the library's headers, so forbidding them must report.
  EXPECT_FALSE(violations({{"tests/host"}, {"sol/"}}).empty());
  EXPECT_FALSE(violations({{"no/such/folder"}, {"x"}}).empty());
  EXPECT_FALSE(lines_matching(std::regex("sol::ref::")).empty());  // the text search finds text
}

}  // namespace

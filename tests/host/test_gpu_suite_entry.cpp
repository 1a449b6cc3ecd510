// tests/gpu/run-suite.sh, ctest's one entry for the GPU suite: a skip (exit 77) only when the
// suite passed with tests skipped; a failure beside skips stays a failure.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

namespace {

// The wrapper's exit status around a stand-in suite that prints `out` and exits with `rc`.
int wrapped(const std::string& out, int rc) {
  const std::string cmd = std::string(SOL_SOURCE_DIR) + "/tests/gpu/run-suite.sh sh -c \"printf '" + out +
                          "'; exit " + std::to_string(rc) + "\" >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(GpuSuiteEntry, SkipsOnlyWhenThePassingSuiteSkippedTests) {
  EXPECT_EQ(wrapped("[  PASSED  ] 3 tests.\\n[  SKIPPED ] 2 tests.\\n", 0), 77);
  EXPECT_EQ(wrapped("[  PASSED  ] 3 tests.\\n[  SKIPPED ] 1 test.\\n", 0), 77);
  EXPECT_EQ(wrapped("[  PASSED  ] 5 tests.\\n", 0), 0);
}

TEST(GpuSuiteEntry, AFailureBesideSkipsStaysAFailure) {
  EXPECT_EQ(wrapped("[  FAILED  ] 1 test.\\n[  SKIPPED ] 2 tests.\\n", 1), 1);
  EXPECT_EQ(wrapped("[  FAILED  ] 1 test.\\n", 1), 1);
  // A test's own output that mentions a skip mid-line is not the suite's summary.
  EXPECT_EQ(wrapped("note: [  SKIPPED ] 2 tests.\\n[  PASSED  ] 2 tests.\\n", 0), 0);
}

}  // namespace

// The CLI's shared grammar: sizes in one syntax, --json/--out, schema_version, --device, and
// did-you-mean in the one-line errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sol_cli.hpp"

namespace sol {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// A refused command: exit 2 and one line on stderr that holds every `needle`.
void expect_refused(const std::string& args, std::initializer_list<const char*> needles) {
  const test::CliRun r = test::run_sol(args);
  EXPECT_EQ(r.rc, 2) << args << "\n" << r.all();
  EXPECT_EQ(test::count_lines(r.err), 1) << args << "\n" << r.err;
  for (const char* n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << args << ": " << r.err;
}

TEST(CliGrammar, ParserBugsAreOneLineErrors) {
  expect_refused("roofline matmul --m 0^1 --n 1 --k 1", {"M ≥ 1"});  // a zero size, not SIGFPE
  expect_refused("roofline matmul --m 2^-1 --n 1 --k 1", {"--m", "exponent"});
  expect_refused("roofline matmul --m -2^3 --n 1 --k 1", {"--m", "negative"});
  expect_refused("roofline softmax --rows -9223372036854775808 --cols 4", {"--rows", "negative"});
  expect_refused("checkpoint --layers 2^-1 --batch 1 --seq 128 --d-model 128 --heads 2", {"--layers", "2^N"});
  expect_refused("occupancy --threads 128 --regs 32 --smem 1.5k", {"--smem", "GiB"});
}

TEST(CliGrammar, OneSyntaxForSizesEverywhere) {
  auto floor = [](const std::string& args) {
    const test::CliRun r = test::run_sol(args + " --json");
    EXPECT_EQ(r.rc, 0) << args << "\n" << r.all();
    return json::parse(r.out)["floor_s"].get<double>();
  };
  EXPECT_EQ(floor("roofline matmul --m 4k --n 2^12 --k 4096"), floor("roofline matmul --m 4096 --n 4096 --k 4096"));
  const auto gemm = [](const std::string& g) {
    const test::CliRun r = test::run_sol("systolic --array 32x32 --gemm " + g + " --json");
    EXPECT_EQ(r.rc, 0) << r.all();
    return json::parse(r.out)["total"]["cycles"].get<int64_t>();
  };
  EXPECT_EQ(gemm("100,100,100"), gemm("100x100x100"));
  const auto occ = [](const std::string& smem) {
    const test::CliRun r = test::run_sol("occupancy --gpu h200 --threads 128 --regs 32 --smem " + smem + " --json");
    EXPECT_EQ(r.rc, 0) << r.all();
    return json::parse(r.out)["static_shared_bytes"].get<int64_t>();
  };
  EXPECT_EQ(occ("48KiB"), 48 * 1024);
  EXPECT_EQ(occ("48k"), 48 * 1024);
  EXPECT_EQ(occ("48KB"), 48000);
}

TEST(CliGrammar, EveryJsonCarriesTheSchemaVersionAndOutWritesIt) {
  for (const char* args : {"roofline matmul --m 64 --n 64 --k 64", "hw show h200", "shapes gemm --m 64 --n 64 --k 64",
                           "occupancy --threads 128 --regs 32", "access coalescing", "access divergence --ways 2",
                           "access banks --stride 1", "systolic --array 8x8 --gemm 8x8x8", "cast --to bf16 1",
                           "quant --fmt mxfp8-e4m3 --rule ocp --dist normal --shape 64,64",
                           "checkpoint --layers 2 --batch 1 --seq 128 --d-model 128 --heads 2"}) {
    const test::CliRun r = test::run_sol(std::string(args) + " --json");
    ASSERT_EQ(r.rc, 0) << args << "\n" << r.all();
    const json j = json::parse(r.out);
    ASSERT_TRUE(j.is_object()) << args;
    EXPECT_EQ(j.begin().key(), "schema_version") << args;
    const fs::path file = fs::temp_directory_path() / ("sol-grammar-" + std::to_string(::getpid()) + ".json");
    const test::CliRun w = test::run_sol(std::string(args) + " --out " + file.string());
    EXPECT_EQ(w.rc, 0) << args << "\n" << w.all();
    EXPECT_EQ(w.out, "") << args;
    EXPECT_EQ(json::parse(test::slurp(file)), j) << args;
    fs::remove(file);
  }
}

TEST(CliGrammar, DidYouMean) {
  expect_refused("rooflin", {"did you mean 'roofline'"});
  expect_refused("roofline matmul --gpuu h100 --m 1 --n 1 --k 1", {"did you mean '--gpu'"});
  expect_refused("roofline matmull --m 1 --n 1 --k 1", {"did you mean 'matmul'"});
  expect_refused("access coalesing", {"did you mean 'coalescing'"});
  expect_refused("hw show h20", {"unknown hardware 'h20'; did you mean 'h200'?"});
}

TEST(CliGrammar, AFlagWhoseValueIsRefusedGetsNoSuggestionOfItself) {
  const fs::path file = fs::temp_directory_path() / ("sol-grammar-file-" + std::to_string(::getpid()));
  std::ofstream(file) << "{}";
  const test::CliRun r = test::run_sol("report --results " + file.string());
  EXPECT_EQ(r.rc, 2) << r.all();
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--results"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
  fs::remove(file);
}

// Plain digits are read exactly, so a value below a type's maximum is never called "more than" it.
TEST(CliGrammar, SizesInPlainDigitsAreReadExactly) {
  const test::CliRun r = test::run_sol("occupancy --threads 256 --regs 32 --smem 9223372036854775806 --dynamic-smem 1");
  EXPECT_EQ(r.rc, 2) << r.all();
  EXPECT_EQ(r.err.find("more than"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("9223372036854775806 static + 1 dynamic"), std::string::npos) << r.err;
  const test::CliRun ok = test::run_sol("occupancy --threads 256 --regs 32 --smem 9007199254740993 --json");
  ASSERT_EQ(ok.rc, 2) << ok.all();  // far past any SM, but read as the number given
  EXPECT_NE(ok.err.find("9007199254740993"), std::string::npos) << ok.err;
  expect_refused("occupancy --threads 256 --regs 32 --smem 9223372036854775808", {"--smem", "does not fit in 64 bits"});
}

TEST(CliGrammar, DeviceIsValidatedBeforeAnyGpuWork) {
  expect_refused("probe --device -1", {"--device", "negative"});
  expect_refused("doctor copy/v01_scalar --device x", {"--device"});
  expect_refused("checkpoint --layers 2 --batch 1 --seq 128 --d-model 128 --heads 2 --device 1", {"--measure"});
}

}  // namespace
}  // namespace sol

// The --hw-file format: every built-in row survives a JSON round trip; each class of bad file
// (missing field, impossible value, peak that disagrees with its derivation, name clash, bad
// JSON, wrong type) is rejected with BadInput naming file, row and field; a good file's rows
// become findable; "measured" reads the profile `sol probe` saves.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"

using namespace sol;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("sol_test_hw_json_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

// A valid user row: the h100 row renamed, so every field is present and consistent.
json user_row(const std::string& name) {
  json j = json::parse(hw::to_json(hw::find("h100")));
  j["name"] = name;
  j["full_name"] = "test chip " + name;
  return j;
}

// Loads `j` from a file named after the test and returns the BadInput line.
std::string rejection(const std::string& file, const json& j) {
  const std::string path = write_file(file, j.dump(1));
  try {
    hw::load_file(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput) << e.line();
    EXPECT_NE(e.line().find(path), std::string::npos) << "message does not name the file: " << e.line();
    EXPECT_EQ(e.line().find('\n'), std::string::npos) << "message is not one line: " << e.line();
    return e.line();
  }
  ADD_FAILURE() << file << " was accepted";
  return "";
}

void expect_mentions(const std::string& line, std::initializer_list<const char*> words) {
  for (const char* w : words) EXPECT_NE(line.find(w), std::string::npos) << "'" << w << "' missing from: " << line;
}

}  // namespace

TEST(HwJson, RoundTripEveryBuiltin) {
  for (const auto& s : hw::builtin()) {
    const std::string text = hw::to_json(s);
    const hw::HwSpec back = hw::from_json_text(text, "roundtrip");
    EXPECT_EQ(hw::to_json(back), text) << s.name;
    EXPECT_EQ(back.name, s.name);
    EXPECT_EQ(back.matrix_peaks.size(), s.matrix_peaks.size());
    EXPECT_EQ(back.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, s.peak(DType::bf16, hw::Unit::Matrix).flops_per_s);
    EXPECT_EQ(back.peak(DType::bf16, hw::Unit::Matrix).note, s.peak(DType::bf16, hw::Unit::Matrix).note);
    EXPECT_EQ(back.levels.size(), s.levels.size());
    EXPECT_EQ(back.levels.front().derivation, s.levels.front().derivation);
    EXPECT_EQ(back.limits.register_alloc_unit, s.limits.register_alloc_unit);
    EXPECT_EQ(back.limits.warp_size, s.limits.warp_size);
    EXPECT_EQ(back.chip_link.bytes_per_s, s.chip_link.bytes_per_s);
    EXPECT_EQ(back.sources, s.sources);
    EXPECT_EQ(back.measured, s.measured);
  }
}

TEST(HwJson, ValidFileMakesItsRowFindable) {
  const std::string path = write_file("valid.json", user_row("chip-valid").dump());
  const auto rows = hw::load_file(path);
  ASSERT_EQ(rows.size(), 1u);
  const hw::HwSpec& s = hw::find("CHIP-VALID");
  EXPECT_EQ(s.full_name, "test chip chip-valid");
  EXPECT_NEAR(s.ridge(DType::bf16, hw::Unit::Matrix), hw::find("h100").ridge(DType::bf16, hw::Unit::Matrix), 1e-9);
  const auto all = hw::all_specs();
  EXPECT_NE(std::find(all.begin(), all.end(), &s), all.end());
  // Loading the same file again replaces its rows rather than clashing with them.
  EXPECT_NO_THROW(hw::load_file(path));
  EXPECT_EQ(&hw::find("chip-valid"), &s);
}

TEST(HwJson, ArrayOfRowsAndMinimalRow) {
  // A minimal row: no levels (HBM becomes the one level), a peak without flops_per_s (computed).
  json minimal = {{"name", "chip-minimal"},
                  {"full_name", "minimal"},
                  {"vendor", "acme"},
                  {"compute_units", 10},
                  {"hbm_bytes", 1e9},
                  {"hbm_bytes_per_s", 1e11},
                  {"sources", {"test"}},
                  {"matrix_peaks",
                   {{"bf16", {{"units", 10}, {"flops_per_clock_per_unit", 1000}, {"clock_hz", 1e9}, {"source", "t"}}}}}};
  const std::string path = write_file("array.json", json::array({user_row("chip-array"), minimal}).dump());
  EXPECT_EQ(hw::load_file(path).size(), 2u);
  const hw::HwSpec& m = hw::find("chip-minimal");
  EXPECT_DOUBLE_EQ(m.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, 1e13);
  ASSERT_EQ(m.levels.size(), 1u);
  EXPECT_EQ(m.levels[0].name, "HBM");
  EXPECT_DOUBLE_EQ(m.ridge(DType::bf16, hw::Unit::Matrix), 100.0);
  EXPECT_EQ(hw::find("chip-array").compute_units, 132);
}

TEST(HwJson, BadRowLeavesNothingLoaded) {
  json bad = user_row("chip-bad-second");
  bad["hbm_bytes_per_s"] = 0;
  const std::string line = rejection("half_bad.json", json::array({user_row("chip-good-first"), bad}));
  expect_mentions(line, {"chip-bad-second", "hbm_bytes_per_s"});
  EXPECT_THROW(hw::find("chip-good-first"), Error);
}

TEST(HwJson, MissingFields) {
  json j = user_row("chip-missing");
  j.erase("hbm_bytes_per_s");
  expect_mentions(rejection("missing_bw.json", j), {"chip-missing", "'hbm_bytes_per_s'", "missing"});

  j = user_row("chip-missing-clock");
  j["matrix_peaks"]["bf16"].erase("clock_hz");
  expect_mentions(rejection("missing_clock.json", j), {"matrix_peaks.bf16.clock_hz", "missing"});

  j = user_row("chip-missing-source");
  j.erase("sources");
  expect_mentions(rejection("missing_sources.json", j), {"'sources'"});

  j = user_row("chip-x");
  j.erase("name");
  expect_mentions(rejection("missing_name.json", j), {"row 0", "'name'", "missing"});
}

TEST(HwJson, ImpossibleValues) {
  json j = user_row("chip-zero-bw");
  j["hbm_bytes_per_s"] = 0;
  expect_mentions(rejection("zero_bw.json", j), {"'hbm_bytes_per_s'", "> 0"});

  j = user_row("chip-neg-level");
  j["levels"][1]["bytes_per_s"] = -5;
  expect_mentions(rejection("neg_level.json", j), {"levels[1].bytes_per_s"});

  j = user_row("chip-zero-clock");
  j["vector_peaks"]["fp32"]["clock_hz"] = 0;
  expect_mentions(rejection("zero_clock.json", j), {"vector_peaks.fp32.clock_hz"});

  j = user_row("chip-order");
  std::swap(j["levels"][0], j["levels"][2]);  // L2 before registers
  expect_mentions(rejection("order.json", j), {"levels[", "fastest first"});

  j = user_row("chip-no-hbm");
  j["levels"].erase(j["levels"].size() - 1);
  expect_mentions(rejection("no_hbm.json", j), {"'levels'", "HBM"});

  j = user_row("chip-units");
  j["compute_units"] = -1;
  expect_mentions(rejection("units.json", j), {"'compute_units'"});

  j = user_row("chip-empty-source");
  j["matrix_peaks"]["fp8"]["source"] = "";
  expect_mentions(rejection("empty_source.json", j), {"matrix_peaks.fp8.source"});
}

TEST(HwJson, PeakMustAgreeWithItsDerivation) {
  json j = user_row("chip-peak-off");
  const double stated = j["matrix_peaks"]["bf16"]["flops_per_s"].get<double>();
  j["matrix_peaks"]["bf16"]["flops_per_s"] = stated * 1.03;  // 3 % above units × rate × clock
  expect_mentions(rejection("peak_off.json", j), {"matrix_peaks.bf16.flops_per_s", "2 %"});

  // The 1070 TFLOP/s mistake: h100's 528 × 1024 at the boost clock, stated as the 989 figure.
  j = user_row("chip-boost-mistake");
  j["matrix_peaks"]["bf16"]["clock_hz"] = 1.98e9;
  expect_mentions(rejection("boost_mistake.json", j), {"matrix_peaks.bf16.flops_per_s"});

  // Within 2 % is a vendor's rounding and is accepted.
  j = user_row("chip-peak-rounded");
  j["matrix_peaks"]["bf16"]["flops_per_s"] = stated * 1.015;
  EXPECT_NO_THROW(hw::load_file(write_file("peak_rounded.json", j.dump())));
}

TEST(HwJson, NameClashes) {
  expect_mentions(rejection("clash.json", user_row("H100")), {"'name'", "built-in"});
  expect_mentions(rejection("clash_measured.json", user_row("measured")), {"'name'"});
  expect_mentions(rejection("clash_twice.json", json::array({user_row("chip-twice"), user_row("chip-twice")})),
                  {"chip-twice", "twice"});
  hw::load_file(write_file("first_owner.json", user_row("chip-owned").dump()));
  expect_mentions(rejection("second_owner.json", user_row("chip-owned")), {"chip-owned", "first_owner.json"});
  expect_mentions(rejection("bad_chars.json", user_row("my chip")), {"'name'"});
}

TEST(HwJson, BadJsonAndWrongTypes) {
  const std::string path = write_file("broken.json", "{ \"name\": \"x\", ");
  try {
    hw::load_file(path);
    ADD_FAILURE() << "broken JSON accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    expect_mentions(e.line(), {"bad JSON", "broken.json"});
  }

  json j = user_row("chip-type");
  j["compute_units"] = "132";
  expect_mentions(rejection("type_units.json", j), {"'compute_units'", "number", "string"});

  j = user_row("chip-type-sources");
  j["sources"] = "a single string";
  expect_mentions(rejection("type_sources.json", j), {"'sources'", "array"});

  j = user_row("chip-type-peaks");
  j["matrix_peaks"] = json::array();
  expect_mentions(rejection("type_peaks.json", j), {"'matrix_peaks'", "object"});

  j = user_row("chip-fraction");
  j["limits"]["max_warps_per_sm"] = 64.5;
  expect_mentions(rejection("type_int.json", j), {"limits.max_warps_per_sm", "integer"});

  j = user_row("chip-typo");
  j["hbm_bandwidth"] = 1e12;
  expect_mentions(rejection("typo.json", j), {"'hbm_bandwidth'", "not a known field"});

  j = user_row("chip-dtype");
  j["matrix_peaks"]["fp12"] = j["matrix_peaks"]["bf16"];
  expect_mentions(rejection("dtype.json", j), {"matrix_peaks.fp12"});

  expect_mentions(rejection("scalar.json", json(42)), {"row 0", "object"});
  expect_mentions(rejection("empty_array.json", json::array()), {"no rows"});
}

TEST(HwJson, MissingFileIsBadInput) {
  try {
    hw::load_file((temp_dir() / "does_not_exist.json").string());
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    expect_mentions(e.line(), {"does_not_exist.json"});
  }
}

TEST(HwMeasured, ProfilePathFollowsSolProfile) {
  ::setenv("SOL_PROFILE", "/some/where/profile.json", 1);
  EXPECT_EQ(hw::measured_profile_path(), "/some/where/profile.json");
  ::unsetenv("SOL_PROFILE");
  const char* home = std::getenv("HOME");
  if (home) {
    EXPECT_EQ(hw::measured_profile_path(), std::string(home) + "/.cache/sol/measured.json");
  }
}

TEST(HwMeasured, AbsentProfileTellsTheUserToProbe) {
  ::setenv("SOL_PROFILE", (temp_dir() / "no_profile.json").c_str(), 1);
  try {
    hw::find("measured");
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    expect_mentions(e.line(), {"no_profile.json", "sol probe"});
  }
  ::unsetenv("SOL_PROFILE");
}

TEST(HwMeasured, ProfileIsFoundAndMustBeMarkedMeasured) {
  json j = user_row("h200-probed");
  j["measured"] = true;
  j["matrix_peaks"]["bf16"]["clock_hz"] = 1.5e9;  // a measured rate as an effective clock
  j["matrix_peaks"]["bf16"].erase("flops_per_s");
  ::setenv("SOL_PROFILE", write_file("measured.json", j.dump()).c_str(), 1);
  const hw::HwSpec& m = hw::find("measured");
  EXPECT_TRUE(m.measured);
  EXPECT_EQ(m.name, "h200-probed");
  EXPECT_DOUBLE_EQ(m.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, 528 * 1024 * 1.5e9);

  j["measured"] = false;
  ::setenv("SOL_PROFILE", write_file("not_measured.json", j.dump()).c_str(), 1);
  EXPECT_THROW(hw::find("measured"), Error);
  ::unsetenv("SOL_PROFILE");
}

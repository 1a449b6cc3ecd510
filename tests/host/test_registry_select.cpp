// Choosing variants by "family" or "family/prefix", the error line for a name that matches
// nothing (with the closest name when it looks like a typo), and `sol list` within a terminal.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/registry.hpp"
#include "tests/host/sol_cli.hpp"

namespace {

std::vector<sol::Variant> catalogue() {
  std::vector<sol::Variant> all;
  for (auto [family, name] : {std::pair{"layernorm", "v01_eager_bf16"}, {"layernorm", "v03_one_read_bf16"},
                              {"layernorm", "v03_one_read_fp32"}, {"layernorm_bwd", "v03_one_read_bf16"},
                              {"gemm_fp32", "peer:cublas"}, {"gemm_fp32", "peer:cublas_tf32"}}) {
    sol::Variant v;
    v.family = family;
    v.name = name;
    all.push_back(v);
  }
  return all;
}

std::vector<std::string> ids(const std::vector<const sol::Variant*>& vs) {
  std::vector<std::string> out;
  for (const sol::Variant* v : vs) out.push_back(v->family + "/" + v->name);
  return out;
}

std::string error_of(const std::vector<sol::Variant>& all, const std::string& pattern) {
  try {
    sol::select(all, pattern);
  } catch (const sol::Error& e) {
    return e.line();
  }
  return "(no error)";
}

}  // namespace

TEST(RegistrySelect, FamilyPrefixAndExactName) {
  const auto all = catalogue();
  EXPECT_EQ(sol::select(all, "").size(), all.size());
  EXPECT_EQ(ids(sol::select(all, "layernorm")),
            (std::vector<std::string>{"layernorm/v01_eager_bf16", "layernorm/v03_one_read_bf16", "layernorm/v03_one_read_fp32"}));
  EXPECT_EQ(ids(sol::select(all, "layernorm/v03")),
            (std::vector<std::string>{"layernorm/v03_one_read_bf16", "layernorm/v03_one_read_fp32"}));
  // A name given in full picks that variant alone, even where it is the start of another's.
  EXPECT_EQ(ids(sol::select(all, "gemm_fp32/peer:cublas")), (std::vector<std::string>{"gemm_fp32/peer:cublas"}));
  EXPECT_EQ(ids(sol::select(all, "gemm_fp32/peer:")).size(), 2u);
}

TEST(RegistrySelect, UnknownNamesSuggestTheClosest) {
  const auto all = catalogue();
  EXPECT_NE(error_of(all, "layernrom").find("no family 'layernrom'"), std::string::npos);
  EXPECT_NE(error_of(all, "layernrom").find("did you mean 'layernorm'?"), std::string::npos);
  EXPECT_NE(error_of(all, "layernorm_bdw/v03").find("did you mean 'layernorm_bwd'?"), std::string::npos);
  EXPECT_NE(error_of(all, "layernorm/v03_one_raed").find("did you mean 'v03_one_read_bf16'?"), std::string::npos);
  // Nothing close: no guess, but the list to choose from.
  const std::string far = error_of(all, "quantum");
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
  EXPECT_NE(far.find("families: layernorm, layernorm_bwd, gemm_fp32"), std::string::npos) << far;
  const std::string v09 = error_of(all, "layernorm/v09");
  EXPECT_NE(v09.find("no variant of layernorm starts with 'v09'"), std::string::npos) << v09;
  EXPECT_NE(v09.find("v01_eager_bf16, v03_one_read_bf16, v03_one_read_fp32"), std::string::npos) << v09;
}

TEST(RegistrySelect, ListFitsATerminalAndTakesPrefixes) {
  const auto r = sol::test::run_sol("list");
  ASSERT_EQ(r.rc, 0) << r.all();
  std::istringstream lines(r.out);
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) EXPECT_LE(sol::display_width(line), 100u) << line;
  EXPECT_GT(rows, int(sol::registry().size()));
  // The technique is wrapped beneath its row; --wide keeps it on the row, --json has it whole.
  const sol::Variant& first = sol::registry().front();
  const auto wide = sol::test::run_sol("list --wide");
  ASSERT_EQ(wide.rc, 0);
  EXPECT_NE(wide.out.find(first.technique), std::string::npos) << wide.out;

  const std::string prefix = first.family + "/" + first.name.substr(0, 2);
  const auto some = sol::test::run_sol("list " + prefix + " --json");
  ASSERT_EQ(some.rc, 0) << some.all();
  EXPECT_EQ(nlohmann::json::parse(some.out).size(), sol::select(prefix).size());

  const auto typo = sol::test::run_sol("list " + first.family + "x");
  EXPECT_EQ(typo.rc, 2);
  EXPECT_EQ(sol::test::count_lines(typo.err), 1) << typo.err;
  EXPECT_NE(typo.err.find("did you mean '" + first.family + "'?"), std::string::npos) << typo.err;
}

// A variant runs from min_cc up to max_cc (0: no bound); Hopper-only rungs (sm_90a code) are
// refused on every other device, sm_100 included, before anything is launched.
TEST(RegistryArch, ComputeCapabilityRange) {
  sol::Variant any;
  any.min_cc = 80;
  EXPECT_NE(any.cc_refusal(75), "");
  for (int cc : {80, 89, 90, 100, 120}) EXPECT_EQ(any.cc_refusal(cc), "") << cc;
  sol::Variant hopper;
  hopper.min_cc = hopper.max_cc = 90;
  EXPECT_EQ(hopper.cc_refusal(90), "");
  EXPECT_NE(hopper.cc_refusal(89), "");
  EXPECT_NE(hopper.cc_refusal(100).find("sm_90a"), std::string::npos) << hopper.cc_refusal(100);
}

TEST(RegistryArch, HopperOnlyRungsStopAtSm90) {
  // The rungs whose kernels include kernels/common/hopper (compiled for sm_90a alone).
  std::set<std::string> hopper;
  if (sol::built_with_cuda()) {
    for (const char* f : {"gemm_bf16", "gemm_fp16", "gemm_fp8"})
      for (const char* r : {"v03_wgmma_tma", "v04_warp_specialized", "v05_persistent", "v06_cluster_multicast",
                            "v07_tma_store", "v08_tile_choice"})
        hopper.insert(std::string(f) + "/" + r);
    for (const char* id : {"attention/v04_flash_wgmma", "attention/v05_flash_wgmma_overlap",
                           "attention_bwd/v03_flash_bwd_wgmma", "attention_bwd/v04_flash_bwd_2wg"})
      hopper.insert(id);
  }
  size_t seen = 0;
  for (const sol::Variant& v : sol::registry()) {
    const std::string id = v.family + "/" + v.name;
    const bool only90 = hopper.count(id) > 0;
    seen += only90;
    EXPECT_EQ(v.max_cc, only90 ? 90 : 0) << id;
    EXPECT_EQ(v.cc_refusal(100).empty(), !only90 && v.min_cc <= 100) << id;
  }
  EXPECT_EQ(seen, hopper.size());
}

// Every family's ladder is whole: its rungs are v01 … vN with none missing, each name starting with
// its own number (a rung dropped while the registry is built would leave a gap).
TEST(RegistryLadder, EveryFamilyHasEveryRung) {
  std::map<std::string, std::set<int>> versions;
  for (const sol::Variant& v : sol::registry()) {
    if (v.is_peer() || v.is_dispatch()) continue;
    versions[v.family].insert(v.version);
    const std::string tag = (v.version < 10 ? "v0" : "v") + std::to_string(v.version) + "_";
    EXPECT_EQ(v.name.rfind(tag, 0), 0u) << v.family << "/" << v.name << " is rung " << v.version;
  }
  for (const char* f : {"softmax", "layernorm", "rmsnorm", "crossentropy", "softmax_bwd", "copy"})
    EXPECT_TRUE(versions.count(f)) << f;
  for (const auto& [family, vs] : versions) {
    int want = 1;
    for (int v : vs) {
      if (v != want) ADD_FAILURE() << family << ": rung " << want << " is missing (the next is " << v << ")";
      want = v + 1;
    }
  }
}

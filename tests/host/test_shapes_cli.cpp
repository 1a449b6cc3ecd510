// `sol occupancy`, `sol shapes` and `sol access` as a user runs them (the built binary, SOL_BIN),
// and the generated sections of docs/shapes.md and docs/access.md: each block that follows a
// `<!-- sol ARGS -->` line must be exactly what `sol ARGS` prints now (SOL_UPDATE_DOCS=1 rewrites them).
#include <gtest/gtest.h>

#include <regex>

#include "tests/host/sol_cli.hpp"
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

using json = nlohmann::json;

namespace {

struct Ran {
  int rc = -1;
  std::string out;
};

// Runs `sol ARGS` from the source tree (so that bench/results paths resolve); stderr joins stdout.
Ran run_cli(const std::string& args) {
  const auto r = sol::test::run_sol(args, sol::test::with_cwd(SOL_SOURCE_DIR));
  return {r.rc, r.all()};
}

json sol_json(const std::string& args) {
  const Ran r = run_cli(args + " --json");
  EXPECT_EQ(r.rc, 0) << args << "\n" << r.out;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << args << ": not JSON: " << r.out;
    return json::object();
  }
}

}  // namespace

TEST(OccupancyCli, LectureAndCannotFit) {
  // The lecture: 64 registers per thread on an A100 → 32 of 64 warps.
  json j = sol_json("occupancy --gpu a100 --threads 256 --regs 64");
  EXPECT_EQ(j["active_blocks_per_sm"], 4);
  EXPECT_EQ(j["active_warps_per_sm"], 32);
  EXPECT_DOUBLE_EQ(j["occupancy"].get<double>(), 0.5);
  EXPECT_EQ(j["limiter"], "registers");
  EXPECT_EQ(j["fits"], true);
  // 48 KiB static + 1 KiB reserved per block: 228 KiB / 49 KiB = 4 blocks on H200.
  j = sol_json("occupancy --gpu h200 --threads 128 --regs 32 --smem 49152");
  EXPECT_EQ(j["active_blocks_per_sm"], 4);
  EXPECT_EQ(j["limiter"], "shared memory");
  // 1024 threads × 255 registers cannot be resident at all.
  j = sol_json("occupancy --gpu h200 --threads 1024 --regs 255");
  EXPECT_EQ(j["fits"], false);
  EXPECT_EQ(j["active_blocks_per_sm"], 0);
  const Ran text = run_cli("occupancy --gpu h200 --threads 1024 --regs 255");
  EXPECT_NE(text.out.find("does not fit"), std::string::npos) << text.out;
  for (const char* bad : {"--gpu h200 --threads 0 --regs 32", "--gpu h200 --threads 256 --regs 300",
                          "--gpu tpu-v5e --threads 256 --regs 32", "--gpu nosuch --threads 256 --regs 32",
                          "--gpu h200 --threads 256 --regs 32 --smem 300000"}) {
    const Ran r = run_cli(std::string("occupancy ") + bad);
    EXPECT_EQ(r.rc, 2) << bad << "\n" << r.out;
    EXPECT_NE(r.out.find("sol: error:"), std::string::npos) << r.out;
  }
}

TEST(OccupancyCli, Carveout) {
  // 30000 B dynamic + 1 KiB → 31104 B per block: 7 blocks in 228 KiB by default; 50 % asks for
  // 116736 B, which rounds up to the 132 KiB step → 4 blocks.
  json j = sol_json("occupancy --gpu h200 --threads 128 --regs 32 --dynamic-smem 30000");
  EXPECT_TRUE(j["carveout_fraction"].is_null());
  EXPECT_EQ(j["carveout_bytes"], 228 * 1024);
  EXPECT_EQ(j["active_blocks_per_sm"], 7);
  j = sol_json("occupancy --gpu h200 --threads 128 --regs 32 --dynamic-smem 30000 --carveout 50");
  EXPECT_DOUBLE_EQ(j["carveout_fraction"].get<double>(), 0.5);
  EXPECT_EQ(j["preferred_carveout_bytes"], 132 * 1024);
  EXPECT_EQ(j["carveout_bytes"], 132 * 1024);
  EXPECT_EQ(j["active_blocks_per_sm"], 4);
  EXPECT_EQ(j["carveout_steps"].size(), 10u);
  const Ran text = run_cli("occupancy --gpu h200 --threads 128 --regs 32 --carveout 0");
  // Long lines wrap at 100 columns: compare with the line breaks as spaces.
  EXPECT_NE(std::regex_replace(text.out, std::regex("\\s+"), " ").find("the driver takes 8 KiB"), std::string::npos)
      << text.out;
  for (const char* bad : {"--carveout 101", "--carveout -2", "--carveout half"}) {
    const Ran r = run_cli(std::string("occupancy --gpu h200 --threads 128 --regs 32 ") + bad);
    EXPECT_EQ(r.rc, 2) << bad << "\n" << r.out;
    EXPECT_EQ(sol::test::count_lines(r.out), 1) << bad << "\n" << r.out;
  }
}

TEST(ShapesCli, GemmAndSweep) {
  json j = sol_json("shapes gemm --m 1793 --n 1793 --k 1793 --dtype bf16 --gpu h200");
  EXPECT_EQ(j["tiles"], 120);
  EXPECT_EQ(j["tile"], "128x256x64");
  EXPECT_EQ(j["alignment"][0]["class"], "narrow");
  EXPECT_NEAR(j["alignment_efficiency"].get<double>(), 0.125, 1e-12);
  j = sol_json("shapes gemm --sweep 1792:1800:4 --k 512 --dtype fp16 --gpu h100 --tile 128x128x64");
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_EQ(j["points"][2]["m"], 1800);
  EXPECT_EQ(j["points"][2]["k"], 512);
  const Ran table = run_cli("shapes gemm --sweep 1790:1794:1 --gpu h200");
  EXPECT_EQ(table.rc, 0) << table.out;
  EXPECT_NE(table.out.find("1793"), std::string::npos);
  for (const char* bad : {"shapes gemm --m 0 --n 1 --k 1", "shapes gemm --m 8 --n 8", "shapes gemm --sweep 4:1:1",
                          "shapes gemm --m 8 --n 8 --k 8 --tile 8x8", "shapes conv --m 8 --n 8 --k 8",
                          "shapes gemm --m 8 --n 8 --k 8 --dtype int3"}) {
    const Ran r = run_cli(bad);
    EXPECT_EQ(r.rc, 2) << bad << "\n" << r.out;
  }
}

TEST(AccessCli, ThreeModels) {
  EXPECT_EQ(sol_json("access coalescing --elem 4 --stride 1")["sectors_per_request"], 4);
  EXPECT_EQ(sol_json("access coalescing --elem 4 --stride 64")["sectors_per_request"], 32);
  EXPECT_EQ(sol_json("access coalescing --elem 4 --addresses 0,4,8,12")["sectors_per_request"], 1);
  EXPECT_EQ(sol_json("access banks --elem 4 --stride 32 --row 32")["conflict_degree"], 32);
  EXPECT_EQ(sol_json("access banks --elem 4 --stride 32 --row 32 --pad 1")["conflict_degree"], 1);
  EXPECT_EQ(sol_json("access banks --elem 4 --stride 32 --row 32 --swizzle")["conflict_degree"], 1);
  EXPECT_EQ(sol_json("access banks --elem 4 --stride 0")["broadcast"], true);
  EXPECT_DOUBLE_EQ(sol_json("access divergence --ways 4")["efficiency"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(sol_json("access divergence --trips 1,3")["efficiency"].get<double>(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(sol_json("access divergence --base 0 --spread 1")["slowdown"].get<double>(), 2.0);
  const json rows = sol_json("access --against bench/results/h200/divergence.json");
  EXPECT_EQ(rows["rows"].size(), 8u);
  for (const char* bad : {"access coalescing --elem 3", "access banks --row 24 --swizzle --stride 24",
                          "access divergence", "access divergence --ways 2 --trips 1,2", "access smem",
                          "access coalescing --addresses 1,x", "access --against bench/results/h200/copy.json"}) {
    const Ran r = run_cli(bad);
    EXPECT_EQ(r.rc, 2) << bad << "\n" << r.out;
  }
}

TEST(GeneratedDocs, BlocksMatchTheCommandsThatMakeThem) {
  const bool update = std::getenv("SOL_UPDATE_DOCS") && std::string(std::getenv("SOL_UPDATE_DOCS")) == "1";
  for (const char* page : {"docs/shapes.md", "docs/access.md", "docs/gemm-sweep.md"}) {
    const std::string path = std::string(SOL_SOURCE_DIR) + "/" + page;
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::string rebuilt;
    int blocks = 0;
    size_t at = 0;
    const std::string open = "<!-- sol ", close = " -->\n", fence = "```\n", fence_text = "```text\n";
    for (;;) {
      const size_t m = text.find(open, at);
      if (m == std::string::npos) break;
      const size_t e = text.find(close, m);
      ASSERT_NE(e, std::string::npos) << page;
      const std::string args = text.substr(m + open.size(), e - m - open.size());
      const size_t body = e + close.size();
      const bool fenced = text.compare(body, fence_text.size(), fence_text) == 0;
      // A fenced block ends at the closing fence; a table (markdown) ends at the first blank line.
      const size_t end = fenced ? text.find(fence, body + fence_text.size()) + fence.size() : text.find("\n\n", body) + 1;
      ASSERT_GT(end, body) << page << ": no block after <!-- sol " << args << " -->";
      const Ran r = run_cli(args);
      EXPECT_EQ(r.rc, 0) << args << "\n" << r.out;
      const std::string want = fenced ? fence_text + r.out + fence : r.out;
      if (!update) {
        EXPECT_EQ(text.substr(body, end - body), want) << page << ": `sol " << args << "` changed; rerun with SOL_UPDATE_DOCS=1";
      }
      rebuilt += text.substr(at, body - at) + want;
      at = end;
      ++blocks;
    }
    rebuilt += text.substr(at);
    EXPECT_GE(blocks, 2) << page;
    if (update) std::ofstream(path) << rebuilt;
  }
}

// The HTML report's family tables and charts (src/report/html.cpp): every % of floor says which
// floor it is and the ceiling under it, a throttled time carries † with a footnote giving the
// reasons, and "vs fastest peer" is results::best_peer, as on the docs pages.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sol/hw/spec.hpp"
#include "sol/report.hpp"
#include "sol/results.hpp"

using namespace sol;

namespace {

const std::string kResults = std::string(SOL_SOURCE_DIR) + "/bench/results/h200";

results::Record rec(const std::string& variant, const std::string& shape, double t) {
  results::Record r;
  r.family = "relu";
  r.variant = variant;
  r.dtype = "bf16";
  r.shape = shape;
  r.median_s = t;
  r.samples = 50;
  r.verified = true;
  r.bytes = 4.0 * (1 << 26);
  r.bound = "memory";
  r.floor_measured_s = r.bytes / 4.25e12;
  r.floor_s = r.bytes / 4.8e12;
  return r;
}

report::Input input(std::vector<results::File> files) {
  report::Input in;
  in.hw = &hw::find("h200");
  in.measured = std::move(files);
  in.created = "2026-12-01T00:00:00Z";
  return in;
}

// A family of two rungs at two sizes and a peer; v02 was throttled at the larger size.
results::File relu_file() {
  results::File f;
  f.family = "relu";
  f.device.name = "NVIDIA H200";
  f.device.database_row = "h200";
  f.ceilings.copy_bytes_per_s = 4.25e12;
  f.records = {rec("v01_naive", "n=67108864", 90e-6),   rec("v01_naive", "n=134217728", 180e-6),
               rec("v02_vec", "n=67108864", 70e-6),     rec("v02_vec", "n=134217728", 140e-6),
               rec("peer:torch.relu", "n=67108864", 80e-6), rec("peer:torch.relu", "n=134217728", 160e-6),
               rec("peer:slow", "n=67108864", 200e-6)};
  for (auto& r : f.records)
    if (r.shape == "n=134217728") r.bytes *= 2, r.floor_measured_s *= 2, r.floor_s *= 2;
  f.records[2].throttled = true;
  f.records[2].throttle_reasons = "sw power cap";
  f.records[3].throttled = true;
  f.records[3].throttle_reasons = "sw power cap";
  return f;
}

// The part of the page from family `family`'s heading to the next heading.
std::string section(const std::string& html, const std::string& family) {
  const auto b = html.find("<h2 id='" + family + "'>");
  EXPECT_NE(b, std::string::npos) << family;
  if (b == std::string::npos) return "";
  return html.substr(b, html.find("<h2", b + 1) - b);
}

std::string table_of(const std::string& sec) { return sec.substr(0, sec.find("</table>")); }

}  // namespace

TEST(ReportFloor, OneSharedBaseIsSaidOnceUnderTheTable) {
  const std::string sec = section(report::html(input({relu_file()})), "relu");
  const std::string table = table_of(sec);
  EXPECT_NE(table.find("<th>% of floor (measured ceilings)</th>"), std::string::npos) << table;
  EXPECT_EQ(table.find("<th>floor base</th>"), std::string::npos) << table;
  EXPECT_NE(sec.find("Floor base: 4.25 TB/s copy (measured), the ceiling that binds every floor in this table."),
            std::string::npos)
      << sec;
  // the bar chart says the same
  EXPECT_NE(sec.find("relu: % of floor (measured ceilings) reached"), std::string::npos) << sec;
}

TEST(ReportFloor, DatasheetFloorsAndMixedBasesSayWhichTheyAre) {
  auto f = relu_file();
  for (auto& r : f.records) r.floor_measured_s = 0;  // only the datasheet's floor
  std::string table = table_of(section(report::html(input({f})), "relu"));
  EXPECT_NE(table.find("<th>% of datasheet floor</th>"), std::string::npos) << table;

  f = relu_file();
  f.records[2].floor_measured_base = "4.8 TB/s HBM (datasheet: not measured)";
  const std::string sec = section(report::html(input({f})), "relu");
  table = table_of(sec);
  EXPECT_NE(table.find("<th>% of floor (measured or datasheet)</th><th>floor base</th>"), std::string::npos)
      << table;
  EXPECT_NE(table.find("<td class='left'>4.8 TB/s HBM (datasheet: not measured)</td>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td class='left'>4.25 TB/s copy (measured)</td>"), std::string::npos) << table;
  EXPECT_EQ(sec.find("Floor base:"), std::string::npos);
}

TEST(ReportFloor, ThrottledTimesAreMarkedWithTheirReasons) {
  const std::string sec = section(report::html(input({relu_file()})), "relu");
  const std::string table = table_of(sec);
  EXPECT_NE(table.find("<td>70 †</td>"), std::string::npos) << table;  // v02_vec's median, in µs
  EXPECT_EQ(table.find("<td>90 †</td>"), std::string::npos) << table;
  EXPECT_NE(sec.find("†: timed while the GPU held its clocks down (v02_vec at n=67108864: sw power cap)"),
            std::string::npos)
      << sec;
  // the bar of that record, and the bandwidth chart's legend and tooltips across both sizes
  EXPECT_NE(sec.find("v02_vec †"), std::string::npos) << sec;
  EXPECT_NE(sec.find("v02_vec · n=134217728: 3835 GB/s †"), std::string::npos) << sec;
  EXPECT_NE(sec.find("(v02_vec at n=67108864, n=134217728: sw power cap)"), std::string::npos) << sec;
  EXPECT_EQ(sec.find("v01_naive †"), std::string::npos) << sec;

  // variants throttled for the same reasons at the same shapes are named together
  auto f = relu_file();
  f.records[0].throttled = true;
  f.records[0].throttle_reasons = "sw power cap";
  f.records[4].throttled = true;
  f.records[4].throttle_reasons = "hw slowdown";
  EXPECT_NE(section(report::html(input({f})), "relu")
                .find("(v01_naive, v02_vec at n=67108864: sw power cap; peer:torch.relu at n=67108864: hw slowdown)"),
            std::string::npos);

  for (auto& r : f.records) r.throttled = false;
  EXPECT_EQ(section(report::html(input({f})), "relu").find("†"), std::string::npos);
}

TEST(ReportFloor, VsPeerIsTheFastestComparablePeer) {
  auto f = relu_file();
  std::string table = table_of(section(report::html(input({f})), "relu"));
  // torch.relu (80 µs) beats peer:slow (200 µs): 80 / 70 for v02_vec, 80 / 90 for v01_naive; one
  // peer for every rung is named in the header. Its record has no timing field: a PyTorch peer of
  // a file written before the peers were device-timed, its host dispatch in its time: marked, noted.
  EXPECT_NE(table.find("<th>vs fastest peer, torch.relu ‡ (×)</th>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td>1.14</td>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td>0.89</td>"), std::string::npos) << table;
  const std::string sec = section(report::html(input({f})), "relu");
  EXPECT_NE(sec.find("‡: the peer was timed around one eager call"), std::string::npos) << sec;
  for (auto& r : f.records)
    if (r.variant == "peer:torch.relu") r.timing = "graph";
  table = table_of(section(report::html(input({f})), "relu"));
  EXPECT_NE(table.find("<th>vs fastest peer, torch.relu (×)</th>"), std::string::npos) << table;
  EXPECT_EQ(section(report::html(input({f})), "relu").find("‡"), std::string::npos);
  // a rung whose headline shape only peer:slow ran: each cell names its peer
  f.records.push_back(rec("v03_odd", "n=1000", 1e-6));
  f.records.push_back(rec("peer:slow", "n=1000", 3e-6));
  table = table_of(section(report::html(input({f})), "relu"));
  EXPECT_NE(table.find("<th>vs fastest peer</th>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td>1.14× torch.relu</td>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td>3.00× slow</td>"), std::string::npos) << table;
}

TEST(ReportFloor, CommittedResultsNameEveryBaseAndMarkEveryThrottledTime) {
  const auto files = results::read_dir(kResults);
  ASSERT_FALSE(files.empty());
  auto in = input(files);
  const std::string html = report::html(in);
  int throttled = 0;
  for (const auto& f : files) {
    if (report::is_sweep(f)) continue;
    const std::string sec = section(html, f.family), table = table_of(sec);
    EXPECT_EQ(table.find("<th>of floor (%)</th>"), std::string::npos) << f.family;
    EXPECT_TRUE(table.find("<th>% of floor (measured ceilings)</th>") != std::string::npos ||
                table.find("<th>% of datasheet floor</th>") != std::string::npos ||
                table.find("<th>% of floor (measured or datasheet)</th>") != std::string::npos)
        << f.family;
    // each headline record's base is on the page, in the table or under it
    std::map<std::string, bool> seen_variant;
    for (const auto& r : f.records) {
      if (seen_variant[r.variant] || !r.skipped.empty() || !(r.median_s > 0)) continue;
      seen_variant[r.variant] = true;
      const std::string base = results::floor_base(f, r);
      if (!base.empty()) {
        EXPECT_NE(sec.find(base), std::string::npos) << f.family << " " << r.variant << ": " << base;
      }
      if (r.throttled) {
        ++throttled;
        const auto at = sec.find("†: timed while the GPU held its clocks down");
        ASSERT_NE(at, std::string::npos) << f.family;
        const std::string note = sec.substr(at);
        EXPECT_NE(note.find(r.variant), std::string::npos) << f.family << " " << r.variant;
        EXPECT_NE(note.find(" at " + r.shape), std::string::npos) << f.family << " " << r.variant;
        EXPECT_NE(note.find(r.throttle_reasons + ")"), std::string::npos) << f.family << " " << r.variant;
      }
    }
  }
  EXPECT_GT(throttled, 0) << "the committed results hold throttled headline records";
}

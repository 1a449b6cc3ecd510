// The HTML report as a reader sees it: rendered from the committed H200 results, no two pieces of
// chart text overlap and every family has its charts; the plotter's ticks and labels are total.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <regex>

#include "../../src/report/svg.hpp"
#include "sol/registry.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/checkpoint_measure.hpp"
#include "sol/report.hpp"

using namespace sol;

namespace {

const std::string kResults = std::string(SOL_SOURCE_DIR) + "/bench/results/h200";

report::Input committed() {
  report::Input in;
  in.measured = results::read_dir(kResults);
  in.measured_profile = report::measured_profile_beside(kResults);
  in.checkpoint_markdown = model::measurement_markdown_in(kResults);
  in.hw = &hw::find(in.measured.front().device.database_row);
  in.model = report::lecture_operations(*in.hw);
  in.created = "2026-12-01T00:00:00Z";
  return in;
}

// A text element's extent, estimated the way a sans-serif font sets it: 0.6 em per character
// (bold 0.65), from 0.8 em above the baseline to 0.25 em below.
struct TextBox {
  double x0, y0, x1, y1;
  std::string text;
};

std::string attr(const std::string& tag, const std::string& name) {
  const std::regex re("\\s" + name + "='([^']*)'");
  std::smatch m;
  return std::regex_search(tag, m, re) ? m[1].str() : "";
}

size_t chars(const std::string& s) {
  std::string t = std::regex_replace(s, std::regex("&[a-z#0-9]+;"), "x");
  size_t n = 0;
  for (unsigned char c : t) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<TextBox> text_boxes(const std::string& svg) {
  std::vector<TextBox> out;
  const std::regex text_re("<text([^>]*)>(.*?)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
    const std::string tag = (*it)[1].str();
    if (!attr(tag, "transform").empty()) continue;  // the rotated axis title stands apart
    const std::string body = std::regex_replace((*it)[2].str(), std::regex("<title>.*?</title>"), "");
    if (body.empty()) continue;
    const double size = attr(tag, "font-size").empty() ? 12 : std::stod(attr(tag, "font-size"));
    const double w = (tag.find("bold") != std::string::npos ? 0.65 : 0.6) * size * chars(body);
    const double x = std::stod(attr(tag, "x")), y = std::stod(attr(tag, "y"));
    const std::string anchor = attr(tag, "text-anchor");
    const double x0 = anchor == "middle" ? x - w / 2 : anchor == "end" ? x - w : x;
    out.push_back({x0, y - 0.8 * size, x0 + w, y + 0.25 * size, body});
  }
  return out;
}

std::vector<std::string> svgs(const std::string& html) {
  std::vector<std::string> out;
  for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1))
    out.push_back(html.substr(p, html.find("</svg>", p) - p));
  return out;
}

// "a" against "b" where they overlap, or "".
std::string first_overlap(const std::string& svg) {
  const auto boxes = text_boxes(svg);
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const auto &a = boxes[i], &b = boxes[j];
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) return "'" + a.text + "' and '" + b.text + "'";
    }
  return "";
}

}  // namespace

TEST(ReportPage, CommittedResultsHaveNoOverlappingChartText) {
  const std::string html = report::html(committed());
  const auto charts = svgs(html);
  ASSERT_GE(charts.size(), 20u);
  for (const auto& svg : charts) {
    const std::string title = text_boxes(svg).empty() ? "" : text_boxes(svg).front().text;
    EXPECT_EQ(first_overlap(svg), "") << "in the chart '" << title << "'";
  }
}

TEST(ReportPage, EveryFamilyHasItsSectionAndCharts) {
  const auto in = committed();
  const std::string html = report::html(in);
  for (const auto& f : in.measured) {
    const std::string id = report::is_sweep(f) ? "gemm_sweep" : f.family;
    const auto at = html.find("<h2 id='" + id + "'>");
    ASSERT_NE(at, std::string::npos) << f.family;
    const auto next = html.find("<h2 ", at + 1);
    EXPECT_NE(html.substr(at, next - at).find("<svg"), std::string::npos) << f.family << " has no chart";
    EXPECT_NE(html.find("href='#" + id + "'"), std::string::npos) << f.family << " is not in the contents";
  }
  // memory families plot bandwidth against size with the measured copy ceiling
  for (const char* fam : {"copy", "elementwise", "layernorm", "softmax", "precision", "banks", "coalescing"}) {
    const auto at = html.find("<h2 id='" + std::string(fam) + "'>");
    const auto sec = html.substr(at, html.find("<h2 ", at + 1) - at);
    EXPECT_NE(sec.find("achieved bandwidth across sizes"), std::string::npos) << fam;
    EXPECT_NE(sec.find("copy ceiling measured in the run"), std::string::npos) << fam;
  }
  // ids are page-wide: each chart clips to its own plot area
  std::set<std::string> ids;
  int clips = 0;
  const std::regex clip("<clipPath id='([^']+)'");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), clip); it != std::sregex_iterator(); ++it, ++clips)
    ids.insert((*it)[1].str());
  EXPECT_EQ(ids.size(), static_cast<size_t>(clips));
  EXPECT_NE(html.find("id='environment'"), std::string::npos);
  EXPECT_NE(html.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(html.find("driver 580"), std::string::npos);  // the device's driver line
  EXPECT_NE(html.find("<th>samples</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>spread (%)</th>"), std::string::npos);
}

TEST(ReportPage, OverviewDrawsEachTypesRoofAndDistinctFamilyColours) {
  const std::string html = report::html(committed());
  const auto at = html.find("<h2 id='overview'>");
  ASSERT_NE(at, std::string::npos);
  const std::string svg = svgs(html.substr(at)).front();
  for (const char* roof : {"fp8 matrix", "bf16 · fp16 matrix", "tf32 matrix", "fp32 vector"})
    EXPECT_NE(svg.find(roof), std::string::npos) << roof;
  // one legend entry per family, each with its own colour
  std::set<std::string> colours;
  int families = 0;
  const std::regex entry("<line x1='[0-9.]+' y1='[0-9.]+' x2='[0-9.]+' y2='[0-9.]+' stroke='(#[0-9a-f]{6})' "
                         "stroke-width='2'/><(circle|rect|polygon)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), entry); it != std::sregex_iterator(); ++it)
    colours.insert((*it)[1].str()), ++families;
  EXPECT_GE(families, 12);
  EXPECT_EQ(colours.size(), static_cast<size_t>(families));
}

TEST(ReportPage, SweepKeepsAlignedAndOddSizesApart) {
  const auto in = committed();
  for (const auto& f : in.measured)
    if (report::is_sweep(f)) {
      const std::string chart = report::sweep_chart(f, "gemm_bf16", *in.hw);
      ASSERT_FALSE(chart.empty());
      EXPECT_NE(chart.find("lines: N a multiple of 128"), std::string::npos);
      EXPECT_NE(chart.find("other N"), std::string::npos);
      // Each line joins aligned sizes only: none has more points than there are aligned cubes.
      std::set<int64_t> aligned;
      for (const auto& r : f.records)
        if (r.family == "gemm_bf16" && r.shape.find("k=") != std::string::npos) {
          const Shape s = Shape::parse(r.shape);
          if (s.at("m") == s.at("n") && s.at("n") == s.at("k") && s.at("n") % 128 == 0) aligned.insert(s.at("n"));
        }
      ASSERT_GE(aligned.size(), 3u);
      int lines = 0;
      for (size_t p = chart.find("<polyline"); p != std::string::npos; p = chart.find("<polyline", p + 1), ++lines) {
        const std::string pts = attr(chart.substr(p, chart.find("/>", p) - p), "points");
        EXPECT_LE(std::count(pts.begin(), pts.end(), ','), static_cast<long>(aligned.size()));
      }
      EXPECT_GE(lines, 2);
      return;
    }
  FAIL() << "no gemm_sweep.json in " << kResults;
}

TEST(ReportPage, FindingsAppearWhereRecordsCarryThem) {
  auto in = committed();
  std::string html = report::html(in);
  EXPECT_EQ(html.find("class='findings'"), std::string::npos);  // committed files carry none
  for (auto& f : in.measured)
    if (f.family == "copy")
      for (auto& r : f.records)
        if (r.variant == "v02_vec16") r.findings = {"DRAM throughput 91 % of peak: memory-bound, as modelled"};
  html = report::html(in);
  const auto at = html.find("class='findings'");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(at, html.find("<h2 id='copy'>"));
  EXPECT_NE(html.find("DRAM throughput 91 % of peak"), std::string::npos);
}

TEST(ReportPage, EnvironmentShowsWhatTheFilesRecord) {
  auto in = committed();
  for (auto& f : in.measured) f.environment.clear();  // as schema-1 files: no environment recorded
  std::string html = report::html(in);
  EXPECT_EQ(html.find("<th>torch</th>"), std::string::npos);
  in.measured.front().environment = {{"torch", "2.9.1+cu130"}, {"memory_clock", "3201 MHz"}};
  in.measured.back().environment = {{"torch", "2.9.0"}};
  html = report::html(in);
  const std::string env = html.substr(html.find("id='environment'"), html.find("id='overview'") - html.find("id='environment'"));
  EXPECT_NE(env.find("<th>torch</th><td class='prose'>2.9.1+cu130 / 2.9.0</td>"), std::string::npos) << env;
  EXPECT_NE(env.find("3201 MHz"), std::string::npos);
}

TEST(ReportSvg, TicksAreTotalAndBounded) {
  using report::svg::Axis;
  using report::svg::ticks;
  const double inf = INFINITY, nan = NAN;
  for (const Axis& a : {Axis{"", true, 0, 0}, Axis{"", true, 0, 1e4}, Axis{"", true, -5, 10}, Axis{"", true, nan, nan},
                        Axis{"", true, 1e-300, 1e300}, Axis{"", true, 10, 1}, Axis{"", true, 1e308, inf},
                        Axis{"", false, 0, 0}, Axis{"", false, nan, 1}, Axis{"", false, 1e300, 1e300 + 1},
                        Axis{"", false, -inf, inf}, Axis{"", false, 5, -5}}) {
    const auto t = ticks(a);
    EXPECT_LE(t.size(), 80u) << a.lo << " .. " << a.hi;
    for (double v : t) EXPECT_TRUE(std::isfinite(v)) << a.lo << " .. " << a.hi;
  }
  EXPECT_EQ(ticks(Axis{"", true, 1, 1000}).size(), 10u);  // 1 2 5 10 20 50 100 200 500 1000
}

TEST(ReportSvg, LongLabelsAreShortenedInTheMiddleWithTheFullNameAsTooltip) {
  EXPECT_EQ(report::svg::fit("short", 200, 12), "short");
  const std::string name = "v05_flash_wgmma_overlap · b=1,h=16,n=16384,d=128,causal=1";
  const std::string cut = report::svg::fit(name, 200, 12);
  EXPECT_LE(report::svg::text_width(cut, 12), 200);
  EXPECT_EQ(cut.substr(0, 3), "v05");
  EXPECT_NE(cut.find("…"), std::string::npos);
  EXPECT_EQ(cut.substr(cut.size() - 8), "causal=1");
  const std::string bars = report::svg::bar_chart("t", "x", {{name, 50, "50 %"}}, 100, "sol");
  EXPECT_NE(bars.find("<title>" + report::svg::escape(name) + "</title>"), std::string::npos);
}

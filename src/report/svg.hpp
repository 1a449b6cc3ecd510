#pragma once
// A small SVG plotter for the report: log or linear axes with labelled ticks, line/point series,
// arrows, and horizontal bar charts. Output is plain inline SVG text (no scripts, no fonts to load).
#include <string>
#include <utility>
#include <vector>

namespace sol::report::svg {

struct Axis {
  std::string label;  // with its unit: "arithmetic intensity (FLOP/byte)"
  bool log = true;
  double lo = 1, hi = 10;
};

struct Series {
  std::string label;
  std::string color = "#1f77b4";
  std::vector<std::pair<double, double>> points;
  bool line = true;        // join points
  bool dashed = false;
  bool markers = true;
  bool hollow = false;     // hollow markers (model) vs filled (measured)
  bool arrows = false;     // arrow heads between consecutive points (a ladder)
  std::vector<std::string> point_labels;  // optional, one per point
};

inline Series series(std::string label, std::string color) {
  Series s;
  s.label = std::move(label);
  s.color = std::move(color);
  return s;
}

std::string xy_chart(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series,
                     int width = 900, int height = 560);

struct Bar {
  std::string label;
  double value = 0;         // drawn length
  std::string value_text;   // printed at the bar's end
  std::string color = "#1f77b4";
};
// Horizontal bars on a linear axis from 0 to max(values, ref); a dashed line at `ref` (e.g. 100 %).
std::string bar_chart(const std::string& title, const std::string& axis_label, const std::vector<Bar>& bars,
                      double ref = 0, const std::string& ref_label = "", int width = 900);

std::string escape(const std::string& s);

}  // namespace sol::report::svg

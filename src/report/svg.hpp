#pragma once
// A small SVG plotter for the report: log or linear axes with labelled ticks, line/point series,
// arrows, and horizontal bar charts. Output is plain inline SVG text (no scripts, no fonts to load).
// Text never collides: point labels go through a placement step (beside the point, farther out
// with a leader line, or as a number in a key below the plot), the legend sits outside the plot
// area, and bar labels are shortened to the room they have, with the full name as a tooltip.
#include <string>
#include <utility>
#include <vector>

namespace sol::report::svg {

struct Axis {
  std::string label;  // with its unit: "arithmetic intensity (FLOP/byte)"
  bool log = true;
  double lo = 1, hi = 10;
};

enum class Marker { Circle, Square, Triangle, Diamond };

struct Series {
  std::string label;       // legend entry ("" = none)
  std::string color = "#1f77b4";
  std::vector<std::pair<double, double>> points;
  bool line = true;        // join points
  bool dashed = false;
  bool markers = true;
  bool hollow = false;     // hollow markers (model) vs filled (measured)
  bool arrows = false;     // arrow heads between consecutive points (a ladder)
  Marker marker = Marker::Circle;
  std::vector<std::string> point_labels;  // optional, one per point ("" = none); placed without overlap
  std::vector<std::string> point_titles;  // optional tooltips, one per point (default: label + point label)
  std::string end_label;  // named in the right margin at the height where the line ends (a roof)
};

inline Series series(std::string label, std::string color) {
  Series s;
  s.label = std::move(label);
  s.color = std::move(color);
  return s;
}

// `height` is the plot's; a key of labels that found no room near their points adds rows below.
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

// The approximate width in pixels of `s` in a sans-serif font of `size` px (a conservative
// average glyph width; counts UTF-8 code points).
double text_width(const std::string& s, double size);
// `s` shortened to at most `px` pixels with an ellipsis in the middle ("ash_wg…_overlap"); `s` if it fits.
std::string fit(const std::string& s, double px, double size);

// Log and linear ticks for an axis; total: a range that is empty, reversed, non-finite or (on a
// log axis) not positive gets a default, and the count is bounded.
std::vector<double> ticks(const Axis& a);

}  // namespace sol::report::svg

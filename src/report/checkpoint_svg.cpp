// The checkpoint planner's picture: which tensors each schedule keeps through the forward. A row per
// strategy; per layer one cell for its input and one per op that saves something. Dark: kept
// (a checkpointed input darker still); pale grey: inside a recomputed segment, rebuilt by re-running
// the segment; orange: dropped by the in-block choice, rebuilt in the layer's own backward.
#include <algorithm>
#include <cstdio>
#include <string>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/model/checkpoint.hpp"
#include "sol/report/checkpoint.hpp"
#include "svg.hpp"

namespace sol::report {
using namespace sol::model;  // the models drawn or set against measurement

namespace {

constexpr const char* kInputColor = "#1f3f66";     // a stored layer input (a checkpoint)
constexpr const char* kKeptColor = "#4a86c5";      // a stored activation
constexpr const char* kSegmentColor = "#e4e4e4";   // rebuilt by re-running a recomputed segment
constexpr const char* kDroppedColor = "#f0a04b";   // rebuilt by the in-block choice
constexpr const char* kBarColor = "#7a7a7a";
constexpr const char* kOverColor = "#c0392b";      // a peak above the budget

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string rect(double x, double y, double w, double h, const std::string& fill) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
         "\" fill=\"" + fill + "\"/>\n";
}

std::string text(double x, double y, const std::string& s, const std::string& extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + extra + ">" + report::svg::escape(s) + "</text>\n";
}

// The short column names under the key: "LN1", "QKV matmul" → "QKV", "attention (flash)" → "attn".
std::string short_name(const std::string& op) {
  if (op.rfind("attention", 0) == 0) return "attn";
  const auto space = op.find(' ');
  if (op.rfind("MLP", 0) == 0) return op.substr(space + 1);
  return space == std::string::npos ? op : op.substr(0, space);
}

}  // namespace

std::string plans_svg(const LayerModel& layer, int64_t layers, const std::vector<Plan>& plans, double budget_bytes,
                      const std::string& title) {
  if (plans.empty()) bad_input("no plans to draw");
  std::vector<size_t> columns;  // ops that save something
  for (size_t i = 0; i < layer.ops.size(); ++i)
    if (layer.ops[i].saved_bytes > 0) columns.push_back(i);
  const double per_layer = double(columns.size() + 1);

  const double width = 1400, label_w = 250, bar_w = 260, gap = 24, row_h = 24, top = 78;
  const double grid_w = width - label_w - bar_w - 2 * gap;
  const double layer_gap = layers > 64 ? 0 : 2;
  const double cell_w = (grid_w - layer_gap * double(layers - 1)) / (double(layers) * per_layer);
  const double layer_w = cell_w * per_layer + layer_gap;
  const double grid_x = label_w, bar_x = label_w + grid_w + gap;
  const double key_y = top + row_h * double(plans.size()) + 40;
  const double height = key_y + 96;

  double max_bytes = budget_bytes;
  for (const auto& p : plans) max_bytes = std::max(max_bytes, p.peak_bytes);
  const double bar_scale = (bar_w - 70) / max_bytes;

  std::string o = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
                  "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o += rect(0, 0, width, height, "#ffffff");
  o += text(12, 24, title, " font-size=\"15\" font-weight=\"bold\"");
  o += text(12, 44, "each layer: its input, then each op's saved tensors; dark = kept through the forward");
  // Layer numbers above the grid, at most ~16 of them.
  const int64_t every = std::max<int64_t>(1, (layers + 15) / 16);
  for (int64_t l = 0; l < layers; l += every)
    o += text(grid_x + double(l) * layer_w, top - 8, std::to_string(l), " font-size=\"10\" fill=\"#555\"");
  o += text(bar_x, top - 8, "peak activations", " font-size=\"11\" fill=\"#555\"");
  // The budget as a dashed line across the bars, under their labels.
  const double bx = bar_x + budget_bytes * bar_scale, y_end = top + row_h * double(plans.size());
  o += "<line x1=\"" + num(bx) + "\" y1=\"" + num(top - 4) + "\" x2=\"" + num(bx) + "\" y2=\"" + num(y_end) +
       "\" stroke=\"#000\" stroke-dasharray=\"4,3\"/>\n";
  o += text(bx - 30, y_end + 14, "budget " + bytes_iec(budget_bytes), " font-size=\"11\"");

  for (size_t r = 0; r < plans.size(); ++r) {
    const Plan& p = plans[r];
    const double y = top + row_h * double(r);
    o += text(12, y + row_h * 0.66, p.strategy);
    for (const auto& seg : p.segments)
      for (int64_t l = seg.first; l < seg.first + seg.length; ++l) {
        const double x0 = grid_x + double(l) * layer_w;
        const bool checkpoint = !seg.recompute || l == seg.first;
        o += rect(x0, y + 3, cell_w, row_h - 6, checkpoint ? kInputColor : kSegmentColor);
        for (size_t c = 0; c < columns.size(); ++c) {
          const bool kept = !seg.recompute && (p.in_block.keep.empty() || p.in_block.keep[columns[c]]);
          const char* fill = kept ? kKeptColor : seg.recompute ? kSegmentColor : kDroppedColor;
          o += rect(x0 + cell_w * double(c + 1), y + 3, cell_w, row_h - 6, fill);
        }
      }
    const bool over = p.peak_bytes > budget_bytes;
    o += rect(bar_x, y + 5, std::max(1.0, p.peak_bytes * bar_scale), row_h - 10, over ? kOverColor : kBarColor);
    o += text(bar_x + p.peak_bytes * bar_scale + 4, y + row_h * 0.66, bytes_iec(p.peak_bytes),
              " font-size=\"11\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\"");
  }

  // Key: one layer's columns drawn large with what each holds, then the colours.
  const double kw = 64;
  o += text(12, key_y + 14, "one layer's columns:");
  for (size_t c = 0; c <= columns.size(); ++c) {
    const double x = label_w + kw * double(c);
    o += rect(x, key_y, kw - 3, 18, c == 0 ? kInputColor : kKeptColor);
    const std::string name = c == 0 ? "input" : short_name(layer.ops[columns[c - 1]].name);
    o += text(x + 2, key_y + 32, name, " font-size=\"10\"");
    const double bytes = c == 0 ? layer.input_bytes : layer.ops[columns[c - 1]].saved_bytes;
    o += text(x + 2, key_y + 44, bytes_iec(bytes), " font-size=\"10\" fill=\"#555\"");
  }
  const std::pair<const char*, const char*> legend[] = {
      {kInputColor, "layer input kept (a checkpoint)"},
      {kKeptColor, "activation kept"},
      {kSegmentColor, "rebuilt by re-running its recomputed segment"},
      {kDroppedColor, "dropped in-block: rebuilt in the layer's backward"},
      {kOverColor, "peak above the budget"}};
  double lx = 12;
  for (const auto& [color, what] : legend) {
    o += rect(lx, key_y + 62, 14, 14, color);
    o += text(lx + 20, key_y + 74, what);
    lx += 30 + 6.3 * double(std::string(what).size());
  }
  o += "</svg>\n";
  return o;
}

}  // namespace sol::report

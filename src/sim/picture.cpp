// Drawing the array from the cycle-stepped engine's frames, as text or SVG (no dependencies):
// what entered at the edges, which cells multiplied, and which registers held moving data.
#include "sol/sim/picture.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "sol/core/error.hpp"

namespace sol::sim {

std::vector<Frame> capture_frames(const Layer& layer, const ArrayConfig& cfg, Model model, int64_t first_cycle,
                                  int64_t cycles) {
  if (cfg.rows > 64 || cfg.cols > 64)
    bad_input("the picture is drawn for arrays up to 64x64", "use e.g. --array 8x8 for the picture");
  if (first_cycle < 0 || cycles < 1 || cycles > 400) bad_input("picture cycles must be 1..400 from a cycle >= 0");
  // The engine steps every cell of every cycle up to the window's end, and no further.
  constexpr double kMaxCellUpdates = 1e8;
  if ((double(first_cycle) + double(cycles)) * double(cfg.rows) * double(cfg.cols) > kMaxCellUpdates)
    bad_input("a picture from cycle " + std::to_string(first_cycle) + " steps the array too long",
              "(first cycle + cycles) × rows × cols may be at most 1e8");
  struct WindowDrawn {};
  std::vector<Frame> frames;
  StepOptions opt;
  opt.check_values = false;
  opt.max_cell_updates = INT64_MAX;  // the window bounds the work, not the layer
  opt.on_cycle = [&](const Frame& f) {
    if (f.cycle >= first_cycle && f.cycle < first_cycle + cycles) frames.push_back(f);
    if (f.cycle + 1 >= first_cycle + cycles) throw WindowDrawn{};
  };
  try {
    stepped(layer, cfg, model, opt);
  } catch (const WindowDrawn&) {
  }
  return frames;
}

namespace {

char glyph(const Cell& c) {
  if (c.mac) return '#';
  if (c.horizontal) return '>';
  if (c.vertical) return 'v';
  if (c.stationary) return 'w';
  return '.';
}

std::string escaped(const std::string& t) {
  std::string o;
  for (char ch : t) o += ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '&' ? "&amp;" : std::string(1, ch);
  return o;
}

const char* names(Dataflow df) {
  switch (df) {
    case Dataflow::ws: return "weights stationary; ifmap enters left; partial sums flow down";
    case Dataflow::is: return "inputs stationary; filters enter left; partial sums flow down";
    case Dataflow::os: return "outputs stationary; ifmap enters left, filters from the top; results drain down";
  }
  return "";
}

}  // namespace

std::string picture_text(const std::vector<Frame>& frames, Dataflow df) {
  std::string out = std::string("# ") + names(df) + "\n# '#' MAC  '>' operand passing  'v' moving down  'w' loaded  '.' idle\n";
  for (const Frame& f : frames) {
    out += "\ncycle " + std::to_string(f.cycle) + "\n   ";
    for (int64_t c = 0; c < f.C; ++c) out += f.top_in[size_t(c)] ? " ↓" : "  ";
    out += "\n";
    for (int64_t r = 0; r < f.R; ++r) {
      out += f.left_in[size_t(r)] ? " → " : "   ";
      for (int64_t c = 0; c < f.C; ++c) out += std::string(" ") + glyph(f.cells[size_t(r * f.C + c)]);
      out += "\n";
    }
    out += "   ";
    for (int64_t c = 0; c < f.C; ++c) out += f.bottom_out[size_t(c)] ? " ↓" : "  ";
    out += "\n";
  }
  return out;
}

std::string picture_svg(const std::vector<Frame>& frames, Dataflow df, const std::string& title) {
  if (frames.empty()) bad_input("no frames to draw", "pick cycles inside the run");
  const int64_t R = frames[0].R, C = frames[0].C;
  const double cell = 14, gap = 28, pad = 18;
  const double fw = double(C) * cell + 2 * pad, fh = double(R) * cell + 2 * pad + 14;
  const int per_row = int(std::min<size_t>(frames.size(), size_t(std::max<int64_t>(1, 960 / int64_t(fw + gap)))));
  const int rows = int((frames.size() + size_t(per_row) - 1) / size_t(per_row));
  const double W = double(per_row) * (fw + gap) + gap, H = double(rows) * (fh + gap) + 70;
  char buf[512];
  std::string s;
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                W, H, W, H);
  s += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">%s</text>\n<text x=\"%.0f\" y=\"38\">%s</text>\n",
                gap, escaped(title).c_str(), gap, names(df));
  s += buf;
  std::snprintf(buf, sizeof buf,
                "<g transform=\"translate(%.0f,46)\"><rect width=\"10\" height=\"10\" fill=\"#d62728\"/><text x=\"14\" y=\"9\">MAC</text>"
                "<rect x=\"60\" width=\"10\" height=\"10\" fill=\"#9ecae1\"/><text x=\"74\" y=\"9\">operand passing</text>"
                "<rect x=\"175\" width=\"10\" height=\"10\" fill=\"#fdd0a2\"/><text x=\"189\" y=\"9\">moving down</text>"
                "<rect x=\"270\" width=\"10\" height=\"10\" fill=\"#e5e5e5\"/><text x=\"284\" y=\"9\">loaded, idle</text>"
                "<text x=\"370\" y=\"9\">▶ enters  ▼ leaves</text></g>\n",
                gap);
  s += buf;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    const double x0 = gap + double(i % size_t(per_row)) * (fw + gap), y0 = 70 + double(i / size_t(per_row)) * (fh + gap);
    std::snprintf(buf, sizeof buf, "<g transform=\"translate(%.1f,%.1f)\">\n<text x=\"%.1f\" y=\"10\">cycle %lld</text>\n",
                  x0, y0, pad, static_cast<long long>(f.cycle));
    s += buf;
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c) {
        const Cell& cl = f.cells[size_t(r * C + c)];
        const char* fill = cl.mac ? "#d62728" : cl.horizontal ? "#9ecae1" : cl.vertical ? "#fdd0a2" : cl.stationary ? "#e5e5e5" : "#ffffff";
        std::snprintf(buf, sizeof buf,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#999\" stroke-width=\"0.5\"/>\n",
                      pad + double(c) * cell, pad + double(r) * cell, cell, cell, fill);
        s += buf;
      }
    for (int64_t r = 0; r < R; ++r)
      if (f.left_in[size_t(r)]) {
        const double y = pad + (double(r) + 0.5) * cell;
        std::snprintf(buf, sizeof buf, "<path d=\"M%.1f %.1f l8 4 l-8 4 z\" fill=\"#1f77b4\"/>\n", pad - 11, y - 4);
        s += buf;
      }
    for (int64_t c = 0; c < C; ++c) {
      const double x = pad + (double(c) + 0.5) * cell;
      if (f.top_in[size_t(c)]) {
        std::snprintf(buf, sizeof buf, "<path d=\"M%.1f %.1f l8 0 l-4 8 z\" fill=\"#ff7f0e\"/>\n", x - 4, pad - 10);
        s += buf;
      }
      if (f.bottom_out[size_t(c)]) {
        std::snprintf(buf, sizeof buf, "<path d=\"M%.1f %.1f l8 0 l-4 8 z\" fill=\"#2ca02c\"/>\n", x - 4, pad + double(R) * cell + 2);
        s += buf;
      }
    }
    s += "</g>\n";
  }
  return s + "</svg>\n";
}

}  // namespace sol::sim

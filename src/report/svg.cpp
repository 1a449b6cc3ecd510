#include "svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace sol::report::svg {

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Tick text: 1, 10, 100, 1k, 10k ... and 0.1, 0.01 for log axes; plain %g for linear.
std::string tick_text(double v) {
  const char* suffix[] = {"", "k", "M", "G", "T", "P", "E"};
  if (v >= 1000) {
    int i = 0;
    while (v >= 1000 && i < 6) v /= 1000, ++i;
    char b[32];
    std::snprintf(b, sizeof b, "%g%s", v, suffix[i]);
    return b;
  }
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

struct Frame {
  int w = 0, h = 0, left = 80, right = 30, top = 40, bottom = 60;
  Axis x, y;
  double px(double v) const { return left + frac(x, v) * (w - left - right); }
  double py(double v) const { return h - bottom - frac(y, v) * (h - top - bottom); }
  static double frac(const Axis& a, double v) {
    if (a.log) {
      v = std::max(v, a.lo * 1e-3);
      return (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
    }
    return (v - a.lo) / (a.hi - a.lo);
  }
};

std::vector<double> ticks(const Axis& a) {
  std::vector<double> t;
  if (a.log) {
    // Decades; on an axis of three decades or fewer also 2× and 5× (256 … 16k reads 1k, 2k, 5k, 10k).
    const bool fine = std::log10(a.hi) - std::log10(a.lo) <= 3;
    for (double e = std::floor(std::log10(a.lo)); e <= std::ceil(std::log10(a.hi)) + 1e-9; e += 1)
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * std::pow(10.0, e);
        if (v >= a.lo * 0.999 && v <= a.hi * 1.001) t.push_back(v);
      }
    return t;
  }
  double span = a.hi - a.lo;
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  if (span / step > 10) step *= 2;
  if (span / step > 10) step *= 2.5;
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi + 1e-9 * span; v += step) t.push_back(v);
  return t;
}

}  // namespace

std::string xy_chart(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series,
                     int width, int height) {
  Frame f;
  f.w = width;
  f.h = height;
  f.x = x;
  f.y = y;
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
    << "' viewBox='0 0 " << width << ' ' << height << "' font-family='sans-serif' font-size='12'>\n";
  o << "<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' markerHeight='7' "
       "orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' fill='context-stroke'/></marker></defs>\n";
  o << "<rect width='100%' height='100%' fill='white'/>\n";
  o << "<text x='" << width / 2 << "' y='22' text-anchor='middle' font-size='15' font-weight='bold'>" << escape(title)
    << "</text>\n";
  // grid and ticks
  for (double t : ticks(x)) {
    double p = f.px(t);
    o << "<line x1='" << num(p) << "' y1='" << f.top << "' x2='" << num(p) << "' y2='" << height - f.bottom
      << "' stroke='#e4e4e4'/>\n";
    o << "<text x='" << num(p) << "' y='" << height - f.bottom + 16 << "' text-anchor='middle'>" << tick_text(t)
      << "</text>\n";
  }
  for (double t : ticks(y)) {
    double p = f.py(t);
    o << "<line x1='" << f.left << "' y1='" << num(p) << "' x2='" << width - f.right << "' y2='" << num(p)
      << "' stroke='#e4e4e4'/>\n";
    o << "<text x='" << f.left - 6 << "' y='" << num(p + 4) << "' text-anchor='end'>" << tick_text(t) << "</text>\n";
  }
  o << "<rect x='" << f.left << "' y='" << f.top << "' width='" << width - f.left - f.right << "' height='"
    << height - f.top - f.bottom << "' fill='none' stroke='#444'/>\n";
  o << "<text x='" << (f.left + width - f.right) / 2 << "' y='" << height - 18 << "' text-anchor='middle'>"
    << escape(x.label) << (x.log ? " — log scale" : "") << "</text>\n";
  o << "<text transform='translate(18," << (f.top + height - f.bottom) / 2 << ") rotate(-90)' text-anchor='middle'>"
    << escape(y.label) << (y.log ? " — log scale" : "") << "</text>\n";
  // clip to the plot area
  o << "<clipPath id='plot'><rect x='" << f.left << "' y='" << f.top << "' width='" << width - f.left - f.right
    << "' height='" << height - f.top - f.bottom << "'/></clipPath>\n<g clip-path='url(#plot)'>\n";
  for (const auto& s : series) {
    if (s.line && s.points.size() > 1) {
      if (s.arrows) {
        for (size_t i = 1; i < s.points.size(); ++i)
          o << "<line x1='" << num(f.px(s.points[i - 1].first)) << "' y1='" << num(f.py(s.points[i - 1].second))
            << "' x2='" << num(f.px(s.points[i].first)) << "' y2='" << num(f.py(s.points[i].second)) << "' stroke='"
            << s.color << "' stroke-width='1.5' marker-end='url(#arrow)'/>\n";
      } else {
        o << "<polyline fill='none' stroke='" << s.color << "' stroke-width='2'"
          << (s.dashed ? " stroke-dasharray='6,4'" : "") << " points='";
        for (const auto& [a, b] : s.points) o << num(f.px(a)) << ',' << num(f.py(b)) << ' ';
        o << "'/>\n";
      }
    }
    if (s.markers)
      for (size_t i = 0; i < s.points.size(); ++i) {
        const auto& [a, b] = s.points[i];
        o << "<circle cx='" << num(f.px(a)) << "' cy='" << num(f.py(b)) << "' r='4.5' "
          << (s.hollow ? "fill='white' stroke='" + s.color + "' stroke-width='2'" : "fill='" + s.color + "'")
          << "><title>" << escape(s.label + (i < s.point_labels.size() ? ": " + s.point_labels[i] : "")) << "</title></circle>\n";
        if (i < s.point_labels.size() && !s.point_labels[i].empty())
          o << "<text x='" << num(f.px(a) + 7) << "' y='" << num(f.py(b) - 6) << "' font-size='10' fill='#333'>"
            << escape(s.point_labels[i]) << "</text>\n";
      }
  }
  o << "</g>\n";
  // legend, top-left inside the plot
  int ly = f.top + 14;
  for (const auto& s : series) {
    if (s.label.empty()) continue;
    o << "<line x1='" << f.left + 10 << "' y1='" << ly - 4 << "' x2='" << f.left + 34 << "' y2='" << ly - 4
      << "' stroke='" << s.color << "' stroke-width='2'" << (s.dashed ? " stroke-dasharray='6,4'" : "")
      << (s.line ? "" : " stroke-opacity='0'") << "/>";
    if (s.markers)
      o << "<circle cx='" << f.left + 22 << "' cy='" << ly - 4 << "' r='4' "
        << (s.hollow ? "fill='white' stroke='" + s.color + "'" : "fill='" + s.color + "'") << "/>";
    o << "<text x='" << f.left + 40 << "' y='" << ly << "'>" << escape(s.label) << "</text>\n";
    ly += 16;
  }
  o << "</svg>\n";
  return o.str();
}

std::string bar_chart(const std::string& title, const std::string& axis_label, const std::vector<Bar>& bars,
                      double ref, const std::string& ref_label, int width) {
  const int row = 26, top = 40, left = 260, right = 120, bottom = 44;
  int height = top + bottom + row * static_cast<int>(std::max<size_t>(bars.size(), 1));
  double vmax = ref;
  for (const auto& b : bars) vmax = std::max(vmax, b.value);
  if (vmax <= 0) vmax = 1;
  vmax *= 1.05;
  auto px = [&](double v) { return left + v / vmax * (width - left - right); };
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height << "' viewBox='0 0 "
    << width << ' ' << height << "' font-family='sans-serif' font-size='12'>\n";
  o << "<rect width='100%' height='100%' fill='white'/>\n";
  o << "<text x='" << width / 2 << "' y='22' text-anchor='middle' font-size='15' font-weight='bold'>" << escape(title)
    << "</text>\n";
  Axis a{axis_label, false, 0, vmax};
  for (double t : ticks(a)) {
    o << "<line x1='" << num(px(t)) << "' y1='" << top << "' x2='" << num(px(t)) << "' y2='" << height - bottom
      << "' stroke='#e4e4e4'/>";
    o << "<text x='" << num(px(t)) << "' y='" << height - bottom + 16 << "' text-anchor='middle'>" << tick_text(t)
      << "</text>\n";
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    double y = top + row * static_cast<double>(i);
    const auto& b = bars[i];
    o << "<text x='" << left - 8 << "' y='" << num(y + row * 0.65) << "' text-anchor='end'>" << escape(b.label)
      << "</text>";
    o << "<rect x='" << left << "' y='" << num(y + 4) << "' width='" << num(std::max(0.0, px(b.value) - left))
      << "' height='" << row - 8 << "' fill='" << b.color << "'/>";
    o << "<text x='" << num(px(b.value) + 6) << "' y='" << num(y + row * 0.65) << "'>" << escape(b.value_text)
      << "</text>\n";
  }
  if (ref > 0) {
    o << "<line x1='" << num(px(ref)) << "' y1='" << top - 4 << "' x2='" << num(px(ref)) << "' y2='"
      << height - bottom << "' stroke='#d62728' stroke-dasharray='6,4'/>";
    o << "<text x='" << num(px(ref)) << "' y='" << top - 8 << "' text-anchor='middle' fill='#d62728'>"
      << escape(ref_label) << "</text>\n";
  }
  o << "<text x='" << (left + width - right) / 2 << "' y='" << height - 12 << "' text-anchor='middle'>"
    << escape(axis_label) << "</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace sol::report::svg

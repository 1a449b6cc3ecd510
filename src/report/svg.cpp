#include "svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// Glyph width ÷ font size: a little above the average of a sans-serif font, so that an estimate
// errs on the wide side.
constexpr double kGlyph = 0.6;

// UTF-8 code points of `s`, each as its byte range.
std::vector<std::pair<size_t, size_t>> code_points(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> cps;
  for (size_t i = 0; i < s.size();) {
    size_t j = i + 1;
    while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
    cps.push_back({i, j});
    i = j;
  }
  return cps;
}

}  // namespace

double text_width(const std::string& s, double size) { return kGlyph * size * code_points(s).size(); }

std::string fit(const std::string& s, double px, double size) {
  const auto cps = code_points(s);
  const size_t room = static_cast<size_t>(std::max(0.0, std::floor(px / (kGlyph * size))));
  if (cps.size() <= room) return s;
  if (room < 3) return room == 0 ? "" : "…";
  const size_t keep = room - 1, head = (keep + 1) / 2, tail = keep - head;
  std::string out = s.substr(0, cps[head - 1].second) + "…";
  if (tail > 0) out += s.substr(cps[cps.size() - tail].first);
  return out;
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

// An axis that can be drawn: finite, ordered, positive on a log scale.
Axis drawable(Axis a) {
  if (a.log) {
    const bool lo_ok = std::isfinite(a.lo) && a.lo > 0, hi_ok = std::isfinite(a.hi) && a.hi > 0;
    if (!lo_ok && !hi_ok) a.lo = 1, a.hi = 10;
    else if (!lo_ok) a.lo = a.hi / 10;
    else if (!hi_ok) a.hi = a.lo * 10;
    if (!(a.hi > a.lo * (1 + 1e-9))) a.hi = a.lo * 10;
    if (!std::isfinite(a.hi)) a.hi = a.lo, a.lo = a.hi / 10;
    return a;
  }
  if (!std::isfinite(a.lo)) a.lo = 0;
  if (!std::isfinite(a.hi)) a.hi = a.lo + 1;
  const double eps = 1e-9 * std::max(std::abs(a.lo), std::abs(a.hi));
  if (!(a.hi - a.lo > eps) || !std::isfinite(a.hi - a.lo)) a.hi = a.lo + std::max(1.0, std::abs(a.lo));
  if (!std::isfinite(a.hi)) a.lo = 0, a.hi = 1;
  return a;
}

constexpr int kMaxTicks = 24;

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool overlaps(const Box& o, double pad = 1) const {
    return x0 < o.x1 + pad && o.x0 < x1 + pad && y0 < o.y1 + pad && o.y0 < y1 + pad;
  }
  bool inside(const Box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

}  // namespace

std::vector<double> ticks(const Axis& axis) {
  const Axis a = drawable(axis);
  std::vector<double> t;
  if (a.log) {
    const double e0 = std::floor(std::log10(a.lo)), e1 = std::ceil(std::log10(a.hi));
    // Decades (every few on a wide axis); on an axis of three decades or fewer also 2× and 5×
    // (256 … 16k reads 1k, 2k, 5k, 10k).
    const double step = std::max(1.0, std::ceil((e1 - e0) / (kMaxTicks / 2)));
    const bool fine = e1 - e0 <= 3;
    for (int i = 0; i <= kMaxTicks; ++i) {
      const double e = e0 + i * step;
      if (e > e1 + 1e-9) break;
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * std::pow(10.0, e);
        if (v >= a.lo * 0.999 && v <= a.hi * 1.001) t.push_back(v);
      }
    }
    return t;
  }
  const double span = a.hi - a.lo;
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  if (span / step > 10) step *= 2;
  if (span / step > 10) step *= 2.5;
  const double first = std::ceil(a.lo / step) * step;
  for (int i = 0; i <= kMaxTicks; ++i) {
    const double v = first + i * step;
    if (v > a.hi + 1e-9 * span) break;
    t.push_back(v);
  }
  return t;
}

namespace {

struct Frame {
  int w = 0, h = 0, left = 80, right = 30, top = 40, bottom = 60;
  Axis x, y;
  double px(double v) const { return left + frac(x, v) * (w - left - right); }
  double py(double v) const { return h - bottom - frac(y, v) * (h - top - bottom); }
  Box plot() const { return {double(left), double(top), double(w - right), double(h - bottom)}; }
  static double frac(const Axis& a, double v) {
    if (a.log) {
      v = std::max(v, a.lo * 1e-3);
      return (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
    }
    return (v - a.lo) / (a.hi - a.lo);
  }
  // A point that can be placed on the axes: finite, and positive on a log axis.
  bool drawable(double vx, double vy) const {
    return std::isfinite(vx) && std::isfinite(vy) && (!x.log || vx > 0) && (!y.log || vy > 0);
  }
};

std::string marker_svg(Marker m, double x, double y, double r, const std::string& style, const std::string& tip) {
  std::ostringstream o;
  const std::string t = "<title>" + escape(tip) + "</title>";
  switch (m) {
    case Marker::Circle:
      o << "<circle cx='" << num(x) << "' cy='" << num(y) << "' r='" << num(r) << "' " << style << ">" << t << "</circle>";
      break;
    case Marker::Square:
      o << "<rect x='" << num(x - r * 0.9) << "' y='" << num(y - r * 0.9) << "' width='" << num(1.8 * r)
        << "' height='" << num(1.8 * r) << "' " << style << ">" << t << "</rect>";
      break;
    case Marker::Triangle:
      o << "<polygon points='" << num(x) << ',' << num(y - r * 1.1) << ' ' << num(x + r) << ',' << num(y + r * 0.8)
        << ' ' << num(x - r) << ',' << num(y + r * 0.8) << "' " << style << ">" << t << "</polygon>";
      break;
    case Marker::Diamond:
      o << "<polygon points='" << num(x) << ',' << num(y - r * 1.2) << ' ' << num(x + r) << ',' << num(y) << ' '
        << num(x) << ',' << num(y + r * 1.2) << ' ' << num(x - r) << ',' << num(y) << "' " << style << ">" << t
        << "</polygon>";
      break;
  }
  return o.str();
}

std::string marker_style(const Series& s) {
  return s.hollow ? "fill='white' stroke='" + s.color + "' stroke-width='2'" : "fill='" + s.color + "'";
}

// Places text boxes without overlap: near an anchor first, farther out (with a leader line) next.
struct Placer {
  Box area;                 // where labels may go
  std::vector<Box> taken;   // markers and labels placed so far
  static constexpr double kSize = 10;

  // The baseline start of a label of `text` near (ax, ay) and whether it needs a leader line;
  // nullopt-like: ok = false when nothing fits.
  struct Spot {
    bool ok = false;
    double x = 0, y = 0;
    bool leader = false;
  };
  Spot place(double ax, double ay, const std::string& text) {
    const double w = text_width(text, kSize), h = 1.05 * kSize;
    for (double d : {7.0, 18.0, 32.0, 48.0}) {
      const double c = d * 0.7;
      const Box cands[] = {
          {ax + d, ay - h / 2, ax + d + w, ay + h / 2},  // E
          {ax + c, ay - c - h, ax + c + w, ay - c},      // NE
          {ax + c, ay + c, ax + c + w, ay + c + h},      // SE
          {ax - w / 2, ay - d - h, ax + w / 2, ay - d},  // N
          {ax - w / 2, ay + d, ax + w / 2, ay + d + h},  // S
          {ax - d - w, ay - h / 2, ax - d, ay + h / 2},  // W
          {ax - c - w, ay - c - h, ax - c, ay - c},      // NW
          {ax - c - w, ay + c, ax - c, ay + c + h},      // SW
      };
      for (const Box& b : cands) {
        if (!b.inside(area)) continue;
        if (std::any_of(taken.begin(), taken.end(), [&](const Box& t) { return t.overlaps(b); })) continue;
        taken.push_back(b);
        return {true, b.x0, b.y0 + 0.8 * kSize, d > 7.0};
      }
    }
    return {};
  }
};

}  // namespace

std::string xy_chart(const std::string& title, const Axis& x_in, const Axis& y_in, const std::vector<Series>& series,
                     int width, int height) {
  Frame f;
  f.w = width;
  f.x = drawable(x_in);
  f.y = drawable(y_in);
  // Lines that end in a label (roofs, ceilings) are named in the right margin at their height;
  // the legend then goes below the plot, otherwise in a column right of it.
  double end_w = 0, legend_w = 0;
  int entries = 0;
  for (const auto& s : series) {
    if (!s.end_label.empty()) end_w = std::max(end_w, text_width(s.end_label, 11) + 14);
    if (!s.label.empty()) legend_w = std::max(legend_w, text_width(s.label, 12) + 48), ++entries;
  }
  const bool legend_below = end_w > 0;
  legend_w = std::min(legend_w, width * 0.32);
  f.right = 20 + static_cast<int>(legend_below ? end_w : legend_w);
  // A legend at the right may run below the plot's bottom edge: the picture grows to hold it.
  f.h = legend_below ? height : std::max(height, f.top + 16 * entries + 20);
  const Box plot = f.plot();

  std::ostringstream body;
  // grid and ticks
  for (double t : ticks(f.x)) {
    double p = f.px(t);
    body << "<line x1='" << num(p) << "' y1='" << f.top << "' x2='" << num(p) << "' y2='" << f.h - f.bottom
         << "' stroke='#e4e4e4'/>\n";
    body << "<text x='" << num(p) << "' y='" << f.h - f.bottom + 18 << "' text-anchor='middle'>" << tick_text(t)
         << "</text>\n";
  }
  for (double t : ticks(f.y)) {
    double p = f.py(t);
    body << "<line x1='" << f.left << "' y1='" << num(p) << "' x2='" << f.w - f.right << "' y2='" << num(p)
         << "' stroke='#e4e4e4'/>\n";
    body << "<text x='" << f.left - 6 << "' y='" << num(p + 4) << "' text-anchor='end'>" << tick_text(t) << "</text>\n";
  }
  body << "<rect x='" << f.left << "' y='" << f.top << "' width='" << f.w - f.left - f.right << "' height='"
       << f.h - f.top - f.bottom << "' fill='none' stroke='#444'/>\n";
  body << "<text x='" << (f.left + f.w - f.right) / 2 << "' y='" << f.h - f.bottom + 40 << "' text-anchor='middle'>"
       << escape(fit(f.x.label + (f.x.log ? " — log scale" : ""), f.w - f.left - f.right, 12)) << "</text>\n";
  body << "<text transform='translate(18," << (f.top + f.h - f.bottom) / 2 << ") rotate(-90)' text-anchor='middle'>"
       << escape(f.y.label) << (f.y.log ? " — log scale" : "") << "</text>\n";
  // lines and markers, clipped to the plot area
  // Ids are global to the page that holds every chart: the clip's is made from what makes this chart.
  uint64_t id = 1469598103934665603ull;  // FNV-1a
  for (char c : title + std::to_string(f.w) + "x" + std::to_string(f.h) + std::to_string(f.right))
    id = (id ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  const std::string clip = "plot" + std::to_string(id % 1000000007);
  body << "<clipPath id='" << clip << "'><rect x='" << f.left << "' y='" << f.top << "' width='" << f.w - f.left - f.right
       << "' height='" << f.h - f.top - f.bottom << "'/></clipPath>\n<g clip-path='url(#" << clip << ")'>\n";
  Placer placer;
  placer.area = {plot.x0 + 2, plot.y0 + 2, plot.x1 - 2, plot.y1 - 2};
  for (const auto& s : series) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [a, b] : s.points)
      if (f.drawable(a, b)) pts.push_back({f.px(a), f.py(b)});
    if (s.line && pts.size() > 1) {
      if (s.arrows) {
        for (size_t i = 1; i < pts.size(); ++i)
          body << "<line x1='" << num(pts[i - 1].first) << "' y1='" << num(pts[i - 1].second) << "' x2='"
               << num(pts[i].first) << "' y2='" << num(pts[i].second) << "' stroke='" << s.color
               << "' stroke-width='1.5' marker-end='url(#arrow)'/>\n";
      } else {
        body << "<polyline fill='none' stroke='" << s.color << "' stroke-width='2'"
             << (s.dashed ? " stroke-dasharray='6,4'" : "") << " points='";
        for (const auto& [a, b] : pts) body << num(a) << ',' << num(b) << ' ';
        body << "'/>\n";
      }
    }
    if (s.markers)
      for (size_t i = 0; i < s.points.size(); ++i) {
        const auto& [a, b] = s.points[i];
        if (!f.drawable(a, b)) continue;
        const double cx = f.px(a), cy = f.py(b);
        std::string tip = i < s.point_titles.size() ? s.point_titles[i] : s.label;
        if (i >= s.point_titles.size() && i < s.point_labels.size() && !s.point_labels[i].empty())
          tip += (tip.empty() ? "" : ": ") + s.point_labels[i];
        body << marker_svg(s.marker, cx, cy, 4.5, marker_style(s), tip) << "\n";
        placer.taken.push_back({cx - 5.5, cy - 5.5, cx + 5.5, cy + 5.5});
      }
  }
  body << "</g>\n";
  // point labels: beside their points where there is room, else a number there and the text in a key
  struct Keyed {
    std::string number, text, color;
  };
  std::vector<Keyed> key;
  for (const auto& s : series)
    for (size_t i = 0; i < s.points.size() && i < s.point_labels.size(); ++i) {
      const auto& [a, b] = s.points[i];
      const std::string& label = s.point_labels[i];
      if (label.empty() || !f.drawable(a, b)) continue;
      const double ax = f.px(a), ay = f.py(b);
      if (!Box{ax, ay, ax, ay}.inside(plot)) continue;  // clipped away
      std::string shown = label;
      auto spot = placer.place(ax, ay, shown);
      if (!spot.ok) {
        shown = std::to_string(key.size() + 1);
        key.push_back({shown, label, s.color});
        spot = placer.place(ax, ay, shown);
        if (!spot.ok) key.back().number = "·";  // no room even for a number: the key still names it
      }
      if (!spot.ok) continue;
      if (spot.leader) {
        const double tx = std::clamp(ax, spot.x, spot.x + text_width(shown, Placer::kSize));
        const double ty = std::clamp(ay, spot.y - 0.8 * Placer::kSize, spot.y + 0.25 * Placer::kSize);
        body << "<line x1='" << num(ax) << "' y1='" << num(ay) << "' x2='" << num(tx) << "' y2='" << num(ty)
             << "' stroke='#999' stroke-width='0.8'/>\n";
      }
      body << "<text x='" << num(spot.x) << "' y='" << num(spot.y) << "' font-size='10' fill='#333'>" << escape(shown)
           << "</text>\n";
    }
  // end labels: at their line's height in the right margin, pushed apart to one per 12 px
  struct End {
    double y0, y;
    std::string text, color;
  };
  std::vector<End> ends;
  for (const auto& s : series) {
    if (s.end_label.empty()) continue;
    for (auto it = s.points.rbegin(); it != s.points.rend(); ++it)
      if (f.drawable(it->first, it->second)) {
        const double y = std::clamp(f.py(it->second), plot.y0 + 4, plot.y1);
        ends.push_back({y, y, s.end_label, s.color});
        break;
      }
  }
  std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) { return a.y0 < b.y0; });
  constexpr double kEndGap = 12;
  for (size_t i = 1; i < ends.size(); ++i) ends[i].y = std::max(ends[i].y, ends[i - 1].y + kEndGap);
  for (size_t i = ends.size(); i-- > 0;) {  // none may pass the plot's bottom
    const double limit = i + 1 < ends.size() ? ends[i + 1].y - kEndGap : plot.y1;
    ends[i].y = std::min(ends[i].y, limit);
  }
  for (const auto& e : ends) {
    const double tx = plot.x1 + 10;
    if (std::abs(e.y - e.y0) > 1)
      body << "<polyline fill='none' stroke='#aaa' stroke-width='0.8' points='" << num(plot.x1) << ',' << num(e.y0)
           << ' ' << num(tx - 2) << ',' << num(e.y) << "'/>\n";
    body << "<text x='" << num(tx) << "' y='" << num(e.y + 4) << "' font-size='11' fill='" << e.color << "'>"
         << escape(e.text) << "</text>\n";
  }
  // the legend: right of the plot, or in rows below the axis title
  double ly = legend_below ? f.h - f.bottom + 64 : f.top + 12;
  double lx = legend_below ? f.left : f.w - f.right + 14;
  for (const auto& s : series) {
    if (s.label.empty()) continue;
    const double room = legend_below ? f.w - 10 - f.left - 34 : legend_w - 34;
    const std::string shown = fit(s.label, room, 12);
    const double item_w = 34 + text_width(shown, 12) + 18;
    if (legend_below && lx + item_w > f.w - 10 && lx > f.left) lx = f.left, ly += 16;
    body << "<line x1='" << num(lx) << "' y1='" << num(ly - 4) << "' x2='" << num(lx + 24) << "' y2='" << num(ly - 4)
         << "' stroke='" << s.color << "' stroke-width='2'" << (s.dashed ? " stroke-dasharray='6,4'" : "")
         << (s.line ? "" : " stroke-opacity='0'") << "/>";
    if (s.markers) body << marker_svg(s.marker, lx + 12, ly - 4, 4, marker_style(s), s.label);
    body << "<text x='" << num(lx + 30) << "' y='" << num(ly) << "'>" << escape(shown)
         << (shown != s.label ? "<title>" + escape(s.label) + "</title>" : "") << "</text>\n";
    if (legend_below) lx += item_w;
    else ly += 16;
  }
  // the key of labels that found no room beside their points, in rows below everything else
  double ky = (legend_below && entries > 0 ? ly + 8 : f.h - 4) + 16, kx = f.left;
  int total_h = legend_below && entries > 0 ? static_cast<int>(ly) + 12 : f.h;
  if (!key.empty()) {
    body << "<text x='" << f.left << "' y='" << num(ky) << "' font-size='11' fill='#555'>labels:</text>\n";
    const double indent = f.left + text_width("labels:", 11) + 10;
    kx = indent;
    for (const auto& k : key) {
      const std::string item = k.number + " " + k.text;
      const double w = text_width(item, 11);
      if (kx + w > f.w - 10 && kx > indent) kx = indent, ky += 15;
      body << "<text x='" << num(kx) << "' y='" << num(ky) << "' font-size='11' fill='" << k.color << "'>"
           << escape(fit(item, f.w - 10 - kx, 11)) << "</text>\n";
      kx += w + 14;
    }
    total_h = static_cast<int>(ky) + 10;
  }
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << f.w << "' height='" << total_h << "' viewBox='0 0 " << f.w
    << ' ' << total_h << "' font-family='sans-serif' font-size='12'>\n";
  o << "<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' markerHeight='7' "
       "orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' fill='context-stroke'/></marker></defs>\n";
  o << "<rect width='100%' height='100%' fill='white'/>\n";
  const std::string shown_title = fit(title, f.w - 20, 15 * 1.08);
  o << "<text x='" << f.w / 2 << "' y='22' text-anchor='middle' font-size='15' font-weight='bold'>" << escape(shown_title)
    << (shown_title != title ? "<title>" + escape(title) + "</title>" : "") << "</text>\n";
  o << body.str() << "</svg>\n";
  return o.str();
}

std::string bar_chart(const std::string& title, const std::string& axis_label, const std::vector<Bar>& bars,
                      double ref, const std::string& ref_label, int width) {
  // the label column: as wide as the longest label, within limits (longer ones are shortened)
  double widest = 0;
  for (const auto& b : bars) widest = std::max(widest, text_width(b.label, 12));
  const int row = 26, top = 50, right = 120, bottom = 44;
  const int left = static_cast<int>(std::clamp(widest + 20, 120.0, 0.45 * width));
  int height = top + bottom + row * static_cast<int>(std::max<size_t>(bars.size(), 1));
  double vmax = ref;
  for (const auto& b : bars)
    if (std::isfinite(b.value)) vmax = std::max(vmax, b.value);
  if (!(vmax > 0) || !std::isfinite(vmax)) vmax = 1;
  vmax *= 1.05;
  auto px = [&](double v) { return left + std::clamp(v, 0.0, vmax) / vmax * (width - left - right); };
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height << "' viewBox='0 0 "
    << width << ' ' << height << "' font-family='sans-serif' font-size='12'>\n";
  o << "<rect width='100%' height='100%' fill='white'/>\n";
  const std::string shown_title = fit(title, width - 20, 15 * 1.08);
  o << "<text x='" << width / 2 << "' y='22' text-anchor='middle' font-size='15' font-weight='bold'>"
    << escape(shown_title) << (shown_title != title ? "<title>" + escape(title) + "</title>" : "") << "</text>\n";
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
    const std::string shown = fit(b.label, left - 16, 12);
    o << "<text x='" << left - 8 << "' y='" << num(y + row * 0.65) << "' text-anchor='end'>" << escape(shown)
      << (shown != b.label ? "<title>" + escape(b.label) + "</title>" : "") << "</text>";
    const double v = std::isfinite(b.value) ? b.value : 0;
    o << "<rect x='" << left << "' y='" << num(y + 4) << "' width='" << num(std::max(0.0, px(v) - left))
      << "' height='" << row - 8 << "' fill='" << b.color << "'><title>" << escape(b.label + ": " + b.value_text)
      << "</title></rect>";
    o << "<text x='" << num(px(v) + 6) << "' y='" << num(y + row * 0.65) << "'>" << escape(fit(b.value_text, right - 8, 12))
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

// The report as one HTML page: where and with what it was measured, every family on one
// roofline, then per family its table, its own roofline, its bandwidth or time across sizes and
// the doctor's findings; the GEMM size sweep and the checkpointing proof last.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "ladder.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/report.hpp"
#include "svg.hpp"

namespace sol::report {

namespace {

using detail::floor_of;
using detail::fraction_of_floor;
using detail::headline;
using detail::kHostTimeMark;
using detail::kThrottleMark;
using detail::Ladder;
using detail::usable;

// Twenty hues that stay apart on white; with the marker shapes cycling beside them, forty
// families get a distinct (colour, shape) pair.
const char* kPalette[] = {"#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#17becf", "#f032e6",
                          "#9a6324", "#469990", "#800000", "#808000", "#000075", "#7cb518", "#7f7f7f",
                          "#d4a017", "#ff6f91", "#6a5acd", "#2f4f4f", "#c71585", "#000000"};
constexpr int kColors = sizeof kPalette / sizeof kPalette[0];

struct Style {
  std::string color;
  svg::Marker marker;
};
Style style(int k) {
  constexpr svg::Marker shapes[] = {svg::Marker::Circle, svg::Marker::Square, svg::Marker::Triangle,
                                    svg::Marker::Diamond};
  return {kPalette[k % kColors], shapes[(k + k / kColors) % 4]};
}

// A family's name as an element id and link target: letters, digits, '_' and '-' only.
std::string slug(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '-';
  return o;
}

using results::is_peer;
std::string short_name(const std::string& variant) { return is_peer(variant) ? variant.substr(5) : variant; }
std::string version_of(const std::string& variant) {
  const auto u = variant.find('_');
  return u == std::string::npos ? variant : variant.substr(0, u);
}
std::string pct(double f) { return fixed(100 * f, f < 0.01 ? 3 : 1); }
double finite_or(double v, double otherwise) { return std::isfinite(v) ? v : otherwise; }

// A usable record's achieved rates, from the model's counts and the median.
double flop_rate(const results::Record& r) { return usable(r) && r.flops > 0 ? r.flops / r.median_s : 0; }
double byte_rate(const results::Record& r) { return usable(r) && r.bytes > 0 ? r.bytes / r.median_s : 0; }

std::string throttle_mark(const results::Record& r) { return r.throttled ? kThrottleMark : ""; }
bool any_throttled(const std::vector<const results::Record*>& recs) {
  return std::any_of(recs.begin(), recs.end(), [](auto* r) { return r->throttled; });
}

// The footnote under a table or chart that shows the times of `recs`: per set of reasons, the
// throttled variants and their shapes ("v03, v04 at m=4096,n=4096,k=4096: sw power cap"); ""
// when none was throttled.
std::string throttle_footnote(const std::vector<const results::Record*>& recs) {
  std::vector<std::string> reasons, variants;  // in first-seen order
  std::map<std::string, std::string> shapes;   // variant → its throttled shapes
  std::map<std::string, std::string> why;      // variant → its reasons (its first throttled record's)
  for (auto* r : recs) {
    if (!r->throttled || !usable(*r)) continue;
    if (!why.count(r->variant)) {
      why[r->variant] = r->throttle_reasons, variants.push_back(r->variant);
      if (std::find(reasons.begin(), reasons.end(), r->throttle_reasons) == reasons.end())
        reasons.push_back(r->throttle_reasons);
    }
    shapes[r->variant] += (shapes[r->variant].empty() ? "" : ", ") + r->shape;
  }
  std::vector<std::string> who;
  for (const auto& reason : reasons) {
    std::vector<std::string> vs;
    for (const auto& v : variants)
      if (why[v] == reason) vs.push_back(v);
    const bool one_shape = std::all_of(vs.begin(), vs.end(), [&](auto& v) { return shapes[v] == shapes[vs.front()]; });
    std::string w;
    for (const auto& v : vs) w += (w.empty() ? "" : ", ") + v + (one_shape ? "" : " at " + shapes[v]);
    who.push_back(w + (one_shape ? " at " + shapes[vs.front()] : "") + ": " + reason);
  }
  return who.empty() ? "" : "<p class='note'>" + svg::escape(detail::throttle_note(who)) + "</p>\n";
}

// ---- roofs ---------------------------------------------------------------------------------

struct Roof {
  std::string names;  // "bf16 · fp16 matrix"
  double flops_per_s = 0, bytes_per_s = 0;
  bool measured = false;
};

// The roofs of `types` on `hw`: matrix and vector, datasheet and (where `c` has them) measured in
// the run; types with the same peak share a roof.
std::vector<Roof> roofs(const hw::HwSpec& hw, const std::set<DType>& types, const results::MeasuredCeilings* c) {
  std::vector<Roof> out;
  auto add = [&](const std::string& name, double peak, double bw, bool measured) {
    if (!(peak > 0) || !(bw > 0)) return;
    for (auto& r : out)
      if (r.measured == measured && std::abs(r.flops_per_s / peak - 1) < 0.005 && r.bytes_per_s == bw) {
        const auto unit = r.names.rfind(' ');
        const std::string my_unit = name.substr(name.rfind(' '));
        if (r.names.substr(unit) == my_unit) r.names.insert(unit, " · " + name.substr(0, name.rfind(' ')));
        else r.names += " · " + name;
        return;
      }
    out.push_back({name, peak, bw, measured});
  };
  for (const bool measured : {false, true}) {
    if (measured && !c) break;
    for (const DType t : types)
      for (const hw::Unit u : {hw::Unit::Matrix, hw::Unit::Vector}) {
        if (!hw.has(t, u)) continue;
        const std::string name = dtype_peak_key(t) + " " + hw::unit_name(u);
        if (!measured) {
          add(name, hw.peak(t, u).flops_per_s, hw.hbm_bytes_per_s, false);
          continue;
        }
        double peak = 0;
        if (u == hw::Unit::Matrix && c->matrix_flops_per_s.count(dtype_peak_key(t)))
          peak = c->matrix_flops_per_s.at(dtype_peak_key(t));
        if (u == hw::Unit::Vector && t == DType::f32) peak = c->fp32_fma_flops_per_s;
        add(name, peak, c->copy_bytes_per_s, true);
      }
  }
  std::sort(out.begin(), out.end(), [](const Roof& a, const Roof& b) { return a.flops_per_s > b.flops_per_s; });
  return out;
}

constexpr const char* kRoofColor = "#555";
constexpr const char* kMeasuredRoofColor = "#d62728";

// The roofs as series from intensity lo to hi, each named at its right end.
void add_roofs(std::vector<svg::Series>& series, const std::vector<Roof>& rs, double lo, double hi,
               const std::string& run) {
  for (const auto& r : rs) {
    auto s = svg::series("", r.measured ? kMeasuredRoofColor : kRoofColor);
    s.markers = false;
    s.dashed = r.measured;
    const double ridge = r.flops_per_s / r.bytes_per_s;
    s.points = {{lo, r.bytes_per_s * lo}, {std::clamp(ridge, lo, hi), std::min(r.flops_per_s, r.bytes_per_s * hi)},
                {hi, r.flops_per_s}};
    s.end_label = r.names + (r.measured ? ", measured " : " ") + si(r.flops_per_s, "FLOP/s");
    series.push_back(std::move(s));
  }
  // legend entries that say which line is which
  for (const bool measured : {false, true})
    for (const auto& r : rs)
      if (r.measured == measured) {
        auto s = svg::series(measured ? "roof, measured in " + run + " (copy " + si(r.bytes_per_s, "B/s") + ")"
                                      : "roof, datasheet (HBM " + si(r.bytes_per_s, "B/s") + ")",
                             measured ? kMeasuredRoofColor : kRoofColor);
        s.markers = false;
        s.dashed = measured;
        series.push_back(std::move(s));
        break;
      }
}

// The run that measured the most ceilings: the overview's measured roofs come from it.
const results::File& richest(const std::vector<results::File>& files) {
  auto count = [](const results::File& f) {
    return f.ceilings.matrix_flops_per_s.size() + (f.ceilings.fp32_fma_flops_per_s > 0) + (f.ceilings.copy_bytes_per_s > 0);
  };
  const results::File* best = &files.front();
  for (const auto& f : files)
    if (count(f) > count(*best)) best = &f;
  return *best;
}

// The x range of a roofline: every point and every ridge, with a margin.
struct Range {
  double lo = 1e300, hi = 0;
  void add(double v) {
    if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  bool empty() const { return hi <= 0; }
};

std::set<DType> types_in(const Ladder& l) {
  std::set<DType> t;
  for (const auto& [v, recs] : l.by_variant)
    for (auto* r : recs)
      if (auto d = detail::record_dtype(*r)) t.insert(*d);
  return t;
}

// A roofline of `points` (already series) over the roofs of `types`; "" when nothing to draw.
std::string roofline(const std::string& title, const Input& in, std::set<DType> types, std::vector<svg::Series> points,
                     const results::File* run, int width, int height) {
  const results::MeasuredCeilings* c = run ? &run->ceilings : nullptr;
  const auto& hw = *in.hw;
  if (types.empty()) types.insert(DType::bf16);
  const auto rs = roofs(hw, types, c);
  Range x, y;
  for (const auto& s : points)
    for (const auto& [a, b] : s.points) x.add(a), y.add(b);
  if (x.empty()) return "";
  for (const auto& r : rs) x.add(r.flops_per_s / r.bytes_per_s), y.add(r.flops_per_s);
  const double lo = std::pow(10, std::floor(std::log10(x.lo / 2))), hi = std::pow(10, std::ceil(std::log10(x.hi * 3)));
  std::vector<svg::Series> series;
  add_roofs(series, rs, lo, hi, run ? "the " + run->family + " run" : "");
  for (auto& s : points) series.push_back(std::move(s));
  svg::Axis ax{"arithmetic intensity (FLOP/byte of HBM traffic)", true, lo, hi};
  svg::Axis ay{"attainable / achieved FLOP/s", true, std::pow(10, std::floor(std::log10(y.lo / 2))),
               std::pow(10, std::ceil(std::log10(y.hi * 2)))};
  return svg::xy_chart(title, ax, ay, series, width, height);
}

// A family's rungs at their headline shapes as arrowed ladders (one per shape: a rung that runs
// a different problem is not a step on the same ladder), and its peers as hollow diamonds.
// `overview`: one colour for the family and only its top rung labelled.
std::vector<svg::Series> ladder_points(const Ladder& l, const Style& st, bool overview) {
  std::vector<svg::Series> groups;
  std::vector<std::string> shapes;
  auto peers = svg::series(overview ? "" : "peers", "#444");
  peers.line = false;
  peers.hollow = true;
  peers.marker = svg::Marker::Diamond;
  for (const auto& v : l.variants) {
    const auto* r = headline(l.by_variant.at(v));
    if (!r || flop_rate(*r) <= 0 || !(r->bytes > 0)) continue;
    const std::pair<double, double> p{r->flops / r->bytes, flop_rate(*r)};
    const std::string tip = l.family + " " + v + " · " + r->shape + ": " + si(p.second, "FLOP/s") + throttle_mark(*r);
    if (is_peer(v) || results::is_dispatch(v)) {  // the dispatcher is drawn beside the peers, not as a rung
      if (overview) continue;
      peers.points.push_back(p);
      peers.point_labels.push_back(short_name(v));
      peers.point_titles.push_back(tip);
      continue;
    }
    size_t g = std::find(shapes.begin(), shapes.end(), r->shape) - shapes.begin();
    if (g == shapes.size()) {
      shapes.push_back(r->shape);
      groups.push_back(svg::series(groups.empty() ? (overview ? l.family : "sol rungs") : "", overview ? st.color : "#1f77b4"));
      groups.back().arrows = true;
      groups.back().marker = overview ? st.marker : svg::Marker::Circle;
    }
    groups[g].points.push_back(p);
    groups[g].point_labels.push_back(overview ? "" : v);
    groups[g].point_titles.push_back(tip);
  }
  if (overview && !groups.empty() && !groups.front().points.empty()) {
    // the top rung: the fastest point of the first ladder
    auto& g = groups.front();
    size_t best = 0;
    for (size_t i = 1; i < g.points.size(); ++i)
      if (g.points[i].second > g.points[best].second) best = i;
    const std::string& tip = g.point_titles[best];
    const auto space = tip.find(' '), dot = tip.find(" · ");
    g.point_labels[best] = version_of(tip.substr(space + 1, dot - space - 1));
  }
  if (!peers.points.empty()) groups.push_back(std::move(peers));
  return groups;
}

std::string overview_roofline(const Input& in, const std::vector<Ladder>& ls) {
  std::vector<svg::Series> points;
  std::set<DType> types{DType::bf16};
  int k = 0;
  for (const auto& l : ls) {
    auto s = ladder_points(l, style(k), true);
    if (s.empty()) continue;
    ++k;
    const auto t = types_in(l);
    types.insert(t.begin(), t.end());
    for (auto& x : s) points.push_back(std::move(x));
  }
  return roofline("Every family on the roofline of the " + in.hw->full_name + " (headline shapes, top rung labelled)",
                  in, types, std::move(points), &richest(in.measured), 1160, 620);
}

std::string lecture_roofline(const Input& in) {
  auto model = svg::series("lecture operations (model floor)", "#2ca02c");
  model.line = false;
  model.hollow = true;
  std::set<DType> types;
  for (size_t i = 0; i < in.model.size(); ++i) {
    const auto& r = in.model[i];
    if (!(r.est.intensity > 0)) continue;
    model.points.push_back({r.est.intensity, r.est.attainable_flops_per_s});
    model.point_labels.push_back(std::to_string(i + 1));
    model.point_titles.push_back(std::to_string(i + 1) + ". " + r.name);
    types.insert(r.cost.dtype);
  }
  return roofline("The lecture's operations on the roofline of the " + in.hw->full_name, in, types, {model}, nullptr,
                  1160, 520);
}

// ---- per family ------------------------------------------------------------------------------

// The dimension along which a variant's records differ (a sweep), if exactly one does.
std::string sweep_dim(const std::vector<const results::Record*>& recs) {
  if (recs.size() < 2) return "";
  std::map<std::string, std::set<std::string>> values;
  for (auto* r : recs) {
    std::stringstream ss(r->shape);
    std::string item;
    while (std::getline(ss, item, ',')) {
      auto eq = item.find('=');
      if (eq != std::string::npos) values[item.substr(0, eq)].insert(item.substr(eq + 1));
    }
  }
  std::string dim;
  for (const auto& [k, v] : values)
    if (v.size() > 1) {
      if (!dim.empty()) return "";
      dim = k;
    }
  return dim;
}

// The value of `dim` in a shape ("n=1024,d=64"), NaN when the shape has none or it is no number.
double dim_value(const std::string& shape, const std::string& dim) {
  std::stringstream ss(shape);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item.size() > dim.size() && item.compare(0, dim.size() + 1, dim + "=") == 0) {
      try {
        size_t used = 0;
        const double v = std::stod(item.substr(dim.size() + 1), &used);
        return used == item.size() - dim.size() - 1 ? v : NAN;
      } catch (const std::exception&) {
        return NAN;
      }
    }
  return NAN;
}

// A linear axis from 0 or a log axis over [lo, hi] with a margin; `hi` must be > 0.
svg::Axis log_axis(const std::string& label, double lo, double hi, double margin) {
  return {label, true, lo / margin, hi * margin};
}

bool memory_record(const results::Record& r) { return r.bound == "memory" || (r.flops <= 0 && r.bytes > 0); }

// Achieved GB/s against size for a family's memory-bound records, one line per variant, with the
// copy ceiling measured in the run and the datasheet's HBM rate. "" when most of the family's
// records are compute-bound or no variant has two sizes.
std::string bandwidth_chart(const Ladder& l, const hw::HwSpec& hw) {
  std::map<std::string, std::vector<const results::Record*>> mem;
  std::set<std::string> dims;
  size_t drawn = 0, memory = 0;
  for (const auto& v : l.variants)
    for (auto* r : l.by_variant.at(v)) {
      if (byte_rate(*r) <= 0) continue;
      ++drawn;
      if (memory_record(*r)) ++memory, mem[v].push_back(r);
    }
  if (2 * memory <= drawn) return "";  // a compute-bound family: its roofline tells the story
  for (const auto& [v, recs] : mem) dims.insert(sweep_dim(recs));
  dims.erase("");
  // One swept dimension common to the family: it is the x axis; otherwise bytes moved per call.
  const std::string dim = dims.size() == 1 ? *dims.begin() : "";
  std::vector<svg::Series> series;
  Range x;
  double top = 0;
  int k = 0;
  std::vector<const results::Record*> shown;
  for (const auto& v : l.variants) {
    if (!mem.count(v)) continue;
    const Style st = style(k++);
    auto s = svg::series(short_name(v), st.color);
    s.marker = st.marker;
    s.hollow = is_peer(v);
    s.dashed = is_peer(v);
    std::vector<const results::Record*> drawn;
    for (auto* r : mem.at(v)) {
      const double xv = dim.empty() ? r->bytes : dim_value(r->shape, dim);
      if (!(std::isfinite(xv) && xv > 0)) continue;  // a record without the swept dimension
      s.points.push_back({xv, byte_rate(*r) / 1e9});
      s.point_titles.push_back(v + " · " + r->shape + ": " + fixed(byte_rate(*r) / 1e9, 0) + " GB/s" + throttle_mark(*r));
      drawn.push_back(r);
    }
    // order by size, keeping each tooltip with its point
    std::vector<size_t> order(s.points.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.points[a] < s.points[b]; });
    svg::Series sorted = s;
    for (size_t i = 0; i < order.size(); ++i) sorted.points[i] = s.points[order[i]], sorted.point_titles[i] = s.point_titles[order[i]];
    if (sorted.points.size() < 2) continue;
    for (const auto& [a, b] : sorted.points) x.add(a), top = std::max(top, b);
    if (any_throttled(drawn)) sorted.label += kThrottleMark;
    shown.insert(shown.end(), drawn.begin(), drawn.end());
    series.push_back(std::move(sorted));
  }
  if (series.empty() || !(x.hi > x.lo)) return "";
  const double copy = l.file->ceilings.copy_bytes_per_s / 1e9, hbm = hw.hbm_bytes_per_s / 1e9;
  const svg::Axis ax = log_axis(dim.empty() ? "bytes moved per call (read + written)" : dim, x.lo, x.hi, 1.3);
  for (const auto& [label, value, color] :
       {std::tuple{"copy ceiling measured in the run " + fixed(copy, 0) + " GB/s", copy, kMeasuredRoofColor},
        std::tuple{"HBM, datasheet " + fixed(hbm, 0) + " GB/s", hbm, kRoofColor}}) {
    if (!(value > 0)) continue;
    auto s = svg::series("", color);
    s.end_label = label;
    s.markers = false;
    s.dashed = true;
    s.points = {{ax.lo, value}, {ax.hi, value}};
    top = std::max(top, value);
    series.push_back(std::move(s));
  }
  return svg::xy_chart(l.family + ": achieved bandwidth across sizes", ax,
                       {"achieved GB/s (bytes read + written ÷ median time)", false, 0, top * 1.1}, series, 1160, 440) +
         throttle_footnote(shown);
}

// Median time across the one dimension a family's variants sweep, where no bandwidth chart
// tells the story; "" when none sweeps.
std::string time_chart(const Ladder& l) {
  std::vector<svg::Series> series;
  std::string dim;
  Range x, y;
  int k = 0;
  std::vector<const results::Record*> shown;
  for (const auto& v : l.variants) {
    const auto& recs = l.by_variant.at(v);
    std::string d = sweep_dim(recs);
    if (d.empty() || (!dim.empty() && d != dim)) continue;
    dim = d;
    const Style st = style(k++);
    auto s = svg::series(short_name(v), st.color);
    s.marker = st.marker;
    std::vector<const results::Record*> drawn;
    for (auto* r : recs) {
      const double xv = dim_value(r->shape, d);
      if (!usable(*r) || !(std::isfinite(xv) && xv > 0)) continue;
      drawn.push_back(r);
    }
    std::stable_sort(drawn.begin(), drawn.end(),
                     [&](auto* a, auto* b) { return dim_value(a->shape, d) < dim_value(b->shape, d); });
    for (auto* r : drawn) {
      s.points.push_back({dim_value(r->shape, d), r->median_s * 1e3});
      s.point_titles.push_back(v + " · " + r->shape + ": " + si(r->median_s, "s") + throttle_mark(*r));
      x.add(s.points.back().first), y.add(s.points.back().second);
    }
    if (s.points.size() < 2) continue;
    if (any_throttled(drawn)) s.label += kThrottleMark;
    shown.insert(shown.end(), drawn.begin(), drawn.end());
    series.push_back(s);
  }
  if (series.empty() || !(x.hi > x.lo)) return "";
  svg::Axis ax = log_axis(dim, x.lo, x.hi, 1.2);
  svg::Axis ay{"median time (ms)", true, std::pow(10, std::floor(std::log10(y.lo))),
               std::pow(10, std::ceil(std::log10(y.hi * 1.01)))};
  return svg::xy_chart(l.family + ": time across the " + dim + " sweep", ax, ay, series, 1160, 420) +
         throttle_footnote(shown);
}

// The time unit that suits a table of medians: (seconds per unit, name).
std::pair<double, std::string> time_unit(const std::vector<double>& seconds) {
  std::vector<double> v;
  for (double s : seconds)
    if (std::isfinite(s) && s > 0) v.push_back(s);
  if (v.empty()) return {1e-3, "ms"};
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  const double m = v[v.size() / 2];
  if (m >= 1) return {1, "s"};
  if (m >= 1e-3) return {1e-3, "ms"};
  return {1e-6, "µs"};
}

std::string td(const std::string& s) { return "<td>" + s + "</td>"; }

// A family's headline records that have a time: the rows of its table and the bars of its chart.
std::vector<const results::Record*> headline_rows(const Ladder& l) {
  std::vector<const results::Record*> rows;
  for (const auto& v : l.variants)
    if (const auto* r = headline(l.by_variant.at(v)); r && usable(*r)) rows.push_back(r);
  return rows;
}

// What the "% of floor" figures of `rows` are a % of: a header naming which floors they are, and
// the ceilings the floors are computed on (results::floor_base), each once in row order.
struct FloorBases {
  std::string header = "% of floor";
  std::vector<std::string> bases;
};
FloorBases floor_bases(const results::File& f, const std::vector<const results::Record*>& rows) {
  FloorBases b;
  bool measured = false, datasheet = false;
  for (auto* r : rows) {
    const std::string base = floor_of(*r) > 0 ? results::floor_base(f, *r) : "";
    if (base.empty()) continue;
    (detail::datasheet_base(base) ? datasheet : measured) = true;
    if (std::find(b.bases.begin(), b.bases.end(), base) == b.bases.end()) b.bases.push_back(base);
  }
  if (measured != datasheet) b.header = measured ? "% of floor (measured ceilings)" : "% of datasheet floor";
  if (measured && datasheet) b.header = "% of floor (measured or datasheet)";
  return b;
}

std::string family_table(const Ladder& l, const FloorBases& fb) {
  std::vector<double> times;
  for (auto* r : headline_rows(l)) times.push_back(r->median_s), times.push_back(floor_of(*r));
  const auto [unit_s, unit] = time_unit(times);
  // one base for every row: said once under the table; several: a column
  const bool base_column = fb.bases.size() > 1;
  // the fastest peer of each rung: named in the header when it is the same for every rung
  std::set<std::string> peers;
  for (auto* r : headline_rows(l))
    if (const auto* p = is_peer(r->variant) ? nullptr : results::best_peer(*l.file, *r)) peers.insert(p->variant);
  const bool one_peer = peers.size() == 1;
  // The peers among them whose time holds host dispatch (results::host_in_time): marked, noted.
  std::vector<std::string> host_timed;
  for (auto* r : headline_rows(l))
    if (const auto* p = is_peer(r->variant) ? nullptr : results::best_peer(*l.file, *r); p && results::host_in_time(*p))
      if (const std::string who = l.family + ": " + short_name(p->variant);
          std::find(host_timed.begin(), host_timed.end(), who) == host_timed.end())
        host_timed.push_back(who);
  std::ostringstream o;
  o << "<table class='runs'><tr><th>variant · technique</th><th>shape</th><th>median (" << unit
    << ")</th><th>spread (%)</th><th>samples</th><th>GB/s</th><th>TFLOP/s</th><th>floor (" << unit << ")</th><th>"
    << svg::escape(fb.header) << "</th>" << (base_column ? "<th>floor base</th>" : "")
    << "<th>vs fastest peer"
    << (one_peer ? ", " + svg::escape(short_name(*peers.begin())) + (host_timed.empty() ? "" : kHostTimeMark) + " (×)" : "")
    << "</th><th>check: rel. error ≤ tolerance</th></tr>\n";
  for (const auto& v : l.variants) {
    const auto* r = headline(l.by_variant.at(v));
    if (!r) continue;
    if (!usable(*r)) {
      o << "<tr><td>" << svg::escape(v) << "</td><td class='prose' colspan='" << (base_column ? 11 : 10) << "'>"
        << (r->skipped.empty() ? "no usable time in the results file" : "skipped: " + svg::escape(r->skipped))
        << "</td></tr>\n";
      continue;
    }
    const double floor = floor_of(*r);
    o << "<tr><td class='variant'><b>" << svg::escape(v) << "</b>"
      << (r->technique.empty() ? "" : "<div class='tech'>" + svg::escape(r->technique) + "</div>") << "</td>"
      << td(svg::escape(r->shape)) << td(num(r->median_s / unit_s, 4) + throttle_mark(*r))
      << td(r->samples > 0 ? fixed(100 * finite_or(r->spread, 0), 1) : "") << td(r->samples > 0 ? std::to_string(r->samples) : "")
      << td(byte_rate(*r) > 0 ? fixed(byte_rate(*r) / 1e9, 0) : "-")
      << td(flop_rate(*r) > 0 ? num(flop_rate(*r) / 1e12, 4) : "-") << td(floor > 0 ? num(floor / unit_s, 4) : "-")
      << td(floor > 0 ? pct(fraction_of_floor(*r)) : "-");
    if (base_column) o << "<td class='left'>" << svg::escape(floor > 0 ? results::floor_base(*l.file, *r) : "") << "</td>";
    const auto* peer = is_peer(v) ? nullptr : results::best_peer(*l.file, *r);
    o << td(!peer ? "" : one_peer ? fixed(peer->median_s / r->median_s, 2) : svg::escape(detail::vs_peer(*l.file, *r)))
      << "<td class='left'>"
      << (r->verified ? "ok " + sci(r->rel_l2) + " ≤ " + sci(r->tolerance) : "<b>FAILED</b> " + sci(r->rel_l2))
      << "</td></tr>\n";
  }
  o << "</table>\n";
  if (fb.bases.size() == 1)
    o << "<p class='note'>Floor base: " << svg::escape(fb.bases.front())
      << ", the ceiling that binds every floor in this table.</p>\n";
  o << throttle_footnote(headline_rows(l));
  if (!host_timed.empty()) o << "<p class='note'>" << svg::escape(detail::host_time_note(host_timed)) << "</p>\n";
  return o.str();
}

// The doctor's findings at each variant's headline record; nothing when no record has any.
std::string findings(const Ladder& l) {
  std::ostringstream o;
  for (const auto& v : l.variants) {
    const auto* r = headline(l.by_variant.at(v));
    if (!r || r->findings.empty()) continue;
    o << "<div class='findings'><b>Doctor, " << svg::escape(v) << " at " << svg::escape(r->shape) << ":</b><ul>";
    for (const auto& f : r->findings) o << "<li>" << svg::escape(f) << "</li>";
    o << "</ul></div>\n";
  }
  return o.str();
}

std::string family_section(const Ladder& l, const Input& in) {
  std::ostringstream o;
  o << "<h2 id='" << slug(l.family) << "'>" << svg::escape(l.family) << "</h2>\n";
  o << "<p class='note'>Measured " << svg::escape(l.file->created) << "; copy ceiling in that run "
    << si(l.file->ceilings.copy_bytes_per_s, "B/s") << ".</p>\n";
  const auto rows = headline_rows(l);
  const FloorBases fb = floor_bases(*l.file, rows);
  o << family_table(l, fb) << findings(l);
  std::vector<svg::Bar> bars;
  std::set<std::string> shapes;
  for (auto* r : rows) shapes.insert(r->shape);
  for (auto* r : rows) {
    const double f = fraction_of_floor(*r);
    // one shared shape is named in the title, not on every bar
    bars.push_back({(shapes.size() == 1 ? r->variant : r->variant + " · " + r->shape) + throttle_mark(*r), 100 * f,
                    pct(f) + " %", is_peer(r->variant) ? "#ff7f0e" : "#1f77b4"});
  }
  o << svg::bar_chart(l.family + ": " + fb.header + " reached (" +
                          (shapes.size() == 1 ? *shapes.begin() : std::string("headline shapes")) + ")",
                      fb.header + " (floor ÷ median)", bars, 100, "speed of light", 1160);
  o << roofline(l.family + " on the roofline (headline shapes)", in, types_in(l), ladder_points(l, style(0), false),
                l.file, 1160, 480);
  const std::string bw = bandwidth_chart(l, *in.hw);
  o << (bw.empty() ? time_chart(l) : bw);
  return o.str();
}

// ---- the page's head ---------------------------------------------------------------------------

std::string environment(const Input& in) {
  const auto& hw = *in.hw;
  std::ostringstream o;
  o << "<h2 id='environment'>Environment</h2>\n<table class='env'>";
  auto row = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) o << "<tr><th>" << svg::escape(k) << "</th><td class='prose'>" << svg::escape(v) << "</td></tr>";
  };
  row("model", hw.full_name + " (database row " + hw.name + "); datasheet bf16 matrix " +
                   hw.peak(DType::bf16, hw::Unit::Matrix).derivation() + ", HBM " + si(hw.hbm_bytes_per_s, "B/s"));
  row("report created", in.created);
  if (!in.measured.empty()) {
    // each fact with every distinct value the files give, in file order
    std::vector<std::pair<std::string, std::vector<std::string>>> facts;
    auto note = [&](const std::string& k, const std::string& v) {
      if (v.empty()) return;
      auto it = std::find_if(facts.begin(), facts.end(), [&](const auto& f) { return f.first == k; });
      if (it == facts.end()) facts.push_back({k, {}}), it = facts.end() - 1;
      if (std::find(it->second.begin(), it->second.end(), v) == it->second.end()) it->second.push_back(v);
    };
    std::string first, last;
    for (const auto& f : in.measured) {
      const auto& d = f.device;
      note("GPU", d.name + (d.sms ? ", " + std::to_string(d.sms) + " SMs" : "") +
                      (d.compute_capability ? ", sm_" + std::to_string(d.compute_capability) : "") +
                      (d.memory_bytes > 0 ? ", " + bytes_iec(d.memory_bytes, 3) : "") +
                      (d.l2_bytes > 0 ? ", L2 " + bytes_iec(d.l2_bytes, 3) : ""));
      note("driver", d.driver);
      if (d.sm_clock_hz > 0) note("SM clock (max)", si(d.sm_clock_hz, "Hz"));
      note("sol", f.sol_version);
      for (const auto& [k, v] : f.environment) note(k, v);
      if (first.empty() || f.created < first) first = f.created;
      if (f.created > last) last = f.created;
    }
    row("measured", first == last ? first : first + " … " + last + " (" + std::to_string(in.measured.size()) + " runs)");
    for (const auto& [k, vs] : facts) {
      std::string v;
      for (const auto& x : vs) v += (v.empty() ? "" : " / ") + x;
      row(k, v);
    }
    const auto& c = richest(in.measured).ceilings;
    std::string ceil = "copy " + si(c.copy_bytes_per_s, "B/s");
    for (const auto& [k, v] : c.matrix_flops_per_s) ceil += ", " + k + " matrix " + si(v, "FLOP/s");
    if (c.fp32_fma_flops_per_s > 0) ceil += ", fp32 FMA " + si(c.fp32_fma_flops_per_s, "FLOP/s");
    row("ceilings measured (" + richest(in.measured).family + " run)", ceil);
  }
  row("results", in.measured_note);
  o << "</table>\n";
  return o.str();
}

std::string contents(const Input& in, const std::vector<Ladder>& ls) {
  std::ostringstream o;
  o << "<nav><b>Contents</b><ol><li><a href='#environment'>Environment</a></li>";
  if (!in.measured.empty()) o << "<li><a href='#overview'>Every family on the roofline</a></li>";
  o << "<li><a href='#lecture'>The lecture's operations</a></li>";
  if (!ls.empty()) {
    o << "<li>Families<ol class='families'>";
    for (const auto& l : ls)
      o << "<li><a href='#" << slug(l.family) << "'>" << svg::escape(l.family) << "</a></li>";
    o << "</ol></li>";
  }
  for (const auto& f : in.measured)
    if (is_sweep(f)) {
      o << "<li><a href='#gemm_sweep'>GEMM size sweep</a></li>";
      break;
    }
  if (!in.checkpoint_markdown.empty()) o << "<li><a href='#checkpoint'>Activation checkpointing</a></li>";
  if (!in.validation_markdown.empty()) o << "<li><a href='#validation'>Model validation</a></li>";
  o << "</ol></nav>\n";
  return o.str();
}

// A Markdown block as sol writes it (paragraphs and pipe tables, `\|` inside cells) as HTML.
std::string markdown_html(const std::string& md) {
  std::ostringstream o;
  std::istringstream lines(md);
  std::string line;
  bool in_table = false, header = true;
  while (std::getline(lines, line)) {
    const bool row = !line.empty() && line[0] == '|';
    if (!row && in_table) {
      o << "</table>\n";
      in_table = false;
    }
    if (!row) {
      if (!line.empty()) o << "<p>" << svg::escape(line) << "</p>\n";
      continue;
    }
    if (line.find("---") != std::string::npos && line.find_first_not_of("|-: ") == std::string::npos) continue;
    if (!in_table) {
      o << "<table>";
      in_table = true;
      header = true;
    }
    std::vector<std::string> cells{""};
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
        cells.back() += '|';
        ++i;
      } else if (line[i] == '|') {
        cells.emplace_back();
      } else {
        cells.back() += line[i];
      }
    }
    if (!cells.empty() && cells.back().find_first_not_of(' ') == std::string::npos) cells.pop_back();
    o << "<tr>";
    for (auto c : cells) {
      while (!c.empty() && c.front() == ' ') c.erase(c.begin());
      while (!c.empty() && c.back() == ' ') c.pop_back();
      if (c.size() >= 2 && c.front() == '`' && c.back() == '`') c = c.substr(1, c.size() - 2);
      o << (header ? "<th>" : "<td>") << svg::escape(c) << (header ? "</th>" : "</td>");
    }
    o << "</tr>\n";
    header = false;
  }
  if (in_table) o << "</table>\n";
  return o.str();
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;max-width:1180px;margin:2em auto;color:#222;line-height:1.4}"
    "h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:2em}"
    "table{border-collapse:collapse;margin:1em 0;font-size:13px}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}th{white-space:normal}"
    "td:first-child,th:first-child,td.prose{text-align:left}td.prose{white-space:normal;min-width:12em}td.left{text-align:left}"
    "td.variant{white-space:normal;min-width:14em;max-width:24em}.tech{font-size:11px;color:#666}"
    "table.env th{text-align:left;background:#f7f7f7}th{background:#f3f3f3}"
    "svg{display:block;margin:1em 0;max-width:100%;height:auto}.note{color:#555;font-size:13px}"
    "nav{background:#fafafa;border:1px solid #e4e4e4;padding:8px 16px;font-size:14px}"
    "nav ol.families{columns:4;font-size:13px}.findings{font-size:13px;background:#fff8e6;"
    "border-left:3px solid #f0b400;padding:4px 10px;margin:6px 0}.findings ul{margin:4px 0}";

}  // namespace

std::string html(const Input& in) {
  const auto& hw = *in.hw;
  const auto ls = detail::ladders(in.measured);
  std::ostringstream o;
  o << "<!doctype html>\n<html><head><meta charset='utf-8'><title>sol report — " << svg::escape(hw.full_name)
    << "</title>\n<style>" << kStyle << "</style></head><body>\n";
  o << "<h1>sol report — " << svg::escape(hw.full_name) << "</h1>\n";
  o << "<p class='note'>Bytes moved count reads plus writes. Every % says what it is a % of: the model's floor on "
       "the ceilings measured in the same run, unless it says datasheet.</p>\n";
  if (in.measured.empty()) o << "<p><b>Model only.</b> " << svg::escape(in.measured_note) << "</p>\n";
  o << contents(in, ls) << environment(in);
  if (!in.measured.empty()) {
    o << "<h2 id='overview'>Every family on the roofline</h2>\n<p class='note'>One colour and marker per family; "
         "arrows climb each family's ladder of versions at its headline shape; the top rung is labelled. "
         "Solid roofs: datasheet peaks on datasheet HBM; dashed: ceilings measured in the run. Hover a point "
         "for its variant and shape.</p>\n"
      << overview_roofline(in, ls);
  }
  o << "<h2 id='lecture'>The lecture's operations on " << svg::escape(hw.name) << "</h2>\n" << lecture_roofline(in);
  o << "<table><tr><th>#</th><th>operation</th><th>§</th><th>FLOPs</th><th>bytes</th><th>FLOP/B</th><th>ridge "
       "(FLOP/B)</th><th>bound</th><th>floor</th><th>attainable</th><th>of datasheet peak (%)</th></tr>\n";
  int idx = 0;
  for (const auto& r : in.model)
    o << "<tr>" << td(std::to_string(++idx)) << "<td class='prose'>" << svg::escape(r.name) << "</td>" << td(r.section)
      << td(si(r.est.flops, "")) << td(si(r.est.bytes, "B")) << td(fixed(r.est.intensity, 2)) << td(fixed(r.est.ridge, 0))
      << td(r.est.bound) << td(si(r.est.t_floor_s, "s")) << td(si(r.est.attainable_flops_per_s, "FLOP/s"))
      << td(pct(r.est.fraction_of_peak)) << "</tr>\n";
  o << "</table>\n";
  for (const auto& l : ls) o << family_section(l, in);
  for (const auto& f : in.measured)
    if (is_sweep(f)) o << sweep_html(f, hw, in.measured_profile ? &*in.measured_profile : nullptr);
  if (!in.checkpoint_markdown.empty())
    o << "<h2 id='checkpoint'>Activation checkpointing: the planner against the GPU</h2>\n"
      << markdown_html(in.checkpoint_markdown);
  if (!in.validation_markdown.empty())
    o << "<h2 id='validation'>Model validation: predicted against measured</h2>\n" << markdown_html(in.validation_markdown);
  o << "</body></html>\n";
  return o.str();
}

}  // namespace sol::report

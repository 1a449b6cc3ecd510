// The GEMM sweep in the report and docs/gemm-sweep.md: per family, TFLOP/s against N for sol's
// best rung and its peers with the shape model's prediction beside them, the model's error for
// the rung, and each cliff named with the model's terms. One table of cells feeds the terminal,
// Markdown and HTML renderings, so the three never disagree.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/input.hpp"
#include "sol/model/cost.hpp"
#include "sol/predict.hpp"
#include "sol/report.hpp"
#include "sol/sweep.hpp"
#include "svg.hpp"

namespace sol::report {

namespace {

// A measured drop below this fraction of the better neighbour (N − 1 or N + 1 in the cube list)
// is a cliff the docs explain.
constexpr double kCliff = 0.7;

struct Cells {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// One family's records of a sweep file, by variant and shape.
struct FamilySweep {
  const sweep::GemmFamily* family = nullptr;
  std::string rung;                   // the non-peer variant ("" if none ran)
  std::vector<std::string> variants;  // rung first, then peers in file order
  std::map<std::string, std::map<std::tuple<int64_t, int64_t, int64_t>, const results::Record*>> at;
  std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes;  // cubes ascending, then the rest in file order
};

using Mnk = std::tuple<int64_t, int64_t, int64_t>;
bool is_cube(const Mnk& s) { return std::get<0>(s) == std::get<1>(s) && std::get<1>(s) == std::get<2>(s); }

std::vector<FamilySweep> by_family(const results::File& f) {
  std::vector<FamilySweep> out;
  for (const auto& fam : sweep::gemm_families()) {
    FamilySweep s;
    s.family = &fam;
    int best_version = -1;
    for (const auto& r : f.records) {
      if (r.family != fam.name) continue;
      Shape shape;
      try {
        shape = Shape::parse(r.shape);
      } catch (const Error&) {
        continue;  // a missing-peer record has no shape
      }
      if (!shape.has("m") || !shape.has("n") || !shape.has("k")) continue;
      const Mnk key{shape.at("m"), shape.at("n"), shape.at("k")};
      if (!s.at.count(r.variant)) {
        s.variants.push_back(r.variant);
        if (!results::is_peer(r) && !results::is_dispatch(r) && r.version > best_version) best_version = r.version, s.rung = r.variant;
      }
      s.at[r.variant][key] = &r;
      if (std::find(s.shapes.begin(), s.shapes.end(), key) == s.shapes.end()) s.shapes.push_back(key);
    }
    if (s.variants.empty()) continue;
    std::stable_partition(s.variants.begin(), s.variants.end(), [&](const std::string& v) { return v == s.rung; });
    std::stable_sort(s.shapes.begin(), s.shapes.end(), [](const Mnk& a, const Mnk& b) {
      if (is_cube(a) != is_cube(b)) return is_cube(a);
      return is_cube(a) && std::get<0>(a) < std::get<0>(b);
    });
    out.push_back(std::move(s));
  }
  return out;
}

// Measured FLOP/s of a valid record, else 0.
double flops_per_s(const results::Record* r) {
  return r && results::valid(*r) && r->flops > 0 ? r->flops / r->median_s : 0;
}

// The prediction (sol/predict.hpp) for the rung on the ceilings sol probe measured: the measured
// matrix rate (fp32: an SGEMM's share of the FMA chain) in place of the datasheet's, the measured
// copy bandwidth for packing and fill, plus the launch overhead the run measured.
double measured_prediction(const FamilySweep& s, const Mnk& key, const hw::HwSpec& measured, double launch_s) {
  const auto [m, n, k] = key;
  predict::Ceilings c;
  c.spec = measured;
  c.copy_bytes_per_s = measured.hbm_bytes_per_s;
  c.launch_s = launch_s;
  const model::Cost cost = model::matmul({.m = m, .n = n, .k = k, .dtype = s.family->dtype});
  const predict::Work w{s.family->name, s.rung, dtype_name(s.family->dtype), Shape{{{"m", m}, {"n", n}, {"k", k}}},
                        cost.flops, cost.bytes, {}};
  return cost.flops / predict::predict(w, c).seconds;
}

std::string tflops(double v) { return v > 0 ? fixed(v / 1e12, 1) : "-"; }
std::string pct(double f) { return fixed(100 * f, 1) + " %"; }

std::string measured_cell(const FamilySweep& s, const std::string& v, const Mnk& key) {
  auto it = s.at.at(v).find(key);
  if (it == s.at.at(v).end()) return "";
  const results::Record* r = it->second;
  if (!r->skipped.empty()) return "skipped";
  if (!r->verified) return "failed";
  return tflops(flops_per_s(r));
}

// The table of one family: cubes (N) or the wave shapes (M×N×K).
Cells family_cells(const FamilySweep& s, const hw::HwSpec& hw, bool cubes) {
  Cells c;
  c.header = {cubes ? "N" : "M×N×K"};
  for (const auto& v : s.variants) c.header.push_back(v);
  const bool packs = s.family->packs_unaligned;
  c.header.push_back("model");
  if (packs) c.header.push_back("model + packing");
  if (!s.rung.empty()) {
    c.header.push_back("error (model)");
    if (packs) c.header.push_back("error (+ packing)");
  }
  c.header.push_back("limited by (model)");
  for (const Mnk& key : s.shapes) {
    if (is_cube(key) != cubes) continue;
    const auto [m, n, k] = key;
    std::vector<std::string> row = {cubes ? std::to_string(m)
                                          : std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k)};
    for (const auto& v : s.variants) row.push_back(measured_cell(s, v, key));
    const sweep::Prediction p = sweep::predict(*s.family, m, n, k, hw);
    row.push_back(tflops(p.shape_model.predicted_flops_per_s));
    if (packs) row.push_back(tflops(p.rung_flops_per_s));
    if (!s.rung.empty()) {
      auto it = s.at.at(s.rung).find(key);
      const double got = it == s.at.at(s.rung).end() ? 0 : flops_per_s(it->second);
      row.push_back(got > 0 ? pct(sweep::model_error(got, p.shape_model.predicted_flops_per_s)) : "-");
      if (packs) row.push_back(got > 0 ? pct(sweep::model_error(got, p.rung_flops_per_s)) : "-");
    }
    std::string limit = p.limit.empty() ? "-" : p.limit;
    if (!cubes) {
      limit = std::to_string(p.shape_model.tiles) + " tiles, waves " + num(p.shape_model.waves, 3);
      if (!p.limit.empty()) limit += ": " + p.limit;
    }
    row.push_back(limit);
    c.rows.push_back(std::move(row));
  }
  return c;
}

// The rung's model errors over every shape it verified at: (shape model, rung model).
std::pair<std::vector<double>, std::vector<double>> rung_errors(const FamilySweep& s, const hw::HwSpec& hw) {
  std::vector<double> plain, rung;
  if (s.rung.empty()) return {plain, rung};
  for (const auto& [key, r] : s.at.at(s.rung)) {
    const double got = flops_per_s(r);
    if (got <= 0) continue;
    const auto [m, n, k] = key;
    const sweep::Prediction p = sweep::predict(*s.family, m, n, k, hw);
    plain.push_back(sweep::model_error(got, p.shape_model.predicted_flops_per_s));
    rung.push_back(sweep::model_error(got, p.rung_flops_per_s));
  }
  return {plain, rung};
}

// The model's shape terms with its absolute level taken from one measurement: predictions
// scaled so that they equal the measurement at the shape where the rung ran fastest. What is
// left is the error of the shape terms alone (tile, wave, alignment or packing), over the other
// shapes. Returns (the calibration shape's label, the errors).
std::pair<std::string, std::vector<double>> calibrated_errors(const FamilySweep& s, const hw::HwSpec& hw) {
  std::vector<std::pair<double, double>> got_pred;  // (measured, rung model's prediction)
  std::string label;
  double best = 0, scale = 0;
  for (const auto& [key, r] : s.at.at(s.rung)) {
    const double got = flops_per_s(r);
    if (got <= 0) continue;
    const auto [m, n, k] = key;
    const double pred = sweep::predict(*s.family, m, n, k, hw).rung_flops_per_s;
    got_pred.push_back({got, pred});
    if (got > best && pred > 0) {
      best = got;
      scale = got / pred;
      label = std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k);
    }
  }
  std::vector<double> errors;
  for (const auto& [got, pred] : got_pred)
    if (got != best) errors.push_back(sweep::model_error(got, scale * pred));
  return {label, errors};
}

std::string error_summary(const FamilySweep& s, const hw::HwSpec& hw, const hw::HwSpec* measured, double launch_s) {
  if (s.rung.empty()) return "No sol rung ran in this sweep, so the model's error is not measured.";
  const auto [plain, rung] = rung_errors(s, hw);
  if (plain.empty()) return s.rung + " did not verify at any shape, so the model's error is not measured.";
  std::string t = "Model error for " + s.rung + " (|measured − predicted| ÷ measured) over " +
                  std::to_string(plain.size()) + " shapes: median " + pct(sweep::median(plain)) + " for the shape model";
  if (s.family->packs_unaligned) t += ", " + pct(sweep::median(rung)) + " for the model with packing";
  t += ". Most of that is the level: the model starts from the datasheet peak, which no kernel here reaches.";
  const auto [at, calibrated] = calibrated_errors(s, hw);
  if (!calibrated.empty())
    t += " Scaled to the measurement at " + at + " (the rung's fastest shape), the " +
         std::string(s.family->packs_unaligned ? "model with packing" : "shape model") + " is off by a median " +
         pct(sweep::median(calibrated)) + " over the other " + std::to_string(calibrated.size()) +
         " shapes: the error of its tile, wave and alignment terms.";
  if (measured) {
    std::vector<double> errors;
    for (const auto& [key, r] : s.at.at(s.rung))
      if (const double got = flops_per_s(r); got > 0)
        errors.push_back(sweep::model_error(got, measured_prediction(s, key, *measured, launch_s)));
    // The rate the floor takes at the family's largest cube, where it is compute-bound.
    const int64_t big = 8192;
    const model::GemmEstimate e = sweep::predict(*s.family, big, big, big, *measured).shape_model;
    std::string rate = fixed(e.flops / e.floor_s / 1e12, 0) + " TFLOP/s " + dtype_name(s.family->dtype);
    if (s.family->dtype == DType::f32)
      rate += " × " + fixed(100 * predict::kSgemmShareOfFma, 0) + " %, an SGEMM's share of the FMA chain";
    if (!errors.empty())
      t += " On the ceilings `sol probe` measured (" + rate + ", plus this run's launch overhead of " +
           fixed(launch_s * 1e6, 1) + " µs) instead of the datasheet, the prediction of `sol validate` (" +
           std::string(s.family->packs_unaligned ? "packing, " : "") + "pipeline fill and launch included) is off by a median " +
           pct(sweep::median(errors)) + " over all " + std::to_string(errors.size()) + " shapes.";
  }
  return t;
}

// Cliffs: a cube where a variant reaches less than kCliff of its better neighbour, with the
// model's account of both shapes.
std::vector<std::string> cliffs(const FamilySweep& s, const hw::HwSpec& hw) {
  std::vector<Mnk> cubes;
  for (const auto& key : s.shapes)
    if (is_cube(key)) cubes.push_back(key);
  std::vector<std::string> out;
  for (size_t i = 0; i < cubes.size(); ++i)
    for (const auto& v : s.variants) {
      auto get = [&](size_t j) {
        auto it = s.at.at(v).find(cubes[j]);
        return it == s.at.at(v).end() ? 0.0 : flops_per_s(it->second);
      };
      const double here = get(i);
      if (here <= 0) continue;
      size_t best = i;
      for (size_t j : {i - 1, i + 1})  // i - 1 wraps to a huge index at i = 0: out of range below
        if (j < cubes.size() && std::get<0>(cubes[j]) + 1 >= std::get<0>(cubes[i]) &&
            std::get<0>(cubes[j]) <= std::get<0>(cubes[i]) + 1 && get(j) > get(best))
          best = j;
      if (best == i || here >= kCliff * get(best)) continue;
      const int64_t n = std::get<0>(cubes[i]), nb = std::get<0>(cubes[best]);
      const sweep::Prediction p = sweep::predict(*s.family, n, n, n, hw), pb = sweep::predict(*s.family, nb, nb, nb, hw);
      std::string line = v + " at " + std::to_string(n) + "³: " + tflops(here) + " TFLOP/s against " + tflops(get(best)) +
                         " at " + std::to_string(nb) + "³ (" + fixed(here / get(best), 2) + "×). The model: " +
                         std::to_string(n) + "³ is limited by " + (p.limit.empty() ? "nothing below 95 %" : p.limit) +
                         " (" + std::to_string(p.shape_model.vector_bytes) + "-byte loads, " +
                         std::to_string(p.shape_model.tiles) + " tiles, " + num(p.shape_model.waves, 3) + " waves), " +
                         std::to_string(nb) + "³ by " + (pb.limit.empty() ? "nothing below 95 %" : pb.limit) +
                         "; predicted ratio " + fixed(p.shape_model.predicted_flops_per_s / pb.shape_model.predicted_flops_per_s, 2) + "×";
      if (s.family->packs_unaligned && v == s.rung)
        line += ", " + fixed(p.rung_flops_per_s / pb.rung_flops_per_s, 2) + "× with packing";
      out.push_back(line + ".");
    }
  return out;
}

std::string md_row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + c + " |";
  return s + "\n";
}

std::string md_table(const Cells& c) {
  std::string s = md_row(c.header) + "|";
  for (size_t i = 0; i < c.header.size(); ++i) s += " --- |";
  s += "\n";
  for (const auto& r : c.rows) s += md_row(r);
  return s;
}

std::string html_table(const Cells& c) {
  std::ostringstream o;
  o << "<table><tr>";
  for (const auto& h : c.header) o << "<th>" << svg::escape(h) << "</th>";
  o << "</tr>\n";
  for (const auto& r : c.rows) {
    o << "<tr>";
    for (size_t i = 0; i < r.size(); ++i)  // the last column, "limited by", is prose
      o << (i + 1 == r.size() ? "<td class='prose'>" : "<td>") << svg::escape(r[i]) << "</td>";
    o << "</tr>\n";
  }
  o << "</table>\n";
  return o.str();
}

std::string text_table(const Cells& c) {
  Table t(c.header);
  t.align(c.header.size() - 1, Table::Align::Left);  // "limited by": prose
  for (const auto& r : c.rows) t.add_row(r);
  return t.str();
}

std::string family_title(const FamilySweep& s) {
  return s.family->name + " (" + dtype_name(s.family->dtype) + "; model: tile " + model::tile_str(s.family->tile) +
         ", " + std::to_string(s.family->blocks_per_sm) + (s.family->blocks_per_sm == 1 ? " tile" : " tiles") + " per SM)";
}

// Sizes that are a multiple of this run the tiles without a ragged edge.
constexpr int64_t kAligned = 128;
bool aligned(const Mnk& s) { return std::get<0>(s) % kAligned == 0; }

const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

}  // namespace

bool is_sweep(const results::File& f) { return f.family == sweep::kFamily; }

std::string sweep_chart(const results::File& f, const std::string& family, const hw::HwSpec& hw,
                        const hw::HwSpec* measured) {
  for (const FamilySweep& s : by_family(f)) {
    if (s.family->name != family) continue;
    std::vector<svg::Series> series;
    double lo = 1e300, hi = 0, top = 0;
    int k = 0;
    auto add = [&](svg::Series x) {
      for (const auto& [px, py] : x.points) lo = std::min(lo, px), hi = std::max(hi, px), top = std::max(top, py);
      if (!x.points.empty()) series.push_back(std::move(x));
    };
    // Aligned and odd sizes are separate series: joined, N = 1023, 1024, 1025 would draw spikes.
    for (const auto& v : s.variants) {
      const std::string color = kColors[k++ % 7];
      auto line = svg::series(v, color);
      auto odd = svg::series("", color);
      odd.line = false;
      odd.hollow = true;
      odd.marker = svg::Marker::Triangle;
      for (const auto& [key, r] : s.at.at(v))
        if (is_cube(key) && flops_per_s(r) > 0)
          (aligned(key) ? line : odd).points.push_back({double(std::get<0>(key)), flops_per_s(r) / 1e12});
      add(line);
      add(odd);
    }
    auto model = svg::series("shape model (" + model::tile_str(s.family->tile) + ")", "#444");
    auto packed = svg::series("model with packing", "#d62728");
    auto probed = svg::series("model on measured ceilings", "#b8860b");
    for (auto* x : {&model, &packed, &probed}) x->dashed = true, x->markers = false;
    auto model_odd = svg::series("", "#444");
    auto packed_odd = svg::series("", "#d62728");
    auto probed_odd = svg::series("", "#b8860b");
    for (auto* x : {&model_odd, &packed_odd, &probed_odd}) x->line = false, x->hollow = true;
    for (const auto& key : s.shapes)
      if (is_cube(key)) {
        const int64_t n = std::get<0>(key);
        const bool a = aligned(key);
        const sweep::Prediction p = sweep::predict(*s.family, n, n, n, hw);
        (a ? model : model_odd).points.push_back({double(n), p.shape_model.predicted_flops_per_s / 1e12});
        (a ? packed : packed_odd).points.push_back({double(n), p.rung_flops_per_s / 1e12});
        if (measured)
          (a ? probed : probed_odd)
              .points.push_back({double(n), measured_prediction(s, key, *measured, f.ceilings.launch_overhead_s) / 1e12});
      }
    add(model);
    add(model_odd);
    if (s.family->packs_unaligned) add(packed), add(packed_odd);
    add(probed);
    add(probed_odd);
    // what the two styles mean, once
    auto key_aligned = svg::series("lines: N a multiple of " + std::to_string(kAligned), "#999");
    key_aligned.markers = false;
    auto key_odd = svg::series("hollow: other N (not joined)", "#999");
    key_odd.line = false, key_odd.hollow = true, key_odd.marker = svg::Marker::Triangle;
    series.push_back(key_aligned);
    series.push_back(key_odd);
    for (auto& x : series) std::sort(x.points.begin(), x.points.end());
    if (series.empty() || hi <= lo) return "";
    svg::Axis x{"N (M = N = K)", true, lo / 1.15, hi * 1.15};
    svg::Axis y{"TFLOP/s", false, 0, top * 1.1};
    return svg::xy_chart(family_title(s) + ": TFLOP/s across the size sweep", x, y, series, 1160, 480);
  }
  return "";
}

std::string sweep_html(const results::File& f, const hw::HwSpec& hw, const hw::HwSpec* measured) {
  std::ostringstream o;
  o << "<h2 id='gemm_sweep'>GEMM size sweep</h2>\n<p class='note'>Measured " << svg::escape(f.created) << " on "
    << svg::escape(f.device.name) << ". Dashed: the shape model's prediction (floor ÷ tile × wave × alignment "
    << "efficiency on the datasheet peak); for rungs that pack unaligned operands, the model with the packing copy "
    << "instead of the alignment term.</p>\n";
  for (const FamilySweep& s : by_family(f)) {
    o << "<h3>" << svg::escape(family_title(s)) << "</h3>\n" << sweep_chart(f, s.family->name, hw, measured);
    o << "<p>" << svg::escape(error_summary(s, hw, measured, f.ceilings.launch_overhead_s)) << "</p>\n";
    o << html_table(family_cells(s, hw, true)) << html_table(family_cells(s, hw, false));
    const auto c = cliffs(s, hw);
    if (!c.empty()) {
      o << "<ul>";
      for (const auto& line : c) o << "<li>" << svg::escape(line) << "</li>";
      o << "</ul>\n";
    }
  }
  return o.str();
}

std::string sweep_markdown(const results::File& f, const hw::HwSpec& hw, const hw::HwSpec* measured) {
  std::ostringstream o;
  o << "<!-- generated by `sol docs` from bench/results/" << (f.device.database_row.empty() ? "?" : f.device.database_row)
    << "/" << f.family << ".json; edit the prose around this block, not the block -->\n";
  o << "Measured on " << f.device.name << " (" << f.device.sms << " SMs) on " << f.created
    << ". Cells are TFLOP/s (the model's FLOPs ÷ the median time); \"model\" is the shape model on the " << hw.name
    << " datasheet peak; \"model + packing\" charges the packing copy instead of the alignment term.\n\n";
  for (const FamilySweep& s : by_family(f)) {
    o << "### " << family_title(s) << "\n\n" << error_summary(s, hw, measured, f.ceilings.launch_overhead_s) << "\n\n";
    o << md_table(family_cells(s, hw, true)) << "\n" << md_table(family_cells(s, hw, false)) << "\n";
    const auto c = cliffs(s, hw);
    if (!c.empty()) {
      o << "Cliffs (below " << fixed(100 * kCliff, 0) << " % of a neighbour one size away):\n\n";
      for (const auto& line : c) o << "- " << line << "\n";
      o << "\n";
    }
  }
  return o.str();
}

std::string sweep_text(const results::File& f, const hw::HwSpec& hw, const hw::HwSpec* measured) {
  std::ostringstream o;
  for (const FamilySweep& s : by_family(f)) {
    o << "[sweep: " << family_title(s) << "]\n" << text_table(family_cells(s, hw, true)) << "\n"
      << text_table(family_cells(s, hw, false)) << error_summary(s, hw, measured, f.ceilings.launch_overhead_s) << "\n";
    for (const auto& line : cliffs(s, hw)) o << "  cliff: " << line << "\n";
    o << "\n";
  }
  return o.str();
}

std::optional<hw::HwSpec> measured_profile_beside(const std::string& results_dir) {
  const std::filesystem::path p = std::filesystem::path(results_dir) / "probe" / "measured-profile.json";
  if (std::error_code ec; !std::filesystem::exists(p, ec)) return std::nullopt;
  hw::HwSpec spec = hw::from_json_text(read_input_file(p.string(), "measured profile"), p.string());
  if (!spec.measured) return std::nullopt;
  return spec;
}

}  // namespace sol::report

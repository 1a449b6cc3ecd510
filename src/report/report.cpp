// The report: the lecture's operations on the roofline of one chip, and every measured kernel
// beside its own floor. Text for the terminal, JSON for tools, one HTML page for people.
#include "sol/report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "svg.hpp"

namespace sol::report {

using model::Cost;

std::vector<ModelRow> lecture_operations(const hw::HwSpec& hw) {
  const DType b16 = DType::bf16;
  const int64_t n_act = int64_t(8) * 4096 * 4096;  // (B, T, d) = (8, 4096, 4096)
  struct Item {
    std::string name, section;
    Cost cost;
  };
  std::vector<Item> items = {
      {"matmul 4096³", "§6", model::matmul({4096, 4096, 4096, b16})},
      {"matmul 256³", "§6", model::matmul({256, 256, 256, b16})},
      {"linear, training: (32768×4096)·(4096×4096)", "§6", model::matmul({32768, 4096, 4096, b16})},
      {"GEMV, decode: (1×4096)·(4096×4096)", "§6", model::matmul({1, 4096, 4096, b16})},
      {"matmul 4096³, naive untiled kernel", "§10",
       model::matmul({4096, 4096, 4096, b16, model::MatmulImpl::Naive})},
      {"matmul 4096³, 32×32 shared-memory tiles", "§10",
       model::matmul({4096, 4096, 4096, b16, model::MatmulImpl::Tiled, 32})},
      {"ReLU over 8·4096·4096", "§6", model::elementwise({n_act, 1, false, 1, b16})},
      {"sin²x + cos²x, eager (5 kernels), n = 2²⁶", "§8.1", model::elementwise({int64_t(1) << 26, 5, false, 1, b16})},
      {"sin²x + cos²x, fused (1 kernel), n = 2²⁶", "§8.1", model::elementwise({int64_t(1) << 26, 5, true, 1, b16})},
      {"LayerNorm (8,4096,4096), eager passes", "§6",
       model::row_op({model::RowKind::LayerNorm, 8 * 4096, 4096, false, b16})},
      {"LayerNorm (8,4096,4096), fused", "§8",
       model::row_op({model::RowKind::LayerNorm, 8 * 4096, 4096, true, b16})},
      {"RMSNorm (8,4096,4096), fused", "§8", model::row_op({model::RowKind::RMSNorm, 8 * 4096, 4096, true, b16})},
      {"softmax (8·4096 × 4096), eager passes", "§6",
       model::row_op({model::RowKind::Softmax, 8 * 4096, 4096, false, b16})},
      {"softmax (8·4096 × 4096), fused", "§8", model::row_op({model::RowKind::Softmax, 8 * 4096, 4096, true, b16})},
      {"attention, standard: N=4096, d=64, 1 head", "§11.1",
       model::attention({1, 1, 4096, 64, false, 128, false, false, b16})},
      {"attention, Flash Bq=128: N=4096, d=64, 1 head", "§11.5",
       model::attention({1, 1, 4096, 64, true, 128, false, false, b16})},
      {"attention, Flash Bq=256: N=4096, d=64, 1 head", "§11.5",
       model::attention({1, 1, 4096, 64, true, 256, false, false, b16})},
  };
  std::vector<ModelRow> rows;
  for (auto& it : items) {
    if (!hw.has(it.cost.dtype, it.cost.unit)) continue;  // a chip without this unit/type: not modelled
    rows.push_back({it.name, it.section, it.cost, model::roofline(it.cost, hw)});
  }
  return rows;
}

namespace {

// % of the floor a measurement reached: floor / measured (≤ 1 unless the model is wrong).
double fraction_of_floor(const results::Record& r) {
  double floor = r.floor_measured_s > 0 ? r.floor_measured_s : r.floor_s;
  return (r.median_s > 0 && floor > 0) ? floor / r.median_s : 0;
}

std::string pct(double f) { return fixed(100 * f, f < 0.01 ? 3 : 1) + " %"; }

// Records grouped: family → variant (in file order) → records in shape order.
struct Ladder {
  const results::File* file = nullptr;
  std::string family;
  std::vector<std::string> variants;  // versions first (by version), peers last
  std::map<std::string, std::vector<const results::Record*>> by_variant;
};

std::vector<Ladder> ladders(const std::vector<results::File>& files) {
  std::vector<Ladder> out;
  for (const auto& f : files) {
    if (is_sweep(f)) continue;  // drawn by sweep_html: its records are many families at many shapes
    Ladder l;
    l.file = &f;
    l.family = f.family;
    std::map<std::string, int> version;
    for (const auto& r : f.records) {
      if (!l.by_variant.count(r.variant)) l.variants.push_back(r.variant);
      l.by_variant[r.variant].push_back(&r);
      version[r.variant] = r.version;
    }
    std::stable_sort(l.variants.begin(), l.variants.end(), [&](const std::string& a, const std::string& b) {
      bool pa = a.rfind("peer:", 0) == 0, pb = b.rfind("peer:", 0) == 0;
      if (pa != pb) return pb;
      return version[a] < version[b];
    });
    out.push_back(std::move(l));
  }
  return out;
}

// The headline record of a variant: its first shape that was measured and verified.
const results::Record* headline(const std::vector<const results::Record*>& recs) {
  for (auto* r : recs)
    if (r->skipped.empty() && r->median_s > 0) return r;
  return recs.empty() ? nullptr : recs.front();
}


}  // namespace

std::string text(const Input& in) {
  std::ostringstream o;
  const auto& hw = *in.hw;
  o << "sol report — " << hw.full_name << " (" << hw.name << ")\n";
  o << "ceilings (datasheet): bf16 matrix " << si(hw.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, "FLOP/s")
    << ", HBM " << si(hw.hbm_bytes_per_s, "B/s") << ", bf16 ridge " << fixed(hw.ridge(DType::bf16, hw::Unit::Matrix), 0)
    << " FLOP/B\n\n";
  Table t({"operation", "§", "FLOPs", "bytes", "FLOP/B", "ridge", "bound", "floor", "attainable", "of peak"});
  for (const auto& r : in.model)
    t.add_row({r.name, r.section, si(r.est.flops, ""), si(r.est.bytes, "B"), fixed(r.est.intensity, 2),
               fixed(r.est.ridge, 0), r.est.bound, si(r.est.t_floor_s, "s"), si(r.est.attainable_flops_per_s, "FLOP/s"),
               pct(r.est.fraction_of_peak)});
  o << t.str() << "\n";
  if (in.measured.empty()) {
    o << "measured: none — " << in.measured_note << "\n";
    return o.str();
  }
  const auto& dev = in.measured.front().device;
  const auto& c = in.measured.front().ceilings;
  o << "measured on " << dev.name << " (database row " << dev.database_row << "): copy "
    << si(c.copy_bytes_per_s, "B/s") << " (" << pct(c.copy_bytes_per_s / hw.hbm_bytes_per_s) << " of datasheet)";
  if (c.matrix_flops_per_s.count("bf16")) o << ", bf16 matrix " << si(c.matrix_flops_per_s.at("bf16"), "FLOP/s");
  o << "\n" << in.measured_note << "\n\n";
  for (const auto& l : ladders(in.measured)) {
    Table m({"variant", "shape", "median", "GB/s", "FLOP/s", "floor", "of floor", "vs prev", "vs peer", "check"});
    const results::Record* prev = nullptr;
    for (const auto& v : l.variants) {
      const auto* r = headline(l.by_variant.at(v));
      if (!r) continue;
      if (!r->skipped.empty()) {
        m.add_row({v, r->shape, "skipped", "", "", "", "", "", "", r->skipped});
        continue;
      }
      const auto* peer = v.rfind("peer:", 0) == 0 ? nullptr : results::best_peer(*l.file, *r);
      bool is_peer = v.rfind("peer:", 0) == 0;
      std::string vs_prev = (!is_peer && prev && prev->shape == r->shape) ? fixed(prev->median_s / r->median_s, 2) + "×" : "";
      m.add_row({v, r->shape, si(r->median_s, "s"), fixed(r->achieved_bytes_per_s / 1e9, 0),
                 r->flops > 0 ? si(r->achieved_flops_per_s, "") : "-", si(r->floor_measured_s > 0 ? r->floor_measured_s : r->floor_s, "s"),
                 pct(fraction_of_floor(*r)), vs_prev, peer ? fixed(peer->median_s / r->median_s, 2) + "×" : "",
                 r->verified ? "ok (" + sci(r->rel_l2) + ")" : "FAILED"});
      if (!is_peer) prev = r;
    }
    o << "[" << l.family << "]\n" << m.str() << "\n";
  }
  for (const auto& f : in.measured)
    if (is_sweep(f)) o << sweep_text(f, hw, in.measured_profile ? &*in.measured_profile : nullptr);
  if (!in.checkpoint_markdown.empty())
    o << "[activation checkpointing: the planner against the GPU]\n" << in.checkpoint_markdown << "\n";
  return o.str();
}

std::string json(const Input& in) {
  using nlohmann::json;
  json model = json::array();
  for (const auto& r : in.model)
    model.push_back({{"name", r.name},
                     {"section", r.section},
                     {"unit", hw::unit_name(r.cost.unit)},
                     {"dtype", dtype_name(r.cost.dtype)},
                     {"flops", r.est.flops},
                     {"bytes", r.est.bytes},
                     {"saved_bytes", r.est.saved_bytes},
                     {"intensity", r.est.intensity},
                     {"ridge", r.est.ridge},
                     {"bound", r.est.bound},
                     {"t_compute_s", r.est.t_compute_s},
                     {"t_memory_s", r.est.t_memory_s},
                     {"t_floor_s", r.est.t_floor_s},
                     {"attainable_flops_per_s", r.est.attainable_flops_per_s},
                     {"fraction_of_peak", r.est.fraction_of_peak},
                     {"notes", r.cost.notes}});
  json measured = json::array();
  for (const auto& f : in.measured) measured.push_back(json::parse(results::to_json(f)));
  json j = {{"gpu", in.hw->name},       {"gpu_full_name", in.hw->full_name}, {"created", in.created},
            {"model", model},           {"measured", measured},              {"measured_note", in.measured_note}};
  return j.dump(2) + "\n";
}

namespace {

const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                          "#17becf", "#bcbd22", "#393b79", "#ad494a", "#637939", "#7b4173"};
constexpr int kColors = sizeof kPalette / sizeof kPalette[0];

std::string roofline_chart(const Input& in) {
  const auto& hw = *in.hw;
  std::vector<svg::Series> series;
  double lo_i = 0.01, hi_i = 1e4;
  auto roof = [&](double peak, double bw, const std::string& label, const std::string& color, bool dashed) {
    auto s = svg::series(label, color);
    s.markers = false;
    s.dashed = dashed;
    double ridge = peak / bw;
    s.points = {{lo_i, bw * lo_i}, {ridge, peak}, {hi_i, peak}};
    series.push_back(s);
  };
  roof(hw.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, hw.hbm_bytes_per_s, "bf16 matrix roof (datasheet)", "#444",
       false);
  if (hw.has(DType::bf16, hw::Unit::Vector))
    roof(hw.peak(DType::bf16, hw::Unit::Vector).flops_per_s, hw.hbm_bytes_per_s, "bf16 vector roof (datasheet)", "#777",
         false);
  if (hw.has(DType::f32, hw::Unit::Vector))
    roof(hw.peak(DType::f32, hw::Unit::Vector).flops_per_s, hw.hbm_bytes_per_s, "fp32 vector roof (datasheet)", "#bbb",
         false);
  if (!in.measured.empty()) {
    const auto& c = in.measured.front().ceilings;
    if (c.copy_bytes_per_s > 0 && c.matrix_flops_per_s.count("bf16"))
      roof(c.matrix_flops_per_s.at("bf16"), c.copy_bytes_per_s, "bf16 matrix roof (measured)", "#d62728", true);
    if (c.copy_bytes_per_s > 0 && c.fp32_fma_flops_per_s > 0)
      roof(c.fp32_fma_flops_per_s, c.copy_bytes_per_s, "fp32 vector roof (measured)", "#ff9896", true);
  }
  auto model = svg::series("lecture operations (model floor)", "#2ca02c");
  model.line = false;
  model.hollow = true;
  // points are numbered; the table below the chart names them
  double y_lo = hw.peak(DType::bf16, hw::Unit::Matrix).flops_per_s;
  for (size_t i = 0; i < in.model.size(); ++i) {
    const auto& r = in.model[i];
    if (r.est.intensity <= 0) continue;
    model.points.push_back({r.est.intensity, r.est.attainable_flops_per_s});
    model.point_labels.push_back(std::to_string(i + 1));
    y_lo = std::min(y_lo, r.est.attainable_flops_per_s);
  }
  series.push_back(model);
  // One arrowed ladder per family and headline shape: versions that run a different problem
  // (an MXFP8 GEMM beside the quantizers) are not a step on the same ladder.
  int k = 0;
  for (const auto& l : ladders(in.measured)) {
    const std::string color = kPalette[k++ % kColors];
    std::vector<svg::Series> groups;
    std::vector<std::string> shapes;
    for (const auto& v : l.variants) {
      if (v.rfind("peer:", 0) == 0) continue;
      const auto* r = headline(l.by_variant.at(v));
      if (!r || r->flops <= 0 || r->bytes <= 0 || r->median_s <= 0) continue;
      size_t g = std::find(shapes.begin(), shapes.end(), r->shape) - shapes.begin();
      if (g == shapes.size()) {
        shapes.push_back(r->shape);
        groups.push_back(svg::series(groups.empty() ? l.family + " (measured)" : "", color));
        groups.back().arrows = true;
      }
      y_lo = std::min(y_lo, r->achieved_flops_per_s);
      groups[g].points.push_back({r->flops / r->bytes, r->achieved_flops_per_s});
      groups[g].point_labels.push_back(v.substr(0, 3));
    }
    for (auto& g : groups) series.push_back(std::move(g));
  }
  double peak = hw.peak(DType::bf16, hw::Unit::Matrix).flops_per_s;
  svg::Axis x{"arithmetic intensity (FLOP/byte of HBM traffic)", true, lo_i, hi_i};
  svg::Axis y{"attainable / achieved FLOP/s", true, std::pow(10, std::floor(std::log10(y_lo)) - 1),
              std::pow(10, std::ceil(std::log10(peak * 2)))};
  return svg::xy_chart("Roofline: " + hw.full_name, x, y, series);
}

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

double dim_value(const std::string& shape, const std::string& dim) {
  auto p = shape.find(dim + "=");
  while (p != std::string::npos && p > 0 && shape[p - 1] != ',') p = shape.find(dim + "=", p + 1);
  return p == std::string::npos ? 0 : std::stod(shape.substr(p + dim.size() + 1));
}

std::string family_section(const Ladder& l) {
  std::ostringstream o;
  o << "<h2 id='" << svg::escape(l.family) << "'>" << svg::escape(l.family) << "</h2>\n";
  o << "<p class='note'>Measured " << svg::escape(l.file->created) << "; copy ceiling in that run "
    << si(l.file->ceilings.copy_bytes_per_s, "B/s") << ".</p>\n";
  std::vector<svg::Bar> bars;
  o << "<table><tr><th>variant</th><th>technique</th><th>shape</th><th>median</th><th>GB/s</th><th>FLOP/s</th>"
       "<th>floor (measured ceilings)</th><th>of floor</th><th>vs peer</th><th>check</th></tr>\n";
  for (const auto& v : l.variants) {
    const auto* r = headline(l.by_variant.at(v));
    if (!r) continue;
    bool is_peer = v.rfind("peer:", 0) == 0;
    if (!r->skipped.empty()) {
      o << "<tr><td>" << svg::escape(v) << "</td><td colspan='9'>skipped: " << svg::escape(r->skipped) << "</td></tr>\n";
      continue;
    }
    const auto* peer = is_peer ? nullptr : results::best_peer(*l.file, *r);
    double f = fraction_of_floor(*r);
    o << "<tr><td>" << svg::escape(v) << "</td><td>" << svg::escape(r->technique) << "</td><td>"
      << svg::escape(r->shape) << "</td><td>" << si(r->median_s, "s") << "</td><td>"
      << fixed(r->achieved_bytes_per_s / 1e9, 0) << "</td><td>"
      << (r->flops > 0 ? si(r->achieved_flops_per_s, "") : "-") << "</td><td>"
      << si(r->floor_measured_s > 0 ? r->floor_measured_s : r->floor_s, "s") << "</td><td>" << pct(f) << "</td><td>"
      << (peer ? fixed(peer->median_s / r->median_s, 2) + "×" : "") << "</td><td>"
      << (r->verified ? "ok, rel. error " + sci(r->rel_l2) + " ≤ " + sci(r->tolerance) : "<b>FAILED</b>")
      << (r->throttled ? " (throttled: " + svg::escape(r->throttle_reasons) + ")" : "") << "</td></tr>\n";
    bars.push_back({v + " · " + r->shape, 100 * f, pct(f), is_peer ? "#ff7f0e" : "#1f77b4"});
  }
  o << "</table>\n";
  o << svg::bar_chart(l.family + ": % of the model's floor reached (headline shape)", "% of floor (floor ÷ measured time)",
                      bars, 100, "speed of light");
  // sweeps: one line per variant over the swept dimension
  std::vector<svg::Series> series;
  std::string dim;
  double lo = 1e300, hi = 0, ylo = 1e300, yhi = 0;
  int k = 0;
  for (const auto& v : l.variants) {
    const auto& recs = l.by_variant.at(v);
    std::string d = sweep_dim(recs);
    if (d.empty() || (!dim.empty() && d != dim)) continue;
    dim = d;
    auto s = svg::series(v, kPalette[k++ % kColors]);
    for (auto* r : recs)
      if (r->median_s > 0 && r->skipped.empty()) {
        double x = dim_value(r->shape, d);
        s.points.push_back({x, r->median_s * 1e3});
        lo = std::min(lo, x), hi = std::max(hi, x);
        ylo = std::min(ylo, r->median_s * 1e3), yhi = std::max(yhi, r->median_s * 1e3);
      }
    std::sort(s.points.begin(), s.points.end());
    if (s.points.size() > 1) series.push_back(s);
  }
  if (!series.empty() && hi > lo) {
    svg::Axis x{dim, true, lo / 1.2, hi * 1.2};
    svg::Axis y{"median time (ms)", true, std::pow(10, std::floor(std::log10(ylo))),
                std::pow(10, std::ceil(std::log10(yhi * 1.01)))};
    o << svg::xy_chart(l.family + ": time across the " + dim + " sweep", x, y, series, 900, 420);
  }
  return o.str();
}

}  // namespace

namespace {
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
}  // namespace

std::string html(const Input& in) {
  const auto& hw = *in.hw;
  std::ostringstream o;
  o << "<!doctype html>\n<html><head><meta charset='utf-8'><title>sol report — " << svg::escape(hw.full_name)
    << "</title>\n<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
       "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;"
       "text-align:right}td:first-child,th:first-child,td:nth-child(2){text-align:left}th{background:#f3f3f3}"
       "svg{display:block;margin:1em 0}.note{color:#555;font-size:13px}</style></head><body>\n";
  o << "<h1>sol report — " << svg::escape(hw.full_name) << "</h1>\n";
  o << "<p class='note'>Created " << svg::escape(in.created) << ". Datasheet ceilings: bf16 matrix "
    << si(hw.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, "FLOP/s") << " ("
    << svg::escape(hw.peak(DType::bf16, hw::Unit::Matrix).derivation()) << "), HBM " << si(hw.hbm_bytes_per_s, "B/s")
    << ". Bytes moved count reads plus writes. Every % says what it is a % of.</p>\n";
  if (in.measured.empty())
    o << "<p><b>Model only.</b> " << svg::escape(in.measured_note) << "</p>\n";
  else {
    const auto& f = in.measured.front();
    o << "<p>Measured on <b>" << svg::escape(f.device.name) << "</b> (" << f.device.sms << " SMs, database row "
      << svg::escape(f.device.database_row) << "). Ceilings `sol probe` measured in the run of " << svg::escape(f.family)
      << " (" << svg::escape(f.created) << "): copy " << si(f.ceilings.copy_bytes_per_s, "B/s");
    for (const auto& [k, v] : f.ceilings.matrix_flops_per_s) o << ", " << k << " matrix " << si(v, "FLOP/s");
    o << "; the dashed roofs use these. Each family's floors use the ceilings measured in its own run (its "
         "section says when). "
      << svg::escape(in.measured_note) << "</p>\n";
  }
  o << roofline_chart(in);
  o << "<h2>The lecture's operations on " << svg::escape(hw.name) << "</h2>\n<table><tr><th>#</th><th>operation</th><th>§</th>"
       "<th>FLOPs</th><th>bytes</th><th>FLOP/B</th><th>ridge</th><th>bound</th><th>floor</th><th>attainable</th>"
       "<th>of peak</th></tr>\n";
  int idx = 0;
  for (const auto& r : in.model)
    o << "<tr><td>" << ++idx << "</td><td>" << svg::escape(r.name) << "</td><td>" << r.section << "</td><td>" << si(r.est.flops, "")
      << "</td><td>" << si(r.est.bytes, "B") << "</td><td>" << fixed(r.est.intensity, 2) << "</td><td>"
      << fixed(r.est.ridge, 0) << "</td><td>" << r.est.bound << "</td><td>" << si(r.est.t_floor_s, "s") << "</td><td>"
      << si(r.est.attainable_flops_per_s, "FLOP/s") << "</td><td>" << pct(r.est.fraction_of_peak) << "</td></tr>\n";
  o << "</table>\n";
  for (const auto& l : ladders(in.measured)) o << family_section(l);
  for (const auto& f : in.measured)
    if (is_sweep(f)) o << sweep_html(f, hw, in.measured_profile ? &*in.measured_profile : nullptr);
  if (!in.checkpoint_markdown.empty())
    o << "<h2 id='checkpoint'>Activation checkpointing: the planner against the GPU</h2>\n"
      << markdown_html(in.checkpoint_markdown);
  o << "</body></html>\n";
  return o.str();
}

}  // namespace sol::report

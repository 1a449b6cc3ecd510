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
#include "ladder.hpp"

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

namespace detail {

bool usable(const results::Record& r) {
  return r.skipped.empty() && std::isfinite(r.median_s) && r.median_s > 0 && r.median_s < 86400;
}

double floor_of(const results::Record& r) { return r.floor_measured_s > 0 ? r.floor_measured_s : r.floor_s; }

bool datasheet_base(const std::string& base) { return base.find("datasheet") != std::string::npos; }

std::string throttle_note(const std::vector<std::string>& who) {
  if (who.empty()) return "";
  std::string s = "†: timed while the GPU held its clocks down (";
  for (size_t i = 0; i < who.size(); ++i) s += (i ? "; " : "") + who[i];
  return s + "): slower than the card runs unthrottled.";
}

std::string host_time_note(const std::vector<std::string>& who) {
  if (who.empty()) return "";
  std::string s = "‡: the peer was timed around one eager call, the GPU idle while Python dispatched it (";
  for (size_t i = 0; i < who.size(); ++i) s += (i ? "; " : "") + who[i];
  return s + "): a file written before the PyTorch peers were device-timed. Its time holds host dispatch, "
             "so the ratio flatters sol until the family is measured again.";
}

std::string vs_peer(const results::File& f, const results::Record& r) {
  const results::Record* p = results::best_peer(f, r);
  if (!p) return "";
  return fixed(p->median_s / r.median_s, 2) + "× " + p->variant.substr(5) + (results::host_in_time(*p) ? kHostTimeMark : "");
}

double fraction_of_floor(const results::Record& r) {
  const double floor = floor_of(r);
  return (usable(r) && std::isfinite(floor) && floor > 0) ? floor / r.median_s : 0;
}

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
      // rungs by version, then the dispatcher, then the peers
      const auto rank = [](const std::string& v) { return v.rfind("peer:", 0) == 0 ? 2 : results::is_dispatch(v) ? 1 : 0; };
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      return version[a] < version[b];
    });
    out.push_back(std::move(l));
  }
  return out;
}

const results::Record* headline(const std::vector<const results::Record*>& recs) {
  for (auto* r : recs)
    if (usable(*r)) return r;
  return recs.empty() ? nullptr : recs.front();
}

std::optional<DType> record_dtype(const results::Record& r) {
  if (!r.dtype.empty()) try {
      return parse_dtype(r.dtype);
    } catch (const Error&) {
    }
  for (const std::string& name : {r.variant, r.family})
    for (const char* t : {"fp8", "e4m3", "e5m2", "bf16", "fp16", "tf32", "fp32"})
      if (name.find(t) != std::string::npos) return parse_dtype(t);
  return std::nullopt;
}

}  // namespace detail

using detail::fraction_of_floor;
using detail::headline;
using detail::ladders;

namespace {
std::string pct(double f) { return fixed(100 * f, f < 0.01 ? 3 : 1) + " %"; }
}  // namespace

std::string text(const Input& in) {
  std::ostringstream o;
  const auto& hw = *in.hw;
  o << "sol report — " << hw.full_name << " (" << hw.name << ")\n";
  o << "ceilings (datasheet): bf16 matrix " << si(hw.peak(DType::bf16, hw::Unit::Matrix).flops_per_s, "FLOP/s")
    << ", HBM " << si(hw.hbm_bytes_per_s, "B/s") << ", bf16 ridge " << fixed(hw.ridge(DType::bf16, hw::Unit::Matrix), 0)
    << " FLOP/B\n\n";
  // The attainable rate is FLOPs / floor (report.json and the page state it).
  Table t({"operation", "§", "FLOPs", "bytes", "FLOP/B", "ridge", "bound", "floor", "of peak"});
  for (const auto& r : in.model)
    t.add_row({r.name, r.section, si(r.est.flops, ""), si(r.est.bytes, "B"), fixed(r.est.intensity, 2),
               fixed(r.est.ridge, 0), r.est.bound, si(r.est.t_floor_s, "s"), pct(r.est.fraction_of_peak)});
  o << t.str() << "\n";
  if (in.measured.empty()) {
    for (const auto& line : wrap("measured: none — " + in.measured_note, kTerminalColumns)) o << line << "\n";
    return o.str();
  }
  const auto& dev = in.measured.front().device;
  const auto& c = in.measured.front().ceilings;
  o << "measured on " << dev.name << " (database row " << dev.database_row << "): copy "
    << si(c.copy_bytes_per_s, "B/s") << " (" << pct(c.copy_bytes_per_s / hw.hbm_bytes_per_s) << " of datasheet)";
  if (c.matrix_flops_per_s.count("bf16")) o << ", bf16 matrix " << si(c.matrix_flops_per_s.at("bf16"), "FLOP/s");
  o << "\n" << in.measured_note << "\n\n";
  for (const auto& l : ladders(in.measured)) {
    // One shape for every row: named once above the table; else after each variant's name (a
    // second line of the cell when the table is wide).
    std::set<std::string> shapes;
    for (const auto& v : l.variants)
      if (const auto* r = headline(l.by_variant.at(v))) shapes.insert(r->shape);
    const bool one_shape = shapes.size() == 1;
    Table m({one_shape ? "variant" : "variant, shape", "median", "GB/s", "FLOP/s", "floor", "of floor", "vs prev",
             "vs peer", "check"});
    const auto add = [&](std::vector<std::string> cells) {
      if (!one_shape) cells[0] += " " + cells[1];
      cells.erase(cells.begin() + 1);
      m.add_row(cells);
    };
    std::vector<std::string> notes;  // skipped rows' reasons, below the table
    std::vector<std::string> host_timed;  // peers whose time holds host dispatch (‡)
    const results::Record* prev = nullptr;
    for (const auto& v : l.variants) {
      const auto* r = headline(l.by_variant.at(v));
      if (!r) continue;
      if (!r->skipped.empty()) {
        notes.push_back(v + ": " + r->skipped);
        add({v, r->shape, "skipped", "", "", "", "", "", "", "note " + std::to_string(notes.size())});
        continue;
      }
      const auto* peer = v.rfind("peer:", 0) == 0 ? nullptr : results::best_peer(*l.file, *r);
      bool is_peer = v.rfind("peer:", 0) == 0 || results::is_dispatch(v);  // not a step of the ladder
      std::string vs_prev = (!is_peer && prev && prev->shape == r->shape) ? fixed(prev->median_s / r->median_s, 2) + "×" : "";
      add({v, r->shape, si(r->median_s, "s"), fixed(r->achieved_bytes_per_s / 1e9, 0),
                 r->flops > 0 ? si(r->achieved_flops_per_s, "") : "-", si(r->floor_measured_s > 0 ? r->floor_measured_s : r->floor_s, "s"),
                 pct(fraction_of_floor(*r)), vs_prev,
                 peer ? fixed(peer->median_s / r->median_s, 2) + "×" + (results::host_in_time(*peer) ? detail::kHostTimeMark : "") : "",
                 r->verified ? "ok (" + sci(r->rel_l2) + ")" : "FAILED"});
      if (!is_peer) prev = r;
      if (peer && results::host_in_time(*peer) &&
          std::find(host_timed.begin(), host_timed.end(), l.family + ": " + peer->variant.substr(5)) == host_timed.end())
        host_timed.push_back(l.family + ": " + peer->variant.substr(5));
    }
    if (!host_timed.empty()) notes.push_back(detail::host_time_note(host_timed));
    o << "[" << l.family << "]" << (one_shape ? " at " + *shapes.begin() : "") << "\n" << m.str();
    for (size_t i = 0; i < notes.size(); ++i) {
      const auto lines = wrap("note " + std::to_string(i + 1) + ": " + notes[i], kTerminalColumns - 4);
      for (size_t k = 0; k < lines.size(); ++k) o << (k ? "    " : "  ") << lines[k] << "\n";
    }
    o << "\n";
  }
  for (const auto& f : in.measured)
    if (is_sweep(f)) o << sweep_text(f, hw, in.measured_profile ? &*in.measured_profile : nullptr);
  if (!in.checkpoint_markdown.empty())
    o << "[activation checkpointing: the planner against the GPU]\n" << markdown_text(in.checkpoint_markdown) << "\n";
  if (!in.validation_text.empty()) o << "[model validation: predicted against measured]\n" << in.validation_text << "\n";
  // Prose (notes, the sweep's cliffs) wrapped to the terminal; tables are already narrow enough.
  return reflow(o.str());
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

}  // namespace sol::report

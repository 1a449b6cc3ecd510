// `sol hw list` and `sol hw show NAME [--json]`: the hardware database as a reader sees it.
// show prints every figure next to its derivation and source, so a % of peak anywhere in sol
// can be traced to units × rate × clock; --json prints the row in the --hw-file format.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>
#include <string>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"

namespace sol::cli {
namespace {

// "1 TensorCore", "132 SMs": the labels are stored in the plural.
std::string count(int n, const std::string& plural_label) {
  std::string label = plural_label;
  if (n == 1 && !label.empty() && label.back() == 's') label.pop_back();
  return std::to_string(n) + " " + label;
}

std::string units_text(const hw::HwSpec& s) {
  std::string out = count(s.compute_units, s.compute_unit_label);
  if (s.matrix_units > 0) out += ", " + count(s.matrix_units, s.matrix_unit_label);
  return out;
}

// Peak keys in the order of the dtype list (fp64 first, int8 last), not alphabetically.
std::vector<std::string> ordered_keys(const std::map<std::string, hw::Peak>& peaks) {
  std::vector<std::string> keys;
  for (DType t : all_dtypes()) {
    const std::string k = dtype_peak_key(t);
    if (peaks.count(k) && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}

std::string list_table() {
  Table t({"name", "full name", "bf16 matrix", "HBM", "HBM BW", "ridge", "units"});
  t.align(1, Table::Align::Left).align(6, Table::Align::Left);
  for (const hw::HwSpec* s : hw::all_specs()) {
    const bool bf16 = s->has(DType::bf16, hw::Unit::Matrix);
    t.add_row({s->name, s->full_name,
               bf16 ? si(s->peak(DType::bf16, hw::Unit::Matrix).flops_per_s, "FLOP/s") : "—", bytes_iec(s->hbm_bytes),
               si(s->hbm_bytes_per_s, "B/s"), bf16 ? num(s->ridge(DType::bf16, hw::Unit::Matrix), 4) : "—",
               units_text(*s)});
  }
  return t.str() + "ridge: FLOP/B where the bf16 matrix peak meets HBM bandwidth\n";
}

void peaks_block(std::string& out, const hw::HwSpec& s, hw::Unit unit) {
  const auto& peaks = unit == hw::Unit::Matrix ? s.matrix_peaks : s.vector_peaks;
  out += "\n" + std::string(unit == hw::Unit::Matrix ? "Matrix unit" : "Vector unit") + " peaks (dense)\n";
  if (peaks.empty()) out += "  (none)\n";
  for (const std::string& key : ordered_keys(peaks)) {
    const hw::Peak& p = peaks.at(key);
    char head[160];
    std::snprintf(head, sizeof head, "  %-5s %-15s ridge %s FLOP/B\n", key.c_str(), si(p.flops_per_s, "FLOP/s").c_str(), num(p.flops_per_s / s.hbm_bytes_per_s, 4).c_str());
    out += head;
    out += "        " + p.derivation() + "\n";
    if (!p.note.empty()) out += "        " + p.note + "\n";
    out += "        source: " + p.source + "\n";
  }
}

std::string show_text(const hw::HwSpec& s) {
  std::string out = s.name + ": " + s.full_name + (s.measured ? "  (measured by sol probe)" : "") + "\n";
  Table facts({"field", "value"});
  facts.align(1, Table::Align::Left);
  facts.add_row({"vendor / arch", s.vendor + " / " + (s.arch.empty() ? "—" : s.arch)});
  if (s.compute_capability > 0)
    facts.add_row({"compute capability",
                   std::to_string(s.compute_capability / 10) + "." + std::to_string(s.compute_capability % 10)});
  facts.add_row({"compute units", units_text(s)});
  facts.add_row({"clocks", "boost " + (s.boost_clock_hz > 0 ? si(s.boost_clock_hz, "Hz") : "—") + ", base " +
                               (s.base_clock_hz > 0 ? si(s.base_clock_hz, "Hz") : "—")});
  const std::string per = " per " + (s.compute_unit_label.empty() ? "unit" : count(1, s.compute_unit_label).substr(2));
  facts.add_row({"registers", bytes_iec(s.register_bytes_per_unit) + per});
  facts.add_row({s.vendor == "google" ? "VMEM" : "L1 / shared", bytes_iec(s.shared_bytes_per_unit) + per});
  facts.add_row({"L2", s.l2_bytes > 0 ? bytes_iec(s.l2_bytes) : "—"});
  facts.add_row({"HBM", bytes_iec(s.hbm_bytes) + " at " + si(s.hbm_bytes_per_s, "B/s")});
  out += facts.str();
  if (!s.hbm_source.empty()) out += "  HBM source: " + s.hbm_source + "\n";

  peaks_block(out, s, hw::Unit::Matrix);
  peaks_block(out, s, hw::Unit::Vector);

  out += "\nMemory levels (fastest first; ridge = bf16 matrix peak / level bandwidth)\n";
  Table levels({"level", "capacity", "bandwidth", "bf16 ridge"});
  const bool bf16 = s.has(DType::bf16, hw::Unit::Matrix);
  for (const auto& m : s.levels)
    levels.add_row({m.name, bytes_iec(m.capacity_bytes), si(m.bytes_per_s, "B/s"),
                    bf16 ? num(s.peak(DType::bf16, hw::Unit::Matrix).flops_per_s / m.bytes_per_s, 4) : "—"});
  out += levels.str();
  for (const auto& m : s.levels) {
    out += "  " + m.name + ": " + (m.derivation.empty() ? "—" : m.derivation) + "\n";
    if (!m.source.empty()) out += "        source: " + m.source + "\n";
  }

  out += "\nLinks\n";
  for (const auto* l : {&s.host_link, &s.chip_link}) {
    const char* what = l == &s.host_link ? "  host  " : "  chip  ";
    if (l->name.empty()) {
      out += std::string(what) + "—\n";
      continue;
    }
    out += std::string(what) + l->name + ": " + si(l->bytes_per_s, "B/s") + (l->note.empty() ? "" : " (" + l->note + ")") + "\n";
    if (!l->source.empty()) out += "        source: " + l->source + "\n";
  }

  if (!s.interconnects.empty()) {
    out += "\nInterconnects (sol comm --topology KEY; per chip, one direction)\n";
    Table ic({"key", "fabric", "per direction", "chips"});
    ic.align(1, Table::Align::Left);
    for (const auto& f : s.interconnects) {
      std::string chips = f.max_ranks > 0 ? "up to " + std::to_string(f.max_ranks) : "any";
      if (!f.torus_dims.empty()) {
        chips = "torus up to ";
        for (size_t d = 0; d < f.torus_dims.size(); ++d) chips += (d ? "×" : "") + std::to_string(f.torus_dims[d]);
      }
      ic.add_row({f.key, f.name, si(f.bytes_per_s, "B/s"), chips});
    }
    out += ic.str();
    for (const auto& f : s.interconnects) {
      out += "  " + f.key + ": " + f.derivation() + (f.note.empty() ? "" : "; " + f.note) + "\n";
      out += "        source: " + f.source + "\n";
    }
  }

  const hw::SmLimits& m = s.limits;
  out += "\nOccupancy limits per SM\n";
  if (m.max_warps_per_sm == 0) {
    out += "  none (no SMs on this chip)\n";
  } else {
    Table lim({"limit", "value"});
    lim.add_row({"warp size", std::to_string(m.warp_size)});
    lim.add_row({"max warps / SM", std::to_string(m.max_warps_per_sm)});
    lim.add_row({"max blocks / SM", std::to_string(m.max_blocks_per_sm)});
    lim.add_row({"max threads / block", std::to_string(m.max_threads_per_block)});
    lim.add_row({"registers / SM", std::to_string(m.registers_per_sm)});
    lim.add_row({"max registers / thread", std::to_string(m.max_registers_per_thread)});
    lim.add_row({"register allocation unit (per warp)", std::to_string(m.register_alloc_unit)});
    lim.add_row({"shared memory / SM", bytes_iec(m.shared_bytes_per_sm)});
    lim.add_row({"max shared memory / block", bytes_iec(m.max_shared_bytes_per_block)});
    lim.add_row({"shared allocation unit", bytes_iec(m.shared_alloc_unit)});
    lim.add_row({"reserved shared / block", bytes_iec(m.reserved_shared_bytes_per_block)});
    out += lim.str();
  }

  out += "\nSources\n";
  for (const auto& src : s.sources) out += "  - " + src + "\n";
  return out;
}

}  // namespace

Command add_hw(CLI::App& root, Global&) {
  auto* app = root.add_subcommand("hw", "the hardware database: peaks with derivations, memory levels, links");
  app->require_subcommand(1);
  auto* list = app->add_subcommand("list", "one line per chip: units, bf16 peak, HBM, ridge point");
  auto* show = app->add_subcommand("show", "every field of one chip, each peak with its derivation and source");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<JsonOut>();
  show->add_option("name", *name, "chip name (see `sol hw list`), or 'measured'")->required();
  add_json(show, *json, "the row in the --hw-file format");
  return {app, [list, show, name, json]() -> int {
            if (list->parsed()) {
              std::fputs(list_table().c_str(), stdout);
              return 0;
            }
            if (show->parsed()) {
              const hw::HwSpec& s = hw::find(*name);
              if (json->on()) emit_json(*json, nlohmann::ordered_json::parse(hw::to_json(s)));
              else std::fputs(reflow(show_text(s)).c_str(), stdout);
              return 0;
            }
            bad_input("sol hw: no subcommand", "use `sol hw list` or `sol hw show NAME`");
          }};
}

}  // namespace sol::cli

// `sol access coalescing|banks|divergence ... [--json]`: how a warp's access pattern costs
// (§7.1, §9, §12): sectors per request, bank-conflict degree, divergent-path efficiency.
// `sol access --against FILE` sets the models' predicted time ratios beside a committed result
// file's measured ones (the markdown table in docs/access.md is this output).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/core/suggest.hpp"
#include "sol/model/access.hpp"
#include "sol/report/access.hpp"
#include "sol/results.hpp"

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;

struct Args {
  std::string what, addresses, trips, against;
  int64_t elem = 4, stride = 1, offset = 0, row = 0, pad = 0, granule = 64;
  int lanes = 32, ways = 0;
  int64_t base = -1, spread = -1;
  bool swizzle = false, markdown = false;
  JsonOut json;
};

// "0,4,8" or "0 4 8" → numbers; throws sol::Error (BadInput) on anything else.
std::vector<int64_t> parse_list(const std::string& flag, const std::string& text) {
  std::string t = text;
  for (char& c : t)
    if (c == ',') c = ' ';
  std::istringstream in(t);
  std::vector<int64_t> v;
  std::string word;
  while (in >> word) {
    size_t used = 0;
    long long x = 0;
    try {
      x = std::stoll(word, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size()) bad_input("bad number '" + word + "' in " + flag, "give integers separated by commas");
    v.push_back(x);
  }
  return v;
}

void print(const std::string& text, const std::string& derivation) { std::printf("%s\n  %s\n", text.c_str(), derivation.c_str()); }

int run_coalescing(const Args& a) {
  const model::Coalescing c = a.addresses.empty() ? model::coalescing(a.elem, a.stride, a.lanes, a.offset, a.granule)
                                                  : model::coalescing_addresses(parse_list("--addresses", a.addresses), a.elem, a.granule);
  if (a.json.on()) {
    ojson j{{"lanes", c.lanes},         {"elem_bytes", c.elem_bytes},     {"sectors_per_request", c.sectors},
            {"cache_lines", c.lines},   {"useful_bytes", c.useful_bytes}, {"sector_bytes", c.sector_bytes},
            {"ideal_sectors", c.ideal_sectors}, {"efficiency", c.efficiency}, {"dram_granule_bytes", c.dram_granule},
            {"dram_bytes", c.dram_bytes}, {"derivation", c.derivation}};
    emit_json(a.json, j);
    return 0;
  }
  print(std::to_string(c.sectors) + " sectors per request (" + std::to_string(c.lines) + " cache lines), efficiency " +
            fixed(100 * c.efficiency, 1) + " %; DRAM moves " + std::to_string(c.dram_bytes) + " B in " +
            std::to_string(c.dram_granule) + "-byte granules",
        c.derivation);
  return 0;
}

int run_banks(const Args& a) {
  const model::BankConflict b =
      a.addresses.empty()
          ? model::bank_conflicts({a.elem, a.stride, a.row, a.pad, a.swizzle, a.lanes})
          : model::bank_conflicts_addresses(parse_list("--addresses", a.addresses), a.elem);
  if (a.json.on()) {
    ojson j{{"phases", b.phases},       {"wavefronts", b.wavefronts},   {"conflict_degree", b.degree},
            {"efficiency", b.efficiency}, {"broadcast", b.broadcast}, {"byte_addresses", b.byte_addresses},
            {"derivation", b.derivation}};
    emit_json(a.json, j);
    return 0;
  }
  print(std::to_string(b.degree) + "-way" + (b.degree == 1 ? " (conflict-free)" : " bank conflict") + ", " +
            std::to_string(b.wavefronts) + " wavefront(s), efficiency " + fixed(100 * b.efficiency, 1) + " %",
        b.derivation);
  return 0;
}

int run_divergence(const Args& a) {
  const int forms = (a.ways > 0) + !a.trips.empty() + (a.base >= 0 || a.spread >= 0);
  if (forms != 1) bad_input("give exactly one of --ways K, --trips LIST, or --base B --spread S");
  model::Divergence d;
  if (a.ways > 0) d = model::divergent_paths(a.ways);
  else if (!a.trips.empty()) d = model::loop_trips(parse_list("--trips", a.trips));
  else d = model::loop_linear(a.base < 0 ? 0 : a.base, a.spread < 0 ? 0 : a.spread);
  if (a.json.on()) {
    ojson j{{"issued", d.issued}, {"useful", d.useful}, {"efficiency", d.efficiency}, {"slowdown", d.slowdown},
            {"derivation", d.derivation}};
    emit_json(a.json, j);
    return 0;
  }
  print("efficiency " + fixed(100 * d.efficiency, 1) + " %, " + fixed(d.slowdown, 2) + "× the time of a uniform warp",
        d.derivation);
  return 0;
}

int run_against(const Args& a) {
  const results::File f = results::read(a.against);
  const auto rows = report::predict_against(f);
  if (a.json.on()) {
    ojson j = {{"rows", ojson::array()}};
    for (const auto& r : rows)
      j["rows"].push_back({{"family", r.family}, {"compared", r.compared}, {"model", r.model}, {"predicted", r.predicted},
                   {"predicted_dram_granule", r.predicted_alt > 0 ? ojson(r.predicted_alt) : ojson(nullptr)},
                   {"measured", r.measured}});
    emit_json(a.json, j);
    return 0;
  }
  const std::string md = report::against_markdown(rows);
  std::printf("%s", a.markdown ? md.c_str() : markdown_text(md).c_str());
  return 0;
}

}  // namespace

Command add_access(CLI::App& root, Global&) {
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("access", "a warp's access pattern: coalescing, bank conflicts, divergence (§7.1, §9, §12)");
  app->add_option("what", args->what, "coalescing | banks | divergence");
  app->add_option("--against", args->against, "a result file (coalescing, banks, divergence): predicted beside measured")
      ->check(CLI::ExistingFile);
  add_size(app, "--elem", args->elem, "bytes per lane's element (default 4)");
  add_size(app, "--stride", args->stride, "elements between neighbouring lanes (default 1; 0: all lanes on one)");
  add_size(app, "--lanes", args->lanes, "active lanes (default 32)");
  add_size(app, "--offset", args->offset, "coalescing: byte address of lane 0 (default 0)");
  add_size(app, "--granule", args->granule, "coalescing: DRAM access granule in bytes (default 64)");
  app->add_option("--addresses", args->addresses, "coalescing, banks: one byte address per lane, comma-separated");
  add_size(app, "--row", args->row, "banks: elements per tile row (lane i reads element i·stride of the tile)");
  add_size(app, "--pad", args->pad, "banks: padding elements per tile row");
  app->add_flag("--swizzle", args->swizzle, "banks: column index XOR row index");
  add_size(app, "--ways", args->ways, "divergence: distinct paths the warp's lanes take");
  app->add_option("--trips", args->trips, "divergence: trip counts per lane, comma-separated");
  add_size(app, "--base", args->base, "divergence: lane i loops base + i·spread times");
  add_size(app, "--spread", args->spread, "divergence: see --base");
  add_json(app, args->json, "the model's figures");
  app->add_flag("--markdown", args->markdown, "--against: print the table as Markdown (as docs/access.md holds it)");
  return {app, [args]() -> int {
            const Args& a = *args;
            if (!a.against.empty()) {
              if (!a.what.empty()) bad_input("--against takes no model name", "sol access --against FILE");
              return run_against(a);
            }
            if (a.what == "coalescing") return run_coalescing(a);
            if (a.what == "banks") return run_banks(a);
            if (a.what == "divergence") return run_divergence(a);
            bad_input("unknown access model '" + a.what + "'" + did_you_mean(a.what, {"coalescing", "banks", "divergence"}),
                      "use coalescing, banks or divergence (or --against FILE)");
          }};
}

}  // namespace sol::cli

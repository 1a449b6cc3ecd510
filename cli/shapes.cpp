// `sol shapes gemm --m M --n N --k K --dtype T --gpu NAME [--tile 128x256x64] [--json]` and
// `--sweep FROM:TO:STEP`: the shape effects (§0, §10) between a GEMM's roofline floor and what a
// tiled kernel can reach: tile and wave quantization and operand alignment, and the predicted
// time = floor ÷ their product. A sweep prints the predicted curve over square sizes.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/shapes.hpp"

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;

struct Args {
  std::string op, gpu = "h100", dtype = "bf16", tile = "128x256x64", sweep;
  int64_t m = 0, n = 0, k = 0;
  int blocks_per_sm = 1;
  JsonOut json;
};

ojson to_json(const model::GemmEstimate& e) { return ojson::parse(model::gemm_estimate_json(e)); }

int run(Args a) {
  if (a.op != "gemm") bad_input("unknown shape model '" + a.op + "'", "use: sol shapes gemm ...");
  const hw::HwSpec& spec = hw::find(a.gpu);
  model::GemmShape s{a.m, a.n, a.k, parse_dtype(a.dtype), model::parse_tile(a.tile), a.blocks_per_sm};
  if (a.sweep.empty()) {
    if (a.m <= 0 || a.n <= 0 || a.k <= 0) bad_input("give --m, --n and --k (each ≥ 1)", "or --sweep FROM:TO:STEP");
    const model::GemmEstimate e = model::gemm_estimate(s, spec);
    if (a.json.on()) {
      ojson j = to_json(e);
      j["gpu"] = spec.name;
      emit_json(a.json, j);
      return 0;
    }
    std::printf("GEMM %lld×%lld×%lld %s on %s, tile %s\n", (long long)s.m, (long long)s.n, (long long)s.k,
                a.dtype.c_str(), spec.full_name.c_str(), model::tile_str(s.tile).c_str());
    for (const auto& line : e.derivation) std::printf("  %s\n", line.c_str());
    for (const auto& op : e.alignment)
      std::printf("  %s: pitch %lld B, %s-aligned, %lld-byte loads\n", op.operand.c_str(), (long long)op.pitch_bytes,
                  model::align_name(op.cls).c_str(), (long long)op.vector_bytes);
    return 0;
  }
  const auto curve = model::gemm_sweep(s, model::parse_sweep(a.sweep), spec);
  if (a.json.on()) {
    ojson j;
    j["gpu"] = spec.name;
    j["points"] = ojson::array();
    for (const auto& e : curve) j["points"].push_back(to_json(e));
    emit_json(a.json, j);
    return 0;
  }
  Table t({"M", "N", "K", "tiles", "waves", "tile eff", "wave eff", "align", "predicted", "TFLOP/s"});
  for (const auto& e : curve)
    t.add_row({std::to_string(e.shape.m), std::to_string(e.shape.n), std::to_string(e.shape.k), std::to_string(e.tiles),
               num(e.waves, 3), fixed(100 * e.tile_efficiency, 1) + " %", fixed(100 * e.wave_efficiency, 1) + " %",
               std::to_string(e.vector_bytes) + " B", si(e.predicted_s, "s"), fixed(e.predicted_flops_per_s / 1e12, 1)});
  std::printf("GEMM %s on %s, tile %s: predicted = roofline floor ÷ (tile × wave × alignment efficiency)\n%s",
              a.dtype.c_str(), spec.full_name.c_str(), model::tile_str(s.tile).c_str(), t.str().c_str());
  return 0;
}

}  // namespace

Command add_shapes(CLI::App& root, Global&) {
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("shapes", "shape effects on a GEMM: tile and wave quantization, alignment (§0, §10)");
  app->add_option("op", args->op, "gemm")->required();
  add_size(app, "--m", args->m, "rows of A and C");
  add_size(app, "--n", args->n, "columns of B and C");
  add_size(app, "--k", args->k, "the contracted dimension");
  app->add_option("--dtype", args->dtype, "element type (default bf16)");
  app->add_option("--gpu", args->gpu, "database name or a row from --hw-file (default h100)");
  app->add_option("--tile", args->tile, "block tile MxNxK (default 128x256x64)");
  add_size(app, "--blocks-per-sm", args->blocks_per_sm, "tiles resident per SM at once (default 1)");
  app->add_option("--sweep", args->sweep, "FROM:TO:STEP: square sizes for every dimension not given");
  add_json(app, args->json, "the estimate");
  app->footer(std::string("SIZE: ") + kCountForms);
  return {app, [args]() { return run(*args); }};
}

}  // namespace sol::cli

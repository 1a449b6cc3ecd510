// sol._core: the host library for Python. The functions return the same JSON documents the CLI
// prints with --json (built by the same library code), which the pure-Python layer turns into
// dataclasses; sol::Error becomes sol.Error with the CLI's one-line message.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"
#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/roofline_query.hpp"
#include "errors.hpp"
#include "models.hpp"

namespace nb = nanobind;

namespace {

std::vector<std::string> hw_names() {
  std::vector<std::string> names;
  for (const sol::hw::HwSpec* s : sol::hw::all_specs()) names.push_back(s->name);
  return names;
}

std::string roofline_json(const std::string& op, const std::string& gpu, const std::string& dtype, const std::string& unit,
                          const std::string& impl, const std::map<std::string, int64_t>& sizes, double flops_per_op,
                          bool causal, bool backward, bool l2_reuse, double flops, double bytes, const std::string& name) {
  sol::model::RooflineQuery q;
  q.op = op;
  q.gpu = gpu;
  q.dtype = sol::parse_dtype(dtype);
  q.unit = unit;
  q.impl = impl;
  q.sizes = sizes;
  q.flops_per_op = flops_per_op;
  q.causal = causal;
  q.backward = backward;
  q.l2_reuse = l2_reuse;
  q.flops = flops;
  q.bytes = bytes;
  q.name = name;
  return sol::model::to_json(sol::model::answer(q), -1);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "sol's host library: hardware database and models (use the sol package, not this module)";
  static nb::exception<sol::Error> error(m, "Error");
  sol::python::translate_errors(error);

  m.def("hw_names", &hw_names, "database rows, in the database's order");
  m.def(
      "hw_json", [](const std::string& name) { return sol::hw::to_json(sol::hw::find(name), -1); }, nb::arg("name"),
      "one row of the database as JSON (the --hw-file format)");
  m.def(
      "hw_peak",
      [](const std::string& name, const std::string& dtype, const std::string& unit) {
        const auto& hw = sol::hw::find(name);
        if (unit != "matrix" && unit != "vector") sol::bad_input("unknown unit '" + unit + "'", "use matrix or vector");
        const auto& p = hw.peak(sol::parse_dtype(dtype), unit == "matrix" ? sol::hw::Unit::Matrix : sol::hw::Unit::Vector);
        return nb::make_tuple(p.flops_per_s, p.derivation(), p.source);
      },
      nb::arg("name"), nb::arg("dtype"), nb::arg("unit"), "(FLOP/s, derivation, source) of one peak");
  m.def("load_hw_file", [](const std::string& path) {
    std::vector<std::string> names;
    for (const auto& s : sol::hw::load_file(path)) names.push_back(s.name);
    return names;
  }, nb::arg("path"), "adds the rows of a --hw-file JSON to the database; returns their names");
  m.def("roofline_json", &roofline_json, nb::arg("op"), nb::arg("gpu"), nb::arg("dtype"), nb::arg("unit"),
        nb::arg("impl"), nb::arg("sizes"), nb::arg("flops_per_op"), nb::arg("causal"), nb::arg("backward"),
        nb::arg("l2_reuse"), nb::arg("flops"), nb::arg("bytes"), nb::arg("name"),
        "the `sol roofline --json` document of one question");

  // The other models: each the `--json` document of the subcommand its name says.
  using namespace sol::python;
  m.def(
      "shapes_json",
      [](int64_t mm, int64_t n, int64_t k, const std::string& dtype, const std::string& gpu, const std::string& tile,
         int blocks_per_sm, const std::string& sweep) {
        return gemm_shape_json({mm, n, k, dtype, gpu, tile, sweep, blocks_per_sm});
      },
      nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("dtype"), nb::arg("gpu"), nb::arg("tile"),
      nb::arg("blocks_per_sm"), nb::arg("sweep"), "sol shapes gemm");
  m.def("occupancy_json", &occupancy_json, nb::arg("gpu"), nb::arg("threads"), nb::arg("regs"), nb::arg("smem"),
        nb::arg("dynamic_smem"), nb::arg("carveout"), "sol occupancy");
  m.def("coalescing_json", &coalescing_json, nb::arg("elem"), nb::arg("stride"), nb::arg("lanes"), nb::arg("offset"),
        nb::arg("granule"), nb::arg("addresses"), "sol access coalescing");
  m.def("banks_json", &banks_json, nb::arg("elem"), nb::arg("stride"), nb::arg("row"), nb::arg("pad"),
        nb::arg("swizzle"), nb::arg("lanes"), nb::arg("addresses"), "sol access banks");
  m.def("divergence_json", &divergence_json, nb::arg("ways"), nb::arg("trips"), nb::arg("base"), nb::arg("spread"),
        "sol access divergence");
  m.def(
      "checkpoint_json",
      [](int64_t layers, int64_t batch, int64_t seq, int64_t d_model, int64_t heads, int64_t mlp_ratio,
         const std::string& gpu, const std::string& budget, const std::string& attention) {
        return checkpoint_json({layers, batch, seq, d_model, heads, mlp_ratio, gpu, budget, attention});
      },
      nb::arg("layers"), nb::arg("batch"), nb::arg("seq"), nb::arg("d_model"), nb::arg("heads"), nb::arg("mlp_ratio"),
      nb::arg("gpu"), nb::arg("budget"), nb::arg("attention"), "sol checkpoint");
  m.def(
      "systolic_json",
      [](const std::string& config, const std::string& topology, const std::vector<int64_t>& gemm,
         const std::vector<int64_t>& conv, int64_t rows, int64_t cols, const std::string& dataflow,
         const std::string& compat, const std::string& engine, const std::vector<int64_t>& sram_kb, double dram_bw,
         int64_t word_bytes, bool overlap, bool no_replay) {
        SystolicArgs a;
        a.config = config, a.topology = topology, a.gemm = gemm, a.conv = conv, a.rows = rows, a.cols = cols;
        a.dataflow = dataflow, a.compat = compat, a.engine = engine, a.sram_kb = sram_kb, a.dram_bw = dram_bw;
        a.word_bytes = word_bytes, a.overlap = overlap, a.no_replay = no_replay;
        return systolic_json(a);
      },
      nb::arg("config"), nb::arg("topology"), nb::arg("gemm"), nb::arg("conv"), nb::arg("rows"), nb::arg("cols"),
      nb::arg("dataflow"), nb::arg("compat"), nb::arg("engine"), nb::arg("sram_kb"), nb::arg("dram_bw"),
      nb::arg("word_bytes"), nb::arg("overlap"), nb::arg("no_replay"), "sol systolic");
  m.def("doctor_json", &doctor_json, nb::arg("variant"), nb::arg("shape"), nb::arg("results"), nb::arg("gpu"),
        nb::arg("measured_s"), "sol doctor --results");
}

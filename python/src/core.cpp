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
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void* payload) {
        try {
          std::rethrow_exception(p);
        } catch (const sol::Error& e) {
          PyErr_SetString(static_cast<PyObject*>(payload), e.line().c_str());
        }
      },
      error.ptr());

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
}

#pragma once
// sol::Error, thrown by the library, raised in Python as `error` (sol.Error) with the one-line
// message the CLI prints.
#include <nanobind/nanobind.h>

#include <exception>

#include "sol/core/error.hpp"

namespace sol::python {

inline void translate_errors(nanobind::handle error) {
  nanobind::register_exception_translator(
      [](const std::exception_ptr& p, void* payload) {
        try {
          std::rethrow_exception(p);
        } catch (const sol::Error& e) {
          PyErr_SetString(static_cast<PyObject*>(payload), e.line().c_str());
        }
      },
      error.ptr());
}

}  // namespace sol::python

#pragma once
// The doctor without a GPU: a variant's prediction at a shape (the registry's declarations on the
// models of sol/predict.hpp) beside a measured time, either a committed record's or one the caller
// took (sol.measure in Python), with the findings and prescriptions of predict::diagnose.
// `sol doctor --results DIR` and sol.doctor both run it; measuring on a GPU is bench/'s doctor.
#include <string>

#include "sol/predict.hpp"

namespace sol {

struct DoctorQuery {
  std::string variant;     // "FAMILY/VARIANT" (sol list)
  std::string shape;       // "" : the first committed record's shape, else the headline bench shape
  std::string results;     // a folder of results files ("": none, the datasheet's ceilings)
  std::string gpu;         // database row ("": the results' device row, else h200)
  double measured_s = 0;   // > 0: the caller's own time at the shape, in place of a record's
};

// Throws sol::Error (BadInput) for a name that is not FAMILY/VARIANT, a results folder without
// files or without the variant, a shape the variant's cost cannot read, a time that is not finite.
predict::Diagnosis doctor(const DoctorQuery& q);
// The document `sol doctor --json` prints: family, variant, shape, measured_s (0: none),
// predicted_s, bound, cause, origin, findings [{topic, observation, prescription, problem}].
std::string diagnosis_json(const predict::Diagnosis& d);

}  // namespace sol

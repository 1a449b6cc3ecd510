#pragma once
// docs/comm.md: the collective model's tables (sol/model/comm.hpp) and, where `sol bench comm`
// has written them, the NCCL measurements set beside the model's prediction, with a picture.
#include <string>
#include <utility>
#include <vector>

namespace sol::report {

// docs/comm.md (first) and the SVG files it links, as (file name, text) pairs, from
// results_root/<gpu>x<N>/comm*.json where they exist; where none exist the page says that the
// measurement has not been taken. Throws sol::Error (BadInput) for a comm*.json that is not a
// `sol bench comm` document.
std::vector<std::pair<std::string, std::string>> comm_docs(const std::string& results_root);

}  // namespace sol::report

#pragma once
// A dispatcher chooses an implementation by default only once the committed tables hold a
// measurement of it (a kernel that never ran on the GPU the tables come from is not a user's
// default). SOL_DISPATCH_UNMEASURED=1 in the environment lets the dispatchers choose such
// implementations as well; it is read on every call, so a program (or a test) may set it at any time.
#include <cstdlib>
#include <cstring>

namespace sol::api {

inline bool unmeasured_allowed() {
  const char* v = std::getenv("SOL_DISPATCH_UNMEASURED");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace sol::api

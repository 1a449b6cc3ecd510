#pragma once
// sol::Error — every failure in library code is a value that says what was wrong and how to fix it.
// The CLI turns kind() into the exit code: bad input → 2, anything else → 1.
#include <stdexcept>
#include <string>

namespace sol {

class Error : public std::runtime_error {
 public:
  enum class Kind { BadInput, Failure };

  Error(Kind kind, const std::string& what, std::string fix = {})
      : std::runtime_error(what), kind_(kind), fix_(std::move(fix)) {}

  Kind kind() const { return kind_; }
  const std::string& fix() const { return fix_; }
  // "what (fix)" on one line, as the CLI prints it.
  std::string line() const { return fix_.empty() ? std::string(what()) : std::string(what()) + " (" + fix_ + ")"; }

 private:
  Kind kind_;
  std::string fix_;
};

[[noreturn]] inline void bad_input(const std::string& what, const std::string& fix = {}) {
  throw Error(Error::Kind::BadInput, what, fix);
}
[[noreturn]] inline void failure(const std::string& what, const std::string& fix = {}) {
  throw Error(Error::Kind::Failure, what, fix);
}

}  // namespace sol

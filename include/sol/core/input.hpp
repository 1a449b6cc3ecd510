#pragma once
// Reading what a user hands in: a whole input file (hardware rows, results, topologies), and text
// from the input echoed back in an error. An input file must be a regular file of bounded size,
// so a device, a FIFO or a runaway file is one clear line, never a hang; echoed text is escaped
// and cut short, so an error stays one printable line whatever the input held.
#include <cstdint>
#include <string>

namespace sol {

// The largest input file any command reads (the biggest real one, a results file, is ~1 MB).
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(64) << 20;

// The contents of `path`; `what` names the file in errors ("hardware file", "results file").
std::string read_input_file(const std::string& path, const std::string& what,
                            std::uintmax_t max_bytes = kMaxInputFileBytes);

// `text` quoted for an error line: control and non-ASCII bytes that are not valid UTF-8 as \xNN,
// newlines and tabs as \n and \t, and more than `max_chars` bytes cut to that with "…".
std::string printable(const std::string& text, size_t max_chars = 80);

}  // namespace sol

#pragma once
// The one grammar for sizes on the command line and in shape strings ("n=2^28,rows=4k"):
//   count  an integer ≥ 0: 4096, 4k / 4M / 4G / 4T (× 2^10, 2^20, 2^30, 2^40), or B^E (2^28)
//   bytes  a count, or a number with a unit: B, KB/MB/GB/TB (× 10^3 … 10^12) or
//          KiB/MiB/GiB/TiB (× 2^10 … 2^40), e.g. 40GiB, 80GB, 1.5MiB, 1e9
//   tuple  counts joined by ',' or 'x': 1000,1000,1000 or 1000x1000x1000
// Every error is one sol::Error (BadInput) naming `what` (the flag or dimension) and the forms.
#include <cstdint>
#include <string>
#include <vector>

namespace sol {

// The accepted forms, for --help texts and error messages.
inline constexpr const char* kCountForms = "e.g. 4096, 4k (k/M/G/T: ×2^10/20/30/40) or 2^N";
inline constexpr const char* kBytesForms = "e.g. 4096, 4k, 2^30, 40GiB (2^30 B), 80GB (10^9 B) or 1e9";

int64_t parse_count(const std::string& what, const std::string& text);
double parse_bytes(const std::string& what, const std::string& text);  // > 0, finite
std::vector<int64_t> parse_counts(const std::string& what, const std::string& text, size_t n_min, size_t n_max);

}  // namespace sol

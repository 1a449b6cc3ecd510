#pragma once
// The registry's view of the copy family (no CUDA types): shape n = fp32 elements, optional
// offset_in / offset_out (elements, 0…64) to run on misaligned pointers.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::copy {

// dispatch: sol::copy, the public entry (kernels/api/copy.cu), choosing among v02, v03 and the peer.
enum class Version { v01_scalar, v02_vec16, v03_vec16_unroll, peer_memcpy, dispatch };

// v01's blocks: one element per thread, one 4-byte load in flight (v01_scalar.cu; spec.cpp's
// Little's-law declaration reads the same number).
inline constexpr int kScalarThreads = 256;

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version, const Shape& s);
Tolerance tolerance(Version);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::copy

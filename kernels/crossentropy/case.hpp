#pragma once
// The registry's view of the crossentropy family (no CUDA types). Shape: rows (1 … 2^31 − 1),
// vocab (1 … 2^24; the one-read rungs to what a cluster's shared memory holds), and optionally
// smooth (label smoothing ε in thousandths, 0 … 1000), ignore=k (rows r % k == k − 1 get
// ignore_index −100; 0: none), sum=1 (reduction sum instead of mean), i32=1 (int32 labels instead
// of int64), scale (logits × scale, 1 … 1000: peaked rows). Outputs: per-row losses, the reduced
// loss and dlogits, all checked.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::crossentropy {

enum class Version {
  v01_passes, v02_one_read, v03_one_read_fp32,
  dispatch,  // bf16 through the public API (include/sol/kernels.hpp)
};

struct Info {
  bool fp32 = false;
  bool one_read = false;
  bool dispatch = false;
};
inline Info info(Version v) {
  return {v == Version::v03_one_read_fp32, v == Version::v02_one_read || v == Version::v03_one_read_fp32,
          v == Version::dispatch};
}

// The arithmetic of one logit, loss and gradient: its exp, the max, Σexp and Σx adds, and dlogits
// scale and subtract (≈ 6 FLOPs).
inline constexpr double kFlopsPerLogit = 6;

// PyTorch's default ignore_index, used by the Cases' ignored rows.
inline constexpr int64_t kIgnoreIndex = -100;

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::crossentropy

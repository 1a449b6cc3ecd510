#pragma once
// The registry's view of the backward row families layernorm_bwd, rmsnorm_bwd and softmax_bwd
// (no CUDA types). Shapes as the forward's (kernels/rows/case.hpp): rows, cols (1 … 2^24), scale
// (x × scale, 1 … 1000); softmax also mask=1 (the forward's −inf pattern, so y = 0 there).
#include <memory>
#include <string>

#include "kernels/rows/case.hpp"
#include "sol/registry.hpp"

namespace sol::kernels::rows_bwd {

enum class Version {
  ln_v01_eager, ln_v02_one_read, ln_v03_one_read_fp32,
  rms_v01_eager, rms_v02_one_read, rms_v03_one_read_fp32,
  sm_v01_eager, sm_v02_one_read, sm_v03_one_read_fp32,
  ln_dispatch, rms_dispatch, sm_dispatch,  // bf16 through the public API (include/sol/kernels.hpp)
};

using rows::Kind;

// What a Version is: the op, eager or one read, fp32 or bf16 storage, and whether the Case launches
// through the public API; the op's parameter count (γ, β) and its family's name.
struct Info {
  Kind kind;
  bool eager;
  bool fp32;
  bool dispatch = false;
};

inline Info info(Version v) {
  const int i = int(v);
  if (v >= Version::ln_dispatch) return {Kind(i - int(Version::ln_dispatch)), false, false, true};
  const Kind kinds[] = {Kind::LayerNorm, Kind::RMSNorm, Kind::Softmax};
  return {kinds[i / 3], i % 3 == 0, i % 3 == 2};
}

inline int params(Kind k) { return k == Kind::LayerNorm ? 2 : k == Kind::RMSNorm ? 1 : 0; }

inline const char* family_name(Kind k) {
  switch (k) {
    case Kind::LayerNorm: return "layernorm_bwd";
    case Kind::RMSNorm: return "rmsnorm_bwd";
    case Kind::Softmax: return "softmax_bwd";
  }
  return "?";
}

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::rows_bwd

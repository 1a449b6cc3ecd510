// The registry's description of the layernorm_bwd, rmsnorm_bwd and softmax_bwd families, host C++
// in every build: the shapes they take, their cost from the model, their tolerance. make is in
// case_bwd.cu (CUDA only).
#include "kernels/norms/case_bwd.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"

namespace sol::kernels::rows_bwd {

// The forward's shape rules: rows, cols 1 … 2^24, scale; mask for softmax.
std::string unsupported(Version v, const Shape& s) {
  const rows::Version twin[] = {rows::Version::ln_v03_registers, rows::Version::rms_v03_registers,
                                rows::Version::sm_v03_registers};
  return rows::unsupported(twin[int(info(v).kind)], s);
}

// Bytes: the one-read floor for every rung — a (x or y) and dy read, dx
// written, plus γ read and dγ/dβ written, plus the saved fp32 mean/rstd; the eager rungs count
// their whole-tensor passes instead.
model::Cost cost(Version v, const Shape& s) {
  const Info i = info(v);
  const double rows = double(s.at("rows")), cols = double(s.at("cols")), n = rows * cols;
  const double b = i.fp32 ? 4 : 2;
  const int np = params(i.kind);
  struct Passes {
    int reads, writes;
    double flops;
    const char* what;
  };
  const Passes p = i.kind == Kind::LayerNorm
                       ? Passes{12, 5, 11, "g = dy·γ | x̂ | t = g·x̂ | mean g | mean t | dx | u = dy·x̂ | Σ_rows u | Σ_rows dy"}
                   : i.kind == Kind::RMSNorm ? Passes{10, 5, 8, "g = dy·γ | x̂ | t = g·x̂ | mean t | dx | u = dy·x̂ | Σ_rows u"}
                                             : Passes{5, 2, 4, "t = dy·y | Σ t | dx = y·(dy − Σ)"};
  const double small = (np > 0 ? cols * b * (1 + np) : 0) + rows * 4 * (i.kind == Kind::LayerNorm ? 2 : np > 0 ? 1 : 0);
  const double tensor_passes = i.eager ? p.reads + p.writes : 3;
  std::vector<std::string> notes;
  if (i.eager) {
    notes.push_back(std::string("eager passes: ") + p.what);
    notes.push_back(std::to_string(p.reads) + " reads + " + std::to_string(p.writes) + " writes of the tensor");
  } else {
    notes.push_back("one read: a (x or y) and dy read once, dx written once: 3·n·b bytes");
    if (np > 0)
      notes.push_back("workspace of partial column sums (parts × params × cols fp32, written and read once) not counted");
  }
  notes.push_back("plus γ read, dγ/dβ written (cols·b each) and the saved fp32 statistics (rows·4 each)");
  notes.push_back("FLOPs ≈ " + std::to_string(int(p.flops)) + " per element");
  model::Cost c = vector_cost(std::string(family_name(i.kind)) + " " + std::to_string(s.at("rows")) + "×" +
                                  std::to_string(s.at("cols")) + (i.fp32 ? " fp32" : " bf16") + (i.eager ? ", eager" : ", one read"),
                              p.flops * n, tensor_passes * n * b + small, i.fp32 ? DType::f32 : DType::bf16, notes);
  // Launches: one per eager pass (the |-separated list above); the one-read kernel, plus the
  // column-sum kernel that adds the CTAs' partial dγ/dβ where the op has parameters.
  const std::string passes = p.what;
  c.exec.declared = true;
  c.exec.kernels = i.eager ? int(std::count(passes.begin(), passes.end(), '|')) + 1 : 1 + (np > 0);
  c.exec.how = std::to_string(c.exec.kernels) + (c.exec.kernels == 1 ? " kernel" : " kernels");
  return c;
}

Tolerance tolerance(Version v) {
  const Info i = info(v);
  // The error is relative to max(‖result‖, ‖the terms it is computed from‖): see check().
  if (i.fp32) return {1e-5, "fp32 input and output, fp32 sums; error relative to max(‖result‖, ‖its terms‖)"};
  if (i.eager) return {1e-2, "bf16: every eager intermediate (g, x̂, g·x̂, dy·x̂, dy·y) is rounded to bf16; relative to max(‖result‖, ‖its terms‖)"};
  return {4e-3, "bf16 output (one rounding of 2^-9), sums in fp32; error relative to max(‖result‖, ‖its terms‖)"};
}

}  // namespace sol::kernels::rows_bwd

// The registry's description of the elementwise family, host C++ in every build: which shapes it
// takes, its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds
// only.
#include "kernels/elementwise/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"
#include "sol/core/format.hpp"

namespace sol::kernels::elementwise {

namespace {
// Issue slots per element of the fused sin²x + cos²x: ncu counted 298,342,598 warp instructions
// issued for 2^28 bf16 elements (bench/results/h200/ncu/elementwise-v03-sincos-bf16.txt): 35.6
// thread-instructions, the accurate sinf and cosf's range reduction and polynomials.
constexpr double kSlotsPerElement = 298342598.0 * 32 / double(int64_t(1) << 28);
}  // namespace

std::string unsupported(Version, const Shape& s) { return check_dims(s, elementwise_dims()); }

model::Cost cost(Version v, const Shape& s) {
  model::ElementwiseOp op;
  op.n = s.at("n");
  op.ops = 5;  // sin, pow, cos, pow, add
  op.fused = v != Version::v01_eager5_fp32;
  op.extra_reads = op.fused ? 0 : 1;  // the add reads two tensors
  op.dtype = v == Version::v03_fused_bf16 ? DType::bf16 : DType::f32;
  model::Cost c = model::elementwise(op);
  c.notes.push_back("FLOPs count one per op, as the lecture does; accurate sincosf costs ~36 instructions");
  c.exec.declared = true;
  c.exec.kernels = op.fused ? 1 : op.ops;
  c.exec.issue_slots = double(op.n) * (op.fused ? kSlotsPerElement : 0);
  c.exec.how = op.fused ? "one kernel, " + fixed(kSlotsPerElement, 1) + " issue slots per element (ncu)"
                        : std::to_string(op.ops) + " kernels, one per op";
  return c;
}

Tolerance tolerance(Version v) {
  if (v == Version::v03_fused_bf16)
    return {4e-3, "bf16 input and output (8 mantissa bits); the fp32 result ≈ 1 rounds to 1 in bf16"};
  return {1e-6, "fp32: accurate sinf/cosf (≤ 2 ulp each) and three roundings; max |err| ≈ 4 ulp of 1 ≈ 5e-7"};
}

}  // namespace sol::kernels::elementwise

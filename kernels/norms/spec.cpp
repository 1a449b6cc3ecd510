// The registry's description of the layernorm, rmsnorm and softmax families, host C++ in every
// build: the shapes they take, their cost from the model, their tolerance. make is in case.cu (CUDA
// only).
#include "kernels/norms/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"

namespace sol::kernels::rows {

// Every kernel takes any row length (the register kernel falls back to the looped one, the
// backward's one-read kernel to its looped one); the bound keeps a Case's host reference and
// its buffers of a sane size.
constexpr int64_t kMaxCols = int64_t(1) << 24;

std::string unsupported(Version v, const Shape& s) {
  std::vector<DimRule> rules = {{"rows", 1, int64_t(1) << 31}, {"cols", 1, kMaxCols}, {"scale", 1, 1000, false}};
  if (info(v).kind == Kind::Softmax) rules.push_back({"mask", 0, 1, false});
  if (std::string why = check_dims(s, rules); !why.empty()) return why;
  if (product_or_minus1({s.at("rows"), s.at("cols"), 4}, int64_t(1) << 40) < 0)
    return "rows × cols is too large (over 2^38 elements)";
  return {};
}

model::Cost cost(Version v, const Shape& s) {
  const Info i = info(v);
  model::RowOp op;
  op.kind = i.kind == Kind::LayerNorm ? model::RowKind::LayerNorm
            : i.kind == Kind::RMSNorm ? model::RowKind::RMSNorm
                                      : model::RowKind::Softmax;
  op.rows = s.at("rows");
  op.cols = s.at("cols");
  op.fused = i.impl != Impl::Eager;
  op.dtype = i.fp32 ? DType::f32 : DType::bf16;
  model::Cost c = model::row_op(op);
  if (i.impl == Impl::Cluster)
    c.notes.push_back("one read: rows past the registers are held in a cluster's shared memory; rows longer than it "
                      "holds, or unaligned rows of ≤ 1024 columns, take the looped kernel (a second read, L1/L2)");
  if (i.impl == Impl::Looped)
    c.notes.push_back("counted as one read: the second read of each row is meant to hit L1/L2, not HBM");
  c.notes.push_back("saved statistics (fp32 per row) not counted: rows ≪ rows × cols");
  // The eager rung launches one kernel per pass of the lecture's formula (four for each op).
  c.exec.declared = true;
  c.exec.kernels = i.impl == Impl::Eager ? 4 : 1;
  c.exec.how = std::to_string(c.exec.kernels) + (c.exec.kernels == 1 ? " kernel" : " kernels");
  return c;
}

Tolerance tolerance(Version v) {
  const Info i = info(v);
  if (i.fp32) return {1e-5, "fp32 input and output, fp32 statistics (per-thread sums, then a tree)"};
  if (i.impl == Impl::Eager)
    return {1e-2, "bf16: every eager intermediate tensor is rounded to bf16 (three roundings of 2^-9)"};
  return {4e-3, "bf16 output (8 mantissa bits, one rounding of 2^-9); statistics in fp32"};
}

}  // namespace sol::kernels::rows

// The registry's description of the layernorm, rmsnorm and softmax families, host C++ in every
// build: the shapes they take, their cost from the model, their tolerance. make is in case.cu (CUDA
// only).
#include "kernels/rows/case.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"
#include "kernels/rows/launch.hpp"

namespace sol::kernels::rows {

// Every kernel takes any row length (the register kernel falls back to the looped one, the
// backward's one-read kernel to its looped one); the bound keeps a Case's host reference and
// its buffers of a sane size.
constexpr int64_t kMaxCols = int64_t(1) << 24;

std::string unsupported(Version v, const Shape& s) {
  std::vector<DimRule> rules = {{"rows", 1, int64_t(1) << 31}, {"cols", 1, kMaxCols}, {"scale", 1, 1000, false}};
  const Info i = info(v);
  if (i.kind == Kind::Softmax) rules.push_back({"mask", 0, 1, false});
  else rules.push_back({"residual", 0, 1, false});  // the norms' fused residual add (RowArgs::res)
  // The norms' e4m3 codes of y (RowArgs::y8): 1 beside y, 2 in its place (kFp8Key).
  if (i.kind != Kind::Softmax) rules.push_back({kFp8Key, 0, 2, false});
  if (std::string why = check_dims(s, rules); !why.empty()) return why;
  if (s.get(kFp8Key, 0) != 0 && i.impl == Impl::Eager)
    return "fp8: the eager passes write no e4m3 codes (the one-kernel rungs v02–v04 and the dispatcher do)";
  if (product_or_minus1({s.at("rows"), s.at("cols"), 4}, int64_t(1) << 40) < 0)
    return "rows × cols is too large (over 2^38 elements)";
  return {};
}

model::LoadStream eager_pass_stream(int64_t rows, int64_t cols, int elem_bytes, bool writes, std::string what) {
  const int threads = cols <= kWarpRowMaxCols ? 32 : kLongRowThreads;
  const int block = std::max(threads, kRowMinBlockThreads);
  const double bytes = double(rows) * double(cols) * elem_bytes;
  model::LoadStream st;
  st.read_bytes = bytes;
  st.write_bytes = writes ? bytes : 0;
  st.blocks = (rows + block / threads - 1) / (block / threads);
  // ptxas -v (CUDA 13.0, sm_90a): 20 to 32 registers; 128 B of shared memory for the block reduction.
  st.block = {.block_threads = block, .registers_per_thread = 32, .static_shared_bytes = 128};
  st.loads_in_flight = writes ? 1 : 4;
  st.load_bytes = elem_bytes;
  st.what = std::move(what);
  return st;
}

model::LoadStream eager_map_stream(int64_t rows, int64_t cols, int elem_bytes, int reads, std::string what) {
  const double bytes = double(rows) * double(cols) * elem_bytes;
  model::LoadStream st;
  st.read_bytes = reads * bytes;
  st.write_bytes = bytes;
  st.blocks = std::min<int64_t>((rows * cols + kEagerMapThreads - 1) / kEagerMapThreads, kEagerMapMaxBlocks);
  // ptxas -v (CUDA 13.0, sm_90a): 16 to 24 registers.
  st.block = {.block_threads = kEagerMapThreads, .registers_per_thread = 24};
  st.loads_in_flight = reads;
  st.load_bytes = elem_bytes;
  st.what = std::move(what);
  return st;
}

namespace {
// The lecture's passes of each op, in launch order (layernorm.cu, rmsnorm.cu, softmax.cu): what
// each reads and writes, and whether it writes a tensor.
struct EagerPass {
  const char* what;
  bool writes;
};
constexpr EagerPass kLayerNormPasses[] = {{"mean: reads x", false},
                                          {"center and variance: reads x, writes xc", true},
                                          {"normalize: reads xc, writes y", true},
                                          {"affine: reads y, writes y", true}};
constexpr EagerPass kRmsNormPasses[] = {{"x²: reads x, writes t", true},
                                        {"rstd: reads t", false},
                                        {"scale: reads x, writes y", true},
                                        {"affine: reads y, writes y", true}};
constexpr EagerPass kSoftmaxPasses[] = {{"max: reads x", false},
                                        {"exp(x − max): reads x, writes e", true},
                                        {"1/Σ: reads e", false},
                                        {"multiply: reads e, writes y", true}};
}  // namespace

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
  op.residual = i.kind != Kind::Softmax && s.get("residual", 0) != 0;
  if (i.kind != Kind::Softmax) op.fp8 = model::RowOp::Fp8(s.get(kFp8Key, 0));
  model::Cost c = model::row_op(op);
  const int b = i.fp32 ? 4 : 2;
  if (i.impl == Impl::Cluster)
    c.notes.push_back("one read: rows past the registers are held in a cluster's shared memory; rows longer than it "
                      "holds, or unaligned rows of ≤ 1024 columns, take the looped kernel (a second read, L1/L2)");
  const bool looped = i.impl == Impl::Looped ||
                      (i.impl == Impl::Registers && (op.cols > register_max_cols(b) || op.cols % (16 / b) != 0));
  if (looped) {
    c.notes.push_back("counted as one read: the second read of each row is meant to hit L1/L2, not HBM");
    // The looped kernel (v02_looped.cuh) reads each row twice: a warp per row in 128-thread blocks, or a
    // 512-thread block per row. Between a row's two reads the resident blocks each read and write
    // their rows; ptxas -v (CUDA 13.0, sm_90a): 40 to 64 registers at 512 threads, 53 at 32.
    const bool warp = op.cols <= kWarpRowMaxCols;
    const int64_t rows_per_block = warp ? kRowMinBlockThreads / 32 : 1;
    c.exec.reread.bytes = double(op.rows) * double(op.cols) * b;
    c.exec.reread.blocks = (op.rows + rows_per_block - 1) / rows_per_block;
    c.exec.reread.block = {.block_threads = warp ? kRowMinBlockThreads : kLongRowThreads,
                           .registers_per_thread = warp ? 56 : 64, .static_shared_bytes = 128};
    c.exec.reread.block_bytes = 2.0 * double(rows_per_block) * double(op.cols) * b;
  }
  c.notes.push_back("saved statistics (fp32 per row) not counted: rows ≪ rows × cols");
  // The eager rung launches one kernel per pass of the lecture's formula (four for each op).
  c.exec.declared = true;
  c.exec.kernels = 1;
  if (i.impl == Impl::Eager) {
    const std::span<const EagerPass> passes = i.kind == Kind::LayerNorm ? std::span<const EagerPass>(kLayerNormPasses)
                                              : i.kind == Kind::RMSNorm ? std::span<const EagerPass>(kRmsNormPasses)
                                                                        : std::span<const EagerPass>(kSoftmaxPasses);
    if (op.residual)  // residual_add_kernel (v01_eager.cuh)
      c.exec.streams.push_back(eager_map_stream(op.rows, op.cols, b, 2, "s = x + res: reads x and res, writes s"));
    for (const EagerPass& pass : passes)
      c.exec.streams.push_back(eager_pass_stream(op.rows, op.cols, b, pass.writes, pass.what));
    c.exec.kernels = int(c.exec.streams.size());
  }
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

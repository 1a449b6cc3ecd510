// The registry's description of the layernorm_bwd, rmsnorm_bwd and softmax_bwd families, host C++
// in every build: the shapes they take, their cost from the model, their tolerance. make is in
// case_bwd.cu (CUDA only).
#include "kernels/rows/case_bwd.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <span>
#include <vector>

#include "kernels/common/spec.hpp"
#include "kernels/rows/launch.hpp"

namespace sol::kernels::rows_bwd {

// The forward's shape rules: rows, cols 1 … 2^24, scale; mask for softmax.
std::string unsupported(Version v, const Shape& s) {
  const rows::Version twin[] = {rows::Version::ln_v03_registers, rows::Version::rms_v03_registers,
                                rows::Version::sm_v03_registers};
  return rows::unsupported(twin[int(info(v).kind)], s);
}

namespace {
// The eager backward's launches in order (layernorm_bwd.cu, rmsnorm_bwd.cu, softmax_bwd.cu): an
// elementwise map of one or two tensors (backward.cuh's eager_map_kernel), a row reduction (the
// forward's eager pass), or a sum over rows (column_sum_kernel, one per parameter gradient).
enum class Step { Map1, Map2, RowReduce, ColumnSum };
struct EagerStep {
  Step step;
  const char* what;
};
constexpr EagerStep kLayerNormSteps[] = {{Step::Map1, "g = dy·γ"},          {Step::Map1, "x̂"},
                                         {Step::Map2, "t = g·x̂"},           {Step::RowReduce, "mean g"},
                                         {Step::RowReduce, "mean t"},       {Step::Map2, "dx"},
                                         {Step::Map2, "u = dy·x̂"},          {Step::ColumnSum, "Σ_rows u"},
                                         {Step::ColumnSum, "Σ_rows dy"}};
constexpr EagerStep kRmsNormSteps[] = {{Step::Map1, "g = dy·γ"}, {Step::Map1, "x̂"},    {Step::Map2, "t = g·x̂"},
                                       {Step::RowReduce, "mean t"}, {Step::Map2, "dx"}, {Step::Map2, "u = dy·x̂"},
                                       {Step::ColumnSum, "Σ_rows u"}};
constexpr EagerStep kSoftmaxSteps[] = {{Step::Map2, "t = dy·y"}, {Step::RowReduce, "Σ t"}, {Step::Map2, "dx = y·(dy − Σ)"}};

// Tensor reads of a step (a map's inputs; a reduction's one), and whether it writes a tensor.
int step_reads(Step s) { return s == Step::Map2 ? 2 : 1; }
bool step_writes(Step s) { return s == Step::Map1 || s == Step::Map2; }

// One launch as the model's Little's law sees it (model::LoadStream), over rows × cols of b bytes:
// the maps as rows::eager_map_stream; the column sum unrolls by 4 (#pragma unroll 4), ptxas -v
// (CUDA 13.0, sm_90a): 24 registers and 4,224 B of shared memory.
model::LoadStream step_stream(const EagerStep& e, int64_t rows, int64_t cols, int b) {
  if (e.step == Step::RowReduce) return rows::eager_pass_stream(rows, cols, b, false, e.what);
  if (e.step != Step::ColumnSum) return rows::eager_map_stream(rows, cols, b, step_reads(e.step), e.what);
  model::LoadStream st;
  st.read_bytes = double(rows) * double(cols) * b;
  st.load_bytes = b;
  st.what = e.what;
  st.blocks = (cols + 31) / 32;
  st.block = {.block_threads = rows::kSumWarps * 32, .registers_per_thread = 24, .static_shared_bytes = 4224};
  st.loads_in_flight = 4;
  return st;
}
}  // namespace

// Bytes: the one-read floor for every rung — a (x or y) and dy read, dx
// written, plus γ read and dγ/dβ written, plus the saved fp32 mean/rstd; the eager rungs count
// their whole-tensor passes instead.
model::Cost cost(Version v, const Shape& s) {
  const Info i = info(v);
  const double rows = double(s.at("rows")), cols = double(s.at("cols")), n = rows * cols;
  const int b = i.fp32 ? 4 : 2;
  const int np = params(i.kind);
  const std::span<const EagerStep> steps = i.kind == Kind::LayerNorm ? std::span<const EagerStep>(kLayerNormSteps)
                                            : i.kind == Kind::RMSNorm ? std::span<const EagerStep>(kRmsNormSteps)
                                                                      : std::span<const EagerStep>(kSoftmaxSteps);
  int reads = 0, writes = 0;
  std::string what;
  for (const EagerStep& e : steps) {
    reads += step_reads(e.step);
    writes += step_writes(e.step);
    what += (what.empty() ? "" : " | ") + std::string(e.what);
  }
  const double flops = i.kind == Kind::LayerNorm ? 11 : i.kind == Kind::RMSNorm ? 8 : 4;
  const double small = (np > 0 ? cols * b * (1 + np) : 0) + rows * 4 * (i.kind == Kind::LayerNorm ? 2 : np > 0 ? 1 : 0);
  const double tensor_passes = i.eager ? reads + writes : 3;
  std::vector<std::string> notes;
  if (i.eager) {
    notes.push_back("eager passes: " + what);
    notes.push_back(std::to_string(reads) + " reads + " + std::to_string(writes) + " writes of the tensor");
  } else {
    notes.push_back("one read: a (x or y) and dy read once, dx written once: 3·n·b bytes");
    if (np > 0)
      notes.push_back("workspace of partial column sums (parts × params × cols fp32, written and read once) not counted");
  }
  notes.push_back("plus γ read, dγ/dβ written (cols·b each) and the saved fp32 statistics (rows·4 each)");
  notes.push_back("FLOPs ≈ " + std::to_string(int(flops)) + " per element");
  model::Cost c = vector_cost(std::string(family_name(i.kind)) + " " + std::to_string(s.at("rows")) + "×" +
                                  std::to_string(s.at("cols")) + (i.fp32 ? " fp32" : " bf16") + (i.eager ? ", eager" : ", one read"),
                              flops * n, tensor_passes * n * b + small, i.fp32 ? DType::f32 : DType::bf16, notes);
  // Launches: one per eager step, each bounded by its loads in flight; the one-read kernel, plus
  // the column-sum kernel that adds the CTAs' partial dγ/dβ where the op has parameters.
  c.exec.declared = true;
  c.exec.kernels = 1 + (np > 0);
  if (i.eager) {
    for (const EagerStep& e : steps) c.exec.streams.push_back(step_stream(e, s.at("rows"), s.at("cols"), b));
    c.exec.kernels = int(steps.size());
  }
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

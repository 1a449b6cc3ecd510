// Registry wrapper for banks: a GatherCase whose output element j = (row j / rows, column
// j % rows) of the transpose reads input element (j % rows, j / rows).
#include "kernels/banks/banks.cuh"
#include "kernels/banks/case.hpp"
#include "kernels/common/gather_case.cuh"

namespace sol::kernels::banks {

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  const int64_t rows = s.at("rows"), cols = s.at("cols");
  GatherSpec<float> spec;
  spec.in_elems = spec.out_elems = rows * cols;
  spec.tol = tolerance(v).rel_l2;
  spec.source = [rows, cols](int64_t j) { return (j % rows) * cols + j / rows; };
  using Run = void (*)(const float*, float*, int64_t, int64_t, cudaStream_t);
  using Plan = LaunchInfo (*)(int64_t, int64_t);
  Run run = v01_tile32;
  Plan plan = v01_tile32_plan;
  if (v == Version::v02_padded) run = v02_padded, plan = v02_padded_plan;
  if (v == Version::v03_swizzled) run = v03_swizzled, plan = v03_swizzled_plan;
  spec.run = [=](const float* i, float* o, cudaStream_t st) { run(i, o, rows, cols, st); };
  spec.plan = [=](const float*, const float*) { return plan(rows, cols); };
  return std::make_unique<GatherCase<float>>(std::move(spec), opts);
}

}  // namespace sol::kernels::banks

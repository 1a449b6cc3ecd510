// The registry's description of the copy family, host C++ in every build: which shapes it takes,
// its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds only.
#include "kernels/copy/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"

namespace sol::kernels::copy {

std::string unsupported(Version v, const Shape& s) {
  std::string why = check_dims(s, elementwise_dims());
  if (why.empty() && v == Version::v01_scalar && s.at("n") > int64_t(INT32_MAX) * 256)
    why = "v01_scalar launches one thread per element: n > (2^31 − 1)·256 exceeds gridDim.x";
  return why;
}

model::Cost cost(Version v, const Shape& s) {
  const double n = double(s.at("n"));
  model::Cost c = vector_cost("copy of " + std::to_string(s.at("n")) + " fp32", 0, 8 * n, DType::f32,
                              {"bytes = n × (4 read + 4 written)", "no arithmetic: flops = 0"});
  if (v == Version::v01_scalar) {
    // One 4-byte load in flight per thread (ptxas -v: 8 registers): Little's law binds. v02's 16 B
    // and v03's 64 B per thread are over what the copy bandwidth needs; they declare nothing.
    model::LoadStream st;
    st.read_bytes = st.write_bytes = 4 * n;
    st.blocks = (s.at("n") + kScalarThreads - 1) / kScalarThreads;
    st.block = {.block_threads = kScalarThreads, .registers_per_thread = 8};
    st.load_bytes = 4;
    st.what = "scalar copy";
    c.exec.declared = true;
    c.exec.streams.push_back(st);
    c.exec.how = "one 4-byte load in flight per thread";
  }
  return c;
}

Tolerance tolerance(Version) { return {0.0, "a copy is exact: every bit must arrive"}; }

}  // namespace sol::kernels::copy

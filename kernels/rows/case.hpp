#pragma once
// The registry's view of the row families layernorm, rmsnorm and softmax (no CUDA types).
// Shape: rows, cols (1 … 2^24), optional scale (inputs multiplied by it, 1 … 1000); for
// softmax, mask=1 (rows r % 3 == 1 hold −inf at columns c % 4 == 1; rows r % 3 == 2 are fully
// masked); for the norms, residual=1 (the fused residual add) and fp8=1 or 2 (kFp8Key: y's e4m3
// codes beside y, or in its place).
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::rows {

enum class Version {
  ln_v01_eager, ln_v02_looped, ln_v03_registers, ln_v04_registers_fp32,
  rms_v01_eager, rms_v02_looped, rms_v03_registers, rms_v04_registers_fp32,
  sm_v01_eager, sm_v02_online, sm_v03_registers, sm_v04_registers_fp32,
  ln_dispatch, rms_dispatch, sm_dispatch,  // bf16 through the public API (include/sol/kernels.hpp)
  sm_v05_cluster, sm_v06_cluster_fp32,      // softmax only: long rows split over a cluster
};

enum class Kind { LayerNorm, RMSNorm, Softmax };

// The shape key of the norms' e4m3 output of y: 1 the codes beside y, 2 the codes alone
// (model::RowOp::Fp8's values).
inline constexpr const char* kFp8Key = "fp8";
// The forward rungs, a file each: kernels/rows/v01_eager.cuh … v05_cluster.cuh.
enum class Impl {
  Eager,     // v01: the lecture's passes, one kernel each
  Looped,    // v02: one kernel, statistics in one read (shifted sums / online softmax), a second read to write
  Registers,  // v03: one kernel, one read: the row in registers (looped when it does not fit)
  Cluster     // softmax v05: Registers where the row fits them; longer or unaligned rows split over a
              // thread-block cluster, one read into shared memory
};

// What a Version is: the op, the implementation, fp32 or bf16 storage, and whether the Case
// launches through the public API (whose dispatcher runs the register rung's plan).
struct Info {
  Kind kind;
  Impl impl;
  bool fp32;
  bool dispatch = false;
};

inline Info info(Version v) {
  const int i = int(v);
  if (v >= Version::sm_v05_cluster) return {Kind::Softmax, Impl::Cluster, v == Version::sm_v06_cluster_fp32};
  if (v >= Version::ln_dispatch) return {Kind(i - int(Version::ln_dispatch)), Impl::Registers, false, true};
  const Kind kinds[] = {Kind::LayerNorm, Kind::RMSNorm, Kind::Softmax};
  const Impl impls[] = {Impl::Eager, Impl::Looped, Impl::Registers, Impl::Registers};
  return {kinds[i / 4], impls[i % 4], i % 4 == 3};
}

// One eager pass over rows × cols elements of `elem_bytes` (v01_eager.cuh's eager_pass_kernel) as
// the model's Little's law sees it (model::LoadStream): its grid and block from launch.hpp, and
// the loads each thread keeps in flight: 4 in a pass that only reduces (nvcc unrolls its loop by 4
// and issues the four loads first), 1 in a pass that writes (its store may alias the next load,
// which therefore waits for it).
model::LoadStream eager_pass_stream(int64_t rows, int64_t cols, int elem_bytes, bool writes, std::string what);
// One elementwise map of `reads` tensors into one written tensor over rows × cols (backward.cuh's
// eager_map_kernel, v01_eager.cuh's residual_add_kernel): a grid-stride loop of
// kEagerMapThreads-thread blocks (launch.hpp) keeping one load per input in flight (its store may
// alias the next iteration's loads).
model::LoadStream eager_map_stream(int64_t rows, int64_t cols, int elem_bytes, int reads, std::string what);

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::rows

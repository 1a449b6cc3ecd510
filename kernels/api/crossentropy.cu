// sol::cross_entropy (include/sol/kernels.hpp): the arguments checked first (one sol::Error, before
// any CUDA call), then the crossentropy family's rungs (kernels/crossentropy/crossentropy.cuh):
//   the one-read rung wherever a row fits a cluster's shared memory on this GPU (sm_90: up to
//   786432 bf16 / 393216 fp32 logits; one CTA's below sm_90), the logits read once;
//   the passes rung (v01, three reads) otherwise — any vocabulary.
// On the H200 (bench/results/h200/crossentropy.json, 4096 rows of 32000 to 151936 logits) the
// one-read rung takes 0.38–0.73× the passes' time, so wherever a row fits it comes first.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/api/choice.hpp"
#include "kernels/api/entry_util.hpp"
#include "kernels/crossentropy/case.hpp"
#include "kernels/crossentropy/crossentropy.cuh"
#include "sol/hw/spec.hpp"
#include "sol/kernels.hpp"
#include "sol/model/roofline.hpp"

namespace sol {
namespace {

namespace ce = kernels::crossentropy;
constexpr const char* kOp = "cross_entropy";

[[noreturn]] void refuse(const std::string& what, const std::string& fix) { bad_input(std::string(kOp) + ": " + what, fix); }

int64_t elem_bytes(DType d) { return d == DType::f32 ? 4 : 2; }

// The checked arguments with the pitches resolved (0 → vocab).
CrossEntropyArgs checked(const CrossEntropyArgs& in) {
  CrossEntropyArgs a = in;
  if (a.dtype != DType::f32 && a.dtype != DType::bf16 && a.dtype != DType::f16)
    refuse("dtype " + dtype_name(a.dtype) + " is not supported", "use bf16, fp16 or fp32 logits");
  if (a.rows < 1) refuse("rows = " + std::to_string(a.rows) + " is less than 1", "give rows ≥ 1");
  if (a.vocab < 1) refuse("vocab = " + std::to_string(a.vocab) + " is less than 1", "give vocab ≥ 1");
  if (a.rows > std::numeric_limits<int32_t>::max())
    refuse("rows = " + std::to_string(a.rows) + " is more than a grid holds (2^31 − 1)", "split the rows over calls");
  if (a.vocab > std::numeric_limits<int32_t>::max())  // a column index is 32 bits (kernels/crossentropy)
    refuse("vocab = " + std::to_string(a.vocab) + " is more than 2^31 − 1", "split the vocabulary");
  if (!a.logits) refuse("logits is nullptr", "pass a device pointer for logits");
  api::check_loss_args(kOp, a.labels, a.label_type, a.reduction, a.label_smoothing, a.grad_scale);
  if (!a.loss && !a.loss_reduced && !a.dlogits)
    refuse("no output: loss, loss_reduced and dlogits are all nullptr", "pass at least one of them");
  for (auto [ld, name] : {std::pair{&a.ldlogits, "ldlogits"}, std::pair{&a.lddlogits, "lddlogits"}}) {
    if (*ld < 0 || (*ld > 0 && *ld < a.vocab))
      refuse(std::string(name) + " = " + std::to_string(*ld) + " is less than vocab = " + std::to_string(a.vocab),
             std::string("give ") + name + " ≥ vocab, or 0 for packed rows");
    if (*ld == 0) *ld = a.vocab;
    if (*ld > (std::numeric_limits<int64_t>::max() / 4 - a.vocab) / a.rows)
      refuse(std::to_string(a.rows) + " rows of pitch " + std::to_string(*ld) + " overflow 64-bit offsets", "split the rows");
  }
  if (a.dlogits && a.dlogits != a.logits) {
    const auto x = reinterpret_cast<uintptr_t>(a.logits), y = reinterpret_cast<uintptr_t>(a.dlogits);
    const uintptr_t bx = uintptr_t(((a.rows - 1) * a.ldlogits + a.vocab) * elem_bytes(a.dtype));
    const uintptr_t by = uintptr_t(((a.rows - 1) * a.lddlogits + a.vocab) * elem_bytes(a.dtype));
    if (x < y + by && y < x + bx)
      refuse("dlogits overlaps logits without being them", "write dlogits to a separate buffer, or to logits itself");
  }
  if (a.dlogits == a.logits && a.lddlogits != a.ldlogits)
    refuse("dlogits is logits with another pitch (" + std::to_string(a.lddlogits) + " vs " + std::to_string(a.ldlogits) + ")",
           "give both the same pitch to write dlogits in place");
  return a;
}

using api::with_type;

// The kernels' arguments; the workspace (nullptr: an explain) supplies the count, the v01 scratch and,
// when the caller keeps none, the per-row losses.
template <class T>
ce::CeArgs<T> kernel_args(const CrossEntropyArgs& a, void* workspace) {
  ce::CeArgs<T> k;
  const ce::CeWorkspace w = workspace ? ce::ce_workspace(workspace, a.rows) : ce::CeWorkspace{};
  k.x = static_cast<const T*>(a.logits);
  k.y = static_cast<T*>(a.dlogits);
  k.labels = a.labels;
  k.labels64 = a.label_type == IndexType::i64;
  k.loss = a.loss ? a.loss : w.loss;
  k.loss_reduced = a.loss_reduced;
  k.n_valid = w.n_valid;
  k.row_max = w.row_max;
  k.row_sum = w.row_sum;
  k.rows = a.rows;
  k.cols = a.vocab;
  k.ldx = a.ldlogits;
  k.ldy = a.dlogits ? a.lddlogits : a.ldlogits;
  k.ignore_index = a.ignore_index;
  k.smoothing = a.label_smoothing;
  k.grad_scale = a.grad_scale;
  k.mean = a.reduction == Reduction::Mean;
  return k;
}

struct Plan {
  Choice choice;
  kernels::rows::ClusterPlan cluster;  // main.func nullptr: the passes
};

Plan plan(const CrossEntropyArgs& a, int cc, void* workspace) {
  return with_type(a.dtype, [&](auto t) {
    using T = decltype(t);
    Plan p;
    p.cluster = ce::one_read_plan(kernel_args<T>(a, workspace), cc);
    const std::string tok = a.dtype == DType::f32 ? "fp32" : a.dtype == DType::f16 ? "fp16" : "bf16";
    ce::Version v = ce::Version::v01_passes;
    if (p.cluster.main.func) {
      v = a.dtype == DType::f32 ? ce::Version::v03_one_read_fp32 : ce::Version::v02_one_read;
      p.choice.implementation = std::string("crossentropy/") + (a.dtype == DType::f32 ? "v03_one_read_" : "v02_one_read_") + tok;
      p.choice.reason = "one read: " + std::to_string(a.vocab) + " logits over " + std::to_string(p.cluster.slices) +
                        (p.cluster.slices == 1 ? " CTA" : " CTAs of a cluster") + ", " +
                        std::to_string(p.cluster.main.dynamic_smem_bytes) + " bytes of shared memory each";
    } else {
      p.choice.implementation = "crossentropy/v01_passes_" + tok;
      p.choice.reason = "passes (3 reads): " + std::to_string(a.vocab) + " logits exceed the " +
                        std::to_string(kernels::rows::cluster_max_cols(elem_bytes(a.dtype), cc)) + " a cluster holds on " +
                        api::cc_text(cc);
    }
    // The rung's registry cost on an H200 (fp16 moves the bytes of bf16).
    const Shape s = Shape::parse("rows=" + std::to_string(a.rows) + ",vocab=" + std::to_string(a.vocab) +
                                 (a.label_type == IndexType::i32 ? ",i32=1" : ""));
    p.choice.predicted_s = model::roofline(ce::cost(v, s), hw::find("h200")).t_floor_s;
    return p;
  });
}

}  // namespace

size_t cross_entropy_workspace_size(const CrossEntropyArgs& args) {
  return size_t(ce::ce_workspace_bytes(checked(args).rows));
}

Choice explain_cross_entropy(const CrossEntropyArgs& args) {
  const CrossEntropyArgs a = checked(args);
  return plan(a, api::current_device().cc, nullptr).choice;
}
Choice api::explain_cross_entropy_on(const CrossEntropyArgs& args, int cc) { return plan(checked(args), cc, nullptr).choice; }

void cross_entropy(const CrossEntropyArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  const CrossEntropyArgs a = checked(args);
  const size_t needed = size_t(ce::ce_workspace_bytes(a.rows));
  if (!workspace || workspace_bytes < needed)
    refuse("the workspace is " + (workspace ? std::to_string(workspace_bytes) + " bytes" : std::string("nullptr")) +
               ", less than the " + std::to_string(needed) + " bytes it needs",
           "pass a device buffer of cross_entropy_workspace_size(args) bytes");
  if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0) refuse("the workspace is not 256-byte aligned", "pass a buffer from cudaMalloc");
  const int cc = api::current_cc(kOp);
  with_type(a.dtype, [&](auto t) {
    using T = decltype(t);
    const ce::CeArgs<T> k = kernel_args<T>(a, workspace);
    const Plan p = plan(a, cc, workspace);
    if (p.cluster.main.func) ce::one_read_run(p.cluster, k, stream);
    else ce::passes_run(k, stream);
  });
}

}  // namespace sol

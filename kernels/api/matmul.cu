// sol::matmul (include/sol/kernels.hpp): validate on the host, decide (kernels/api/matmul_dispatch),
// then run one of sol's tensor-core rungs or cuBLASLt on the caller's stream and workspace.
// Global state, all created on first use and kept until exit: one cuBLASLt handle per device and,
// per device, a mutex-guarded cache of cuBLASLt plans (descriptors and the heuristic's algorithm)
// keyed by the call's shape, types and layout, at most kPlanCache entries (then it starts over).
// The decision itself is cached per thread (kernels/api/matmul_dispatch.cpp: plan).
// The rungs keep their own one-time kernel attributes and TMA descriptors (kernels/gemm/tc).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include "kernels/common/cublas_check.cuh"
#include "kernels/api/entry_util.hpp"
#include "kernels/api/matmul_dispatch.hpp"
#include "kernels/gemm/gemv/problem.cuh"
#include "kernels/gemm/tc/peer_cublaslt.cuh"
#include "kernels/gemm/tc/rungs.cuh"
#include "sol/kernels.hpp"

namespace sol {
namespace {

namespace dispatch = kernels::api;
namespace tc = kernels::gemm::tc;
namespace gemv = kernels::gemm::gemv;

constexpr size_t kPlanCache = 256;

dispatch::MatmulCall call_of(const MatmulArgs& a) {
  dispatch::MatmulCall c;
  c.m = a.m, c.n = a.n, c.k = a.k;
  c.a_type = a.a_type, c.b_type = a.b_type, c.c_type = a.c_type;
  c.trans_a = a.trans_a == Transpose::T, c.trans_b = a.trans_b == Transpose::T;
  c.a = a.a, c.b = a.b, c.c = a.c;
  c.lda = a.lda, c.ldb = a.ldb, c.ldc = a.ldc;
  c.alpha = a.alpha, c.beta = a.beta;
  c.scale_a = a.scale_a, c.scale_b = a.scale_b;
  return c;
}

using sol::api::current_device;
using Device = sol::api::Device;

// The launcher of the rung named `name` (SOL_GEMM_TC_RUNGS).
tc::Launch rung_launch(const std::string& name) {
#define SOL_GEMM_TC_LAUNCHER_BY_NAME(rung, ...) \
  if (name == #rung) return tc::launch_##rung;
  SOL_GEMM_TC_RUNGS(SOL_GEMM_TC_LAUNCHER_BY_NAME)
#undef SOL_GEMM_TC_LAUNCHER_BY_NAME
  failure("matmul: no launcher for rung " + name);
}

tc::InType in_type(DType t) {
  return t == DType::bf16 ? tc::InType::bf16 : t == DType::f16 ? tc::InType::fp16 : tc::InType::fp8_e4m3;
}

struct PerDevice {
  std::mutex mutex;
  cublasLtHandle_t handle = nullptr;
  std::map<tc::LtDesc, std::shared_ptr<const tc::LtPlan>> plans;  // nullptr: cuBLASLt refused it
};

// Created once per device under a lock; found without one after that (the first 64 ids).
PerDevice& per_device(int id) {
  static std::atomic<PerDevice*> found[64] = {};
  const bool fast = id >= 0 && id < 64;
  if (fast)
    if (PerDevice* p = found[id].load(std::memory_order_acquire)) return *p;
  static std::mutex mutex;
  static auto* devices = new std::map<int, std::unique_ptr<PerDevice>>;  // never destroyed: outlives callers
  std::lock_guard<std::mutex> lock(mutex);
  auto& d = (*devices)[id];
  if (!d) d = std::make_unique<PerDevice>();
  if (fast) found[id].store(d.get(), std::memory_order_release);
  return *d;
}

// The cached plan for d (found on first use; a caller holding one keeps it valid when the cache
// starts over); nullptr where cuBLASLt has no algorithm and !required, else that is an error.
std::shared_ptr<const tc::LtPlan> lt_plan(PerDevice& pd, const tc::LtDesc& d, bool required = true) {
  std::lock_guard<std::mutex> lock(pd.mutex);
  if (!pd.handle) SOL_CUBLAS_CHECK(cublas::lt().cublasLtCreate(&pd.handle));
  auto it = pd.plans.find(d);
  cublasStatus_t st = CUBLAS_STATUS_NOT_SUPPORTED;
  if (it == pd.plans.end()) {
    if (pd.plans.size() >= kPlanCache) pd.plans.clear();
    it = pd.plans.emplace(d, std::shared_ptr<const tc::LtPlan>(tc::LtPlan::find(pd.handle, d, &st))).first;
  }
  if (!it->second && required)
    bad_input("matmul: cuBLASLt has no algorithm for this call (" + cublas::status_text(st) + ")",
              "choose leading dimensions that are multiples of 16 bytes");
  return it->second;
}

// ---- the passes around a library call or a rung ---------------------------------------------------
// fp8 through cuBLASLt: s[0] = alpha · scale_a · scale_b, s[1] = beta (device pointer mode).
__global__ void fp8_scalars_kernel(float* s, float alpha, const float* scale_a, const float* scale_b, float beta) {
  s[0] = alpha * *scale_a * *scale_b;
  s[1] = beta;
}

// fp8 through a rung, whose alpha is a host value: C *= scale_a · scale_b after it.
// fp8 on a rung: C = bf16(scale_a · scale_b · D + beta · C), D the rung's bf16 output (C itself,
// in place, when beta = 0; else a scratch m×n, as the rung cannot read C).
__global__ void fp8_epilogue_kernel(const __nv_bfloat16* gD, int64_t ldd, __nv_bfloat16* gC, int64_t m, int64_t n,
                                    int64_t ldc, const float* scale_a, const float* scale_b, float beta) {
  const float s = *scale_a * *scale_b;
  const int64_t total = m * n, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t r = i / n, col = i % n;
    const float d = __bfloat162float(gD[r * ldd + col]) * s;
    __nv_bfloat16& c = gC[r * ldc + col];
    c = __float2bfloat16_rn(beta == 0.f ? d : fmaf(beta, __bfloat162float(c), d));
  }
}

// One 16-bit type in, the other out, through cuBLASLt where it has no such kernel (f16 → bf16,
// bf16 → f16): C = T(D + beta · C) from fp32 D, rounded to nearest even.
template <class T>
__global__ void f32_to_16bit_kernel(const float* gD, int64_t m, int64_t n, T* gC, int64_t ldc, float beta) {
  const int64_t total = m * n, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    T& c = gC[(i / n) * ldc + i % n];
    const float d = beta == 0.f ? gD[i] : gD[i] + beta * float(c);
    if constexpr (std::is_same_v<T, __nv_bfloat16>) c = __float2bfloat16_rn(d);
    else c = __float2half_rn(d);
  }
}

unsigned blocks_for(int64_t elems) { return unsigned(std::min<int64_t>((elems + 255) / 256, 65536)); }

tc::LtDesc lt_desc(const dispatch::MatmulCall& c, const dispatch::MatmulPlan& p) {
  tc::LtDesc d;
  d.m = c.m, d.n = c.n, d.k = c.k;
  d.in = c.a_type, d.out = c.c_type;
  d.trans_a = c.trans_a, d.trans_b = c.trans_b;
  d.lda = c.lda, d.ldb = c.ldb, d.ldc = c.ldc;
  d.device_scalars = p.scalars_bytes > 0;
  d.workspace_bytes = p.lt_bytes;
  d.align_a = tc::lt_alignment(c.a), d.align_b = tc::lt_alignment(c.b), d.align_c = tc::lt_alignment(c.c);
  return d;
}

void run_cublaslt(const dispatch::MatmulCall& c, const dispatch::MatmulPlan& p, int device, char* ws, cudaStream_t stream) {
  PerDevice& pd = per_device(device);
  char* lt_ws = ws;  // MatmulPlan's layout: pack (none here), lt, scratch, scalars
  char* scratch = ws + p.scratch_offset();
  float* scalars = reinterpret_cast<float*>(ws + p.scalars_offset());
  tc::LtDesc d = lt_desc(c, p);
  const void *alpha = &c.alpha, *beta = &c.beta;
  if (d.device_scalars) {
    fp8_scalars_kernel<<<1, 1, 0, stream>>>(scalars, c.alpha, c.scale_a, c.scale_b, c.beta);
    SOL_LAUNCH_CHECK();
    alpha = scalars, beta = scalars + 1;
  }
  if (p.scratch_bytes > 0) {
    // One 16-bit type in, the other out: cuBLASLt's own D where it has a kernel, else fp32 D and a pass.
    if (const auto direct = lt_plan(pd, d, false))
      return direct->run(pd.handle, alpha, c.a, c.b, beta, const_cast<void*>(c.c), lt_ws, stream);
    tc::LtDesc f = d;
    f.out = DType::f32;
    f.ldc = c.n;
    f.align_c = tc::lt_alignment(scratch);
    const float zero = 0.f;
    lt_plan(pd, f)->run(pd.handle, alpha, c.a, c.b, &zero, scratch, lt_ws, stream);
    const auto* gD = reinterpret_cast<const float*>(scratch);
    if (c.c_type == DType::bf16)
      f32_to_16bit_kernel<<<blocks_for(c.m * c.n), 256, 0, stream>>>(
          gD, c.m, c.n, static_cast<__nv_bfloat16*>(const_cast<void*>(c.c)), c.ldc, c.beta);
    else
      f32_to_16bit_kernel<<<blocks_for(c.m * c.n), 256, 0, stream>>>(
          gD, c.m, c.n, static_cast<__half*>(const_cast<void*>(c.c)), c.ldc, c.beta);
    SOL_LAUNCH_CHECK();
    return;
  }
  lt_plan(pd, d)->run(pd.handle, alpha, c.a, c.b, beta, const_cast<void*>(c.c), lt_ws, stream);
}

void run_rung(const dispatch::MatmulCall& c, const dispatch::MatmulPlan& p, void* ws, cudaStream_t stream) {
  tc::Problem q;
  q.m = c.m, q.n = c.n, q.k = c.k;
  q.in = in_type(c.a_type);
  q.A = c.a, q.B = c.b, q.C = const_cast<void*>(c.c);
  q.lda = c.lda, q.ldb = c.ldb, q.ldc = c.ldc;
  q.alpha = c.alpha;
  q.max_splits = p.max_splits;
  if (p.scratch_bytes > 0)  // fp8 reading C: the rung writes D after the packing copies
    q.C = static_cast<char*>(ws) + p.scratch_offset(), q.ldc = c.n;
  tc::Workspace borrowed(ws, p.pack_bytes);
  rung_launch(p.rung)(q, borrowed, stream);
  if (c.a_type == DType::fp8_e4m3) {
    fp8_epilogue_kernel<<<blocks_for(c.m * c.n), 256, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(q.C), q.ldc, static_cast<__nv_bfloat16*>(const_cast<void*>(c.c)), c.m, c.n,
        c.ldc, c.scale_a, c.scale_b, c.beta);
    SOL_LAUNCH_CHECK();
  }
}

// A decode call (m ≤ 64) on kernels/gemm/gemv: the workspace holds its split-k partials alone.
void run_gemv(const dispatch::MatmulCall& c, const dispatch::MatmulPlan& p, void* ws, cudaStream_t stream) {
  gemv::Problem q;
  q.m = c.m, q.n = c.n, q.k = c.k;
  q.in = c.a_type, q.out = c.c_type;
  q.w_k_contiguous = c.trans_b;
  q.A = c.a, q.W = c.b, q.C = const_cast<void*>(c.c);
  q.lda = c.lda, q.ldw = c.ldb, q.ldc = c.ldc;
  q.alpha = c.alpha, q.beta = c.beta;
  for (gemv::Rung r : gemv::kRungs)
    if (p.rung == gemv::rung_name(r)) return gemv::launch(r, q, p.partial_bytes ? ws : nullptr, p.partial_bytes, stream);
  failure("matmul: no decode rung " + p.rung);
}

// The table GPU of device `id` (dispatch::TableGpu): that of its database row; h200 where it
// matches none or cannot be asked.
dispatch::TableGpu table_gpu_of(int id) { return dispatch::table_gpu(api::device_row(id).name); }

dispatch::MatmulPlan plan_on(const dispatch::MatmulCall& c, const Device& d, int cc, bool explain) {
  return dispatch::plan(c, cc, explain, dispatch::choices_default(), table_gpu_of(d.id));
}

}  // namespace

size_t matmul_workspace_size(const MatmulArgs& args) {
  const dispatch::MatmulCall c = dispatch::validate(call_of(args));
  const Device d = current_device();
  return plan_on(c, d, d.cc, /*explain=*/false).workspace_bytes();
}

Choice explain_matmul(const MatmulArgs& args) {
  const dispatch::MatmulCall c = dispatch::validate(call_of(args));
  const Device d = current_device();
  const dispatch::MatmulPlan p = plan_on(c, d, d.cc > 0 ? d.cc : 90, /*explain=*/true);
  Choice out;
  out.implementation = p.impl == dispatch::Impl::cublaslt ? "cublasLt" : p.family + "/" + p.rung;
  out.reason = p.reason + (d.cc > 0 ? "" : " (no GPU visible: as on an H200, sm_90)");
  out.predicted_s = p.predicted_s;
  return out;
}

void matmul(const MatmulArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  const dispatch::MatmulCall c = dispatch::validate(call_of(args));
  const Device d = current_device();
  const dispatch::MatmulPlan p = plan_on(c, d, d.cc, /*explain=*/false);
  const size_t need = p.workspace_bytes();
  if (workspace_bytes < need || (need > 0 && !workspace))
    bad_input("matmul: the workspace is " + std::to_string(workspace ? workspace_bytes : 0) + " bytes; this call needs " +
                  std::to_string(need),
              "allocate sol::matmul_workspace_size(args) bytes on the device (query it with the pointers you pass)");
  if (need > 0 && reinterpret_cast<uintptr_t>(workspace) % 256 != 0)
    bad_input("matmul: the workspace is not 256-byte aligned", "pass a cudaMalloc'd buffer (or an offset into one by a multiple of 256)");
  if (d.id < 0) failure("matmul: no CUDA device is visible", "run on a machine with a GPU (check CUDA_VISIBLE_DEVICES)");
  if (p.impl == dispatch::Impl::tc_rung) run_rung(c, p, workspace, stream);
  else if (p.impl == dispatch::Impl::gemv) run_gemv(c, p, workspace, stream);
  else run_cublaslt(c, p, d.id, static_cast<char*>(workspace), stream);
}

}  // namespace sol

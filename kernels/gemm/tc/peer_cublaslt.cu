// peer:cublasLt for gemm_bf16 / gemm_fp16 / gemm_fp8. cuBLASLt is column-major; our row-major
// C[m×n] = A[m×k]·B[n×k]ᵀ, read column-major, is Cᵀ[n×m] = B·Aᵀ with B stored as a k×n
// column-major matrix (ld = ldb) and A as k×m (ld = lda). So cuBLASLt's "A" is our B with
// transa = T, its "B" is our A with transb = N, and its C/D is n×m with ld = ldc: the "TN"
// layout, the one cuBLASLt's fp8 kernels require. fp32 compute, bf16 out, 32 MiB workspace.
// LtPlan generalizes the mapping to every layout: row-major op(A)·op(B) is column-major
// op(B)ᵀ·op(A)ᵀ, so cuBLASLt's A is our B (transposed iff trans_b) and its B our A (iff trans_a).
// fp16 in with bf16 out is not among cuBLASLt's documented type combinations: when its heuristic
// refuses it, the peer writes fp16 into a scratch m×n and converts to bf16 in one more pass (the
// conversion is timed; it moves 4 bytes per output, ~1 % of a 4096³ GEMM's time).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "kernels/common/buffer.cuh"
#include "kernels/common/cublas_check.cuh"
#include "kernels/gemm/tc/peer_cublaslt.cuh"

namespace sol::kernels::gemm::tc {
namespace {

cudaDataType_t lt_type(DType t) {
  switch (t) {
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
    case DType::fp8_e4m3: return CUDA_R_8F_E4M3;
    case DType::f32: return CUDA_R_32F;
    default: bad_input("cuBLASLt matmul: no " + dtype_name(t) + " operands here", "use bf16, f16, fp8_e4m3 or f32");
  }
}

DType dtype_of(InType t) {
  switch (t) {
    case InType::bf16: return DType::bf16;
    case InType::fp16: return DType::f16;
    case InType::fp8_e4m3: return DType::fp8_e4m3;
  }
  return DType::bf16;
}

// gC[r·ldc + c] = bf16(gD[r·n + c]): the fp16 peer's conversion pass.
__global__ void fp16_to_bf16_kernel(const __half* __restrict__ gD, int64_t m, int64_t n, __nv_bfloat16* __restrict__ gC,
                                    int64_t ldc) {
  const int64_t total = m * n, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    gC[(i / n) * ldc + i % n] = __float2bfloat16_rn(__half2float(gD[i]));
}

}  // namespace

std::string lt_refusal(InType in, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  return in == InType::fp8_e4m3 ? lt_fp8_refusal(n, k, lda, ldb, ldc, 2) : std::string();
}

bool LtDesc::operator<(const LtDesc& o) const {
  const auto key = [](const LtDesc& d) {
    return std::make_tuple(d.m, d.n, d.k, int(d.in), int(d.out), d.trans_a, d.trans_b, d.lda, d.ldb, d.ldc,
                           d.device_scalars, d.workspace_bytes, d.align_a, d.align_b, d.align_c);
  };
  return key(*this) < key(o);
}

int lt_alignment(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  int align = 1;
  while (align < 256 && a % uintptr_t(2 * align) == 0) align *= 2;
  return align;
}

struct LtPlan::Descriptors {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t lay_x = nullptr, lay_y = nullptr, lay_d = nullptr;  // cuBLASLt's A (our B), B (our A), C/D
  cublasLtMatmulAlgo_t algo{};
  ~Descriptors() {
    for (auto l : {lay_x, lay_y, lay_d})
      if (l) (void)cublas::lt().cublasLtMatrixLayoutDestroy(l);
    if (op) (void)cublas::lt().cublasLtMatmulDescDestroy(op);
  }
};

LtPlan::LtPlan(const LtDesc& d) : d_(d) {}

std::unique_ptr<LtPlan> LtPlan::find(cublasLtHandle_t handle, const LtDesc& d, cublasStatus_t* status) {
  std::unique_ptr<LtPlan> plan(new LtPlan(d));
  plan->s_ = std::make_unique<Descriptors>();
  Descriptors& s = *plan->s_;
  const cublas::LtLibrary& lib = cublas::lt();
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t op_x = d.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, op_y = d.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_x, sizeof op_x));
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_y, sizeof op_y));
  if (d.device_scalars) {
    const cublasLtPointerMode_t mode = CUBLASLT_POINTER_MODE_DEVICE;
    SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode));
  }
  const cudaDataType_t in = lt_type(d.in);
  // Column-major views: our B (row pitch ldb) is b_row × b_rows, our A is a_row × a_rows.
  const uint64_t b_row = uint64_t(d.trans_b ? d.k : d.n), b_rows = uint64_t(d.trans_b ? d.n : d.k);
  const uint64_t a_row = uint64_t(d.trans_a ? d.m : d.k), a_rows = uint64_t(d.trans_a ? d.k : d.m);
  SOL_CUBLAS_CHECK(lib.cublasLtMatrixLayoutCreate(&s.lay_x, in, b_row, b_rows, d.ldb));
  SOL_CUBLAS_CHECK(lib.cublasLtMatrixLayoutCreate(&s.lay_y, in, a_row, a_rows, d.lda));
  SOL_CUBLAS_CHECK(lib.cublasLtMatrixLayoutCreate(&s.lay_d, lt_type(d.out), uint64_t(d.n), uint64_t(d.m), d.ldc));
  cublasLtMatmulPreference_t pref = nullptr;
  cublasStatus_t st = lib.cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lib.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &d.workspace_bytes,
                                                  sizeof d.workspace_bytes);
  // cuBLASLt's A is our B and its B our A; C and D are our C.
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, uint32_t(d.align_b)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, uint32_t(d.align_a)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, uint32_t(d.align_c)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, uint32_t(d.align_c)}};
  for (const auto& [attr, bytes] : aligns)
    if (st == CUBLAS_STATUS_SUCCESS) st = lib.cublasLtMatmulPreferenceSetAttribute(pref, attr, &bytes, sizeof bytes);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lib.cublasLtMatmulAlgoGetHeuristic(handle, s.op, s.lay_x, s.lay_y, s.lay_d, s.lay_d, pref, 1, &best, &found);
  if (pref) (void)lib.cublasLtMatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_SUCCESS && found == 0) st = CUBLAS_STATUS_NOT_SUPPORTED;
  if (status) *status = st;
  if (st != CUBLAS_STATUS_SUCCESS) return nullptr;
  s.algo = best.algo;
  return plan;
}

LtPlan::~LtPlan() = default;

void LtPlan::run(cublasLtHandle_t handle, const void* alpha, const void* a, const void* b, const void* beta, void* c,
                 void* workspace, cudaStream_t stream) const {
  const Descriptors& s = *s_;
  if (lt_alignment(a) < d_.align_a || lt_alignment(b) < d_.align_b || lt_alignment(c) < d_.align_c)
    failure("cuBLASLt plan chosen for A/B/C aligned to " + std::to_string(d_.align_a) + "/" +
            std::to_string(d_.align_b) + "/" + std::to_string(d_.align_c) + " bytes, run on " +
            std::to_string(lt_alignment(a)) + "/" + std::to_string(lt_alignment(b)) + "/" +
            std::to_string(lt_alignment(c)));
  SOL_CUBLAS_CHECK(cublas::lt().cublasLtMatmul(handle, s.op, alpha, b, s.lay_x, a, s.lay_y, beta, c, s.lay_d, c,
                                               s.lay_d, &s.algo, workspace, d_.workspace_bytes, stream));
}

struct LtGemm::State {
  cublasLtHandle_t handle = nullptr;
  std::unique_ptr<LtPlan> plan;
  DeviceBuffer<uint8_t> workspace;
  DeviceBuffer<__half> scratch;  // fp16 D when cuBLASLt has no fp16 → bf16 kernel (m × n)
  float alpha = 1.f;
  ~State() {
    plan.reset();
    if (handle) (void)cublas::lt().cublasLtDestroy(handle);
  }
};

LtGemm::LtGemm(const Problem& p, float scale_a, float scale_b) : s_(std::make_unique<State>()) {
  State& s = *s_;
  SOL_CUBLAS_CHECK(cublas::lt().cublasLtCreate(&s.handle));
  LtDesc d;
  d.m = p.m, d.n = p.n, d.k = p.k;
  d.in = dtype_of(p.in);
  d.lda = p.lda, d.ldb = p.ldb, d.ldc = p.ldc;
  // The shape's pointers, where given, say how aligned every set's are (run() checks).
  if (p.A) d.align_a = lt_alignment(p.A);
  if (p.B) d.align_b = lt_alignment(p.B);
  if (p.C) d.align_c = lt_alignment(p.C);
  // fp8: per-tensor scales fold into alpha (exact: powers of two). cuBLASLt's A/B scale-pointer
  // attributes with a bf16 D were refused at run time on the H200 (cuBLAS 13:
  // CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmul though the heuristic offered an algorithm).
  s.alpha = p.in == InType::fp8_e4m3 ? scale_a * scale_b : p.alpha;
  s.workspace = DeviceBuffer<uint8_t>(int64_t(kLtWorkspaceBytes));
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  s.plan = LtPlan::find(s.handle, d, &st);
  if (!s.plan && p.in == InType::fp16) {  // fall back to fp16 D + conversion
    d.out = DType::f16;
    d.ldc = p.n;
    d.align_c = 256;  // the scratch D: cudaMalloc's
    s.scratch = DeviceBuffer<__half>(p.m * p.n);
    s.plan = LtPlan::find(s.handle, d, &st);
  }
  if (!s.plan)
    bad_input("cuBLASLt has no algorithm for this problem (" + cublas::status_text(st) + ")",
              "choose pitches that are multiples of 16 bytes, and k and n multiples of 16 for fp8");
}

LtGemm::~LtGemm() = default;

void LtGemm::run(const Problem& p, cudaStream_t stream) const {
  const State& s = *s_;
  const float beta = 0.f;
  void* d = s.scratch.get() ? static_cast<void*>(s.scratch.get()) : p.C;
  s.plan->run(s.handle, &s.alpha, p.A, p.B, &beta, d, s.workspace.get(), stream);
  if (s.scratch.get()) {
    const int64_t blocks = std::min<int64_t>((p.m * p.n + 255) / 256, 65536);
    fp16_to_bf16_kernel<<<unsigned(blocks), 256, 0, stream>>>(s.scratch.get(), p.m, p.n,
                                                              static_cast<__nv_bfloat16*>(p.C), p.ldc);
    SOL_LAUNCH_CHECK();
  }
}

}  // namespace sol::kernels::gemm::tc

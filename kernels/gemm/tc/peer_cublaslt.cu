// peer:cublasLt for gemm_bf16 / gemm_fp16 / gemm_fp8. cuBLASLt is column-major; our row-major
// C[m×n] = A[m×k]·B[n×k]ᵀ, read column-major, is Cᵀ[n×m] = B·Aᵀ with B stored as a k×n
// column-major matrix (ld = ldb) and A as k×m (ld = lda). So cuBLASLt's "A" is our B with
// transa = T, its "B" is our A with transb = N, and its C/D is n×m with ld = ldc: the "TN"
// layout, the one cuBLASLt's fp8 kernels require. fp32 compute, bf16 out, 32 MiB workspace.
// measured: pending H200 run
#include <cublasLt.h>

#include "bench/cublas_check.cuh"
#include "kernels/common/buffer.cuh"
#include "kernels/gemm/tc/peer_cublaslt.cuh"

namespace sol::kernels::gemm_tc {
namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

cudaDataType_t lt_type(InType t) {
  switch (t) {
    case InType::bf16: return CUDA_R_16BF;
    case InType::fp16: return CUDA_R_16F;
    case InType::fp8_e4m3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_16BF;
}

}  // namespace

std::string lt_refusal(InType in, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  if (in != InType::fp8_e4m3) return {};
  if (k % 16 != 0) return "cuBLASLt fp8 needs k % 16 == 0 (k=" + std::to_string(k) + ")";
  if (lda % 16 != 0 || ldb % 16 != 0)
    return "cuBLASLt fp8 needs lda and ldb multiples of 16 bytes (lda=" + std::to_string(lda) +
           ", ldb=" + std::to_string(ldb) + ")";
  if (ldc % 8 != 0) return "cuBLASLt fp8 needs ldc a multiple of 16 bytes (8 bf16; ldc=" + std::to_string(ldc) + ")";
  return {};
}

struct LtGemm::State {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t lay_b = nullptr, lay_a = nullptr, lay_c = nullptr;  // cuBLASLt's A, B, C/D
  cublasLtMatmulAlgo_t algo{};
  DeviceBuffer<uint8_t> workspace;
  DeviceBuffer<float> scales;  // fp8: {scale of our B (cuBLASLt's A), scale of our A}
  float alpha = 1.f;
  ~State() {
    for (auto l : {lay_b, lay_a, lay_c})
      if (l) (void)cublasLtMatrixLayoutDestroy(l);
    if (op) (void)cublasLtMatmulDescDestroy(op);
    if (handle) (void)cublasLtDestroy(handle);
  }
};

LtGemm::LtGemm(const Problem& p, float scale_a, float scale_b) : s_(std::make_unique<State>()) {
  State& s = *s_;
  SOL_CUBLAS_CHECK(cublasLtCreate(&s.handle));
  SOL_CUBLAS_CHECK(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  SOL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  SOL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  const cudaDataType_t in = lt_type(p.in);
  SOL_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lay_b, in, uint64_t(p.k), uint64_t(p.n), p.ldb));
  SOL_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lay_a, in, uint64_t(p.k), uint64_t(p.m), p.lda));
  SOL_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lay_c, CUDA_R_16BF, uint64_t(p.n), uint64_t(p.m), p.ldc));
  s.alpha = p.alpha;
  if (p.in == InType::fp8_e4m3) {
    s.alpha = 1.f;
    s.scales = DeviceBuffer<float>(2);
    const float host[2] = {scale_b, scale_a};
    SOL_CUDA_CHECK(cudaMemcpy(s.scales.get(), host, sizeof host, cudaMemcpyHostToDevice));
    const float* dev_b = s.scales.get();
    const float* dev_a = s.scales.get() + 1;
    SOL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dev_b, sizeof dev_b));
    SOL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &dev_a, sizeof dev_a));
  }
  s.workspace = DeviceBuffer<uint8_t>(int64_t(kWorkspaceBytes));
  cublasLtMatmulPreference_t pref = nullptr;
  SOL_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &kWorkspaceBytes, sizeof kWorkspaceBytes);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.lay_b, s.lay_a, s.lay_c, s.lay_c, pref, 1, &best, &found);
  (void)cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0)
    bad_input("cuBLASLt has no algorithm for this problem (" + std::string(cublasGetStatusName(st)) + ")",
              "choose pitches that are multiples of 16 bytes, and k % 16 == 0 for fp8");
  s.algo = best.algo;
}

LtGemm::~LtGemm() = default;

void LtGemm::run(const Problem& p, cudaStream_t stream) const {
  const State& s = *s_;
  const float beta = 0.f;
  SOL_CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &s.alpha, p.B, s.lay_b, p.A, s.lay_a, &beta, p.C, s.lay_c, p.C,
                                  s.lay_c, &s.algo, s.workspace.get(), kWorkspaceBytes, stream));
}

}  // namespace sol::kernels::gemm_tc

// peer:cublasLt for gemm_bf16 / gemm_fp16 / gemm_fp8. cuBLASLt is column-major; our row-major
// C[m×n] = A[m×k]·B[n×k]ᵀ, read column-major, is Cᵀ[n×m] = B·Aᵀ with B stored as a k×n
// column-major matrix (ld = ldb) and A as k×m (ld = lda). So cuBLASLt's "A" is our B with
// transa = T, its "B" is our A with transb = N, and its C/D is n×m with ld = ldc: the "TN"
// layout, the one cuBLASLt's fp8 kernels require. fp32 compute, bf16 out, 32 MiB workspace.
// fp16 in with bf16 out is not among cuBLASLt's documented type combinations: when its heuristic
// refuses it, the peer writes fp16 into a scratch m×n and converts to bf16 in one more pass (the
// conversion is timed; it moves 4 bytes per output, ~1 % of a 4096³ GEMM's time).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/common/buffer.cuh"
#include "kernels/common/cublas_check.cuh"
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

// gC[r·ldc + c] = bf16(gD[r·n + c]): the fp16 peer's conversion pass.
__global__ void fp16_to_bf16_kernel(const __half* __restrict__ gD, int64_t m, int64_t n, __nv_bfloat16* __restrict__ gC,
                                    int64_t ldc) {
  const int64_t total = m * n, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    gC[(i / n) * ldc + i % n] = __float2bfloat16_rn(__half2float(gD[i]));
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
  DeviceBuffer<__half> scratch;  // fp16 D when cuBLASLt has no fp16 → bf16 kernel (m × n)
  float alpha = 1.f;
  ~State() {
    for (auto l : {lay_b, lay_a, lay_c})
      if (l) (void)cublasLtMatrixLayoutDestroy(l);
    if (op) (void)cublasLtMatmulDescDestroy(op);
    if (handle) (void)cublasLtDestroy(handle);
  }
};

// The heuristic's best algorithm for the current descriptors, into s.algo; a status ≠ SUCCESS
// (NOT_SUPPORTED when it found none) otherwise.
static cublasStatus_t best_algo(LtGemm::State& s) {
  cublasLtMatmulPreference_t pref = nullptr;
  cublasStatus_t st = cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes,
                                              sizeof kWorkspaceBytes);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.lay_b, s.lay_a, s.lay_c, s.lay_c, pref, 1, &best, &found);
  if (pref) (void)cublasLtMatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_SUCCESS && found == 0) st = CUBLAS_STATUS_NOT_SUPPORTED;
  if (st == CUBLAS_STATUS_SUCCESS) s.algo = best.algo;
  return st;
}

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
  // fp8: per-tensor scales fold into alpha (exact: powers of two). cuBLASLt's A/B scale-pointer
  // attributes with a bf16 D were refused at run time on the H200 (cuBLAS 13:
  // CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmul though the heuristic offered an algorithm).
  s.alpha = p.in == InType::fp8_e4m3 ? scale_a * scale_b : p.alpha;
  s.workspace = DeviceBuffer<uint8_t>(int64_t(kWorkspaceBytes));
  cublasStatus_t st = best_algo(s);
  if (st != CUBLAS_STATUS_SUCCESS && p.in == InType::fp16) {  // fall back to fp16 D + conversion
    SOL_CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(s.lay_c));
    s.lay_c = nullptr;
    SOL_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lay_c, CUDA_R_16F, uint64_t(p.n), uint64_t(p.m), p.n));
    s.scratch = DeviceBuffer<__half>(p.m * p.n);
    st = best_algo(s);
  }
  if (st != CUBLAS_STATUS_SUCCESS)
    bad_input("cuBLASLt has no algorithm for this problem (" + std::string(cublasGetStatusName(st)) + ")",
              "choose pitches that are multiples of 16 bytes, and k % 16 == 0 for fp8");
}


LtGemm::~LtGemm() = default;

void LtGemm::run(const Problem& p, cudaStream_t stream) const {
  const State& s = *s_;
  const float beta = 0.f;
  void* d = s.scratch.get() ? static_cast<void*>(s.scratch.get()) : p.C;
  SOL_CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &s.alpha, p.B, s.lay_b, p.A, s.lay_a, &beta, d, s.lay_c, d, s.lay_c,
                                  &s.algo, s.workspace.get(), kWorkspaceBytes, stream));
  if (s.scratch.get()) {
    const int64_t blocks = std::min<int64_t>((p.m * p.n + 255) / 256, 65536);
    fp16_to_bf16_kernel<<<unsigned(blocks), 256, 0, stream>>>(s.scratch.get(), p.m, p.n,
                                                              static_cast<__nv_bfloat16*>(p.C), p.ldc);
    SOL_LAUNCH_CHECK();
  }
}

}  // namespace sol::kernels::gemm_tc

// mx v06 — an MXFP8-emulated GEMM: what MXFP8 costs a matmul in accuracy, against the bf16
// GEMM of the same operands (the registry records its rel-L2 error against the exact product).
// What changed: nothing new in the kernels — v02 quantizes A along k, v03 quantizes B along k
// (the columnwise orientation is what a K-major B needs: the §7.2 reason for keeping both),
// v05 dequantizes both, and cuBLAS multiplies in bf16 with fp32 accumulation. Every step but
// the GEMM is bit-exact against the host, so the error measured is the format's, not ours.
// Expected bottleneck: the bf16 GEMM (2·m·n·k FLOPs on tensor cores) plus four memory-bound
// passes over the operands; the time is reported, but the point of this rung is the error.
#include <climits>

#include "kernels/common/cublas_check.cuh"
#include "kernels/mx/mx.cuh"

namespace sol::kernels::mx {
namespace {

constexpr int64_t kAlign = 256;
int64_t up(int64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

struct Layout {
  int64_t a_codes = 0, a_scales, b_codes, b_scales, a_deq, b_deq, total;
  Layout(int64_t m, int64_t n, int64_t k) {
    a_scales = a_codes + up(m * k);
    b_codes = a_scales + up(scale_count(m, k, formats::MxAxis::Rowwise));
    b_scales = b_codes + up(k * n);
    a_deq = b_scales + up(scale_count(k, n, formats::MxAxis::Colwise));
    b_deq = a_deq + up(2 * m * k);
    total = b_deq + up(2 * k * n);
  }
};

}  // namespace

int64_t v06_workspace_bytes(int64_t m, int64_t n, int64_t k) { return Layout(m, n, k).total; }

GemmOperands v06_operands(const void* workspace, int64_t m, int64_t n, int64_t k) {
  const Layout l(m, n, k);
  const char* w = static_cast<const char*>(workspace);
  return {reinterpret_cast<const __nv_bfloat16*>(w + l.a_deq), reinterpret_cast<const __nv_bfloat16*>(w + l.b_deq)};
}

void bf16_gemm(cublasHandle_t handle, const __nv_bfloat16* gA, const __nv_bfloat16* gB, int64_t m, int64_t n, int64_t k,
               float* gC, cudaStream_t stream) {
  if (m < 1 || n < 1 || k < 1 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
    bad_input("GEMM sizes must lie in 1 … 2^31 − 1", "choose m, n, k that cuBLAS takes");
  SOL_CUBLAS_CHECK(cublas::blas().cublasSetStream(handle, stream));
  const float alpha = 1, beta = 0;
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B as an n × k column-major matrix, A as k × m.
  SOL_CUBLAS_CHECK(cublas::blas().cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &alpha,
                                               gB, CUDA_R_16BF, int(n), gA, CUDA_R_16BF, int(k), &beta, gC,
                                               CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void v06_gemm_emulated(cublasHandle_t handle, const __nv_bfloat16* gA, const __nv_bfloat16* gB, int64_t m, int64_t n,
                       int64_t k, Spec spec, void* workspace, float* gC, cudaStream_t stream) {
  const Layout l(m, n, k);
  char* w = static_cast<char*>(workspace);
  auto bytes = [w](int64_t off) { return reinterpret_cast<uint8_t*>(w + off); };
  auto bf16 = [w](int64_t off) { return reinterpret_cast<__nv_bfloat16*>(w + off); };
  v02_rowwise(gA, m, k, spec, Out{bytes(l.a_codes), bytes(l.a_scales)}, stream);
  v03_columnwise(gB, k, n, spec, Out{bytes(l.b_codes), bytes(l.b_scales)}, stream);
  v05_dequantize(bytes(l.a_codes), bytes(l.a_scales), m, k, spec.elem, formats::MxAxis::Rowwise, bf16(l.a_deq), stream);
  v05_dequantize(bytes(l.b_codes), bytes(l.b_scales), k, n, spec.elem, formats::MxAxis::Colwise, bf16(l.b_deq), stream);
  bf16_gemm(handle, bf16(l.a_deq), bf16(l.b_deq), m, n, k, gC, stream);
}

}  // namespace sol::kernels::mx

// elementwise v01–v03 — sin²x + cos²x.
// v01: five kernels (sin, pow, cos, pow, add), each a one- or two-input chain of one op: every
//      intermediate goes to HBM and back. Bytes: 6 reads + 5 writes = 44 B/element in fp32.
// v02: the same arithmetic as one chain: 1 read + 1 write = 8 B/element, the 5.5× the lecture
//      promises for this chain. sincosf shares one range reduction between sin and cos.
// v03: v02 on bf16 storage (4 B/element), arithmetic still fp32.
// Expected bottleneck: HBM for v01/v02; for v03 the accurate sincosf (~40 instructions per
//      element) starts to compete with 4 B/element — the H200 run says which wins.
#include "kernels/elementwise/chain.cuh"
#include "kernels/elementwise/sincos.cuh"

namespace sol::kernels::elementwise {
namespace {

struct Sin {
  __device__ float operator()(float x) const { return sinf(x); }
};
struct Cos {
  __device__ float operator()(float x) const { return cosf(x); }
};
struct Square {
  __device__ float operator()(float x) const { return x * x; }
};
struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct SinSqPlusCosSq {
  __device__ float operator()(float x) const {
    float s, c;
    sincosf(x, &s, &c);
    return s * s + c * c;
  }
};

}  // namespace

void v01_eager5_fp32(const float* gX, float* gY, float* gA, float* gC, int64_t n, cudaStream_t stream) {
  run_chain<float, 1>({gX}, gA, n, Sin{}, stream);
  run_chain<float, 1>({gA}, gA, n, Square{}, stream);
  run_chain<float, 1>({gX}, gC, n, Cos{}, stream);
  run_chain<float, 1>({gC}, gC, n, Square{}, stream);
  run_chain<float, 2>({gA, gC}, gY, n, Add{}, stream);
}

void v02_fused_fp32(const float* gX, float* gY, int64_t n, cudaStream_t stream) {
  run_chain<float, 1>({gX}, gY, n, SinSqPlusCosSq{}, stream);
}
LaunchInfo v02_fused_fp32_plan(const float* gX, const float* gY, int64_t n) {
  return chain_plan<float, 1, 2, SinSqPlusCosSq>({gX}, gY, n);
}

void v03_fused_bf16(const __nv_bfloat16* gX, __nv_bfloat16* gY, int64_t n, cudaStream_t stream) {
  run_chain<__nv_bfloat16, 1>({gX}, gY, n, SinSqPlusCosSq{}, stream);
}
LaunchInfo v03_fused_bf16_plan(const __nv_bfloat16* gX, const __nv_bfloat16* gY, int64_t n) {
  return chain_plan<__nv_bfloat16, 1, 2, SinSqPlusCosSq>({gX}, gY, n);
}

}  // namespace sol::kernels::elementwise

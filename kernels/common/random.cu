// Device fills for kernels/common/random.cuh: one thread per element along a grid-stride loop.
// Not timed; they only need to be correct for any size and alignment.
#include <algorithm>

#include "kernels/common/launch.cuh"
#include "kernels/common/random.cuh"

namespace sol::kernels {
namespace {

constexpr int kFillThreads = 256;
constexpr int64_t kFillMaxBlocks = 65536;

struct DrawF32 {
  __device__ uint32_t operator()(uint64_t seed, uint64_t i, Dist d) const { return random_f32_bits(seed, i, d); }
};
struct DrawBf16 {
  __device__ uint16_t operator()(uint64_t seed, uint64_t i, Dist d) const { return random_bf16_bits(seed, i, d); }
};
struct DrawE4m3 {
  __device__ uint8_t operator()(uint64_t seed, uint64_t i, Dist d) const { return random_e4m3_bits(seed, i, d); }
};

template <class Bits, class Draw>
__global__ void fill_kernel(Bits* gOut, int64_t n, uint64_t seed, Dist d) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) gOut[i] = Draw{}(seed, uint64_t(i), d);
}

template <class Bits, class Draw>
void fill(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t stream) {
  require_count(n, "fill size");
  const int64_t blocks = std::min(blocks_for(n, kFillThreads), kFillMaxBlocks);  // grid-stride beyond
  launch_1d(plan_1d(fill_kernel<Bits, Draw>, blocks, 1, kFillThreads), fill_kernel<Bits, Draw>, stream,
            static_cast<Bits*>(p), n, seed, d);
}

}  // namespace

void fill_random_f32(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t s) { fill<uint32_t, DrawF32>(p, n, seed, d, s); }
void fill_random_bf16(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t s) { fill<uint16_t, DrawBf16>(p, n, seed, d, s); }
void fill_random_e4m3(void* p, int64_t n, uint64_t seed, Dist d, cudaStream_t s) { fill<uint8_t, DrawE4m3>(p, n, seed, d, s); }

}  // namespace sol::kernels

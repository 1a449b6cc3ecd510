// The two small launches around the rows of both cross-entropy rungs, one block each:
//   count: rows whose label is not ignore_index, exact in integers (the mean's divisor, needed by
//          every dlogits element, so it runs first);
//   reduce: the per-row losses added in a fixed order — thread t adds rows t, t + 1024, …, then
//           the block's tree — and divided by the count for the mean (0/0 = NaN when every row is
//           ignored, as PyTorch gives): the same bits on every run.
#include "kernels/crossentropy/crossentropy.cuh"

namespace sol::kernels::crossentropy {
namespace {

constexpr int kThreads = 1024;

template <class T>
__global__ void __launch_bounds__(kThreads) count_kernel(CeArgs<T> a) {
  __shared__ int sCount[32];
  int n = 0;
  for (int64_t r = threadIdx.x; r < a.rows; r += kThreads) n += label_of(a, r) != a.ignore_index;
  n = __reduce_add_sync(0xffffffffu, n);
  if (threadIdx.x % 32 == 0) sCount[threadIdx.x / 32] = n;
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += sCount[w];
    *a.n_valid = total;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) reduce_kernel(CeArgs<T> a) {
  __shared__ float sRed[32];
  float sum = 0.f;
  for (int64_t r = threadIdx.x; r < a.rows; r += kThreads) sum += a.loss[r];
  sum = rows::group_reduce<rows::Reduce::Sum, kThreads>(sum, sRed);
  if (threadIdx.x == 0) *a.loss_reduced = a.mean ? sum / float(*a.n_valid) : sum;
}

}  // namespace

template <class T>
void count_valid(const CeArgs<T>& a, cudaStream_t stream) {
  count_kernel<T><<<1, kThreads, 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
}

template <class T>
void reduce_loss(const CeArgs<T>& a, cudaStream_t stream) {
  if (!a.loss_reduced) return;
  reduce_kernel<T><<<1, kThreads, 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
}

template void count_valid<float>(const CeArgs<float>&, cudaStream_t);
template void count_valid<__nv_bfloat16>(const CeArgs<__nv_bfloat16>&, cudaStream_t);
template void count_valid<__half>(const CeArgs<__half>&, cudaStream_t);
template void reduce_loss<float>(const CeArgs<float>&, cudaStream_t);
template void reduce_loss<__nv_bfloat16>(const CeArgs<__nv_bfloat16>&, cudaStream_t);
template void reduce_loss<__half>(const CeArgs<__half>&, cudaStream_t);

}  // namespace sol::kernels::crossentropy

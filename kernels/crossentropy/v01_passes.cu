// cross-entropy v01: the formulas as passes, each a block per row reading the logits from HBM:
//   max (read x) | Σ exp(x − max), Σx → the row's loss (read x) | dlogits (read x, write dlogits)
// 3 reads + 1 write of rows × V, between the count and the reduction. Any vocabulary.
#include "kernels/crossentropy/crossentropy.cuh"
#include "kernels/crossentropy/launch.hpp"

namespace sol::kernels::crossentropy {
namespace {

constexpr int kThreads = kPassThreads;
using rows::group_reduce;
using rows::Reduce;

template <class T>
__global__ void __launch_bounds__(kThreads) max_pass_kernel(CeArgs<T> a) {
  __shared__ float sRed[32];
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    const T* gX = a.x + row * a.ldx;
    float m = -INFINITY;
    for (int64_t c = threadIdx.x; c < a.cols; c += kThreads) m = fmaxf(m, to_f32(gX[c]));
    m = group_reduce<Reduce::Max, kThreads>(m, sRed);
    if (threadIdx.x == 0) a.row_max[row] = m;
  }
}

// Σ exp(x − max) → row_sum, Σx, and the row's loss (the dlogits pass rebuilds the row from max and sum).
template <class T>
__global__ void __launch_bounds__(kThreads) sum_pass_kernel(CeArgs<T> a) {
  __shared__ float sRed[32];
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    const T* gX = a.x + row * a.ldx;
    const float m = a.row_max[row];
    float s = 0.f, sx = 0.f;
    for (int64_t c = threadIdx.x; c < a.cols; c += kThreads) {
      const float x = to_f32(gX[c]);
      s += exp_shifted(x, m);
      sx += x;
    }
    s = group_reduce<Reduce::Sum, kThreads>(s, sRed);
    sx = group_reduce<Reduce::Sum, kThreads>(sx, sRed);
    if (threadIdx.x == 0) {
      const int64_t label = label_of(a, row);
      const float x_label = label >= 0 && label < a.cols ? to_f32(gX[label]) : 0.f;
      ce_row(a, row, m, s, sx, x_label, true);  // writes the loss
      a.row_sum[row] = s;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) dlogits_pass_kernel(CeArgs<T> a) {
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    const T* gX = a.x + row * a.ldx;
    T* gY = a.y + row * a.ldy;
    const CeRow r = ce_row(a, row, a.row_max[row], a.row_sum[row], 0.f, 0.f, false);
    for (int64_t c = threadIdx.x; c < a.cols; c += kThreads) gY[c] = from_f32<T>(ce_dlogit(to_f32(gX[c]), c, r));
  }
}

}  // namespace

template <class T>
void passes_rows(const CeArgs<T>& a, cudaStream_t stream) {
  const unsigned grid = unsigned(std::min<int64_t>(a.rows, std::numeric_limits<int32_t>::max()));
  if (grid == 0) return;
  max_pass_kernel<T><<<grid, kThreads, 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
  sum_pass_kernel<T><<<grid, kThreads, 0, stream>>>(a);
  SOL_LAUNCH_CHECK();
  if (a.y) {
    dlogits_pass_kernel<T><<<grid, kThreads, 0, stream>>>(a);
    SOL_LAUNCH_CHECK();
  }
}

template <class T>
void passes_run(const CeArgs<T>& a, cudaStream_t stream) {
  if (a.rows == 0) return;
  count_valid(a, stream);
  passes_rows(a, stream);
  reduce_loss(a, stream);
}

template void passes_run<float>(const CeArgs<float>&, cudaStream_t);
template void passes_run<__nv_bfloat16>(const CeArgs<__nv_bfloat16>&, cudaStream_t);
template void passes_run<__half>(const CeArgs<__half>&, cudaStream_t);
template void passes_rows<__nv_bfloat16>(const CeArgs<__nv_bfloat16>&, cudaStream_t);
template void passes_rows<__half>(const CeArgs<__half>&, cudaStream_t);

}  // namespace sol::kernels::crossentropy

// tune_cluster_rows: the cluster row kernel (kernels/rows/v05_cluster.cuh, softmax's Op) at
// vocabulary rows under every CTA size and slice target the split could take, timed with events
// (median of 15 after 3 warm-ups; inputs of ≥ 400 MB, beyond L2) against this GPU's D2D copy. The
// table it prints is where cluster_split's constants (kernels/rows/cluster_split.hpp) come
// from (its H200 run: bench/results/h200/tuning/cluster-rows.txt). Each configuration's output is
// checked: a softmax row sums to 1.
//     cmake --build build --target tune_cluster_rows && build/tune_cluster_rows
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/rows/v05_cluster.cuh"

namespace {
using namespace sol::kernels::rows;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "tune_cluster_rows: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

template <class T>
__global__ void fill(T* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = T(float(h & 0xffff) / 65536.f * 8.f - 4.f);  // uniform in [−4, 4)
  }
}

// The median of 15 timed launches, in seconds.
template <class Kernel, class... Args>
double median_s(const cudaLaunchConfig_t& cfg, Kernel k, Args... args) {
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  for (int i = 0; i < 3; ++i) check(cudaLaunchKernelEx(&cfg, k, args...), "warm-up launch");
  std::vector<float> ms;
  for (int i = 0; i < 15; ++i) {
    check(cudaEventRecord(e0), "record");
    check(cudaLaunchKernelEx(&cfg, k, args...), "launch");
    check(cudaEventRecord(e1), "record");
    check(cudaEventSynchronize(e1), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, e0, e1), "elapsed");
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  check(cudaEventDestroy(e0), "event");
  check(cudaEventDestroy(e1), "event");
  return ms[ms.size() / 2] * 1e-3;
}

// Σ of row r of y (on the host): 1 for a softmax.
template <class T>
double row_sum(const T* y, int64_t r, int64_t cols) {
  std::vector<T> h(static_cast<size_t>(cols));
  check(cudaMemcpy(h.data(), y + r * cols, size_t(cols) * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
  double s = 0;
  for (const T& v : h) s += double(float(v));
  return s;
}

template <class T, int kThreads>
void one(const RowArgs<T>& a, int64_t target, int max_slices, double copy_bps) {
  constexpr int kVec = 16 / int(sizeof(T));
  // The row's window of packs (cluster_layout): cols rounded up, one pack more where rows start
  // off a 16-byte boundary (odd lengths).
  const bool partial = cluster_layout<T>(a.x, a.y, a.cols, a.ldx, a.ldy, 90).partial;
  const int64_t npack = (a.cols + (partial ? kVec - 1 : 0) + kVec - 1) / kVec;
  const int slices = int(std::min<int64_t>(std::max<int64_t>(1, (npack * 16 + target - 1) / target), max_slices));
  const int64_t per = (npack + slices - 1) / slices, smem = per * 16;
  if (smem > slice_max_bytes(90)) return;
  auto* k = cluster_row_kernel<SoftmaxClusterOp, T, kVec, RowArgs<T>, kThreads>;
  check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), "shared memory opt-in");
  if (slices > 8) check(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), "cluster size");
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(slices);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(a.rows * slices));
  cfg.blockDim = dim3(unsigned(kThreads));
  cfg.dynamicSmemBytes = size_t(smem);
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  int clusters = 0, ctas = 0;
  check(cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(k), &cfg), "cluster occupancy");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, k, kThreads, size_t(smem)), "occupancy");
  if (clusters == 0) return;
  check(cudaMemset(a.y, 0, size_t(a.rows * a.cols) * sizeof(T)), "clear y");
  const double s = median_s(cfg, k, a, per);
  const double bytes = 2.0 * double(a.rows * a.cols) * sizeof(T);
  const double sum = row_sum(a.y, a.rows - 1, a.cols);
  std::printf("%8lld %8lld %5s %7d %6lld %6d %8lld %7d %8d %10.1f %7.2f %6.1f %s\n", (long long)a.rows, (long long)a.cols,
              sizeof(T) == 2 ? "bf16" : "fp32", kThreads, (long long)(target >> 10), slices, (long long)smem, ctas,
              clusters, s * 1e6, bytes / s / 1e12, 100 * bytes / s / copy_bps,
              std::abs(sum - 1) < 2e-2 ? "ok" : "WRONG (a row does not sum to 1)");
}

template <class T>
void shape(int64_t rows, int64_t cols, double copy_bps) {
  T *x = nullptr, *y = nullptr;
  float *s0 = nullptr, *s1 = nullptr;
  check(cudaMalloc(&x, size_t(rows * cols) * sizeof(T)), "alloc");
  check(cudaMalloc(&y, size_t(rows * cols) * sizeof(T)), "alloc");
  check(cudaMalloc(&s0, size_t(rows) * 4), "alloc");
  check(cudaMalloc(&s1, size_t(rows) * 4), "alloc");
  fill<<<1024, 256>>>(x, rows * cols, 7u);
  check(cudaDeviceSynchronize(), "fill");
  RowArgs<T> a;
  a.x = x;
  a.y = y;
  a.stat0 = s0;
  a.stat1 = s1;
  a.rows = rows;
  a.cols = cols;
  a.ldx = a.ldy = cols;
  for (int64_t kib : {16, 24, 32, 40, 48, 64}) {
    one<T, 256>(a, kib << 10, 8, copy_bps);
    one<T, 512>(a, kib << 10, 8, copy_bps);
  }
  one<T, 256>(a, int64_t(16) << 10, 16, copy_bps);  // 16-CTA clusters (non-portable)
  for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(s0), static_cast<void*>(s1)})
    check(cudaFree(p), "free");
}

}  // namespace

int main() {
  // The base of every percentage: a device-to-device copy of 2 GiB (read + written bytes).
  const size_t n = size_t(1) << 31;
  char *p = nullptr, *q = nullptr;
  check(cudaMalloc(&p, n), "alloc");
  check(cudaMalloc(&q, n), "alloc");
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  std::vector<float> ms;
  for (int i = 0; i < 12; ++i) {
    check(cudaEventRecord(e0), "record");
    check(cudaMemcpyAsync(q, p, n, cudaMemcpyDeviceToDevice), "copy");
    check(cudaEventRecord(e1), "record");
    check(cudaEventSynchronize(e1), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, e0, e1), "elapsed");
    if (i >= 3) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double copy = 2.0 * double(n) / (ms[ms.size() / 2] * 1e-3);
  check(cudaFree(p), "free");
  check(cudaFree(q), "free");
  std::printf("copy (cudaMemcpy D2D, 2 GiB): %.3f TB/s\n", copy / 1e12);
  std::printf("%8s %8s %5s %7s %6s %6s %8s %7s %8s %10s %7s %6s %s\n", "rows", "cols", "type", "threads", "KiB", "slices",
              "slice B", "CTAs/SM", "clusters", "median us", "TB/s", "% copy", "check");
  shape<__nv_bfloat16>(4096, 151936, copy);
  shape<__nv_bfloat16>(16384, 151936, copy);
  shape<__nv_bfloat16>(4096, 128256, copy);
  shape<__nv_bfloat16>(4096, 262144, copy);
  shape<__nv_bfloat16>(4096, 65544, copy);
  shape<__nv_bfloat16>(4096, 50257, copy);  // rows at every 16-byte offset: packs over their windows
  shape<float>(4096, 151936, copy);
  return 0;
}

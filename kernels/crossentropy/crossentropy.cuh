#pragma once
// Cross-entropy over vocabulary logits, forward and backward in one go (the training step's loss):
//   lse = log Σ_c exp(x_c),  loss = lse − (1 − ε)·x_label − (ε/V)·Σ_c x_c   (label smoothing ε)
//   dlogits_c = (softmax_c − (1 − ε)·[c = label] − ε/V) · scale,
//   scale = grad_scale / (rows whose label is not ignore_index)  (mean), grad_scale (sum).
// A row whose label is ignore_index has loss 0 and dlogits 0 and is left out of the mean; a label
// outside [0, V) that is not ignore_index gives that row a NaN loss and NaN dlogits (the error stays
// visible where PyTorch would stop on a device assert). The reduced loss is the per-row losses
// added in a fixed order by one block: the same bits on every run.
// Launches: count (rows not ignored, needed by the mean's scale before any dlogits is written) |
// the rows | the reduction. Rungs:
//   v01: the formulas as passes over HBM: max | Σexp, Σx → lse, loss | dlogits: 3 reads + 1 write.
//   v02: one read: the row split over a cluster, its slices in shared memory, the online (max, Σexp)
//        and Σx exchanged through DSMEM (kernels/rows/v05_cluster.cuh); dlogits re-read from shared
//        memory. Probabilities never reach HBM.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/rows/v05_cluster.cuh"

namespace sol::kernels::crossentropy {

using rows::exp_shifted;
using rows::finite_max;
using rows::from_f32;
using rows::to_f32;

// What one call reads and writes. x: logits rows × cols (pitch ldx); y: dlogits (pitch ldy; may be
// x itself with ldy = ldx), or nullptr for the loss alone.
template <class T>
struct CeArgs {
  const T* x = nullptr;
  T* y = nullptr;
  const void* labels = nullptr;  // rows of int32 or int64
  bool labels64 = true;
  float* loss = nullptr;         // rows: the per-row losses (required: the reduction reads them)
  float* loss_reduced = nullptr; // 1, or nullptr
  int* n_valid = nullptr;        // 1: rows whose label is not ignore_index (the count kernel's)
  float* row_max = nullptr;      // rows (v01's scratch)
  float* row_sum = nullptr;      // rows (v01's scratch)
  int64_t rows = 0, cols = 0, ldx = 0, ldy = 0;
  int64_t ignore_index = -100;
  float smoothing = 0.f;
  float grad_scale = 1.f;
  bool mean = true;
};

template <class T>
__device__ inline int64_t label_of(const CeArgs<T>& a, int64_t row) {
  return a.labels64 ? static_cast<const int64_t*>(a.labels)[row] : int64_t(static_cast<const int32_t*>(a.labels)[row]);
}

// A row's values for its dlogits: ignored rows give zeros (whatever the logits), a bad label NaN (scale).
struct CeRow {
  float max = 0.f, inv_sum = 0.f, scale = 0.f, uniform = 0.f, target = 0.f;  // uniform = ε/V, target = 1 − ε
  int label = -1;  // the target column (V < 2^31: sol::cross_entropy's limit), −1 when none
  bool ignored = true;
};

// The row's loss and dlogits values from its statistics: max, Σ exp(x − max), Σx and x_label.
template <class T>
__device__ inline CeRow ce_row(const CeArgs<T>& a, int64_t row, float max, float sum, float sumx, float x_label,
                               bool leader) {
  const int64_t label = label_of(a, row);
  CeRow r;
  if (label == a.ignore_index) {
    if (leader) a.loss[row] = 0.f;
    return r;
  }
  const bool valid = label >= 0 && label < a.cols;
  const float lse = finite_max(max) + logf(sum);
  if (leader)
    a.loss[row] = valid ? lse - (1.f - a.smoothing) * x_label - a.smoothing * sumx / float(a.cols) : NAN;
  r.max = max;
  r.inv_sum = sum > 0.f ? 1.f / sum : 0.f;
  r.scale = !valid ? NAN : a.mean ? a.grad_scale / float(*a.n_valid) : a.grad_scale;
  r.uniform = a.smoothing / float(a.cols);
  r.target = 1.f - a.smoothing;
  r.label = valid ? int(label) : -1;
  r.ignored = false;
  return r;
}
__device__ inline float ce_dlogit(float x, int64_t c, const CeRow& r) {
  if (r.ignored) return 0.f;
  const float p = exp_shifted(x, r.max) * r.inv_sum;
  return (p - r.uniform - (int(c) == r.label ? r.target : 0.f)) * r.scale;
}

// ---- the cluster Op (v02) -------------------------------------------------------------------------
struct CrossEntropyClusterOp {
  static constexpr bool kSumX = true;
  using Row = CeRow;
  template <class T>
  __device__ static bool read(const CeArgs<T>& a, int64_t row) { return label_of(a, row) != a.ignore_index; }
  template <class T>
  __device__ static float pick(const CeArgs<T>& a, int64_t row) {
    const int64_t label = label_of(a, row);
    return label >= 0 && label < a.cols ? to_f32(a.x[row * a.ldx + label]) : 0.f;
  }
  template <class T>
  __device__ static Row finish(const CeArgs<T>& a, int64_t row, float max, float sum, float sumx, float picked, bool,
                               bool leader) {
    return ce_row(a, row, max, sum, sumx, picked, leader);
  }
  __device__ static float out(float x, int64_t c, const Row& r) { return ce_dlogit(x, c, r); }
};

// ---- entry points (v01_passes.cu, v02_one_read.cu, reduce.cu) ------------------------------------
// The count and reduction launches both rungs share.
template <class T>
void count_valid(const CeArgs<T>& a, cudaStream_t stream);
template <class T>
void reduce_loss(const CeArgs<T>& a, cudaStream_t stream);

// A run: the count, the rows, the reduction. *_rows: the rows alone, for a caller that counts and
// reduces over more rows than one launch covers (sol::linear_cross_entropy's chunks): a.n_valid
// holds its count and a.loss_reduced is not written.
template <class T>
void passes_run(const CeArgs<T>& a, cudaStream_t stream);
template <class T>
void passes_rows(const CeArgs<T>& a, cudaStream_t stream);
// The one-read rung's plan on a GPU of compute capability cc (main.func nullptr: the row does not
// fit the cluster's shared memory) and its run.
template <class T>
rows::ClusterPlan one_read_plan(const CeArgs<T>& a, int cc);
template <class T>
void one_read_run(const rows::ClusterPlan& p, const CeArgs<T>& a, cudaStream_t stream);
template <class T>
void one_read_rows(const rows::ClusterPlan& p, const CeArgs<T>& a, cudaStream_t stream);

// Scratch both rungs share, carved from one buffer: n_valid, then rows floats of per-row losses
// (when the caller keeps none), then v01's row max and Σexp.
struct CeWorkspace {
  int* n_valid = nullptr;
  float* loss = nullptr;
  float* row_max = nullptr;
  float* row_sum = nullptr;
};
inline int64_t ce_workspace_bytes(int64_t rows) {
  const int64_t piece = (rows * 4 + 255) / 256 * 256;
  return 256 + 3 * piece;
}
inline CeWorkspace ce_workspace(void* base, int64_t rows) {
  const int64_t piece = (rows * 4 + 255) / 256 * 256;
  char* p = static_cast<char*>(base);
  return {reinterpret_cast<int*>(p), reinterpret_cast<float*>(p + 256), reinterpret_cast<float*>(p + 256 + piece),
          reinterpret_cast<float*>(p + 256 + 2 * piece)};
}

}  // namespace sol::kernels::crossentropy

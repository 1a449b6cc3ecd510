#pragma once
// The tensor-core GEMM's contract, shared by every rung (kernels/gemm/tc/v*.cu), the Case and
// the cuBLASLt peers:
//   C[m×n] = alpha · A[m×k] · B[n×k]ᵀ
// A and B row-major with k contiguous (the "TN" layout: how nn.Linear stores x and W, and the
// only layout Hopper's fp8 tensor-core path reads), fp32 accumulation, C row-major bf16.
// fp8 e4m3 inputs carry per-tensor scales: alpha = scale_a · scale_b.
// Row pitches (lda, ldb, ldc, in elements) may be anything ≥ the row length: 1793 is valid.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/common/check.cuh"
#include "sol/gemm_rungs.hpp"

namespace sol::kernels::gemm::tc {

enum class InType { bf16, fp16, fp8_e4m3 };

inline int in_bytes(InType t) { return t == InType::fp8_e4m3 ? 1 : 2; }

struct Problem {
  int64_t m = 0, n = 0, k = 0;
  InType in = InType::bf16;
  const void* A = nullptr;  // m × k, row pitch lda elements
  const void* B = nullptr;  // n × k, row pitch ldb elements
  void* C = nullptr;        // m × n bf16, row pitch ldc elements
  int64_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.f;
  // The most CTAs a rung may split k over (v08: gemm_rungs::decomposition); 1 keeps each output
  // tile on one CTA. sol::matmul lowers it where the split is not measured yet.
  int max_splits = gemm_rungs::kMaxSplitK;
  // v08: the one tile width to run (a gemm_rungs::hopper_tile's n, unsplit); 0: its rule's choice.
  int tile_n = 0;
};

// Scratch that a launcher may need (a padded copy of an operand, split-k partials). It grows on
// first use; the harness warms up before timing, so no allocation is ever timed. A borrowed
// Workspace is a caller's buffer (sol::matmul's workspace): never grown, never freed.
class Workspace {
 public:
  Workspace() = default;
  Workspace(void* borrowed, size_t bytes) : ptr_(borrowed), bytes_(bytes), borrowed_(true) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    if (ptr_ && !borrowed_) (void)cudaFree(ptr_);
  }
  void* reserve(size_t bytes) {
    if (bytes <= bytes_) return ptr_;
    if (borrowed_)
      failure("the workspace holds " + std::to_string(bytes_) + " bytes; this launch needs " + std::to_string(bytes),
              "size it with sol::matmul_workspace_size for the same arguments");
    if (ptr_) SOL_CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    SOL_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    bytes_ = bytes;
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  bool borrowed_ = false;
};

// Every rung and peer has this signature; the Case holds one Workspace per variant instance.
using Launch = void (*)(const Problem&, Workspace&, cudaStream_t);

}  // namespace sol::kernels::gemm::tc

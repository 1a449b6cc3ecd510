#pragma once
// Device memory owned by a Case: RAII over checked cudaMalloc/cudaFree, poisoning, copy back.
// The poison is the byte 0xFF everywhere: a NaN in fp32 (0xFFFFFFFF), bf16 (0xFFFF) and
// fp8 e4m3 (0xFF), and -1 in integers, so one pattern serves every element type.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/check.cuh"
#include "sol/registry.hpp"

namespace sol::kernels {

inline constexpr unsigned char kPoisonByte = 0xFF;

// Allocates `bytes` on the current device; an allocation the device cannot hold is a bad
// shape, reported with the sizes, never a crash.
void* device_alloc(int64_t bytes);
// Frees with a check (throws sol::Error on failure).
void device_free(void* p);

// What device_alloc holds: bytes live now, and the most held at once since reset_alloc_peak()
// (the memory probe of `sol bench --memory`: inputs, outputs and workspace of one call).
struct AllocStats {
  int64_t live = 0, peak = 0;
};
AllocStats alloc_stats();
void reset_alloc_peak();

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(int64_t count) : count_(count) {
    if (count < 0 || (count > 0 && count > std::numeric_limits<int64_t>::max() / int64_t(sizeof(T))))
      bad_input("device buffer of " + std::to_string(count) + " elements cannot be sized", "choose a smaller shape");
    p_ = static_cast<T*>(device_alloc(count * int64_t(sizeof(T))));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release_quietly();
      p_ = std::exchange(o.p_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  // A destructor cannot throw: a failing cudaFree here means the context is already broken,
  // and that sticky error surfaces at the next checked call. reset() is the checked path.
  ~DeviceBuffer() { release_quietly(); }
  void reset() {
    device_free(std::exchange(p_, nullptr));
    count_ = 0;
  }

  T* get() const { return p_; }
  int64_t count() const { return count_; }
  int64_t bytes() const { return count_ * int64_t(sizeof(T)); }

  // Poison pattern over the whole buffer; synchronous, so that a run on any stream sees it.
  void poison() const {
    if (bytes() == 0) return;
    SOL_CUDA_CHECK(cudaMemset(p_, kPoisonByte, size_t(bytes())));
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // Copies `count` elements starting at element `first` into raw storage of the same size.
  template <class U>
  std::vector<U> to_host(int64_t first, int64_t count) const {
    static_assert(sizeof(U) == sizeof(T), "copy back into storage of the same element size");
    std::vector<U> host(size_t(count > 0 ? count : 0));
    if (count > 0) {
      SOL_CUDA_CHECK(cudaDeviceSynchronize());
      SOL_CUDA_CHECK(cudaMemcpy(host.data(), p_ + first, size_t(count) * sizeof(T), cudaMemcpyDeviceToHost));
    }
    return host;
  }

 private:
  void release_quietly() noexcept {
    if (p_) (void)cudaFree(p_);
    p_ = nullptr;
  }
  T* p_ = nullptr;
  int64_t count_ = 0;
};

// How many input/output sets a Case rotates through: enough that all sets together exceed
// 256 MiB (five times H200's 50 MB L2, so each timed run starts with its data out of L2), at
// most 16 (tiny shapes would otherwise need thousands); one where the harness asks for a single set.
int rotating_sets(double bytes_per_set, const CaseOptions& o);

}  // namespace sol::kernels

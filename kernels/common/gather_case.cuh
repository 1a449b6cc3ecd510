#pragma once
// A Case for every operation of the form out[j] = f(in[source(j)], j): copy (source = j),
// ReLU (f = max(x, 0)), a strided read (source = j·stride), a transpose (source swaps the
// indices), an FMA chain whose length depends on the thread (f adds j's increments). The reference needs no copied-back input: the host redraws in[source(j)] from the
// same hash the device filled it with (kernels/common/random.cuh).
#include <cuda_runtime.h>

#include <functional>
#include <utility>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/variant.cuh"

namespace sol::kernels {

template <class T>
struct GatherSpec {
  int64_t in_elems = 0, out_elems = 0;
  int64_t offset_in = 0, offset_out = 0;  // elements past the allocation's start: misaligned pointers
  Dist dist = Dist::Signed;
  double tol = 0;
  std::function<int64_t(int64_t)> source;                // empty: source(j) = j
  std::function<double(double, int64_t)> f;              // (input value, j) → expected; empty: identity
  std::function<void(const T*, T*, cudaStream_t)> run;   // the operation under test
  std::function<LaunchInfo(const T*, T*)> plan;          // empty for a library peer
};

// An elementwise op over shape n [, offset_in, offset_out]: out[j] = f(in[j]).
template <class T>
GatherSpec<T> elementwise_spec(const Shape& s, double tol) {
  GatherSpec<T> spec;
  spec.in_elems = spec.out_elems = s.at("n");
  spec.offset_in = s.get("offset_in", 0);
  spec.offset_out = s.get("offset_out", 0);
  spec.tol = tol;
  return spec;
}

template <class T>
class GatherCase final : public Case {
  using Bits = typename Elem<T>::Bits;

 public:
  GatherCase(GatherSpec<T> spec, const CaseOptions& opts) : spec_(std::move(spec)) {
    sets_ = rotating_sets(double(spec_.in_elems + spec_.out_elems) * double(sizeof(T)), opts);
    for (int s = 0; s < sets_; ++s) {
      in_.emplace_back(spec_.in_elems + spec_.offset_in);
      out_.emplace_back(spec_.out_elems + spec_.offset_out);
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int s = 0; s < sets_; ++s) Elem<T>::fill(in(s), spec_.in_elems, set_seed(seed, s), spec_.dist, nullptr);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());  // inputs ready for a run on any stream
    seed0_ = set_seed(seed, 0);
    randomized_ = true;
  }

  void poison(int set) override { out_.at(size_t(set)).poison(); }

  void run(int set, void* stream) override { spec_.run(in(set), out(set), static_cast<cudaStream_t>(stream)); }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const std::vector<Bits> got = out_[0].template to_host<Bits>(spec_.offset_out, spec_.out_elems);
    return compare(spec_.out_elems, spec_.tol, [&](int64_t j) {
      const int64_t src = spec_.source ? spec_.source(j) : j;
      const double x = Elem<T>::decode(Elem<T>::draw(seed0_, uint64_t(src), spec_.dist));
      return Sample{Elem<T>::decode(got[size_t(j)]), spec_.f ? spec_.f(x, j) : x, is_poison(got[size_t(j)])};
    });
  }

  LaunchInfo launch() const override {
    return spec_.plan ? spec_.plan(in_[0].get() + spec_.offset_in, out_[0].get() + spec_.offset_out)
                      : LaunchInfo{};
  }

 private:
  T* in(int s) { return in_.at(size_t(s)).get() + spec_.offset_in; }
  T* out(int s) { return out_.at(size_t(s)).get() + spec_.offset_out; }

  GatherSpec<T> spec_;
  int sets_ = 1;
  std::vector<DeviceBuffer<T>> in_, out_;
  uint64_t seed0_ = 0;
  bool randomized_ = false;
};

}  // namespace sol::kernels

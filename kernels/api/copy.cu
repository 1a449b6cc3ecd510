// sol::copy (include/sol/kernels.hpp): device-to-device bytes by sol's 16-byte copy kernels or by
// cudaMemcpyAsync, whichever the committed H200 measurements (kernels/api/copy_table.inc,
// scripts/api-tables.py) found faster at the nearest measured size. sol's kernels move fp32
// words with 16-byte vectors, so they serve a copy only when the size and both pointers are
// 4-byte multiples and the pointers share their offset within 16 bytes; and they are chosen only
// when measurably faster (kSolMargin): cudaMemcpyAsync wins ties.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/api/entry_util.hpp"
#include "kernels/common/check.cuh"
#include "kernels/copy/copy.cuh"
#include "sol/kernels.hpp"

namespace sol {
namespace {

enum Rung { kMemcpy, kV02, kV03, kRungs };
const char* const kNames[kRungs] = {"cudaMemcpyAsync", "copy/v02_vec16", "copy/v03_vec16_unroll"};

struct Measured {
  int rung;
  double bytes, seconds;
};
constexpr Measured kTable[] = {
#include "kernels/api/copy_table.inc"
};
constexpr double kSolMargin = 0.97;  // a kernel must take ≤ 97 % of cudaMemcpyAsync's time

void check(const CopyArgs& a) {
  if (!a.src || !a.dst) bad_input(std::string("copy: ") + (a.src ? "dst" : "src") + " is nullptr", "give device addresses");
  const auto s = reinterpret_cast<uintptr_t>(a.src), d = reinterpret_cast<uintptr_t>(a.dst);
  if (a.bytes > 0 && s < d + a.bytes && d < s + a.bytes)
    bad_input("copy: src and dst overlap", "copy between disjoint buffers (or through a temporary)");
}

bool kernel_serves(const CopyArgs& a) {
  const auto s = reinterpret_cast<uintptr_t>(a.src), d = reinterpret_cast<uintptr_t>(a.dst);
  return a.bytes % 4 == 0 && s % 4 == 0 && d % 4 == 0 && s % 16 == d % 16;
}

struct Plan {
  int rung = kMemcpy;
  Choice choice;
};

Plan plan(const CopyArgs& a) {
  check(a);
  Plan p;
  const std::string size = std::to_string(a.bytes) + " bytes";
  if (a.bytes == 0) {
    p.choice = {"none", "0 bytes: nothing to copy", 0};
    return p;
  }
  const double want = double(a.bytes);
  const Measured* nearest = nullptr;
  for (const Measured& m : kTable)
    if (!nearest || std::abs(std::log(m.bytes / want)) < std::abs(std::log(nearest->bytes / want))) nearest = &m;
  if (!nearest) {  // a table without measurements (scripts/api-tables.py found no copy.json)
    p.choice = {kNames[kMemcpy], size + ": the copy table holds no measurement: cudaMemcpyAsync", 0};
    return p;
  }
  double t[kRungs] = {};
  for (const Measured& m : kTable)
    if (m.bytes == nearest->bytes) t[m.rung] = m.seconds;
  const auto us = api::us_text;
  const std::string at = "nearest measured (H200) " + std::to_string(int64_t(nearest->bytes)) + " bytes: ";
  int best = kV02;
  if (t[kV03] > 0 && (t[kV02] == 0 || t[kV03] < t[kV02])) best = kV03;
  if (!kernel_serves(a)) {
    p.choice.reason = size + ": size or pointers not 4-byte multiples sharing a 16-byte offset: sol's vector "
                             "kernels do not serve it";
  } else if (t[best] > 0 && t[kMemcpy] > 0 && t[best] <= kSolMargin * t[kMemcpy]) {
    p.rung = best;
    p.choice.reason = size + ", " + at + kNames[best] + " " + us(t[best]) + " vs cudaMemcpyAsync " + us(t[kMemcpy]);
  } else {
    p.choice.reason = size + ", " + at + "cudaMemcpyAsync " + us(t[kMemcpy]) + ", as fast or faster than " +
                      kNames[best] + " " + us(t[best]);
  }
  p.choice.implementation = kNames[p.rung];
  if (t[p.rung] > 0) p.choice.predicted_s = t[p.rung] * want / nearest->bytes;
  return p;
}

}  // namespace

Choice explain_copy(const CopyArgs& args) { return plan(args).choice; }

void copy(const CopyArgs& args, cudaStream_t stream) {
  const Plan p = plan(args);
  if (args.bytes == 0) return;
  const auto* src = static_cast<const float*>(args.src);
  auto* dst = static_cast<float*>(args.dst);
  const auto n = int64_t(args.bytes / 4);
  switch (p.rung) {
    case kV02: return kernels::copy::v02_vec16(src, dst, n, stream);
    case kV03: return kernels::copy::v03_vec16_unroll(src, dst, n, stream);
    default: SOL_CUDA_CHECK(cudaMemcpyAsync(args.dst, args.src, args.bytes, cudaMemcpyDeviceToDevice, stream));
  }
}

}  // namespace sol

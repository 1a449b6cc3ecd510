#pragma once
// The check every Case ends with: ‖out − ref‖₂ / ‖ref‖₂ in double over the written elements,
// plus counts of unwritten (still poisoned) and non-finite outputs. Runs on all host cores so
// that the ≥ 1 GiB headline shapes check in about a second.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sol/registry.hpp"

namespace sol::kernels {

// One output element as the check sees it.
struct Sample {
  double got = 0;
  double ref = 0;
  bool unwritten = false;  // still holds the poison bits
};

// Partial sums over one contiguous chunk of elements.
struct ComparePart {
  double err2 = 0, ref2 = 0;
  int64_t unwritten = 0, first_unwritten = -1;
  int64_t nonfinite = 0, first_nonfinite = -1;
  double worst_err = -1, worst_got = 0, worst_ref = 0;
  int64_t worst_at = -1;
  void add(int64_t i, const Sample& s);
};

// Splits [0, n) into contiguous chunks, one per host thread (one chunk when n is small), and
// runs body(begin, end, chunk) on each; returns the number of chunks.
int parallel_chunks(int64_t n, const std::function<void(int64_t, int64_t, int)>& body, int max_chunks);
int host_chunks(int64_t n);

// Combines the parts in order (deterministic) and judges against the tolerance.
CheckResult summarize(const std::vector<ComparePart>& parts, double tol);

// sample(i) → Sample for i in [0, n), judged with the reference's squared norm raised to floor2
// where it is smaller: for results that cancel (a sum of nearly opposite terms), whose rounding
// errors scale with the terms. work: what one sample costs, in units of one element's check (a
// GEMM output's reference is a k-long dot product), so that a few thousand costly samples still
// spread over the host's cores; sample must then be safe to call from several threads at once.
template <class F>
CheckResult compare_floored(int64_t n, double floor2, double tol, const F& sample, int64_t work = 1) {
  const int64_t per = std::max<int64_t>(work, 1), cap = int64_t(1) << 62;
  const int64_t total = n > cap / per ? cap : n * per;  // the work, saturated
  std::vector<ComparePart> parts(size_t(std::clamp<int64_t>(host_chunks(total), 1, std::max<int64_t>(n, 1))));
  parallel_chunks(
      n,
      [&](int64_t begin, int64_t end, int c) {
        ComparePart& p = parts[size_t(c)];
        for (int64_t i = begin; i < end; ++i) p.add(i, sample(i));
      },
      int(parts.size()));
  double ref2 = 0;
  for (const ComparePart& q : parts) ref2 += q.ref2;
  if (!parts.empty() && floor2 > ref2) parts[0].ref2 += floor2 - ref2;
  return summarize(parts, tol);
}

// sample(i) → Sample for i in [0, n), judged against the reference's own norm.
template <class F>
CheckResult compare(int64_t n, double tol, const F& sample, int64_t work = 1) {
  return compare_floored(n, 0.0, tol, sample, work);
}

// Folds the check of another output into `into`: both must pass, the worse rel L2 is reported,
// the counts add up, and `more`'s detail is kept behind its name.
inline void merge(CheckResult& into, const CheckResult& more, const char* what) {
  into.ok = into.ok && more.ok;
  into.rel_l2 = std::max(into.rel_l2, more.rel_l2);
  into.unwritten += more.unwritten;
  into.nonfinite += more.nonfinite;
  if (!more.ok) into.detail += (into.detail.empty() ? "" : "; ") + std::string(what) + ": " + more.detail;
}

}  // namespace sol::kernels

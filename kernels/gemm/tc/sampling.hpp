#pragma once
// Which outputs of an m×n GEMM the Case checks against its double reference (host only, no
// CUDA): all of them when the check costs at most full_macs multiply-adds, else a fixed
// pseudo-random set of `count` outputs (same on every run: a fixed-seed generator) plus the four
// corners, where tile edges and the last partial tiles meet. Indices are r·n + c, sorted, unique.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sol::kernels::gemm::tc {

inline std::vector<int64_t> sample_outputs(int64_t m, int64_t n, int64_t k, int64_t full_macs, int count) {
  std::vector<int64_t> picks;
  const int64_t outputs = m * n;
  if (outputs <= count || (k > 0 && outputs <= full_macs / k)) {
    picks.resize(size_t(outputs));
    for (int64_t i = 0; i < outputs; ++i) picks[size_t(i)] = i;
    return picks;
  }
  std::mt19937_64 gen(0x6E4D5EEDull);
  std::uniform_int_distribution<int64_t> any(0, outputs - 1);
  for (int i = 0; i < count; ++i) picks.push_back(any(gen));
  for (int64_t corner : {int64_t(0), n - 1, (m - 1) * n, outputs - 1}) picks.push_back(corner);
  std::sort(picks.begin(), picks.end());
  picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
  return picks;
}

// A C pitch wider than its rows leaves a gap (columns n … ldc − 1) that belongs to the caller:
// "" when `kept(index)` holds for every gap element r·ldc + c, else which one was written.
template <class Kept>
std::string gap_written(int64_t m, int64_t n, int64_t ldc, Kept kept) {
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = n; c < ldc; ++c)
      if (!kept(r * ldc + c))
        return "C[" + std::to_string(r) + "][" + std::to_string(c) + "] lies past n=" + std::to_string(n) +
               " in the row pitch ldc=" + std::to_string(ldc) + " and was written";
  return "";
}

}  // namespace sol::kernels::gemm::tc

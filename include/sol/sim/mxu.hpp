#pragma once
// A matmul on a TPU's MXUs, from the systolic simulator: how much of each 128×128 array the
// shape can fill, and the cycles it takes when its folds are spread over the chip's MXUs.
// C[M×N] = A[M×K]·B[K×N] runs weight-stationary: B's K×N is cut into 128×128 folds, A's M rows
// stream through each fold, weights for the next fold load while the current one streams.
#include <cstdint>

#include "sol/sim/systolic.hpp"

namespace sol::sim {

struct MxuMatmul {
  int64_t rows = 128, cols = 128, mxus = 1;
  Mapping map;                 // K over rows, N over columns, M streamed
  double mapped_fraction = 0;  // cells holding a weight, averaged over folds (1 when K, N are multiples of 128)
  int64_t folds_per_mxu = 0;
  int64_t stream_per_fold = 0; // rows of A each fold streams on one MXU (M, or a share of it)
  int64_t cycles = 0;          // on one MXU, overlapped folds (the chip's MXUs work in parallel)
  double seconds = 0;
  double fraction_of_peak = 0; // 2·M·N·K / (seconds × 2·rows·cols·mxus·clock)
};

// mxus: MXUs on the chip; clock_hz: their clock. Throws sol::bad_input on non-positive sizes.
MxuMatmul mxu_matmul(int64_t M, int64_t N, int64_t K, int64_t mxus, double clock_hz, int64_t rows = 128,
                     int64_t cols = 128);

}  // namespace sol::sim

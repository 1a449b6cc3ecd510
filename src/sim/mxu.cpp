// Matmul on a chip's MXUs, from the closed-form systolic engine (sol model, folds overlapped).
// Folds are dealt out to the MXUs; when there are fewer folds than MXUs, each fold's A rows are
// split between the MXUs that share its weights.
#include "sol/sim/mxu.hpp"

#include <algorithm>

#include "sol/core/error.hpp"

namespace sol::sim {

MxuMatmul mxu_matmul(int64_t M, int64_t N, int64_t K, int64_t mxus, double clock_hz, int64_t rows, int64_t cols) {
  if (mxus < 1 || !(clock_hz > 0)) bad_input("an MXU estimate needs at least one MXU and a clock");
  ArrayConfig cfg;
  cfg.rows = rows, cfg.cols = cols, cfg.dataflow = Dataflow::ws, cfg.overlap = true;
  const LayerResult whole = analytic(Layer::gemm("matmul", M, N, K), cfg, Model::sol);

  MxuMatmul r;
  r.rows = rows, r.cols = cols, r.mxus = mxus;
  r.map = whole.map;
  r.mapped_fraction = whole.mapping_eff / 100;
  const int64_t F = whole.map.folds();
  if (F >= mxus) {
    r.folds_per_mxu = (F + mxus - 1) / mxus;
    r.stream_per_fold = M;
  } else {
    r.folds_per_mxu = 1;
    r.stream_per_fold = (M + mxus / F - 1) / (mxus / F);
  }
  // One MXU's share: folds_per_mxu full folds (K = rows·folds, N = cols) streaming its rows of A.
  const LayerResult share = analytic(Layer::gemm("share", r.stream_per_fold, cols, rows * r.folds_per_mxu), cfg, Model::sol);
  r.cycles = share.compute_cycles;
  r.seconds = double(r.cycles) / clock_hz;
  r.fraction_of_peak = double(M) * double(N) * double(K) / (double(r.cycles) * double(rows * cols * mxus));
  return r;
}

}  // namespace sol::sim

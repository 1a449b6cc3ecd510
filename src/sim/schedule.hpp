#pragma once
// When each fold runs: both engines take fold start times from here, so that they differ only
// in how they count what happens inside the array. σ_f is the cycle at which fold f's streamed
// operand enters row 0 (ws/is: after its R-cycle stationary load; os: at the fold's start).
//
//   SCALE-Sim (folds never overlap):  os slot T+R+C-2;  ws/is slot 2R+C+T-2 (load R, stream T,
//                                     fill/drain R+C-2). Outputs of os leave by a side path.
//   sol, serial:                      os slot T+2R+C-2 (results shift out of the bottom, R more);
//                                     ws/is as SCALE-Sim.
//   sol, overlapped:                  the next fold enters as soon as the ports, the drain chain
//                                     and the double-buffered stationary/accumulator registers
//                                     allow: os max(T,R); ws/is max(T, R, ⌈(T+R+C-1)/2⌉).
#include <algorithm>
#include <cstdint>

#include "sol/sim/systolic.hpp"

namespace sol::sim::detail {

struct Schedule {
  Dataflow df = Dataflow::ws;
  Model model = Model::sol;
  bool overlap = false;
  int64_t R = 0, C = 0, T = 0;
  int64_t first = 0;  // σ_0
  int64_t slot = 0;   // σ_{f+1} − σ_f
  int64_t sigma(int64_t f) const { return first + f * slot; }
  bool stationary_load() const { return df != Dataflow::os; }
  // Cycles of one fold as SCALE-Sim's compute-utilization metric counts them (ws/is: C−1 too many).
  int64_t util_fold_cycles() const { return df == Dataflow::os ? T + R + C - 2 : 2 * R + 2 * C + T - 3; }
  // os, sol: column c of fold f copies its accumulators into the drain chain at this cycle.
  int64_t drain_load(int64_t f, int64_t c) const { return sigma(f) + T + R - 2 + c; }
};

inline Schedule make_schedule(const Mapping& m, Dataflow df, Model model, bool overlap) {
  Schedule s;
  s.df = df;
  s.model = model;
  s.overlap = overlap && model == Model::sol;
  s.R = m.R, s.C = m.C, s.T = m.T;
  const int64_t R = m.R, C = m.C, T = m.T;
  if (df == Dataflow::os) {
    s.first = 0;
    if (model == Model::scalesim) s.slot = T + R + C - 2;
    else s.slot = s.overlap ? std::max(T, R) : T + 2 * R + C - 2;
  } else {
    s.first = R;
    if (s.overlap) s.slot = std::max({T, R, (T + R + C - 1 + 1) / 2});
    else s.slot = 2 * R + C + T - 2;
  }
  return s;
}

// 100·MACs / (R·C·cycles), rounded as SCALE-Sim's Python rounds it.
double overall_util_pct(int64_t macs, int64_t cycles, int64_t R, int64_t C);

// Given the compute side of a result (cycles, SRAM counts), fill the memory side: DRAM traffic
// (SCALE-Sim's estimate, or sol's residency model), DRAM-limited stalls, the total, average
// bandwidths and overall utilization. Both engines end with this: the memory system is modelled
// per fold (double-buffered), not per cycle.
void finish_memory(const Layer& layer, const ArrayConfig& cfg, const Schedule& s, LayerResult& r);

}  // namespace sol::sim::detail

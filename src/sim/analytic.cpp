// The closed-form engine. Every figure follows from the fold count, the fold schedule
// (schedule.hpp) and which rows and columns of the first and last fold are mapped; nothing
// loops over cycles, so a 1000³ GEMM or a whole network costs microseconds.
#include <algorithm>
#include <cmath>

#include "schedule.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/sim/systolic.hpp"

namespace sol::sim {
namespace {

using detail::Schedule;

// SCALE-Sim averages per-fold ratios in fold order; summing them in the same order keeps
// the last digit identical. Only four distinct folds exist, so big layers use the closed form.
void utilization_means(const Mapping& mp, const Schedule& s, LayerResult& r) {
  const double RC = double(mp.R * mp.C);
  const int64_t D = s.util_fold_cycles();
  if (mp.folds() <= 2000000) {
    double map_sum = 0, util_sum = 0;
    for (int64_t fc = 0; fc < mp.col_folds; ++fc)
      for (int64_t fr = 0; fr < mp.row_folds; ++fr) {
        const int64_t used = mp.rows_used(fr) * mp.cols_used(fc);
        map_sum += double(used) / RC;
        util_sum += double(used * mp.T) / double(mp.R * mp.C * D);
      }
    r.mapping_eff = map_sum / double(mp.folds()) * 100;
    r.compute_util = util_sum / double(mp.folds()) * 100;
  } else {
    const double used = double(mp.Sr) * double(mp.Sc);
    r.mapping_eff = used / (double(mp.folds()) * RC) * 100;
    r.compute_util = used * double(mp.T) / (double(mp.folds()) * RC * double(D)) * 100;
  }
}

// SCALE-Sim's CALC-mode read buffer forgets nothing until 50 of its 100 sets have filled; an
// operand whose distinct words stay below that is read from DRAM once, in a window that ends
// at cycle −1 and is fetched at 10 words per cycle. Beyond that only replay_scalesim_memory knows.
void scalesim_read_estimate(int64_t distinct, int64_t sram_words, OperandTraffic& t, std::vector<std::string>& notes,
                            const char* name) {
  const int64_t items = sram_words / 100;
  if (items > 0 && distinct < 50 * items) {
    const int64_t sets = (distinct + items - 1) / items;
    t.dram = distinct;
    t.dram_start = -double((sets * items + 9) / 10);
    t.dram_stop = -1;
  } else {
    t.dram = distinct;
    t.dram_start = 0;
    t.dram_stop = 0;
    notes.push_back(std::string(name) +
                    " DRAM reads: the operand outgrows half its SRAM; SCALE-Sim's count needs the replay (estimate shown)");
  }
}

}  // namespace

namespace detail {

double overall_util_pct(int64_t macs, int64_t cycles, int64_t R, int64_t C) {
  // SCALE-Sim divides exact integers (Python); so do we while 100·MACs fits in 64 bits.
  return (macs < int64_t(9e16) ? double(macs * 100) : double(macs) * 100) / (double(cycles) * double(R * C));
}

void finish_memory(const Layer& layer, const ArrayConfig& cfg, const Schedule& s, LayerResult& r) {
  const Gemm& g = r.gemm;
  const Mapping& mp = r.map;
  const int64_t R = mp.R, C = mp.C, T = mp.T, Fr = mp.row_folds, Fc = mp.col_folds;
  const int64_t KN = g.K * g.N, MN = g.M * g.N;
  const bool compat = r.model == Model::scalesim;
  const Dataflow df = r.dataflow;
  // ---- DRAM -----------------------------------------------------------------------------------
  const int64_t distinct_ifmap = layer.distinct_ifmap_words();
  if (compat) {
    scalesim_read_estimate(distinct_ifmap, cfg.sram_words(cfg.ifmap_sram_kb), r.ifmap, r.notes, "IFMAP");
    scalesim_read_estimate(KN, cfg.sram_words(cfg.filter_sram_kb), r.filter, r.notes, "Filter");
    r.ofmap.dram = df == Dataflow::os ? MN : MN * Fr;
    r.ofmap.dram_start = double(r.compute_cycles);
    r.ofmap.dram_stop = double(r.compute_cycles + (r.ofmap.dram + C - 1) / C - 1);
    if (cfg.bandwidth_mode == BandwidthMode::user)
      r.notes.push_back("USER bandwidth: SCALE-Sim's stall count comes from its re-fetch mechanics and is not "
                        "reproduced; Total Cycles here is its stall-free part");
  } else {
    // Each operand is fetched once if its reused part fits in half its SRAM (the other half is
    // being refilled), else once per pass that needs it again. Partial sums (ws/is) stay in the
    // ofmap SRAM while the M×C (ws) or N×C (is) block of a column fold fits; else they spill.
    auto half = [&](int64_t kb) { return cfg.sram_words(kb) / 2; };
    const int64_t hi = half(cfg.ifmap_sram_kb), hf = half(cfg.filter_sram_kb), ho = half(cfg.ofmap_sram_kb);
    int64_t acc_block = 0;
    switch (df) {
      case Dataflow::os:
        r.ifmap.dram = distinct_ifmap <= hi ? distinct_ifmap : distinct_ifmap * Fc;
        r.filter.dram = g.K * std::min(C, g.N) <= hf ? KN : KN * Fr;
        break;
      case Dataflow::ws:
        r.ifmap.dram = distinct_ifmap <= hi ? distinct_ifmap : distinct_ifmap * Fc;
        r.filter.dram = KN;
        acc_block = g.M * std::min(C, g.N);
        break;
      case Dataflow::is:
        r.ifmap.dram = distinct_ifmap;
        r.filter.dram = KN <= hf ? KN : KN * Fc;
        acc_block = g.N * std::min(C, g.M);
        break;
    }
    if (df == Dataflow::os || Fr == 1 || acc_block <= ho) {
      r.ofmap.dram = MN;
    } else {
      r.ofmap.dram = MN * Fr;
      r.ofmap.dram_spill_reads = MN * (Fr - 1);
      r.notes.push_back("partial sums do not fit in half the OFMAP SRAM: they spill to DRAM and are read back");
    }
    // Words the busiest fold moves, over the cycles one fold takes.
    const double fold_cycles = double(s.slot);
    const int64_t rr = std::min(R, mp.Sr), cc = std::min(C, mp.Sc);
    double fi = 0, ff = 0, fo = 0;
    switch (df) {
      case Dataflow::os: fi = double(rr * T), ff = double(T * cc), fo = double(rr * cc); break;
      case Dataflow::ws: fi = double(T * rr), ff = double(rr * cc), fo = double(T * cc); break;
      case Dataflow::is: fi = double(rr * cc), ff = double(rr * T), fo = double(T * cc); break;
    }
    r.ifmap.peak_dram_bw = fi / fold_cycles;
    r.filter.peak_dram_bw = ff / fold_cycles;
    r.ofmap.peak_dram_bw = fo / fold_cycles;
  }

  // ---- stalls: the DRAM limit (sol model; double buffering hides traffic up to the limit) ----------
  r.total_cycles = r.compute_cycles;
  if (!compat && cfg.bandwidth_mode == BandwidthMode::user) {
    const double words = double(r.ifmap.dram + r.filter.dram + r.ofmap.dram + r.ofmap.dram_spill_reads);
    const double cycles = std::ceil(words / cfg.dram_words_per_cycle);
    if (cycles > 4e18)
      bad_input("at " + num(cfg.dram_words_per_cycle) + " words per cycle this layer stalls past 2^62 cycles",
                "give a higher --dram-bw");
    const auto need = int64_t(cycles);
    r.stall_cycles = std::max<int64_t>(0, need - r.compute_cycles);
    r.total_cycles = r.compute_cycles + r.stall_cycles;
  }
  if (!compat) {
    for (OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap}) {
      t->dram_start = 0;
      t->dram_stop = double(r.total_cycles - 1);
      t->avg_dram_bw = double(t->dram + t->dram_spill_reads) / double(r.total_cycles);
    }
  } else {
    for (OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap})
      t->avg_dram_bw = t->dram_stop >= t->dram_start ? double(t->dram) / (t->dram_stop - t->dram_start + 1) : 0;
  }

  r.overall_util = overall_util_pct(r.macs, r.total_cycles, R, C);
  for (OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap}) t->avg_sram_bw = double(t->sram) / double(r.total_cycles);
}

}  // namespace detail

LayerResult analytic(const Layer& layer, const ArrayConfig& cfg, Model model) {
  validate(cfg);
  const Gemm g = layer.lower();
  const Mapping mp = map_gemm(g, cfg);
  const Schedule s = detail::make_schedule(mp, cfg.dataflow, model, cfg.overlap);
  const int64_t R = mp.R, C = mp.C, T = mp.T, F = mp.folds(), Fr = mp.row_folds, Fc = mp.col_folds;
  const int64_t ru0 = mp.rows_used(0), ru_last = mp.rows_used(Fr - 1), cu_last = mp.cols_used(Fc - 1);
  const int64_t s0 = s.sigma(0), sL = s.sigma(F - 1);
  const bool compat = model == Model::scalesim;
  const Dataflow df = cfg.dataflow;

  LayerResult r;
  r.name = layer.name;
  r.model = model;
  r.dataflow = df;
  r.gemm = g;
  r.map = mp;
  r.macs = g.macs();

  // ---- cycles ---------------------------------------------------------------------------------
  if (compat) {
    r.compute_cycles = F * s.slot - 1;  // SCALE-Sim reports the index of the last cycle
  } else if (df == Dataflow::os) {
    r.compute_cycles = sL + T + 2 * R + cu_last - 2;  // last result leaves the drain chain
  } else {
    r.compute_cycles = sL + T + R + cu_last - 2;  // last partial sum leaves the bottom row
  }

  // ---- SRAM accesses ---------------------------------------------------------------------------
  const int64_t MK = g.M * g.K, KN = g.K * g.N, MN = g.M * g.N;
  switch (df) {
    case Dataflow::os:
      r.ifmap.sram = MK * Fc;
      r.filter.sram = KN * Fr;
      r.ofmap.sram = MN + (compat ? F * (R + C) : 0);  // SCALE-Sim adds R+C per fold (a '+' meant as '*')
      break;
    case Dataflow::ws:
      r.ifmap.sram = MK * Fc;
      r.filter.sram = KN;
      r.ofmap.sram = MN * Fr;  // one partial sum per K-fold
      break;
    case Dataflow::is:
      r.ifmap.sram = MK;
      r.filter.sram = KN * Fc;
      r.ofmap.sram = MN * Fr;
      break;
  }
  if (!compat && df != Dataflow::os) r.ofmap.sram_rmw_reads = MN * (Fr - 1);  // accumulate in place

  // ---- first and last SRAM access (issue cycles; SCALE-Sim reports reads one cycle later) ----------
  const int64_t rd = compat ? 1 : 0;
  OperandTraffic& streamed = df == Dataflow::is ? r.filter : r.ifmap;
  OperandTraffic& fixed = df == Dataflow::is ? r.ifmap : r.filter;
  if (df == Dataflow::os) {
    r.ifmap.sram_start = double(s0 + rd);
    r.ifmap.sram_stop = double(sL + T - 1 + ru_last - 1 + rd);
    r.filter.sram_start = double(s0 + rd);
    r.filter.sram_stop = double(sL + T - 1 + cu_last - 1 + rd);
    if (compat) {  // SCALE-Sim writes the bottom row first, starting with the last operand
      r.ofmap.sram_start = double(s0 + T - 1 + R - ru0);
      r.ofmap.sram_stop = double(sL + T - 1 + R - 1 + cu_last - 1);
    } else {
      r.ofmap.sram_start = double(s0 + T + 2 * R - 1 - ru0);
      r.ofmap.sram_stop = double(r.compute_cycles - 1);
    }
  } else {
    streamed.sram_start = double(s0 + rd);
    streamed.sram_stop = double(sL + T - 1 + ru_last - 1 + rd);
    fixed.sram_start = double(s0 - ru0 + rd);
    fixed.sram_stop = double(sL - 1 + rd);
    r.ofmap.sram_start = double(s0 + R - 1);
    r.ofmap.sram_stop = double(sL + T - 1 + R - 1 + cu_last - 1);
  }

  detail::finish_memory(layer, cfg, s, r);

  // ---- utilization ---------------------------------------------------------------------------------
  const double RC = double(R * C);
  if (compat) {
    utilization_means(mp, s, r);
  } else {
    r.mapping_eff = double(mp.Sr) * double(mp.Sc) / (double(F) * RC) * 100;
    r.compute_util = double(r.macs) / (double(r.compute_cycles) * RC) * 100;
  }
  return r;
}

}  // namespace sol::sim

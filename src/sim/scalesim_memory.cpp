// SCALE-Sim v2's DRAM figures, replayed. Its CALC-mode read buffers do not model a cache:
// they cut the stream of distinct addresses into 100 "sets" of ⌊words/100⌋ and keep a window
// of 50 of them; an address outside the window is a DRAM read, and when 50 new sets have
// filled the window jumps forward and forgets the old ones. Its ofmap buffer collects writes
// into lines of `bw` words and drains half the SRAM at a time. Both depend on the exact order
// of the demand stream, so this walks that stream (one row per cycle, ports in order) and
// applies the same bookkeeping. Nothing here is needed for cycles or SRAM counts.
#include <algorithm>
#include <cmath>
#include <vector>

#include "schedule.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/sim/systolic.hpp"

namespace sol::sim {
namespace {

// The estimate-bandwidth read buffer: every distinct address entering the current set is a
// DRAM read; hits are addresses seen since the window's first set.
class WindowReadBuffer {
 public:
  WindowReadBuffer(int64_t sram_words, int64_t address_space)
      : items_(sram_words / 100), latest_set_(size_t(address_space), -1) {}

  void access(int64_t cycle, int64_t addr) {
    if (!first_seen_) first_seen_ = true, first_cycle_ = cycle;
    int32_t& latest = latest_set_[size_t(addr)];
    if (latest >= read_start_) return;  // in the window, or already in the current set
    latest = int32_t(set_id_);
    ++reads_;
    if (++in_set_ != items_) return;
    in_set_ = 0;
    ++set_id_;
    if (set_id_ != read_start_ + 50) return;
    // 50 fresh sets: the window moves on. The first time, the active half was "preloaded"
    // before the first request at 10 words per cycle.
    if (!triggered_) {
      triggered_ = true;
      dram_start_ = double(first_cycle_ - (50 * items_ + 9) / 10);
    }
    last_trigger_ = cycle;
    read_start_ += 50;
  }

  void finish(OperandTraffic& t) const {
    t.dram = reads_;
    if (triggered_) {
      t.dram_start = dram_start_;
      t.dram_stop = double(last_trigger_ + 1);
    } else {
      const int64_t sets = set_id_ + (in_set_ > 0 ? 1 : 0);
      t.dram_start = -double((sets * items_ + 9) / 10);
      t.dram_stop = -1;
    }
  }

 private:
  int64_t items_;
  std::vector<int32_t> latest_set_;
  int64_t set_id_ = 0, in_set_ = 0, read_start_ = 0, reads_ = 0;
  bool first_seen_ = false, triggered_ = false;
  int64_t first_cycle_ = 0, last_trigger_ = 0;
  double dram_start_ = 0;
};

// The ofmap write buffer: writes fill lines of bw words; once more than half the SRAM is
// occupied, everything so far (a partial line included) is flushed into lines, and up to half
// an SRAM of lines drains, one line per cycle. A drain counts whole lines, except that the -1
// padding of its last line is subtracted. A write that finds the buffer full waits.
class LineWriteBuffer {
 public:
  LineWriteBuffer(int64_t words, int64_t bw) : total_(words), bw_(bw), free_(words) {
    active_ = (words + 1) / 2;
    drain_ = words - active_;
  }

  int64_t write_row(int64_t cycle, int64_t n) {
    int64_t now = cycle;
    for (int64_t e = 0; e < n; ++e) {
      --free_;
      if (++fill_ == bw_) lines_.push_back(int32_t(bw_)), fill_ = 0;
      if (now < drain_end_) {
        if (free_ <= 0) now = drain_end_;
      } else if (free_ < active_) {
        flush();
        drain_end_ = drain(now);
      }
    }
    return now;
  }

  void finish(int64_t cycle, OperandTraffic& t) {
    flush();
    while (next_line_ < int64_t(lines_.size())) cycle = drain(cycle) + 1;
    t.dram = accesses_;
    t.dram_start = double(first_);
    t.dram_stop = double(last_);
  }

 private:
  void flush() {
    if (fill_ > 0) lines_.push_back(int32_t(fill_)), fill_ = 0;
  }
  int64_t drain(int64_t start) {
    const int64_t per_drain = (drain_ + bw_ - 1) / bw_;
    const int64_t end = std::min(next_line_ + per_drain, int64_t(lines_.size()));
    const int64_t n = end - next_line_;
    if (n <= 0) return start - 1;
    const int64_t data = n * bw_ - (bw_ - lines_[size_t(end - 1)]);
    accesses_ += data;
    free_ += data;
    if (first_ < 0 && !drained_) first_ = start;
    drained_ = true;
    last_ = start + n - 1;
    next_line_ = end;
    return last_;
  }

  int64_t total_, bw_, free_, active_ = 0, drain_ = 0;
  int64_t fill_ = 0, next_line_ = 0, drain_end_ = 0, accesses_ = 0;
  int64_t first_ = -1, last_ = 0;
  bool drained_ = false;
  std::vector<int32_t> lines_;  // valid words per line
};

// The replay walks every operand port of every cycle and keeps a 4-byte tag per IFMAP and filter
// word: bounded so that a layer replays in seconds and in at most 1 GiB.
constexpr double kMaxReplaySteps = 4e8;
constexpr double kMaxReplayWords = double(int64_t(1) << 28);

struct FirstLast {
  int64_t first = -1, last = -1;
  void see(int64_t c) {
    if (first < 0) first = c;
    last = c;
  }
};

}  // namespace

void replay_scalesim_memory(const Layer& layer, const ArrayConfig& cfg, LayerResult& r) {
  if (r.model != Model::scalesim) failure("replay_scalesim_memory needs a Model::scalesim result");
  if (cfg.bandwidth_mode == BandwidthMode::user) {
    r.notes.push_back("USER bandwidth: SCALE-Sim's DRAM line counts and re-fetches are not replayed");
    return;
  }
  const Mapping& mp = r.map;
  const detail::Schedule s = detail::make_schedule(mp, cfg.dataflow, Model::scalesim, false);
  const int64_t R = mp.R, C = mp.C, T = mp.T, P = s.slot, Fr = mp.row_folds;
  const Gemm& g = r.gemm;
  const int64_t K = g.K;
  const double steps = double(mp.folds()) * double(P) * double(std::min(R, mp.Sr) + std::min(C, mp.Sc));
  const double words = double(layer.ifmap_h) * double(layer.ifmap_w) * double(layer.channels) + double(K) * double(g.N);
  if (steps > kMaxReplaySteps || words > kMaxReplayWords)
    bad_input("layer '" + layer.name + "' is too large to replay SCALE-Sim's DRAM buffers (" + sci(steps) +
                  " port-cycles, " + sci(words) + " words; the replay takes at most " + sci(kMaxReplaySteps) + " and " +
                  sci(kMaxReplayWords) + ")",
              "pass --no-dram-replay: cycles and SRAM counts do not need the replay");

  WindowReadBuffer ifmap_buf(cfg.sram_words(cfg.ifmap_sram_kb), layer.ifmap_h * layer.ifmap_w * layer.channels);
  WindowReadBuffer filter_buf(cfg.sram_words(cfg.filter_sram_kb), K * g.N);
  LineWriteBuffer ofmap_buf(cfg.sram_words(cfg.ofmap_sram_kb), C);  // CALC: drains ArrayWidth words/cycle
  FirstLast ifmap_seen, filter_seen, ofmap_seen;

  int64_t stalls = 0, out = 0;
  for (int64_t f = 0; f < mp.folds(); ++f) {
    const int64_t fc = f / Fr, fr = f % Fr, ru = mp.rows_used(fr), cu = mp.cols_used(fc);
    for (int64_t tau = 0; tau < P; ++tau) {
      const int64_t cycle = f * P + tau + stalls;
      bool any_i = false, any_f = false;
      int64_t n_out = 0;
      auto ifmap = [&](int64_t m, int64_t k) {
        const int64_t a = layer.ifmap_address(m, k);
        if (a >= 0) ifmap_buf.access(cycle, a), any_i = true;
      };
      auto filter = [&](int64_t k, int64_t n) { filter_buf.access(cycle, n * K + k), any_f = true; };
      // Skewed operands: port p serves unskewed row u = tau - p, valid for u in [lo, hi).
      auto skewed = [&](int64_t ports, int64_t lo, int64_t hi, auto&& emit) {
        for (int64_t p = std::max<int64_t>(0, tau - hi + 1); p < std::min(ports, tau - lo + 1); ++p) emit(p, tau - p);
      };
      switch (cfg.dataflow) {
        case Dataflow::os:
          skewed(ru, 0, T, [&](int64_t p, int64_t u) { ifmap(fr * R + p, u); });
          skewed(cu, 0, T, [&](int64_t p, int64_t u) { filter(u, fc * C + p); });
          skewed(cu, T - 1, T - 1 + R, [&](int64_t, int64_t u) { n_out += (R - 1 - (u - (T - 1))) < ru; });
          break;
        case Dataflow::ws:
          skewed(ru, R, R + T, [&](int64_t p, int64_t u) { ifmap(u - R, fr * R + p); });
          if (tau < R && R - 1 - tau < ru)
            for (int64_t c = 0; c < cu; ++c) filter(fr * R + R - 1 - tau, fc * C + c);
          skewed(cu, 2 * R - 1, 2 * R - 1 + T, [&](int64_t, int64_t) { ++n_out; });
          break;
        case Dataflow::is:
          if (tau < R && R - 1 - tau < ru)
            for (int64_t c = 0; c < cu; ++c) ifmap(fc * C + c, fr * R + R - 1 - tau);
          skewed(ru, R, R + T, [&](int64_t p, int64_t u) { filter(fr * R + p, u - R); });
          skewed(cu, 2 * R - 1, 2 * R - 1 + T, [&](int64_t, int64_t) { ++n_out; });
          break;
      }
      if (any_i) ifmap_seen.see(cycle + 1);  // reads are served one cycle later
      if (any_f) filter_seen.see(cycle + 1);
      out = ofmap_buf.write_row(cycle, n_out);
      if (n_out > 0) ofmap_seen.see(out);
      stalls += out - cycle;
    }
  }
  ifmap_buf.finish(r.ifmap);
  filter_buf.finish(r.filter);
  ofmap_buf.finish(out, r.ofmap);

  r.dram_replayed = true;
  r.notes.erase(std::remove_if(r.notes.begin(), r.notes.end(),
                               [](const std::string& n) { return n.find("needs the replay") != std::string::npos; }),
                r.notes.end());
  r.stall_cycles = stalls;
  r.total_cycles = out;
  r.ifmap.sram_start = double(ifmap_seen.first), r.ifmap.sram_stop = double(ifmap_seen.last);
  r.filter.sram_start = double(filter_seen.first), r.filter.sram_stop = double(filter_seen.last);
  r.ofmap.sram_start = double(ofmap_seen.first), r.ofmap.sram_stop = double(ofmap_seen.last);
  const double RC = double(R * C);
  r.overall_util = (r.macs < int64_t(9e16) ? double(r.macs * 100) : double(r.macs) * 100) / (double(r.total_cycles) * RC);
  for (OperandTraffic* t : {&r.ifmap, &r.filter, &r.ofmap}) {
    t->avg_sram_bw = double(t->sram) / double(r.total_cycles);
    t->avg_dram_bw = double(t->dram) / (t->dram_stop - t->dram_start + 1);
  }
}

}  // namespace sol::sim

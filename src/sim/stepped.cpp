// The cycle-stepped engine: the array as registers. Every cycle every cell takes the streamed
// operand from its left neighbour's register (or the row's input port) and, in ws/is, the
// partial sum from the cell above (or zero), multiplies by what it holds, and latches both:
// data moves one cell per cycle, skewed so that a row's operand meets its column's partial sum.
// Values are real (small integers derived from the addresses, so im2col duplicates agree) and
// the results that leave the bottom are checked against a plain GEMM.
//
//   ws/is  stationary operand: loaded down a weight chain, one row per cycle (R cycles), into one
//          of two banks; data carries its fold number, so a cell uses the bank of that fold.
//   os     rows get ifmap rows from the left, columns get filter columns from the top; each cell
//          accumulates its own output in one of two accumulator banks. sol: results shift out of
//          the bottom through a drain chain; SCALE-Sim: they leave by a side path (no cycles).
//
// Every register carries (value, fold, index). A fold of −1 means empty. Mixed-up data (a partial
// sum meeting the wrong operand, a bank overwritten while still in use) is an engine failure.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")  // the cell loops below are written to vectorize
#endif
#include <algorithm>
#include <cstring>
#include <vector>

#include "schedule.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/sim/systolic.hpp"

namespace sol::sim {
namespace {

using detail::Schedule;

// The two inner loops: one row segment of multiply-adds. Built three times on x86-64 (AVX-512,
// AVX2, plain) and picked at load time, so the binary still runs on any x86-64.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SOL_SIM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SOL_SIM_CLONES
#endif

// Partial sums p += w·x over n cells.
SOL_SIM_CLONES void mac_segment(float* __restrict p, const float* __restrict w, const float* __restrict x, int64_t n) {
  for (int64_t k = 0; k < n; ++k) p[k] += w[k] * x[k];
}

// Accumulators a += x·y over n cells.
SOL_SIM_CLONES void accumulate_segment(float* __restrict a, const float* __restrict x, const float* __restrict y, int64_t n) {
  for (int64_t k = 0; k < n; ++k) a[k] += x[k] * y[k];
}

int32_t mix(uint64_t x, uint64_t salt) {
  x = (x + salt * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return int32_t(x % 7) - 3;
}

// The GEMM's operands as values; the ifmap comes from pixel addresses, as im2col shares them.
struct Operands {
  const Layer* layer;
  int64_t K;
  std::vector<int8_t> ifmap_cache, filter_cache;  // M×K and K×N values, when they fit in 64 MiB each
  Operands(const Layer* l, const Gemm& g) : layer(l), K(g.K) {
    if (g.M * g.K <= (int64_t{1} << 26)) {
      ifmap_cache.resize(size_t(g.M * g.K));
      for (int64_t m = 0; m < g.M; ++m)
        for (int64_t k = 0; k < g.K; ++k) ifmap_cache[size_t(m * g.K + k)] = int8_t(ifmap_of(m, k));
    }
    if (g.K * g.N <= (int64_t{1} << 26)) {
      filter_cache.resize(size_t(g.K * g.N));
      for (int64_t i = 0; i < g.K * g.N; ++i) filter_cache[size_t(i)] = int8_t(mix(uint64_t(i), 2));
    }
  }
  int32_t ifmap_of(int64_t m, int64_t k) const {
    const int64_t a = layer->ifmap_address(m, k);
    return a < 0 ? 0 : mix(uint64_t(a), 1);
  }
  int32_t ifmap(int64_t m, int64_t k) const { return ifmap_cache.empty() ? ifmap_of(m, k) : ifmap_cache[size_t(m * K + k)]; }
  int32_t filter(int64_t k, int64_t n) const {
    return filter_cache.empty() ? mix(uint64_t(n * K + k), 2) : filter_cache[size_t(n * K + k)];
  }
};

struct Edge {  // accesses at one edge of the array
  int64_t count = 0, first = -1, last = -1;
  void see(int64_t cycle, int64_t n = 1) {
    if (n <= 0) return;
    count += n;
    if (first < 0 || cycle < first) first = cycle;
    last = std::max(last, cycle);
  }
};

// A plane of R×C registers: value, fold (−1 empty) and index (m, n or k).
struct Plane {
  std::vector<int32_t> val, fold, idx;
  explicit Plane(size_t n) : val(n, 0), fold(n, -1), idx(n, 0) {}
  void clear(size_t i) { val[i] = 0, fold[i] = -1, idx[i] = 0; }
  // Move each row one cell right; column 0 takes the port value.
  void shift_right(int64_t R, int64_t C, const Plane& port) {
    for (int64_t r = 0; r < R; ++r) {
      const size_t o = size_t(r * C);
      for (auto* v : {&val, &fold, &idx}) std::memmove(v->data() + o + 1, v->data() + o, size_t(C - 1) * 4);
      val[o] = port.val[size_t(r)], fold[o] = port.fold[size_t(r)], idx[o] = port.idx[size_t(r)];
    }
  }
  // Move every column one cell down; row 0 takes the port values.
  void shift_down(int64_t R, int64_t C, const Plane* port) {
    for (auto* v : {&val, &fold, &idx}) std::memmove(v->data() + C, v->data(), size_t((R - 1) * C) * 4);
    for (int64_t c = 0; c < C; ++c) {
      if (port) val[size_t(c)] = port->val[size_t(c)], fold[size_t(c)] = port->fold[size_t(c)], idx[size_t(c)] = port->idx[size_t(c)];
      else clear(size_t(c));
    }
  }
  bool any(int64_t from, int64_t to) const {
    for (int64_t i = from; i < to; ++i)
      if (fold[size_t(i)] >= 0) return true;
    return false;
  }
};

struct Measured {
  int64_t macs = 0;
  std::vector<int64_t> fold_macs, fold_used;
  Edge stationary_or_top, left, out;  // ws/is: stationary loads; os: the top edge (filter)
  Edge out_reported;                  // os + SCALE-Sim: ofmap writes at the cycles SCALE-Sim reports
  int64_t rmw_reads = 0;              // sol ws/is: partial sums accumulated onto earlier folds'
  int64_t last_output = -1, last_activity = -1;
  std::vector<int64_t> out_values;    // M×N, when checking
};

class Engine {
 public:
  Engine(const Layer& layer, const Gemm& g, const Mapping& mp, const Schedule& s, Dataflow df, const StepOptions& opt)
      : g_(g), mp_(mp), s_(s), df_(df), opt_(opt), R_(mp.R), C_(mp.C), T_(mp.T), F_(mp.folds()),
        vals_(&layer, g) {
    for (int64_t f = 0; f < F_; ++f) fr_.push_back(int32_t(f % mp.row_folds)), fc_.push_back(int32_t(f / mp.row_folds));
    m_.fold_macs.assign(size_t(F_), 0);
    m_.fold_used.assign(size_t(F_), 0);
    if (opt.check_values) m_.out_values.assign(size_t(g.M * g.N), 0);
  }

  Measured run() {
    const bool planes = opt_.register_planes || opt_.on_cycle;
    if (df_ == Dataflow::os) planes ? run_output_stationary() : run_output_stationary_skewed();
    else planes ? run_stationary() : run_stationary_skewed();
    return std::move(m_);
  }

 private:
  int64_t fr_of(int64_t f) const { return fr_[size_t(f)]; }
  int64_t fc_of(int64_t f) const { return fc_[size_t(f)]; }
  int64_t ru(int64_t f) const { return mp_.rows_used(fr_[size_t(f)]); }
  int64_t cu(int64_t f) const { return mp_.cols_used(fc_[size_t(f)]); }

  // Fold whose stream puts element `e` on a port `lag` cycles behind σ_f, or −1.
  bool stream_slot(int64_t t, int64_t lag, int64_t& f, int64_t& e) const {
    const int64_t x = t - s_.first - lag;
    if (x < 0) return false;
    f = x / s_.slot, e = x % s_.slot;
    return f < F_ && e < T_;
  }

  void record_output(int64_t m, int64_t n, int64_t value, int64_t t) {
    m_.out.see(t);
    m_.last_output = std::max(m_.last_output, t);
    if (!m_.out_values.empty()) m_.out_values[size_t(m * g_.N + n)] += value;
  }

  void frame(int64_t t, const Plane& h, const Plane& v, const std::vector<int32_t>& stationary_mask,
             const std::vector<uint8_t>& mac_now, const std::vector<bool>& left, const std::vector<bool>& top,
             const std::vector<bool>& bottom) const {
    if (!opt_.on_cycle) return;
    Frame fr;
    fr.cycle = t, fr.R = R_, fr.C = C_;
    fr.cells.resize(size_t(R_ * C_));
    for (size_t i = 0; i < fr.cells.size(); ++i) {
      Cell& c = fr.cells[i];
      c.stationary = stationary_mask[i] != 0;
      c.horizontal = h.fold[i] >= 0;
      c.vertical = v.fold[i] >= 0;
      c.mac = mac_now[i] != 0;
      c.fold = h.fold[i];
    }
    fr.left_in = left, fr.top_in = top, fr.bottom_out = bottom;
    opt_.on_cycle(fr);
  }

  // ---- weight- and input-stationary -------------------------------------------------------------
  int32_t stationary_value(int64_t f, int64_t r, int64_t c) const {
    const int64_t k = fr_of(f) * R_ + r, j = fc_of(f) * C_ + c;
    return df_ == Dataflow::ws ? vals_.filter(k, j) : vals_.ifmap(j, k);
  }
  int32_t streamed_value(int64_t f, int64_t r, int64_t e) const {
    const int64_t k = fr_of(f) * R_ + r;
    return df_ == Dataflow::ws ? vals_.ifmap(e, k) : vals_.filter(k, e);
  }

  void close_bank(int64_t fold, std::vector<int32_t>& mac_count) {
    if (fold < 0) return;
    int64_t used = 0;
    for (int32_t& n : mac_count) used += n > 0, n = 0;
    m_.fold_used[size_t(fold)] = used;
  }

  void run_stationary() {
    const size_t RC = size_t(R_ * C_);
    Plane h(RC), v(RC), port(static_cast<size_t>(R_)), chain(RC);
    std::vector<int32_t> w[2] = {std::vector<int32_t>(RC, 0), std::vector<int32_t>(RC, 0)};
    std::vector<int32_t> w_ok[2] = {std::vector<int32_t>(RC, 0), std::vector<int32_t>(RC, 0)};
    std::vector<int32_t> mac_count[2] = {std::vector<int32_t>(RC, 0), std::vector<int32_t>(RC, 0)};
    std::vector<int32_t> nv(static_cast<size_t>(C_)), nf(static_cast<size_t>(C_)), ni(static_cast<size_t>(C_));
    std::vector<uint8_t> mac_now(opt_.on_cycle ? RC : 0);
    std::vector<bool> left(static_cast<size_t>(R_)), top(static_cast<size_t>(C_)), bottom(static_cast<size_t>(C_));
    int64_t bank_fold[2] = {-1, -1};
    const int64_t end = s_.sigma(F_ - 1) + T_ + R_ + C_ - 2;

    for (int64_t t = 0; t < end; ++t) {
      std::fill(top.begin(), top.end(), false);
      // 1. stationary load: fold f's rows enter the chain in the R cycles before σ_f, bottom row first
      if (int64_t x = t - (s_.first - R_); x >= 0 && x / s_.slot < F_ && x % s_.slot < R_) {
        const int64_t f = x / s_.slot, j = x % s_.slot, row = R_ - 1 - j;
        chain.shift_down(R_, C_, nullptr);
        if (row < ru(f))
          for (int64_t c = 0; c < cu(f); ++c) {
            chain.val[size_t(c)] = stationary_value(f, row, c), chain.fold[size_t(c)] = int32_t(f);
            top[size_t(c)] = true;
          }
        m_.stationary_or_top.see(t, row < ru(f) ? cu(f) : 0);
        if (j == R_ - 1) {  // latch into bank f&1; a cell that still meets fold f−2's data fails below
          const int b = int(f & 1);
          close_bank(bank_fold[b], mac_count[b]);
          for (size_t i = 0; i < RC; ++i) w[b][i] = chain.val[i], w_ok[b][i] = chain.fold[i] >= 0;
          bank_fold[b] = f;
          for (size_t i = 0; i < RC; ++i) chain.clear(i);
        }
      }
      // 2. streamed operand at the left ports, skewed: row r is r cycles behind row 0
      for (int64_t r = 0; r < R_; ++r) {
        int64_t f = 0, e = 0;
        port.clear(size_t(r));
        left[size_t(r)] = false;
        if (stream_slot(t, r, f, e) && r < ru(f)) {
          port.val[size_t(r)] = streamed_value(f, r, e), port.fold[size_t(r)] = int32_t(f), port.idx[size_t(r)] = int32_t(e);
          left[size_t(r)] = true;
          m_.left.see(t);
        }
      }
      h.shift_right(R_, C_, port);
      // 3. every cell: psum from above + stationary × streamed; rows bottom-up so "above" is last cycle's
      int64_t macs_par[2] = {0, 0};
      int32_t bad = 0;
      const int32_t bf0 = int32_t(bank_fold[0]), bf1 = int32_t(bank_fold[1]);
      for (int64_t r = R_ - 1; r >= 0; --r) {
        const size_t o = size_t(r * C_);
        const int32_t* hv = h.val.data() + o;
        const int32_t* hf = h.fold.data() + o;
        const int32_t* hi = h.idx.data() + o;
        int32_t* mc0 = mac_count[0].data() + o;
        int32_t* mc1 = mac_count[1].data() + o;
        const int32_t *w0 = w[0].data() + o, *w1 = w[1].data() + o, *k0 = w_ok[0].data() + o, *k1 = w_ok[1].data() + o;
        int32_t m0 = 0, m1 = 0;
        for (int64_t c = 0; c < C_; ++c) {
          const int32_t pf = r > 0 ? v.fold[o - size_t(C_) + size_t(c)] : -1;
          const int32_t pv = r > 0 ? v.val[o - size_t(C_) + size_t(c)] : 0;
          const int32_t pi = r > 0 ? v.idx[o - size_t(C_) + size_t(c)] : 0;
          const int32_t live = hf[c] >= 0;
          const int32_t odd = hf[c] & 1;
          const int32_t ok = live & (odd ? k1[c] : k0[c]);
          const int32_t wv = odd ? w1[c] : w0[c];
          bad |= live & (((pf >= 0) & ((pf != hf[c]) | (pi != hi[c]))) | ((odd ? bf1 : bf0) != hf[c]));
          nv[size_t(c)] = (pf >= 0 ? pv : 0) + ok * wv * hv[c];
          nf[size_t(c)] = live ? hf[c] : pf;
          ni[size_t(c)] = live ? hi[c] : pi;
          m0 += ok & (1 - odd);
          m1 += ok & odd;
          mc0[c] += ok & (1 - odd);
          mc1[c] += ok & odd;
        }
        if (!mac_now.empty())
          for (int64_t c = 0; c < C_; ++c) mac_now[o + size_t(c)] = uint8_t((hf[c] >= 0) & ((hf[c] & 1) ? k1[c] : k0[c]));
        std::memcpy(v.val.data() + o, nv.data(), size_t(C_) * 4);
        std::memcpy(v.fold.data() + o, nf.data(), size_t(C_) * 4);
        std::memcpy(v.idx.data() + o, ni.data(), size_t(C_) * 4);
        macs_par[0] += m0, macs_par[1] += m1;
      }
      if (bad) failure("systolic engine: a partial sum met the wrong operand or bank at cycle " + std::to_string(t));
      for (int b = 0; b < 2; ++b)
        if (macs_par[b]) m_.macs += macs_par[b], m_.fold_macs[size_t(bank_fold[b])] += macs_par[b];
      // 4. partial sums leaving the bottom row are results (real ones only in mapped columns)
      bool active = false;
      for (int64_t c = 0; c < C_; ++c) {
        const size_t i = size_t((R_ - 1) * C_ + c);
        bottom[size_t(c)] = false;
        const int32_t f = v.fold[i];
        if (f < 0) continue;
        active = true;
        if (c >= cu(f)) continue;
        const int64_t e = v.idx[i], j = fc_of(f) * C_ + c;
        const int64_t m = df_ == Dataflow::ws ? e : j, n = df_ == Dataflow::ws ? j : e;
        if (fr_of(f) > 0) ++m_.rmw_reads;
        bottom[size_t(c)] = true;
        record_output(m, n, v.val[i], t);
      }
      if (active || h.any(0, int64_t(RC))) m_.last_activity = t;
      if (opt_.on_cycle) {
        std::vector<int32_t> mask(RC);
        for (size_t i = 0; i < RC; ++i) mask[i] = w_ok[0][i] | w_ok[1][i];
        frame(t, h, v, mask, mac_now, left, top, bottom);
      }
    }
    for (int b = 0; b < 2; ++b) close_bank(bank_fold[b], mac_count[b]);
  }

  // ---- output-stationary -------------------------------------------------------------------------
  void run_output_stationary() {
    const size_t RC = size_t(R_ * C_);
    const bool compat = s_.model == Model::scalesim;
    Plane h(RC), v(RC), lport(static_cast<size_t>(R_)), tport(static_cast<size_t>(C_)), drain(RC);  // drain.idx = source row
    std::vector<int32_t> acc[2] = {std::vector<int32_t>(RC, 0), std::vector<int32_t>(RC, 0)};
    std::vector<int32_t> owner[2] = {std::vector<int32_t>(RC, -1), std::vector<int32_t>(RC, -1)};
    std::vector<int32_t> mac_count[2] = {std::vector<int32_t>(RC, 0), std::vector<int32_t>(RC, 0)};
    std::vector<uint8_t> mac_now(opt_.on_cycle ? RC : 0);
    std::vector<bool> left(static_cast<size_t>(R_)), top(static_cast<size_t>(C_)), bottom(static_cast<size_t>(C_));
    int64_t in_drain = 0;
    const int64_t end = s_.sigma(F_ - 1) + T_ + (compat ? R_ + C_ - 2 : 2 * R_ + C_ - 2);

    auto emit = [&](int64_t f, int64_t r, int64_t c, int32_t value, int64_t t) {
      const int b = int(f & 1);
      m_.fold_macs[size_t(f)] += mac_count[b][size_t(r * C_ + c)];
      mac_count[b][size_t(r * C_ + c)] = 0;
      ++m_.fold_used[size_t(f)];
      record_output(fr_of(f) * R_ + r, fc_of(f) * C_ + c, value, t);
      // SCALE-Sim writes row R−1−j of a fold at σ + T−1 + j + c (bottom row first, before it is final)
      m_.out_reported.see(s_.sigma(f) + T_ - 1 + (R_ - 1 - r) + c);
    };

    for (int64_t t = 0; t < end; ++t) {
      std::fill(bottom.begin(), bottom.end(), false);
      // 1. sol: the drain chain moves one row down; the bottom row's results leave the array
      if (!compat && in_drain > 0) {
        const size_t o = size_t((R_ - 1) * C_);
        for (int64_t c = 0; c < C_; ++c)
          if (drain.fold[o + size_t(c)] >= 0) {
            emit(drain.fold[o + size_t(c)], drain.idx[o + size_t(c)], c, drain.val[o + size_t(c)], t);
            bottom[size_t(c)] = true;
            --in_drain;
          }
        drain.shift_down(R_, C_, nullptr);
      }
      // 2. ports: ifmap row r of the fold from the left, filter column c from the top, both skewed
      for (int64_t r = 0; r < R_; ++r) {
        int64_t f = 0, k = 0;
        lport.clear(size_t(r));
        left[size_t(r)] = false;
        if (stream_slot(t, r, f, k) && r < ru(f)) {
          lport.val[size_t(r)] = vals_.ifmap(fr_of(f) * R_ + r, k), lport.fold[size_t(r)] = int32_t(f);
          lport.idx[size_t(r)] = int32_t(k);
          left[size_t(r)] = true;
          m_.left.see(t);
        }
      }
      for (int64_t c = 0; c < C_; ++c) {
        int64_t f = 0, k = 0;
        tport.clear(size_t(c));
        top[size_t(c)] = false;
        if (stream_slot(t, c, f, k) && c < cu(f)) {
          tport.val[size_t(c)] = vals_.filter(k, fc_of(f) * C_ + c), tport.fold[size_t(c)] = int32_t(f);
          tport.idx[size_t(c)] = int32_t(k);
          top[size_t(c)] = true;
          m_.stationary_or_top.see(t);
        }
      }
      h.shift_right(R_, C_, lport);
      v.shift_down(R_, C_, &tport);
      // 3. every cell where a row operand meets a column operand accumulates their product
      int32_t bad = 0, last = 0;
      int64_t macs = 0;
      for (size_t i = 0; i < RC; ++i) {
        const int32_t both = (h.fold[i] >= 0) & (v.fold[i] >= 0);
        const int32_t odd = h.fold[i] & 1;
        bad |= both & ((h.fold[i] != v.fold[i]) | (h.idx[i] != v.idx[i]));
        int32_t& own = odd ? owner[1][i] : owner[0][i];
        bad |= both & (own >= 0) & (own != h.fold[i]);
        own = both ? h.fold[i] : own;
        (odd ? acc[1][i] : acc[0][i]) += both * h.val[i] * v.val[i];
        (odd ? mac_count[1][i] : mac_count[0][i]) += both;
        macs += both;
        last |= both & (h.idx[i] == T_ - 1);
        if (!mac_now.empty()) mac_now[i] = uint8_t(both);
      }
      if (bad) failure("systolic engine: operands of different folds or steps met at cycle " + std::to_string(t));
      m_.macs += macs;
      // 4. SCALE-Sim: a cell's result leaves by a side path after its last step
      if (compat && last)
        for (size_t i = 0; i < RC; ++i)
          if (h.fold[i] >= 0 && v.fold[i] >= 0 && h.idx[i] == T_ - 1) {
            const int b = int(h.fold[i] & 1);
            emit(h.fold[i], int64_t(i) / C_, int64_t(i) % C_, acc[b][i], t);
            acc[b][i] = 0, owner[b][i] = -1;
          }
      // 5. sol: once the wavefront has passed the bottom of column c, its results enter the drain chain
      if (!compat)
        for (int64_t c = 0; c < C_; ++c) {
          const int64_t x = t - c - (s_.first + T_ + R_ - 2);
          if (x < 0 || x % s_.slot != 0 || x / s_.slot >= F_) continue;
          const int64_t f = x / s_.slot;
          const int b = int(f & 1);
          for (int64_t r = 0; r < R_; ++r) {
            const size_t i = size_t(r * C_ + c);
            if (drain.fold[i] >= 0) failure("systolic engine: drain chain still busy (schedule too tight)");
            if (owner[b][i] != f) continue;
            drain.val[i] = acc[b][i], drain.fold[i] = int32_t(f), drain.idx[i] = int32_t(r);
            acc[b][i] = 0, owner[b][i] = -1;
            ++in_drain;
          }
        }
      if (in_drain > 0 || h.any(0, int64_t(RC)) || v.any(0, int64_t(RC))) m_.last_activity = t;
      if (opt_.on_cycle) {
        std::vector<int32_t> mask(RC);
        for (size_t i = 0; i < RC; ++i) mask[i] = owner[0][i] >= 0 || owner[1][i] >= 0;
        frame(t, h, v, mask, mac_now, left, top, bottom);
      }
    }
  }


  // ---- the same machines with skewed registers ----------------------------------------------------
  // A value entering row r at cycle τ sits in cell (r, t−τ) at cycle t; it is stored once, at slot
  // q(τ) of the row's history ring, laid out so that cells c, c+1, … read consecutive slots. A partial
  // sum born at row 0 at cycle s sits in row t−s; it is stored at slot s of a ring of R rows and
  // updated in place as it "moves down". One cycle = one multiply-add per cell that holds data.

  // Folds whose data is in row r at cycle t (skew lag r, window T): their range [lo, hi].
  void folds_in_row(int64_t t, int64_t lag, int64_t width, int64_t& lo, int64_t& hi) const {
    const int64_t newest = t - lag - s_.first, oldest = newest - (width - 1) - (T_ - 1);
    lo = std::max<int64_t>(0, oldest <= 0 ? 0 : (oldest + s_.slot - 1) / s_.slot);
    hi = newest < 0 ? -1 : std::min(F_ - 1, newest / s_.slot);
  }

  // Cells [c0, c1] of row r that hold fold f's data at cycle t (the data entered at σ_f + lag + e).
  bool cells_of(int64_t f, int64_t t, int64_t lag, int64_t limit, int64_t& c0, int64_t& c1) const {
    const int64_t age = t - s_.sigma(f) - lag;  // cycles since the fold's first element entered
    c0 = std::max<int64_t>(0, age - (T_ - 1));
    c1 = std::min(limit - 1, age);
    return c0 <= c1;
  }

  void run_stationary_skewed() {
    const int64_t Lx = R_ + C_;  // cells read τ = t − c; the bottom row's outputs read τ = t − R + 1 − c
    const size_t RC = size_t(R_ * C_);
    std::vector<float> xval(size_t(R_ * Lx), 0.f), psum(RC, 0.f);
    std::vector<float> w[2] = {std::vector<float>(RC, 0.f), std::vector<float>(RC, 0.f)};
    // loaded[b][r·(C+1) + c]: cells of row r left of column c that hold a stationary operand
    std::vector<int32_t> loaded[2] = {std::vector<int32_t>(size_t(R_ * (C_ + 1)), 0),
                                      std::vector<int32_t>(size_t(R_ * (C_ + 1)), 0)};
    std::vector<uint8_t> fed[2] = {std::vector<uint8_t>(size_t(R_), 0), std::vector<uint8_t>(size_t(R_), 0)};
    std::vector<float> chain_val(RC, 0.f);
    std::vector<int32_t> chain_ok(RC, 0);
    int64_t bank_fold[2] = {-1, -1};
    auto q = [&](int64_t tau) { return ((-tau) % Lx + Lx) % Lx; };
    auto close = [&](int b) {
      if (bank_fold[b] < 0) return;
      int64_t used = 0;
      for (int64_t r = 0; r < R_; ++r)
        if (fed[b][size_t(r)]) used += loaded[b][size_t(r * (C_ + 1) + C_)];
      m_.fold_used[size_t(bank_fold[b])] = used;
      std::fill(fed[b].begin(), fed[b].end(), 0);
    };
    const int64_t end = s_.sigma(F_ - 1) + T_ + R_ + C_ - 2;
    for (int64_t t = 0; t < end; ++t) {
      // 1. stationary load: the row entering the chain at cycle τ is in chain row t−τ, so the chain is a
      //    ring of R injected rows; at the end of the load chain row r holds the row injected R−1−r ago
      if (int64_t x = t - (s_.first - R_); x >= 0 && x / s_.slot < F_ && x % s_.slot < R_) {
        const int64_t f = x / s_.slot, j = x % s_.slot, row = R_ - 1 - j;
        float* in = chain_val.data() + size_t(j * C_);
        int32_t* in_ok = chain_ok.data() + size_t(j * C_);
        for (int64_t c = 0; c < C_; ++c) {
          const bool live = row < ru(f) && c < cu(f);
          in[c] = live ? float(stationary_value(f, row, c)) : 0.f, in_ok[c] = live;
        }
        m_.stationary_or_top.see(t, row < ru(f) ? cu(f) : 0);
        if (j == R_ - 1) {  // latch into bank f&1: array row r takes the row injected at step R−1−r
          const int b = int(f & 1);
          close(b);
          for (int64_t r = 0; r < R_; ++r) {
            const size_t from = size_t((R_ - 1 - r) * C_);
            std::memcpy(w[b].data() + size_t(r * C_), chain_val.data() + from, size_t(C_) * 4);
            int32_t* pre = loaded[b].data() + size_t(r * (C_ + 1));
            for (int64_t c = 0; c < C_; ++c) pre[c + 1] = pre[c] + chain_ok[from + size_t(c)];
          }
          bank_fold[b] = f;
        }
      }
      // 2. the left ports write this cycle's slot of the rings of the rows that receive data
      //    (row r gets fold f's element e = t − σ_f − r); other slots are never read
      const int64_t qt = q(t);
      int64_t flo = 0, fhi = -1, fed_rows = 0;
      folds_in_row(t, 0, R_, flo, fhi);
      for (int64_t f = flo; f <= fhi; ++f) {
        const int64_t age = t - s_.sigma(f);
        for (int64_t r = std::max<int64_t>(0, age - (T_ - 1)); r <= std::min(ru(f) - 1, age); ++r, ++fed_rows)
          xval[size_t(r * Lx + qt)] = float(streamed_value(f, r, age - r));
      }
      m_.left.see(t, fed_rows);
      // 3. each cell holding data adds stationary × streamed into the partial sum passing it
      folds_in_row(t, 0, R_ + C_ - 1, flo, fhi);
      for (int64_t f = flo; f <= fhi; ++f) {
        const int64_t age = t - s_.sigma(f);  // rows r with cells holding fold f: age − r in [0, C+T−1)
        const int b = int(f & 1);
        for (int64_t r = std::max<int64_t>(0, age - (C_ - 1) - (T_ - 1)); r <= std::min(ru(f) - 1, age); ++r) {
          int64_t c0 = 0, c1 = 0;  // unmapped columns hold no stationary operand: nothing to add there
          if (!cells_of(f, t, r, cu(f), c0, c1)) continue;
          if (bank_fold[b] != f)
            failure("systolic engine: fold " + std::to_string(f) + " reached row " + std::to_string(r) +
                    " before its stationary operand (schedule too tight)");
          fed[b][size_t(r)] = 1;
          float* prow = psum.data() + size_t((t - r) % R_ * C_);
          const float* wr = w[b].data() + size_t(r * C_);
          const float* xr = xval.data() + size_t(r * Lx);
          for (int64_t c = c0; c <= c1;) {  // slots q(t−c) run upward with c until the ring wraps
            const int64_t q0 = q(t - c), n = std::min(c1 - c + 1, Lx - q0);
            mac_segment(prow + c, wr + c, xr + q0, n);
            c += n;
          }
          const int32_t* pre = loaded[b].data() + size_t(r * (C_ + 1));
          const int64_t macs = pre[c1 + 1] - pre[c0];  // cells that hold a stationary operand
          m_.macs += macs, m_.fold_macs[size_t(f)] += macs;
        }
      }
      // 4. the bottom row's partial sums are results (column c's began at row 0 at cycle sb − c);
      //    their slot is free for row 0 next cycle
      const int64_t sb = t - R_ + 1;
      if (sb < 0) continue;
      float* prow = psum.data() + size_t(sb % R_ * C_);
      folds_in_row(sb, 0, C_, flo, fhi);
      for (int64_t f = flo; f <= fhi; ++f) {
        const int64_t age = sb - s_.sigma(f);
        for (int64_t c = std::max<int64_t>(0, age - (T_ - 1)); c <= std::min(cu(f) - 1, age); ++c) {
          const int64_t e = age - c, j = fc_of(f) * C_ + c;
          if (fr_of(f) > 0) ++m_.rmw_reads;
          record_output(df_ == Dataflow::ws ? e : j, df_ == Dataflow::ws ? j : e, int64_t(prow[c]), t);
          prow[c] = 0;
          m_.last_activity = t;
        }
      }
    }
    close(0), close(1);
  }

  void run_output_stationary_skewed() {
    const bool compat = s_.model == Model::scalesim;
    const size_t RC = size_t(R_ * C_);
    std::vector<float> xval(size_t(R_ * C_), 0.f), yval(RC, 0.f);  // rings: rows × C slots, R slots × columns
    std::vector<float> acc[2] = {std::vector<float>(RC, 0.f), std::vector<float>(RC, 0.f)};
    std::vector<int64_t> drain_fold(size_t(C_), -1), drain_at(size_t(C_), 0);
    std::vector<float> drain_val(RC, 0.f);
    auto q = [&](int64_t tau) { return ((-tau) % C_ + C_) % C_; };
    auto emit = [&](int64_t f, int64_t r, int64_t c, float value, int64_t t) {
      ++m_.fold_used[size_t(f)];
      record_output(fr_of(f) * R_ + r, fc_of(f) * C_ + c, int64_t(value), t);
      m_.out_reported.see(s_.sigma(f) + T_ - 1 + (R_ - 1 - r) + c);
      m_.last_activity = t;
    };
    const int64_t end = s_.sigma(F_ - 1) + T_ + (compat ? R_ + C_ - 2 : 2 * R_ + C_ - 2);
    for (int64_t t = 0; t < end; ++t) {
      // 1. sol: each loaded drain column sends one result out of the bottom, bottom row first
      if (!compat)
        for (int64_t c = 0; c < C_; ++c) {
          const int64_t f = drain_fold[size_t(c)];
          if (f < 0) continue;
          const int64_t i = t - drain_at[size_t(c)] - 1, r = R_ - 1 - i;
          if (r < ru(f)) emit(f, r, c, drain_val[size_t(r * C_ + c)], t);
          if (i == R_ - 1) drain_fold[size_t(c)] = -1;
        }
      // 2. ports
      //    (only ports that receive data write their ring slot; stale slots are never read)
      const int64_t qt = q(t);
      float* ytop = yval.data() + size_t(t % R_ * C_);
      int64_t flo = 0, fhi = -1, n_left = 0, n_top = 0;
      folds_in_row(t, 0, std::max(R_, C_), flo, fhi);
      for (int64_t f = flo; f <= fhi; ++f) {
        const int64_t age = t - s_.sigma(f);
        for (int64_t r = std::max<int64_t>(0, age - (T_ - 1)); r <= std::min(ru(f) - 1, age); ++r, ++n_left)
          xval[size_t(r * C_ + qt)] = float(vals_.ifmap(fr_of(f) * R_ + r, age - r));
        for (int64_t c = std::max<int64_t>(0, age - (T_ - 1)); c <= std::min(cu(f) - 1, age); ++c, ++n_top)
          ytop[c] = float(vals_.filter(age - c, fc_of(f) * C_ + c));
      }
      m_.left.see(t, n_left);
      m_.stationary_or_top.see(t, n_top);
      // 3. cells where fold f's row and column operands meet: k = t − σ_f − r − c in [0, T)
      folds_in_row(t, 0, R_ + C_ - 1, flo, fhi);
      for (int64_t f = flo; f <= fhi; ++f) {
        const int64_t age = t - s_.sigma(f);
        for (int64_t r = std::max<int64_t>(0, age - (C_ - 1) - (T_ - 1)); r <= std::min(ru(f) - 1, age); ++r) {
          int64_t c0 = 0, c1 = 0;
          if (!cells_of(f, t, r, cu(f), c0, c1)) continue;
          float* a = acc[f & 1].data() + size_t(r * C_);
          const float* y = yval.data() + size_t((t - r) % R_ * C_);
          const float* x = xval.data() + size_t(r * C_);
          for (int64_t c = c0; c <= c1;) {
            const int64_t q0 = q(t - c), n = std::min(c1 - c + 1, C_ - q0);
            accumulate_segment(a + c, x + q0, y + c, n);
            c += n;
          }
          m_.macs += c1 - c0 + 1, m_.fold_macs[size_t(f)] += c1 - c0 + 1;
        }
      }
      // 4. results: SCALE-Sim takes each after its last step; sol loads a column into its drain chain
      const int64_t last_step = t - (T_ - 1) - s_.first, span = R_ + C_ - 2;  // folds whose last step is under way
      const int64_t fmin = last_step - span <= 0 ? 0 : (last_step - span + s_.slot - 1) / s_.slot;
      for (int64_t f = fmin; last_step >= 0 && f <= std::min(F_ - 1, last_step / s_.slot); ++f) {
        const int64_t d = t - s_.sigma(f) - (T_ - 1);  // cells with r + c = d took their last step
        if (compat) {
          if (d > R_ + C_ - 2) continue;
          for (int64_t r = std::max<int64_t>(0, d - (cu(f) - 1)); r < ru(f) && r <= d; ++r) {
            float& a = acc[f & 1][size_t(r * C_ + d - r)];
            emit(f, r, d - r, a, t);
            a = 0;
          }
        } else {
          const int64_t c = d - (R_ - 1);  // δ_{f,c} = σ_f + T + R − 2 + c
          if (c < 0 || c >= C_) continue;
          if (drain_fold[size_t(c)] >= 0) failure("systolic engine: drain chain still busy (schedule too tight)");
          if (c >= cu(f)) continue;
          drain_fold[size_t(c)] = f, drain_at[size_t(c)] = t;
          for (int64_t r = 0; r < ru(f); ++r) {
            float& a = acc[f & 1][size_t(r * C_ + c)];
            drain_val[size_t(r * C_ + c)] = a;
            a = 0;
          }
        }
      }
    }
  }

  Gemm g_;
  Mapping mp_;
  Schedule s_;
  Dataflow df_;
  const StepOptions& opt_;
  int64_t R_, C_, T_, F_;
  std::vector<int32_t> fr_, fc_;  // row fold and column fold of each fold
  Operands vals_;
  Measured m_;
};

}  // namespace

LayerResult stepped(const Layer& layer, const ArrayConfig& cfg, Model model, const StepOptions& opt) {
  validate(cfg);
  const Gemm g = layer.lower();
  const Mapping mp = map_gemm(g, cfg);
  const Schedule s = detail::make_schedule(mp, cfg.dataflow, model, cfg.overlap);
  const int64_t R = mp.R, C = mp.C, F = mp.folds();
  const double updates = double(s.sigma(F - 1) + s.slot + 2 * R + C) * double(R * C);
  if (updates > double(opt.max_cell_updates))
    bad_input("layer '" + layer.name + "' needs " + sci(updates) + " cell updates in the cycle-stepped engine (at most " +
                  sci(double(opt.max_cell_updates)) + ")",
              "use the closed-form engine (--engine analytic) or a smaller array");
  if (g.K >= (int64_t{1} << 20) || g.M >= (int64_t{1} << 31) || g.N >= (int64_t{1} << 31))
    bad_input("layer '" + layer.name + "' is too large for the cycle-stepped engine (K < 2^20: its sums are exact floats)",
              "use the closed-form engine");

  Engine engine(layer, g, mp, s, cfg.dataflow, opt);
  Measured m = engine.run();

  if (opt.check_values) {  // the array's results against a plain triple loop
    const Operands v(&layer, g);
    for (int64_t i = 0; i < g.M; ++i)
      for (int64_t j = 0; j < g.N; ++j) {
        int64_t want = 0;
        for (int64_t k = 0; k < g.K; ++k) want += int64_t(v.ifmap(i, k)) * v.filter(k, j);
        if (m.out_values[size_t(i * g.N + j)] != want)
          failure("systolic engine: result (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
                  std::to_string(m.out_values[size_t(i * g.N + j)]) + ", expected " + std::to_string(want));
      }
  }

  const bool compat = model == Model::scalesim;
  LayerResult r;
  r.name = layer.name;
  r.model = model;
  r.dataflow = cfg.dataflow;
  r.gemm = g;
  r.map = mp;
  r.macs = m.macs;
  if (compat) {
    // SCALE-Sim gives every fold its full slot and reports the last cycle's index.
    if (m.last_activity >= F * s.slot) failure("systolic engine: a fold overran its SCALE-Sim slot");
    r.compute_cycles = F * s.slot - 1;
  } else {
    r.compute_cycles = m.last_output + 1;
  }
  const bool os = cfg.dataflow == Dataflow::os;
  const bool is = cfg.dataflow == Dataflow::is;
  OperandTraffic& left = is ? r.filter : r.ifmap;  // the operand streamed in from the left
  OperandTraffic& other = is ? r.ifmap : r.filter;
  const int64_t rd = compat ? 1 : 0;  // SCALE-Sim reports reads one cycle after they are issued
  left.sram = m.left.count, left.sram_start = double(m.left.first + rd), left.sram_stop = double(m.left.last + rd);
  other.sram = m.stationary_or_top.count;
  other.sram_start = double(m.stationary_or_top.first + rd), other.sram_stop = double(m.stationary_or_top.last + rd);
  r.ofmap.sram = m.out.count + (compat && os ? F * (R + C) : 0);
  const Edge& written = compat && os ? m.out_reported : m.out;
  r.ofmap.sram_start = double(written.first), r.ofmap.sram_stop = double(written.last);
  if (!compat) r.ofmap.sram_rmw_reads = m.rmw_reads;

  const double RC = double(R * C);
  if (compat) {
    double map_sum = 0, util_sum = 0;
    for (int64_t f = 0; f < F; ++f) {
      map_sum += double(m.fold_used[size_t(f)]) / RC;
      util_sum += double(m.fold_macs[size_t(f)]) / double(R * C * s.util_fold_cycles());
    }
    r.mapping_eff = map_sum / double(F) * 100;
    r.compute_util = util_sum / double(F) * 100;
  } else {
    int64_t used = 0;
    for (int64_t u : m.fold_used) used += u;
    r.mapping_eff = double(used) / (double(F) * RC) * 100;
    r.compute_util = double(r.macs) / (double(r.compute_cycles) * RC) * 100;
  }
  detail::finish_memory(layer, cfg, s, r);
  return r;
}

}  // namespace sol::sim

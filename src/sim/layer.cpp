// Layers, their lowering to GEMM (im2col, as SCALE-Sim does it) and the cut into folds.
// A valid convolution with no padding: ofmap = ceil((H - FH + S) / S) per side, batch 1.
#include <algorithm>
#include <cctype>
#include <limits>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/sim/systolic.hpp"

namespace sol::sim {
namespace {

std::string lower_case(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

void positive(const std::string& layer, const char* what, int64_t v) {
  if (v < 1) bad_input("layer '" + layer + "': " + what + " is " + std::to_string(v), "sizes must be at least 1");
  if (v > (int64_t{1} << 31)) bad_input("layer '" + layer + "': " + what + " is too large", "at most 2^31");
}

// Rows (or columns) of the image that some window touches: windows [o·S, o·S + F) clipped to H.
int64_t covered(int64_t H, int64_t F, int64_t S, int64_t out) {
  if (out <= 0 || H <= 0) return 0;
  // Windows that overlap or touch (F >= S) cover one run from 0 to the end of the last one.
  if (F >= S) return std::min((out - 1) * S + F, H);
  // Disjoint windows: F rows each while inside the image; past it, at most one window is cut
  // short (the next one starts S > F rows later, beyond H).
  const int64_t whole = H < F ? 0 : std::min(out, (H - F) / S + 1);
  const int64_t cut = whole < out && whole * S < H ? H - whole * S : 0;
  return whole * F + cut;
}

}  // namespace

std::string to_string(Dataflow d) { return d == Dataflow::os ? "os" : d == Dataflow::ws ? "ws" : "is"; }
std::string to_string(Model m) { return m == Model::sol ? "sol" : "scalesim"; }

Dataflow parse_dataflow(const std::string& s) {
  const std::string v = lower_case(s);
  if (v == "os") return Dataflow::os;
  if (v == "ws") return Dataflow::ws;
  if (v == "is") return Dataflow::is;
  bad_input("unknown dataflow '" + s + "'", "use os, ws or is");
}

Model parse_model(const std::string& s) {
  const std::string v = lower_case(s);
  if (v == "sol" || v == "none") return Model::sol;
  if (v == "scalesim" || v == "scale-sim") return Model::scalesim;
  bad_input("unknown compatibility mode '" + s + "'", "use scalesim (or sol for sol's own model)");
}

void validate(const ArrayConfig& c) {
  if (c.rows < 1 || c.cols < 1 || c.rows > 65536 || c.cols > 65536)
    bad_input("array " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + " is not a valid size",
              "rows and columns between 1 and 65536");
  if (c.ifmap_sram_kb < 1 || c.filter_sram_kb < 1 || c.ofmap_sram_kb < 1)
    bad_input("SRAM sizes must be at least 1 KB", "set IfmapSramSzkB, FilterSramSzkB, OfmapSramSzkB >= 1");
  if (c.ifmap_sram_kb > (int64_t{1} << 30) || c.filter_sram_kb > (int64_t{1} << 30) || c.ofmap_sram_kb > (int64_t{1} << 30))
    bad_input("SRAM size too large", "at most 2^30 KB");
  if (c.word_bytes != 1 && c.word_bytes != 2 && c.word_bytes != 4)
    bad_input("word size " + std::to_string(c.word_bytes) + " bytes is not supported", "use 1, 2 or 4");
  // NaN fails both comparisons; below 1e-6 the stall count of a large layer leaves 64 bits.
  if (!(c.dram_words_per_cycle >= 1e-6 && c.dram_words_per_cycle <= 1e9))
    bad_input("a DRAM bandwidth of " + num(c.dram_words_per_cycle) + " words per cycle",
              "give 1e-6 .. 1e9 words per cycle");
}

Layer Layer::gemm(const std::string& name, int64_t M, int64_t N, int64_t K) {
  // SCALE-Sim's own translation (topology_utils.py): an M×K image, N filters of 1×K, 1 channel.
  Layer l = conv(name, M, K, 1, K, 1, N, 1, 1);
  l.from_gemm = true;
  return l;
}

Layer Layer::conv(const std::string& name, int64_t ifmap_h, int64_t ifmap_w, int64_t filter_h, int64_t filter_w,
                  int64_t channels, int64_t filters, int64_t stride_h, int64_t stride_w) {
  Layer l;
  l.name = name;
  l.ifmap_h = ifmap_h;
  l.ifmap_w = ifmap_w;
  l.filter_h = filter_h;
  l.filter_w = filter_w;
  l.channels = channels;
  l.filters = filters;
  l.stride_h = stride_h;
  l.stride_w = stride_w;
  l.lower();  // validates
  return l;
}

int64_t Layer::ofmap_h() const { return (ifmap_h - filter_h + stride_h + stride_h - 1) / stride_h; }
int64_t Layer::ofmap_w() const { return (ifmap_w - filter_w + stride_w + stride_w - 1) / stride_w; }

Gemm Layer::lower() const {
  const char* what[] = {"IFMAP height", "IFMAP width", "filter height", "filter width", "channels", "filters",
                        "row stride", "column stride"};
  const int64_t v[] = {ifmap_h, ifmap_w, filter_h, filter_w, channels, filters, stride_h, stride_w};
  for (int i = 0; i < 8; ++i) positive(name, what[i], v[i]);
  if (filter_h > ifmap_h || filter_w > ifmap_w)
    bad_input("layer '" + name + "': the filter is larger than the image",
              "filter height/width must not exceed the IFMAP's (valid convolution, no padding)");
  // Sizes are counted in double first: each factor may be 2^31, and their product in int64 wraps.
  const double m = double(ofmap_h()) * double(ofmap_w()), k = double(filter_h) * double(filter_w) * double(channels);
  if (m * double(filters) * k > 4e18 || k > 4e18 || double(ifmap_h) * double(ifmap_w) * double(channels) > 4e18)
    bad_input("layer '" + name + "' is too large to count in 64 bits");
  return Gemm{ofmap_h() * ofmap_w(), filters, filter_h * filter_w * channels};
}

int64_t Layer::ifmap_address(int64_t m, int64_t k) const {
  const int64_t ow = ofmap_w();
  const int64_t row0 = (m / ow) * stride_h, col0 = (m % ow) * stride_w;
  const int64_t fr = k / (filter_w * channels), rest = k % (filter_w * channels);
  const int64_t fc = rest / channels, ch = rest % channels;
  if (row0 + fr >= ifmap_h || col0 + fc >= ifmap_w) return -1;
  return ((row0 + fr) * ifmap_w + col0 + fc) * channels + ch;
}

int64_t Layer::distinct_ifmap_words() const {
  return covered(ifmap_h, filter_h, stride_h, ofmap_h()) * covered(ifmap_w, filter_w, stride_w, ofmap_w()) * channels;
}

int64_t Mapping::rows_used(int64_t fr) const { return std::min(R, Sr - fr * R); }
int64_t Mapping::cols_used(int64_t fc) const { return std::min(C, Sc - fc * C); }

Mapping map_gemm(const Gemm& g, const ArrayConfig& cfg) {
  Mapping m;
  m.R = cfg.rows;
  m.C = cfg.cols;
  switch (cfg.dataflow) {
    case Dataflow::os: m.Sr = g.M, m.Sc = g.N, m.T = g.K; break;  // outputs stay; K streams
    case Dataflow::ws: m.Sr = g.K, m.Sc = g.N, m.T = g.M; break;  // weights stay; pixels stream
    case Dataflow::is: m.Sr = g.K, m.Sc = g.M, m.T = g.N; break;  // inputs stay; filters stream
  }
  m.row_folds = (m.Sr + m.R - 1) / m.R;
  m.col_folds = (m.Sc + m.C - 1) / m.C;
  return m;
}

}  // namespace sol::sim

// The registry's description of the coalescing family, host C++ in every build: which shapes it
// takes, its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds
// only.
#include "kernels/coalescing/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/coalescing/launch.hpp"
#include "kernels/common/spec.hpp"
#include "sol/model/access.hpp"

namespace sol::kernels::coalescing {

namespace {

// Sequential fp32 sums drift as √L·2⁻²⁴ (≈ 3e-5 at L = 2^22, measured on the host); past
// 2^22 terms the partial sums outgrow fp32's 24 bits and the tolerance would not hold.
constexpr int64_t kMaxSumLength = int64_t(1) << 22;

// 32-byte sectors a read of in[i·stride], i < n, touches (fp32, 32-byte aligned start): below
// stride 8 the sectors are contiguous up to the last element's; from stride 8 on each element
// sits in a sector of its own.
double strided_read_sectors(int64_t n, int64_t stride) {
  return stride >= 8 ? double(n) : double((n - 1) * stride / 8 + 1);
}

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  if (v == Version::v03_strided) {
    std::string why = check_dims(s, {{"n", 1, int64_t(1) << 40}, {"stride", 1, 1024}});
    if (why.empty() && product_or_minus1({s.at("n"), s.at("stride"), 4}) < 0)
      why = "n·stride·4 bytes overflows";
    return why;
  }
  std::string why = check_dims(s, {{"rows", 1}, {"cols", 1}});
  if (!why.empty()) return why;
  if (product_or_minus1({s.at("rows"), s.at("cols"), 4}) < 0) return "rows·cols·4 bytes overflows";
  const bool by_row = v == Version::v01_row_per_thread;
  if ((by_row ? s.at("cols") : s.at("rows")) > kMaxSumLength)
    return std::string(by_row ? "cols" : "rows") + " > 2^22: a sequential fp32 sum that long exceeds the tolerance";
  return {};
}

model::Cost cost(Version v, const Shape& s) {
  if (v == Version::v03_strided) {
    const int64_t n = s.at("n"), stride = s.at("stride");
    const double read_sectors = strided_read_sectors(n, stride), write_sectors = double((n - 1) / 8 + 1);
    model::Cost c = vector_cost("strided read of " + std::to_string(n) + " fp32 at stride " + std::to_string(stride), 0,
                       32 * (read_sectors + write_sectors), DType::f32,
                       {"bytes = whole 32-byte sectors touched: reads " + std::to_string(int64_t(read_sectors)) +
                            " sectors (stride < 8: contiguous span; stride ≥ 8: one per element), writes ⌈n/8⌉",
                        "useful bytes are 8·n; the difference is the price of the stride",
                        "if DRAM fetches 64-byte sector pairs, strides 16 and 32 cost up to 2× what is counted here"});
    // DRAM moves whole 64-byte granules (sector pairs): the access model's count per warp request.
    c.exec.declared = true;
    c.exec.dram_bytes = double((n + 31) / 32) * double(model::coalescing(4, stride, 32, 0, 64).dram_bytes) +
                        32 * write_sectors;
    c.exec.how = "reads in 64-byte DRAM granules: " + std::to_string(model::coalescing(4, stride, 32, 0, 64).dram_bytes) +
                 " B per warp request";
    return c;
  }
  const int64_t rows = s.at("rows"), cols = s.at("cols");
  const bool by_row = v == Version::v01_row_per_thread;
  const double outs = double(by_row ? rows : cols);
  model::Cost c = vector_cost(std::string(by_row ? "row" : "column") + " sums of " + std::to_string(rows) + "×" +
                                  std::to_string(cols) + " fp32",
                              double(rows) * double(cols), 4.0 * double(rows) * double(cols) + 4 * outs, DType::f32,
                              {"bytes = A read once (4·rows·cols) + one fp32 per sum written", "flops = one add per element",
                               by_row ? "warp requests touch 32 sectors each (8× v02's 4): HBM bytes stay minimal only "
                                        "if L1 keeps each sector for the next 7 k"
                                      : "warp requests touch 4 sectors each, all bytes used"});
  // A thread per sum (kSumThreads to a block; ptxas -v: 29–32 registers) with kSumUnroll loads of
  // 4 B in flight: few threads, so Little's law binds. v01's warp request reads 32 rows: 32 lines,
  // an L1 pass each, every element; v02's reads one line for 32 elements.
  const int64_t sums = by_row ? rows : cols;
  c.exec.declared = true;
  c.exec.grid_blocks = (sums + kSumThreads - 1) / kSumThreads;
  c.exec.l1_wavefronts = double(rows) * double(cols) / (by_row ? 1.0 : 32.0);
  model::LoadStream st;
  st.read_bytes = 4.0 * double(rows) * double(cols);
  st.write_bytes = 4 * outs;
  st.blocks = c.exec.grid_blocks;
  st.block = {.block_threads = kSumThreads, .registers_per_thread = 32};
  st.loads_in_flight = kSumUnroll;
  st.load_bytes = 4;
  st.what = by_row ? "row sums" : "column sums";
  c.exec.streams.push_back(st);
  c.exec.how = std::to_string(sums) + " threads, " + std::to_string(kSumUnroll) + " loads of 4 B in flight each" +
               (by_row ? ", 32 L1 passes per warp request" : "");
  return c;
}

Tolerance tolerance(Version v) {
  if (v == Version::v03_strided) return {0.0, "a strided copy is exact"};
  return {1e-4, "fp32 sequential sum of ≤ 2^22 positive terms vs a double sum: ≈ √L·2⁻²⁴ (3e-5 at L = 2^22)"};
}

}  // namespace sol::kernels::coalescing

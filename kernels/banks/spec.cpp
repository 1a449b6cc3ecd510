// The registry's description of the banks family, host C++ in every build: which shapes it takes,
// its cost from the model, its tolerance. The Case factory (make) is in case.cu, CUDA builds only.
#include "kernels/banks/case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"
#include "sol/model/access.hpp"

namespace sol::kernels::banks {

std::string unsupported(Version, const Shape& s) {
  std::string why = check_dims(s, {{"rows", 1}, {"cols", 1}});
  if (why.empty() && product_or_minus1({s.at("rows"), s.at("cols"), 4}) < 0) why = "rows·cols·4 bytes overflows";
  return why;
}

namespace {
// DRAM bytes of one 32-lane fp32 request per row of a tensor whose rows are `pitch` elements apart,
// averaged over the 16 row offsets modulo 64 bytes (whole 64-byte granules; the access model).
double granule_bytes_per_request(int64_t pitch) {
  double sum = 0;
  for (int64_t r = 0; r < 16; ++r) sum += double(model::coalescing(4, 1, 32, r * pitch * 4 % 64).dram_bytes);
  return sum / 16;
}
// 128-byte lines the same request touches (its L1 passes), averaged over the 32 row offsets modulo
// 128 bytes: one where the row segment starts a line, else two.
double lines_per_request(int64_t pitch) {
  double sum = 0;
  for (int64_t r = 0; r < 32; ++r) sum += double(model::coalescing(4, 1, 32, r * pitch * 4 % 128).lines);
  return sum / 32;
}
}  // namespace

model::Cost cost(Version v, const Shape& s) {
  const int64_t rows = s.at("rows"), cols = s.at("cols");
  const double elems = double(rows) * double(cols);
  model::Cost c = vector_cost("transpose of " + std::to_string(rows) + "×" + std::to_string(cols) + " fp32", 0,
                              2 * 4 * elems, DType::f32,
                              {"bytes = 2·rows·cols·4 (each element read once and written once)",
                               "shared-memory traffic (not HBM): 4 B written + 4 B read per element"});
  // Shared memory: per 32×32 tile, 32 row writes (lane tx → element (k, tx)) and 32 column reads
  // (lane tx → element (tx, k)), each as many wavefronts as its busiest bank has words.
  model::BankPattern row{4, 1, 32, 0, false, 32}, column{4, 32, 32, 0, false, 32};
  for (model::BankPattern* p : {&row, &column}) {
    p->pad = v == Version::v02_padded ? 1 : 0;
    p->xor_swizzle = v == Version::v03_swizzled;
  }
  const model::BankConflict w = model::bank_conflicts(row), r = model::bank_conflicts(column);
  const double requests = elems / 32;  // of each kind
  c.exec.declared = true;
  c.exec.smem_wavefronts = requests * double(w.wavefronts + r.wavefronts);
  // The global loads (along input rows) and stores (along output rows) pass the same L1 data stage
  // as the tile's wavefronts: a pass per 128-byte line a request touches.
  c.exec.l1_wavefronts = requests * (lines_per_request(cols) + lines_per_request(rows));
  // DRAM: reads along input rows (cols apart), writes along output rows (rows apart).
  c.exec.dram_bytes = requests * (granule_bytes_per_request(cols) + granule_bytes_per_request(rows));
  c.exec.how = "column reads " + std::to_string(r.degree) + "-way conflicted; rows " + std::to_string(cols) + " and " +
               std::to_string(rows) + " elements apart in 64-byte DRAM granules";
  return c;
}

Tolerance tolerance(Version) { return {0.0, "a transpose moves bits: exact"}; }

}  // namespace sol::kernels::banks

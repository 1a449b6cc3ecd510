// sol::host from an installed package: the speed of light of a 4096³ bf16 matmul and of a
// LayerNorm over 32768 × 4096 bf16 on an H100, from the hardware database and the cost model alone.
#include <cstdio>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/cost.hpp"
#include "sol/model/roofline.hpp"

namespace {
void show(const char* what, const sol::model::Cost& cost, const sol::hw::HwSpec& chip) {
  const sol::model::Estimate e = sol::model::roofline(cost, chip);
  std::printf("%-28s %s-bound, floor %s, intensity %s FLOP/B (ridge %s)\n", what, e.bound.c_str(),
              sol::si(e.t_floor_s, "s").c_str(), sol::num(e.intensity).c_str(), sol::num(e.ridge).c_str());
}
}  // namespace

int main() {
  try {
    const sol::hw::HwSpec& h100 = sol::hw::find("h100");
    std::printf("%s\n", h100.full_name.c_str());
    show("matmul 4096^3", sol::model::matmul({.m = 4096, .n = 4096, .k = 4096}), h100);
    // LayerNorm as eager passes over HBM, and fused into one read and one write.
    for (bool fused : {false, true})
      show(fused ? "layernorm 32768x4096, fused" : "layernorm 32768x4096, eager",
           sol::model::row_op({.kind = sol::model::RowKind::LayerNorm, .rows = 32768, .cols = 4096, .fused = fused}), h100);
    // Bad input is a sol::Error that says what was wrong, never a wrong number.
    try {
      sol::model::matmul({.m = 0, .n = 1, .k = 1});
      std::printf("a zero-sized matmul was accepted\n");
      return 1;
    } catch (const sol::Error& e) {
      std::printf("rejected as expected: %s\n", e.what());
    }
    return 0;
  } catch (const sol::Error& e) {
    std::fprintf(stderr, "roofline: %s\n", e.what());
    return 1;
  }
}

// The registry's description of the linear_ce family, host C++ in every build: the shapes it takes,
// its cost, its tolerance. make is in case.cu (CUDA only).
// Cost of rows R × hidden H × vocab V in b-byte storage over n chunks (v01: one):
//   FLOPs: the three GEMMs, 2·R·V·H each, plus the cross-entropy's 6 per logit;
//   bytes: the logits written, read and written by the cross-entropy, read by the dh and the dW GEMMs
//   (5·R·V·b: a chunk of 1920 × 128256 logits is 490 MB, far past L2, so chunking saves no trips);
//   h read by two GEMMs and dh written (3·R·H·b); W read by two GEMMs per chunk (2n·V·H·b); dW in
//   fp32 written by every chunk and read by all but the first ((2n − 1)·V·H·4); labels and losses.
#include "kernels/linear_ce/case.hpp"

#include <string>
#include <vector>

#include "kernels/api/linear_ce_plan.hpp"
#include "kernels/common/spec.hpp"
#include "kernels/crossentropy/case.hpp"
#include "sol/hw/spec.hpp"

namespace sol::kernels::linear_ce {
namespace {

// Chunks of the call: the caller's chunk, else the rule's on an H200 (the model's GPU).
int64_t chunks_of(Version v, const Shape& s) {
  if (v == Version::v01_unfused) return 1;
  const hw::HwSpec& gpu = hw::find("h200");
  const api::LceShape shape{.rows = s.at("rows"), .hidden = s.at("hidden"), .vocab = s.at("vocab"), .loss_rows_kept = true};
  return api::lce_chunk_rule(shape, s.get("chunk", 0), gpu.peak(DType::bf16, hw::Unit::Matrix).flops_per_s,
                             gpu.hbm_bytes_per_s)
      .chunks;
}

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  (void)v;
  const std::vector<DimRule> rules = {{"rows", 1, (int64_t(1) << 31) - 1}, {"hidden", 1, int64_t(1) << 20},
                                      {"vocab", 1, int64_t(1) << 24},      {"chunk", 0, (int64_t(1) << 31) - 1, false},
                                      {"smooth", 0, 1000, false},          {"ignore", 0, 1 << 30, false}};
  if (std::string why = check_dims(s, rules); !why.empty()) return why;
  if (product_or_minus1({s.at("rows"), s.at("vocab"), 2}, int64_t(1) << 40) < 0 ||
      product_or_minus1({s.at("vocab"), s.at("hidden"), 4}, int64_t(1) << 40) < 0)
    return "the logits or dW would be over 1 TiB";
  return {};
}

model::Cost cost(Version v, const Shape& s) {
  const double R = double(s.at("rows")), H = double(s.at("hidden")), V = double(s.at("vocab")), b = 2;
  const double n = double(chunks_of(v, s));
  model::Cost c;
  c.op = "linear + cross-entropy " + std::to_string(s.at("rows")) + "×" + std::to_string(s.at("hidden")) + "×" +
         std::to_string(s.at("vocab")) + " bf16, forward and gradients";
  c.flops = 3 * (2 * R * V * H) + crossentropy::kFlopsPerLogit * R * V;
  c.bytes = 5 * R * V * b + 3 * R * H * b + 2 * n * V * H * b + (2 * n - 1) * V * H * 4 + 12 * R;
  c.unit = hw::Unit::Matrix;
  c.dtype = DType::bf16;
  c.notes = {"FLOPs: logits = h·Wᵀ, dh = dlogits·W, dW = dlogitsᵀ·h (2·R·V·H each) and the cross-entropy's " +
                 std::to_string(int(crossentropy::kFlopsPerLogit)) + " per logit",
             "bytes: the R × V logits written, read and written in place, read twice (5 trips); h and dh; W read "
             "twice per chunk; fp32 dW written per chunk and read back by all but the first (" +
                 std::to_string(int64_t(n)) + (n == 1 ? " chunk" : " chunks, the rule's on an H200 unless chunk= is given") + ")"};
  return c;
}

Tolerance tolerance(Version v) {
  (void)v;
  return {1e-2,
          "bf16 logits and dlogits (one rounding of 2^-9 each), fp32 losses: losses within 1e-2 of ‖lse‖; dh and dW "
          "on sampled rows and columns relative to the norm of their terms Σ|dlogits·W| and Σ|dlogits·h|"};
}

}  // namespace sol::kernels::linear_ce

// The registry's description of the crossentropy family, host C++ in every build: the shapes it
// takes, its cost, its tolerance. make is in case.cu (CUDA only).
// Cost, per row of V logits in b-byte storage (the one fact every rung and peer reads):
//   FLOPs: 6·V (max, x − max, exp, Σ, Σx, and the dlogit's p − ε/V − onehot, × scale counted once)
//   bytes: the logits read, dlogits written: 2·V·b; plus the label (8 or 4 B) and the loss (4 B)
//   v01 reads the logits three times (max | Σexp | dlogits): 4·V·b.
#include "kernels/crossentropy/case.hpp"

#include <string>
#include <vector>

#include "kernels/common/spec.hpp"
#include "kernels/crossentropy/launch.hpp"
#include "kernels/rows/cluster_split.hpp"

namespace sol::kernels::crossentropy {

constexpr int64_t kMaxVocab = int64_t(1) << 24;

std::string unsupported(Version v, const Shape& s) {
  const std::vector<DimRule> rules = {{"rows", 1, (int64_t(1) << 31) - 1}, {"vocab", 1, kMaxVocab},
                                      {"smooth", 0, 1000, false},          {"ignore", 0, 1 << 30, false},
                                      {"sum", 0, 1, false},                {"i32", 0, 1, false},
                                      {"scale", 1, 1000, false}};
  if (std::string why = check_dims(s, rules); !why.empty()) return why;
  if (product_or_minus1({s.at("rows"), s.at("vocab"), 4}, int64_t(1) << 40) < 0)
    return "rows × vocab is too large (over 2^38 elements)";
  const Info i = info(v);
  const int64_t most = rows::cluster_max_cols(i.fp32 ? 4 : 2, 90);
  if (i.one_read && s.at("vocab") > most)
    return "vocab = " + std::to_string(s.at("vocab")) + " exceeds the " + std::to_string(most) +
           " logits a cluster of 8 CTAs holds in shared memory (the passes rung v01 takes any)";
  return {};
}

model::Cost cost(Version v, const Shape& s) {
  const Info i = info(v);
  const double rows = double(s.at("rows")), vocab = double(s.at("vocab")), n = rows * vocab;
  const double b = i.fp32 ? 4 : 2, label = s.get("i32", 0) ? 4 : 8;
  const bool passes = !i.one_read && !i.dispatch;
  std::vector<std::string> notes;
  notes.push_back(passes ? "passes: max | Σexp, Σx → loss | dlogits: the logits read 3 times, dlogits written once"
                         : "one read of the logits (online logsumexp in a cluster's shared memory), dlogits written once");
  notes.push_back("plus labels (" + std::to_string(int(label)) + " B) and per-row losses (4 B) per row");
  notes.push_back("FLOPs ≈ " + std::to_string(int(kFlopsPerLogit)) + " per logit");
  model::Cost c = vector_cost("cross-entropy " + std::to_string(s.at("rows")) + "×" + std::to_string(s.at("vocab")) +
                                  (i.fp32 ? " fp32" : " bf16"),
                              kFlopsPerLogit * n, (passes ? 4 : 2) * n * b + rows * (label + 4), i.fp32 ? DType::f32 : DType::bf16,
                              notes);
  // Launches: the count, the row kernels (three passes, or one), the reduction.
  c.exec.declared = true;
  c.exec.kernels = passes ? 5 : 3;
  c.exec.how = std::to_string(c.exec.kernels) + " kernels";
  if (passes)  // each pass a block per row, reading at the loads its threads keep in flight
    for (const PassLaunch& p : kPasses) {
      model::LoadStream st;
      st.read_bytes = n * b;
      st.write_bytes = p.writes ? n * b : 0;
      st.blocks = s.at("rows");
      st.block = pass_resources(p);
      st.loads_in_flight = p.loads_in_flight;
      st.load_bytes = int(b);
      st.what = p.what;
      c.exec.streams.push_back(st);
    }
  return c;
}

Tolerance tolerance(Version v) {
  // Per-row losses and the reduced loss relative to their norms; dlogits to max(‖dlogits‖, ‖their
  // terms p and (1 − ε)·onehot‖), since p − (1 − ε) cancels where the label's p nears 1.
  if (info(v).fp32)
    return {1e-5, "fp32 logits and dlogits, fp32 max/sum/lse (per-thread sums, then a tree); dlogits relative to "
                  "max(‖dlogits‖, the norm of their terms p and (1 − ε)·onehot)"};
  return {4e-3, "bf16 dlogits (one rounding of 2^-9); max, Σexp, lse and losses in fp32 from the bf16 logits"};
}

}  // namespace sol::kernels::crossentropy

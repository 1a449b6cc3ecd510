// The attention families' cost, host C++ in every build: one byte and FLOP model
// (model::attention) for every forward and backward rung, from b, h, hkv, n, nk, d and the mask.
// Shape rules, tolerance and make are in case.cu (CUDA only).
#include "kernels/attention/case.hpp"

#include "sol/model/cost.hpp"

namespace sol::kernels::attention {

model::Cost cost(const Shape& s, bool flash, bool backward, int64_t block_q) {
  const int64_t h = s.at("h"), n = s.at("n");
  model::AttentionOp op;
  op.batch = s.at("b");
  op.heads = h;
  op.heads_kv = s.get("hkv", h);
  op.seq = n;
  op.seq_k = s.get("nk", n);
  op.head_dim = s.at("d");
  op.flash = flash;
  op.block_q = block_q;
  op.causal = s.get("causal", 0) != 0;
  op.backward = backward;
  op.dtype = s.get("fp16", 0) ? DType::f16 : DType::bf16;
  if (!flash) op.score_bytes = sizeof(float);  // the standard kernels keep S in fp32
  // The flash kernels' K/V (and, backward, Q/dO/dQ) re-reads hit L2 on the H200: ncu at
  // b=4,h=16,n=4096,d=128 measured L2 hit rates of 91 % (v03 forward) and 98 % (v01 backward) and
  // DRAM at 1.4–2.9 % of its bandwidth (bench/results/h200/ncu/). Counting them as HBM bytes made
  // the floor memory-bound and the "% of floor" flattering; counted once, the floor is the tensor
  // cores', where these kernels are bound.
  op.reuse_in_l2 = flash;
  return model::attention(op);
}

model::Cost cost(Version v, const Shape& s) {
  // Every flash rung from v03 on runs 128-row Q tiles (v02: 64). The tile sets only the L2 traffic
  // (the re-reads are counted once), so the HBM bytes are the same for every flash rung.
  const bool q64 = v == Version::v02_flash_mma;
  return cost(s, v != Version::v01_standard, false, q64 ? 64 : 128);
}

model::Cost cost(BwdVersion, const Shape& s) {
  model::Cost c = cost(s, true, true, 64);
  if (s.get("det", 0))
    c.notes.push_back("det=1: a separate dQ kernel recomputes S and dP (≈ 1.4× the counted FLOPs run); FLOPs "
                      "counted by the convention, 2.5 × forward, so that rates compare");
  return c;
}

}  // namespace sol::kernels::attention

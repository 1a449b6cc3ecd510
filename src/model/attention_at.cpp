// The attention families' registry shape → the one attention byte and FLOP model (cost.hpp).
#include "sol/model/cost.hpp"

namespace sol::model {

Cost attention_at(const Shape& s, bool flash, bool backward, int64_t block_q) {
  const int64_t h = s.at("h"), n = s.at("n");
  AttentionOp op;
  op.batch = s.at("b");
  op.heads = h;
  op.heads_kv = s.get("hkv", h);
  op.seq = n;
  op.seq_k = s.get("nk", n);
  op.head_dim = s.at("d");
  op.flash = flash;
  op.block_q = block_q;
  op.causal = s.get("causal", 0) != 0;
  op.window_left = s.get("wl", -1);
  op.window_right = s.get("wr", -1);
  op.softcap = s.get("softcap", 0) != 0;
  op.backward = backward;
  op.dtype = s.get("fp16", 0) ? DType::f16 : DType::bf16;
  if (!flash) op.score_bytes = sizeof(float);  // the standard kernels keep S in fp32
  // The flash kernels' K/V (and, backward, Q/dO/dQ) re-reads hit L2 on the H200: ncu at
  // b=4,h=16,n=4096,d=128 measured L2 hit rates of 91 % (v03 forward) and 98 % (v01 backward) and
  // DRAM at 1.4–2.9 % of its bandwidth (bench/results/h200/ncu/). Counting them as HBM bytes made
  // the floor memory-bound and the "% of floor" flattering; counted once, the floor is the tensor
  // cores', where these kernels are bound.
  op.reuse_in_l2 = flash;
  return attention(op);
}

}  // namespace sol::model

#pragma once
// Host references for attention on one (batch, head), in double (lecture §11):
//   O = softmax(Q·Kᵀ·scale [+ causal mask]) · V,   L = logsumexp of each row of the masked scores.
// Three forms: the standard one (the whole score matrix S), the lecture's tiled online-softmax
// algorithm (§11.4: a query block, key blocks streamed past it with a running max and sum, one
// rescale at the end) which must equal it, and the backward (dQ, dK, dV) that recomputes P from L.
// Layout of one head: Q, O, dO, dQ are [n × d] row-major, K, V, dK, dV are [nk × d] row-major.
// Causal mask, bottom-right aligned (FlashAttention ≥ 2.1): query i sees key j iff
// j ≤ i + nk − n. With nq == nk this is the usual j ≤ i. A sliding window (left, right) bounds
// both sides: i + nk − n − left ≤ j ≤ i + nk − n + right (sol/core/attention_window.hpp; −1:
// unbounded; causal is right = 0). A query row that sees no key has O = 0 and L = −∞, and
// contributes nothing to any gradient.
// Softcap (Gemma 2), where softcap > 0: each scaled score s becomes softcap·tanh(s / softcap)
// before the mask and the softmax; L is of these capped scores, and the backward multiplies
// dS by their derivative 1 − tanh² = 1 − (s_capped / softcap)².
#include <cstdint>
#include <vector>

namespace sol::ref {

struct AttentionHead {
  int64_t n = 0;    // query rows
  int64_t nk = 0;   // key (and value) rows
  int64_t d = 0;    // head dimension
  bool causal = false;
  double scale = 0;  // usually 1/√d
  int64_t window_left = -1, window_right = -1;  // −1: unbounded; causal caps window_right at 0
  double softcap = 0;                           // 0: off
};

// First and last visible key of query row i (first > last: no key visible); 0 and nk − 1
// without a mask.
int64_t attention_first_key(const AttentionHead& a, int64_t i);
int64_t attention_last_key(const AttentionHead& a, int64_t i);
// The score of query row q and key row k: scale·q·k, capped where softcap > 0.
double attention_score(const AttentionHead& a, const double* q, const double* k);

// Standard attention: materializes S (n × nk). o: n × d, lse: n.
void attention_standard(const AttentionHead& a, const double* q, const double* k, const double* v, double* o,
                        double* lse);

// One query row i (the row q_row of Q): writes o_row (d values), returns the logsumexp.
// O(nk·d): the GPU checks use it on sampled rows.
double attention_row(const AttentionHead& a, int64_t i, const double* q_row, const double* k, const double* v,
                     double* o_row);

// The lecture's tiled algorithm (§11.4) with query blocks of block_q rows and key blocks of
// block_k rows: per query block a running max m, running sum l and unnormalized accumulator,
// rescaled by exp(m_old − m_new) as each key block arrives, divided by l once at the end.
void attention_tiled(const AttentionHead& a, const double* q, const double* k, const double* v, double* o, double* lse,
                     int64_t block_q, int64_t block_k);

// Backward: given dO (n × d) and the forward's O and L, writes dQ (n × d), dK, dV (nk × d):
//   P = exp(S·scale − L), dV = Pᵀ dO, dP = dO Vᵀ, D = rowsum(dO ∘ O), dS = P ∘ (dP − D),
//   dQ = scale · dS K, dK = scale · dSᵀ Q.
void attention_backward(const AttentionHead& a, const double* q, const double* k, const double* v, const double* o,
                        const double* lse, const double* dout, double* dq, double* dk, double* dv);

// The same gradients one row at a time (the GPU checks use them on sampled rows; attention_backward
// is built from them). dq_row of query i, O(nk·d); q_row, o_row, dout_row are row i.
void attention_backward_query(const AttentionHead& a, int64_t i, const double* q_row, const double* k, const double* v,
                              const double* o_row, double lse_i, const double* dout_row, double* dq_row);
// dK and dV rows of key j over this head's queries, ADDED into dk_row, dv_row (so that grouped
// query heads sharing one K/V head can be summed); O(n·d).
void attention_backward_key(const AttentionHead& a, int64_t j, const double* q, const double* k_row,
                            const double* v_row, const double* o, const double* lse, const double* dout, double* dk_row,
                            double* dv_row);

}  // namespace sol::ref

#pragma once
// The registry's view of the linear_ce family (no CUDA types): logits = h·Wᵀ, their cross-entropy
// and its gradients dh, dW, as a training step's LM head runs them. Shape: rows (tokens), hidden,
// vocab, and optionally chunk (rows per chunk, 0: the rule's), smooth (label smoothing ε in
// thousandths), ignore=k (rows r % k == k − 1 get ignore_index −100). bf16 h and W, int64 labels,
// the mean; outputs: per-row losses, the mean, dh (bf16) and dW (fp32), all checked.
#include <memory>
#include <string>

#include "sol/registry.hpp"

namespace sol::kernels::linear_ce {

enum class Version {
  v01_unfused,  // sol::matmul (all rows × vocab logits) | sol::cross_entropy in place | sol::matmul dh | dW
  dispatch,     // sol::linear_cross_entropy: the same over chunks of rows (include/sol/kernels.hpp)
};

std::string unsupported(Version v, const Shape& s);
model::Cost cost(Version v, const Shape& s);
Tolerance tolerance(Version v);
std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts);

}  // namespace sol::kernels::linear_ce

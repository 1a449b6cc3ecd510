#pragma once
// The dispatchers' choices for a given compute capability instead of the current device's: what
// explain_* would say on another GPU. For tests and tools; the public entries ask the device.
#include <cstdint>

#include "sol/kernels.hpp"

namespace sol::api {

// RMSNorm forward of 16-bit rows without a residual: where all of x is at most this many bytes the
// dispatcher runs the looped rung rather than the register rung (kernels/api/rows.cu says why).
inline constexpr int64_t kRmsLoopedMaxBytes = int64_t(512) << 10;

Choice explain_attention_forward_on(const AttentionArgs& args, int cc);
Choice explain_attention_backward_on(const AttentionBackwardArgs& args, int cc);
Choice explain_mx_quantize_on(const MxQuantizeArgs& args, int cc);
Choice explain_softmax_forward_on(const SoftmaxArgs& args, int cc);
Choice explain_cross_entropy_on(const CrossEntropyArgs& args, int cc);

}  // namespace sol::api

#pragma once
// The dispatchers' choices for a given compute capability instead of the current device's: what
// explain_* would say on another GPU. For tests and tools; the public entries ask the device.
#include "sol/kernels.hpp"

namespace sol::api {

Choice explain_attention_forward_on(const AttentionArgs& args, int cc);
Choice explain_attention_backward_on(const AttentionBackwardArgs& args, int cc);
Choice explain_mx_quantize_on(const MxQuantizeArgs& args, int cc);
Choice explain_softmax_forward_on(const SoftmaxArgs& args, int cc);
Choice explain_cross_entropy_on(const CrossEntropyArgs& args, int cc);

}  // namespace sol::api

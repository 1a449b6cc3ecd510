#pragma once
// The passes rung's launch shape (v01_passes.cu), host C++ so that the model reads the launches the
// kernels make (spec.cpp: model::LoadStream, Little's law in sol/predict.hpp).
#include "sol/model/occupancy.hpp"

namespace sol::kernels::crossentropy {

// A block of kPassThreads per row, in each of the three passes.
inline constexpr int kPassThreads = 512;

// One pass as the model sees it: registers per thread (ptxas -v, CUDA 13.0, sm_90a, the same for
// every storage type), the block reduction's shared memory, and the loads a thread keeps in flight.
// The reductions (max, Σexp) unroll their loop by 4; the dlogits pass stores each element before it
// loads the next (dlogits may be the logits themselves), so one load is in flight.
struct PassLaunch {
  const char* what;
  int registers;
  int shared_bytes;
  int loads_in_flight;
  bool writes;
};
inline constexpr PassLaunch kPasses[] = {{"max: reads the logits", 31, 128, 4, false},
                                         {"Σexp, Σx → loss: reads the logits", 32, 128, 4, false},
                                         {"dlogits: reads the logits, writes dlogits", 25, 0, 1, true}};

inline model::KernelResources pass_resources(const PassLaunch& p) {
  return {.block_threads = kPassThreads, .registers_per_thread = p.registers, .static_shared_bytes = p.shared_bytes};
}

}  // namespace sol::kernels::crossentropy

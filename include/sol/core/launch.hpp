#pragma once
// How a kernel is launched, described once: a launcher runs the LaunchInfo its plan returns, and
// the doctor (through Case::launch) reads the same one. No CUDA types here: the kernel travels as
// a function pointer, the grid as a count of 1-D blocks.
#include <cstdint>

namespace sol {

struct LaunchInfo {
  const void* func = nullptr;  // __global__ function; nullptr when nothing is launched (and for library peers)
  int block_threads = 0;       // threads per block
  int64_t grid_blocks = 0;     // blocks (1-D)
  int64_t dynamic_smem_bytes = 0;
};

}  // namespace sol

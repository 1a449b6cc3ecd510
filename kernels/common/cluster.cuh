#pragma once
// Thread-block clusters (sm_90) in code that also builds for older GPUs: below sm_90 every CTA is
// a 1-CTA "cluster" (size 1, rank 0, sync a no-op, a peer's shared memory is one's own), and the
// planners never ask for more there. The PTX-level forms the Hopper-only rungs use are in
// kernels/common/hopper/mbarrier.cuh.
#include <cooperative_groups.h>

namespace sol::kernels {

__device__ inline int cluster_size() {
#if __CUDA_ARCH__ >= 900
  return int(cooperative_groups::this_cluster().num_blocks());
#else
  return 1;
#endif
}
__device__ inline int cluster_rank() {
#if __CUDA_ARCH__ >= 900
  return int(cooperative_groups::this_cluster().block_rank());
#else
  return 0;
#endif
}
__device__ inline void cluster_sync() {
#if __CUDA_ARCH__ >= 900
  cooperative_groups::this_cluster().sync();  // arrive.release + wait.acquire: smem writes become visible
#endif
}
// p (this CTA's shared memory) as seen in CTA `rank` of the cluster.
__device__ inline const float* cluster_peer(float* p, int rank) {
#if __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().map_shared_rank(p, rank);
#else
  return p;
#endif
}

}  // namespace sol::kernels

// cross-entropy v02: one read of the logits. Each row is split over a thread-block cluster whose
// CTAs hold their slices in shared memory (kernels/rows/v05_cluster.cuh): one sweep gives every
// thread its online (max, Σ exp) and Σx, the block and then the cluster (DSMEM, rank order) merge
// them into the row's logsumexp, the leader writes the row's loss, and dlogits are computed from
// the slice still in shared memory — the probabilities never reach HBM, the logits are read once
// and dlogits written once. Ignored rows are not read at all (their dlogits: zeros).
// Bottleneck: HBM, 2·V·b bytes per row (4096 × 151936 bf16: 2.49 GB, ≥ 585 µs at 4.25 TB/s copy).
#include "kernels/crossentropy/crossentropy.cuh"

namespace sol::kernels::crossentropy {

template <class T>
rows::ClusterPlan one_read_plan(const CeArgs<T>& a, int cc) {
  const rows::ClusterLayout layout =
      rows::cluster_layout<T>(a.x, a.y ? a.y : a.x, a.cols, a.ldx, a.y ? a.ldy : a.ldx, cc);
  return rows::plan_cluster_rows<CrossEntropyClusterOp, T>(a, layout);
}

namespace {
void require_fit(const rows::ClusterPlan& p, int64_t cols) {
  if (!p.main.func)
    failure("cross-entropy one read: a row of " + std::to_string(cols) + " logits does not fit the cluster",
            "use the passes rung (v01) for such vocabularies");
}
}  // namespace

template <class T>
void one_read_rows(const rows::ClusterPlan& p, const CeArgs<T>& a, cudaStream_t stream) {
  require_fit(p, a.cols);
  rows::launch_cluster_rows(p, a, stream);
}

template <class T>
void one_read_run(const rows::ClusterPlan& p, const CeArgs<T>& a, cudaStream_t stream) {
  require_fit(p, a.cols);
  count_valid(a, stream);
  rows::launch_cluster_rows(p, a, stream);
  reduce_loss(a, stream);
}

template rows::ClusterPlan one_read_plan<float>(const CeArgs<float>&, int);
template rows::ClusterPlan one_read_plan<__nv_bfloat16>(const CeArgs<__nv_bfloat16>&, int);
template rows::ClusterPlan one_read_plan<__half>(const CeArgs<__half>&, int);
template void one_read_run<float>(const rows::ClusterPlan&, const CeArgs<float>&, cudaStream_t);
template void one_read_run<__nv_bfloat16>(const rows::ClusterPlan&, const CeArgs<__nv_bfloat16>&, cudaStream_t);
template void one_read_run<__half>(const rows::ClusterPlan&, const CeArgs<__half>&, cudaStream_t);
template void one_read_rows<__nv_bfloat16>(const rows::ClusterPlan&, const CeArgs<__nv_bfloat16>&, cudaStream_t);
template void one_read_rows<__half>(const rows::ClusterPlan&, const CeArgs<__half>&, cudaStream_t);

}  // namespace sol::kernels::crossentropy

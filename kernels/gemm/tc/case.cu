// Registry wrapper for the tensor-core GEMM families (gemm_bf16, gemm_fp16, gemm_fp8): one
// GemmCase runs any rung (a gemm::tc::Launch) or the cuBLASLt peer on the same buffers.
// Reference (sol/ref/gemm.hpp): double accumulation over the stored (rounded) input values,
// recomputed on the host from the hashed fill (inputs.cuh), times alpha. Small problems
// (m·n·k ≤ 2^27) check every output; larger ones a fixed hashed sample of 4096 outputs plus the
// four corners, each a k-long dot product in double, while unwritten (poisoned) and non-finite
// outputs are counted over the whole m×n C.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/variant.cuh"
#include "kernels/gemm/tc/case.hpp"
#include "kernels/gemm/tc/inputs.cuh"
#include "kernels/gemm/tc/peer_cublaslt.cuh"
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/gemm/tc/sampling.hpp"
#include "sol/kernels.hpp"
#include "sol/ref/gemm.hpp"

namespace sol::kernels::gemm::tc {
namespace {

const char* family_name(InType t) {
  switch (t) {
    case InType::bf16: return "gemm_bf16";
    case InType::fp16: return "gemm_fp16";
    case InType::fp8_e4m3: return "gemm_fp8";
  }
  return "?";
}

DType dtype_of(InType t) {
  switch (t) {
    case InType::bf16: return DType::bf16;
    case InType::fp16: return DType::f16;
    case InType::fp8_e4m3: return DType::fp8_e4m3;
  }
  return DType::bf16;
}

// The rung's launcher; nullptr for the peer.
Launch launcher(Rung r) {
  switch (r) {
#define SOL_GEMM_TC_LAUNCHER_CASE(name, ...) \
  case Rung::name: return launch_##name;
    SOL_GEMM_TC_RUNGS(SOL_GEMM_TC_LAUNCHER_CASE)
#undef SOL_GEMM_TC_LAUNCHER_CASE
    case Rung::peer_cublaslt:
    case Rung::dispatch: return nullptr;
  }
  return nullptr;
}

// offset_a, offset_c: elements by which A and C start past their allocations (a tensor's slice:
// base pointers that are not 16-, 4- or even 2-byte aligned for fp8).
// max_splits: v08's cap on its k split (gemm_rungs::kMaxSplitsKey); tile_n: the one tile width v08
// runs (gemm_rungs::kTileNKey; 0: its rule's).
struct Dims {
  int64_t m, n, k, lda, ldb, ldc, offset_a, offset_c;
  int max_splits, tile_n;
};
Dims dims_of(const Shape& s) {
  const int64_t k = s.at("k"), n = s.at("n");
  return {s.at("m"), n, k, s.get("lda", k), s.get("ldb", k), s.get("ldc", n), s.get("offset_a", 0),
          s.get("offset_c", 0), int(s.get(gemm_rungs::kMaxSplitsKey, gemm_rungs::kMaxSplitK)),
          int(s.get(gemm_rungs::kTileNKey, 0))};
}

// Fills n operand elements (any type) with operand_bits(t, seed, i).
__global__ void fill_operand_kernel(void* gOut, int64_t n, InType t, uint64_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint16_t b = operand_bits(t, seed, uint64_t(i));
    if (t == InType::fp8_e4m3)
      static_cast<uint8_t*>(gOut)[i] = uint8_t(b);
    else
      static_cast<uint16_t*>(gOut)[i] = b;
  }
}

class GemmCase final : public Case {
 public:
  GemmCase(Version v, const Dims& d, const CaseOptions& opts) : v_(v), d_(d), launch_(launcher(v.rung)) {
    const int64_t eb = in_bytes(v.in);
    const double per_set = double(eb) * double(d.m * d.lda + d.n * d.ldb) + 2.0 * double(d.m * d.ldc);
    sets_ = rotating_sets(per_set, opts);
    for (int i = 0; i < sets_; ++i) {
      a_.emplace_back((d.m * d.lda + d.offset_a) * eb);
      b_.emplace_back(d.n * d.ldb * eb);
      c_.emplace_back(d.m * d.ldc + d.offset_c);
    }
    alpha_ = v.in == InType::fp8_e4m3 ? kScaleA * kScaleB : 1.f;
    if (v.rung == Rung::peer_cublaslt) lt_ = std::make_unique<LtGemm>(problem(0), kScaleA, kScaleB);
    if (v.rung == Rung::dispatch) {
      // The API takes fp8 scales on the device; every set's workspace need is the same (cudaMalloc
      // aligns every buffer alike), so the largest of them is allocated once, here.
      const float host[2] = {kScaleA, kScaleB};
      scales_ = DeviceBuffer<float>(2);
      SOL_CUDA_CHECK(cudaMemcpy(scales_.get(), host, sizeof host, cudaMemcpyHostToDevice));
      size_t bytes = 0;
      for (int i = 0; i < sets_; ++i) bytes = std::max(bytes, sol::matmul_workspace_size(args(i)));
      api_workspace_ = DeviceBuffer<uint8_t>(int64_t(bytes));
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int i = 0; i < sets_; ++i) {
      fill(a_[size_t(i)].get() + d_.offset_a * in_bytes(v_.in), d_.m * d_.lda, operand_seed(seed, i, 0xA));
      fill(b_[size_t(i)].get(), d_.n * d_.ldb, operand_seed(seed, i, 0xB));
    }
    seed_a_ = operand_seed(seed, 0, 0xA);
    seed_b_ = operand_seed(seed, 0, 0xB);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override { c_.at(size_t(set)).poison(); }

  void run(int set, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    if (lt_)
      lt_->run(problem(set), st);
    else if (v_.rung == Rung::dispatch)
      sol::matmul(args(set), api_workspace_.get(), size_t(api_workspace_.bytes()), st);
    else
      launch_(problem(set), workspace_, st);
  }

  LaunchInfo launch() const override {
    if (v_.rung == Rung::v01_mma_sync) return plan_v01_mma_sync(problem(0));
    if (v_.rung == Rung::v02_multistage) return plan_v02_multistage(problem(0));
    return {};
  }

  // v08's decomposition here (gemm_rungs::decomposition on this GPU's SMs): scripts/dispatch-table.py
  // reads "k split over" in a record's note as a measurement of the split.
  std::string detail() const override {
    if (v_.rung != Rung::v08_tile_choice) return {};
    const gemm_rungs::Decomposition dec = gemm_rungs::decomposition(
        d_.m, d_.n, gemm_rungs::hopper_k_tiles(d_.k, in_bytes(v_.in)), sm_count(), d_.max_splits, d_.tile_n);
    if (dec.splits > 1)
      return "k split over " + std::to_string(dec.splits) + " CTAs of a cluster, 128x" + std::to_string(dec.tile.n) +
             " tiles";
    return "128x" + std::to_string(dec.tile.n) + " tiles";
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2;
    // C as stored, from its first element (the offset_c elements before it must stay unwritten).
    const std::vector<uint16_t> stored = c_[0].template to_host<uint16_t>(0, d_.m * d_.ldc + d_.offset_c);
    const uint16_t* got = stored.data() + d_.offset_c;
    const std::vector<int64_t> picks = sample_outputs(d_.m, d_.n, d_.k, kFullCheckMacs, kSamples);
    const bool full = int64_t(picks.size()) == d_.m * d_.n;
    // Every A and B element decoded once when all outputs are checked (and the operands are at
    // most 2^24 elements: m = 2^20, n = 1 passes the m·n·k test but would need 1 GiB here).
    const bool decoded = full && (d_.m + d_.n) * d_.k <= (int64_t(1) << 24);
    std::vector<double> hostA, hostB;
    if (decoded) {
      hostA = decode(seed_a_, d_.m, d_.lda);
      hostB = decode(seed_b_, d_.n, d_.ldb);
    }
    // Each sample a k-long dot product: the samples spread over the host's cores (compare's work).
    CheckResult err = compare(
        int64_t(picks.size()), tol,
        [&](int64_t j) {
          const int64_t r = picks[size_t(j)] / d_.n, c = picks[size_t(j)] % d_.n;
          std::vector<double> rowA, colB;  // this output's operands, where they are not all decoded
          const double *a = nullptr, *b = nullptr;
          if (decoded) {
            a = hostA.data() + r * d_.k;
            b = hostB.data() + c * d_.k;
          } else {
            rowA.resize(size_t(d_.k));
            colB.resize(size_t(d_.k));
            for (int64_t i = 0; i < d_.k; ++i) {
              rowA[size_t(i)] = operand_value(v_.in, seed_a_, uint64_t(r * d_.lda + i));
              colB[size_t(i)] = operand_value(v_.in, seed_b_, uint64_t(c * d_.ldb + i));
            }
            a = rowA.data(), b = colB.data();
          }
          const uint16_t bits = got[size_t(r * d_.ldc + c)];
          return Sample{decode_bf16(bits), ref::gemm_element(a, 1, b, 1, d_.k, double(alpha_)).value, is_poison(bits)};
        },
        2 * d_.k);
    // Unwritten and non-finite outputs over the whole C, whether sampled or not.
    const CheckResult whole = compare(d_.m * d_.n, tol, [&](int64_t i) {
      const uint16_t bits = got[size_t((i / d_.n) * d_.ldc + i % d_.n)];
      const double v = decode_bf16(bits);
      return Sample{std::isfinite(v) ? 0.0 : v, 0.0, is_poison(bits)};
    });
    CheckResult out = whole;
    out.rel_l2 = err.rel_l2;
    out.ok = whole.ok && err.rel_l2 <= tol;
    std::string gap = gap_written(d_.m, d_.n, d_.ldc, [&](int64_t i) { return is_poison(got[size_t(i)]); });
    for (int64_t i = 0; i < d_.offset_c && gap.empty(); ++i)
      if (!is_poison(stored[size_t(i)])) gap = "wrote the element " + std::to_string(d_.offset_c - i) + " before C";
    if (!gap.empty() && out.ok) {
      out.ok = false;
      out.detail = gap;
    }
    if (err.rel_l2 > tol) {
      out.detail += (out.detail.empty() ? "" : "; ") + std::string(full ? "" : "sampled outputs (index into the sample): ");
      out.detail += err.detail.substr(err.detail.find("rel_l2"));
    }
    return out;
  }

 private:
  static constexpr int64_t kFullCheckMacs = int64_t(1) << 27;
  static constexpr int kSamples = 4096;

  static uint64_t operand_seed(uint64_t seed, int set, uint64_t which) { return hash64(set_seed(seed, set), which); }

  void fill(void* p, int64_t n, uint64_t seed) const {
    const int64_t blocks = std::min<int64_t>(blocks_for(n, 256), 65536);
    fill_operand_kernel<<<unsigned(blocks), 256>>>(p, n, v_.in, seed);
    SOL_LAUNCH_CHECK();
  }

  // rows × k values of an operand stored with the given pitch, packed k-contiguous.
  std::vector<double> decode(uint64_t seed, int64_t rows, int64_t pitch) const {
    std::vector<double> v(size_t(rows * d_.k));
    double* out = v.data();
    const GemmCase* self = this;
    const int64_t k = d_.k;
    const std::function<void(int64_t, int64_t, int)> body = [=](int64_t b, int64_t e, int) {
      for (int64_t i = b; i < e; ++i) out[i] = operand_value(self->v_.in, seed, uint64_t((i / k) * pitch + i % k));
    };
    parallel_chunks(rows * k, body, host_chunks(rows * k));
    return v;
  }

  Problem problem(int set) const {
    Problem p;
    p.m = d_.m;
    p.n = d_.n;
    p.k = d_.k;
    p.in = v_.in;
    p.lda = d_.lda;
    p.ldb = d_.ldb;
    p.ldc = d_.ldc;
    p.alpha = alpha_;
    p.max_splits = d_.max_splits;
    p.tile_n = d_.tile_n;
    if (set >= 0 && set < sets_) {
      p.A = a_[size_t(set)].get() + d_.offset_a * in_bytes(v_.in);
      p.B = b_[size_t(set)].get();
      p.C = c_[size_t(set)].get() + d_.offset_c;
    }
    return p;
  }

  // The public API's arguments for set `set` (the dispatch variant).
  MatmulArgs args(int set) const {
    const Problem p = problem(set);
    MatmulArgs a;
    a.m = p.m, a.n = p.n, a.k = p.k;
    a.a_type = a.b_type = dtype_of(v_.in);
    a.c_type = DType::bf16;
    a.trans_a = Transpose::N, a.trans_b = Transpose::T;
    a.a = p.A, a.b = p.B, a.c = p.C;
    a.lda = p.lda, a.ldb = p.ldb, a.ldc = p.ldc;
    if (v_.in == InType::fp8_e4m3) a.scale_a = scales_.get(), a.scale_b = scales_.get() + 1;
    else a.alpha = alpha_;
    return a;
  }

  Version v_;
  Dims d_;
  Launch launch_;
  int sets_ = 1;
  float alpha_ = 1.f;
  std::vector<DeviceBuffer<uint8_t>> a_, b_;
  std::vector<DeviceBuffer<uint16_t>> c_;
  Workspace workspace_;
  std::unique_ptr<LtGemm> lt_;
  DeviceBuffer<float> scales_;           // dispatch, fp8: scale_a, scale_b
  DeviceBuffer<uint8_t> api_workspace_;  // dispatch: sol::matmul's workspace
  uint64_t seed_a_ = 0, seed_b_ = 0;
  bool randomized_ = false;
};

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  const int64_t kMax = int64_t(1) << 31;
  if (std::string why = check_dims(s, {{"m", 1, kMax},
                                       {"n", 1, kMax},
                                       {"k", 1, kMax},
                                       {"lda", 1, kMax, false},
                                       {"ldb", 1, kMax, false},
                                       {"ldc", 1, kMax, false},
                                       {"offset_a", 0, 15, false},
                                       {"offset_c", 0, 15, false},
                                       {gemm_rungs::kMaxSplitsKey, 1, gemm_rungs::kMaxSplitK, false},
                                       {gemm_rungs::kTileNKey, 1, gemm_rungs::kHopperWide.n, false}});
      !why.empty())
    return why;
  if (s.has(gemm_rungs::kMaxSplitsKey) && v.rung != Rung::v08_tile_choice)
    return std::string(gemm_rungs::kMaxSplitsKey) + " caps v08_tile_choice's k split; this variant does not split k";
  if (s.has(gemm_rungs::kTileNKey)) {
    if (v.rung != Rung::v08_tile_choice)
      return std::string(gemm_rungs::kTileNKey) + " picks v08_tile_choice's tile; this variant has one tile";
    if (std::string why = gemm_rungs::tile_n_refusal(s.at(gemm_rungs::kTileNKey)); !why.empty()) return why;
  }
  const Dims d = dims_of(s);
  if (d.lda < d.k) return "lda=" + std::to_string(d.lda) + " is below the row length k=" + std::to_string(d.k);
  if (d.ldb < d.k) return "ldb=" + std::to_string(d.ldb) + " is below the row length k=" + std::to_string(d.k);
  if (d.ldc < d.n) return "ldc=" + std::to_string(d.ldc) + " is below the row length n=" + std::to_string(d.n);
  const int64_t kBytes = int64_t(1) << 36;
  if (product_or_minus1({d.m, d.lda, 2}, kBytes) < 0 || product_or_minus1({d.n, d.ldb, 2}, kBytes) < 0 ||
      product_or_minus1({d.m, d.ldc, 2}, kBytes) < 0)
    return "an operand is too large (over 64 GiB)";
  switch (v.rung) {
    case Rung::peer_cublaslt:
      if (v.in == InType::fp8_e4m3 && (d.offset_a % 16 != 0 || d.offset_c % 8 != 0))
        return "cuBLASLt fp8 needs 16-byte aligned pointers (offset_a=" + std::to_string(d.offset_a) +
               ", offset_c=" + std::to_string(d.offset_c) + ")";
      return lt_refusal(v.in, d.n, d.k, d.lda, d.ldb, d.ldc);
    case Rung::dispatch: return {};  // the API serves every shape (cuBLASLt or a rung)
    case Rung::v01_mma_sync:
    case Rung::v02_multistage:
      if ((d.m + 127) / 128 > 65535) return "m over 65535 × 128: the grid's y dimension counts 128-row tiles";
      return {};
    default:
      if (!launcher(v.rung)) return "this rung has no launcher in this build";
      return {};
  }
}

model::Cost cost(Version v, const Shape& s) {
  const Dims d = dims_of(s);
  model::Cost c = model::matmul({d.m, d.n, d.k, dtype_of(v.in), model::MatmulImpl::Minimal, 0});
  if (v.in == InType::fp8_e4m3) {
    c.bytes += double(d.m) * double(d.n);  // the model counted C at 1 byte; it is bf16
    c.notes.push_back("fp8 e4m3 A and B (1 byte), C bf16 (2 bytes); per-tensor scales not counted (8 bytes)");
  } else {
    c.notes.push_back("A and B " + dtype_name(dtype_of(v.in)) + ", C bf16: all 2 bytes per element");
  }
  c.unit = hw::Unit::Matrix;
  return c;
}

Tolerance tolerance(Version v) {
  (void)v;
  return {5e-3,
          "bf16 output: one rounding of at most 2^-9 relative (RMS ≈ 1.1e-3); fp32 accumulation of exact "
          "products adds ~1e-6 at k ≈ 8192 with random signs; 5e-3 leaves 2.5× over the worst-case rounding"};
}

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input(std::string(family_name(v.in)) + ": " + why);
  return std::make_unique<GemmCase>(v, dims_of(s), opts);
}

}  // namespace sol::kernels::gemm::tc

// The checkpointing planner's GPU proof (lecture §8.2): forward and backward of a pre-LN
// transformer stack on sol's own kernels, under any schedule of kept / recomputed segments.
//   forward of a layer (x → y), saved tensors marked *:
//     LN1: a1*, mean1*, rstd1* = LN(x*)            (kernels/rows, one-read kernel)
//     Q*, K*, V* = a1·Wq/k/vᵀ                      (three TN GEMMs straight into [b, n, h, d])
//     O*, L* = flash(Q, K, V)                      (kernels/attention v02, logsumexp saved)
//     h* = x + O·Woᵀ                               (GEMM, then the elementwise chain's add)
//     LN2: a2*, mean2*, rstd2* = LN(h)
//     u* = a2·Wupᵀ, g* = GeLU(u), y = h + g·Wdownᵀ
//   backward: the TN-only GEMM needs transposed operands (kernels/transformer/transpose.cuh):
//     dX = dY·W  →  A = dY, B = Wᵀ;   dW = dYᵀ·X  →  A = dYᵀ, B = Xᵀ (linear_backward).
//     dQ, dK, dV are joined into the QKV matmul's [T × 3d] output gradient by a pitched copy.
//     The attention backward runs with det=1 (dQ by its own kernel, no atomics), LayerNorm's
//     dγ/dβ through its fixed-order column sums: every kernel here gives the same bits on every
//     run, so a recomputed segment rebuilds identical activations and identical gradients.
// Memory: every tensor of the step comes from one stream-ordered pool (cudaMallocFromPoolAsync,
// release threshold unlimited, so timed steps reuse it without driver calls) and is booked as
// saved or transient (stack.hpp); weights, gradients, x and dY are plain cudaMalloc outside it.
// Expected: at 8 layers, T=2048, d=1024 one layer's forward is ~69 GFLOP (GEMMs 24·T·d² = 52,
// attention 4·T²·d = 17); with the backward (2× the GEMMs, 2.5× the attention) a step is ~1.7
// TFLOP, ~2.5 ms at 700 TFLOP/s. A [2048 × 1024] GEMM output is only 64–128 tiles for 132 SMs and
// the attention runs on mma.sync, so expect ~2× the planner's roofline floor, plus the transposes,
// LayerNorms and adds (memory-bound, ~10 % more). The host issues ~150 calls per layer (pool,
// launches, tensor maps): at batch 1 it can approach the GPU time; batch 2 keeps the GPU ahead.
#include "kernels/transformer/stack.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

#include "kernels/attention/forward.cuh"
#include "kernels/common/check.cuh"
#include "kernels/common/random.cuh"
#include "kernels/elementwise/chain.cuh"
#include "kernels/gemm/tc/rungs.cuh"
#include "kernels/rows/backward.cuh"
#include "kernels/rows/forward.cuh"
#include "kernels/transformer/transpose.cuh"
#include "sol/core/error.hpp"

namespace sol::transformer {

using bf16 = __nv_bfloat16;
namespace attn = kernels::attention;
namespace rows = kernels::rows;
namespace tc = kernels::gemm::tc;
namespace ew = kernels::elementwise;

ParamLayout ParamLayout::of(const Shape& s) {
  const int64_t d = s.d_model, f = s.mlp();
  ParamLayout p;
  int64_t at = 0;
  const auto take = [&at](int64_t n) {
    const int64_t here = at;
    at += n;
    return here;
  };
  p.ln1_gamma = take(d);
  p.ln1_beta = take(d);
  p.w_qkv = take(3 * d * d);
  p.w_out = take(d * d);
  p.ln2_gamma = take(d);
  p.ln2_beta = take(d);
  p.w_up = take(f * d);
  p.w_down = take(d * f);
  p.count = at;
  return p;
}

bool device_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

std::string device_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  SOL_CUDA_CHECK(cudaGetDevice(&dev));
  SOL_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}

namespace {

// ---- elementwise functors (the chain runs fp32 math, one rounding on store) ----------------------
struct AddFn {
  __device__ float operator()(float a, float b) const { return a + b; }
};
constexpr float kGeluK = 0.7978845608028654f;  // √(2/π)
constexpr float kGeluC = 0.044715f;
struct GeluFn {  // tanh form
  __device__ float operator()(float u) const {
    const float t = tanhf(kGeluK * (u + kGeluC * u * u * u));
    return 0.5f * u * (1.f + t);
  }
};
struct GeluBwdFn {  // dU = dG · GeLU'(u)
  __device__ float operator()(float dg, float u) const {
    const float t = tanhf(kGeluK * (u + kGeluC * u * u * u));
    const float dt = kGeluK * (1.f + 3.f * kGeluC * u * u) * (1.f - t * t);
    return dg * (0.5f * (1.f + t) + 0.5f * u * dt);
  }
};

// Element i = offset + scale·(2·U(seed, i) − 1), U uniform in [0, 1) from the counter hash.
__global__ void init_kernel(bf16* gOut, int64_t n, uint64_t seed, float offset, float scale) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float u = float(kernels::hash64(seed, uint64_t(i)) >> 40) * (1.f / 16777216.f);
    gOut[i] = __float2bfloat16_rn(offset + scale * (2.f * u - 1.f));
  }
}
void init(bf16* p, int64_t n, uint64_t seed, float offset, float scale, cudaStream_t s) {
  if (n == 0) return;
  init_kernel<<<unsigned(std::min<int64_t>(kernels::blocks_for(n, 256), 132 * 8)), 256, 0, s>>>(p, n, seed, offset, scale);
  SOL_LAUNCH_CHECK();
}

// ---- the step's memory: one pool, every tensor booked as saved or transient -----------------------
enum class Kind { Saved, Transient };

class Arena {
 public:
  explicit Arena(cudaStream_t s) : stream_(s) {
    int dev = 0;
    SOL_CUDA_CHECK(cudaGetDevice(&dev));
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    SOL_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
    uint64_t keep = UINT64_MAX;  // never give memory back between steps: timed steps make no driver calls
    SOL_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  ~Arena() { (void)cudaMemPoolDestroy(pool_); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Starts a step's bookkeeping. sample: trim the pool and watch cudaMemGetInfo after each allocation.
  void begin(bool sample) {
    SOL_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (!live_.empty()) failure("transformer stack: " + std::to_string(live_.size()) + " tensors outlived the last step");
    sample_ = sample;
    for (double& v : live_bytes_) v = 0;
    mem_ = {};
    uint64_t zero = 0;
    SOL_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &zero));
    if (sample) {
      SOL_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0));
      SOL_CUDA_CHECK(cudaDeviceSynchronize());
      size_t total = 0;
      SOL_CUDA_CHECK(cudaMemGetInfo(&free_before_, &total));
      least_free_ = free_before_;
    }
  }
  StepMemory end() {
    SOL_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (!live_.empty()) failure("transformer stack: " + std::to_string(live_.size()) + " tensors were not released");
    uint64_t used = 0;
    SOL_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &used));
    mem_.pool_used_high = double(used);
    if (sample_) mem_.device_delta = double(free_before_ - least_free_);
    return mem_;
  }

  template <class T>
  T* get(int64_t count, Kind kind) {
    const int64_t bytes = count * int64_t(sizeof(T));
    void* p = nullptr;
    SOL_CUDA_CHECK(cudaMallocFromPoolAsync(&p, size_t(std::max<int64_t>(bytes, 1)), pool_, stream_));
    live_[p] = {bytes, kind};
    live_bytes_[int(kind)] += double(bytes);
    mem_.saved_peak = std::max(mem_.saved_peak, live_bytes_[0]);
    mem_.total_peak = std::max(mem_.total_peak, live_bytes_[0] + live_bytes_[1]);
    if (sample_) {
      size_t free = 0, total = 0;
      SOL_CUDA_CHECK(cudaMemGetInfo(&free, &total));
      least_free_ = std::min(least_free_, free);
    }
    return static_cast<T*>(p);
  }
  void put(const void* p) {
    if (!p) return;
    const auto it = live_.find(const_cast<void*>(p));
    if (it == live_.end()) failure("transformer stack: releasing a tensor the arena does not hold");
    live_bytes_[int(it->second.kind)] -= double(it->second.bytes);
    live_.erase(it);
    SOL_CUDA_CHECK(cudaFreeAsync(const_cast<void*>(p), stream_));
  }

 private:
  struct Entry {
    int64_t bytes;
    Kind kind;
  };
  cudaStream_t stream_;
  cudaMemPool_t pool_{};
  std::unordered_map<void*, Entry> live_;
  double live_bytes_[2] = {0, 0};
  StepMemory mem_;
  bool sample_ = false;
  size_t free_before_ = 0, least_free_ = 0;
};

// What one layer's forward leaves for its backward (all Saved; x is the layer input).
struct LayerActs {
  bf16* x = nullptr;
  float *mean1 = nullptr, *rstd1 = nullptr, *mean2 = nullptr, *rstd2 = nullptr, *lse = nullptr;
  bf16 *a1 = nullptr, *qkv = nullptr, *o = nullptr, *h = nullptr, *a2 = nullptr, *u = nullptr, *g = nullptr;
};

}  // namespace

struct Stack::Impl {
  Shape s;
  ParamLayout lay;
  cudaStream_t stream{};
  bf16 *params = nullptr, *grads = nullptr, *x0 = nullptr, *dy = nullptr, *dx0 = nullptr;
  std::unique_ptr<Arena> arena;
  tc::Workspace ws;
  // The LayerNorm backward's launch plan depends on the shape and on 16-byte alignment, the same
  // for every call here (pool tensors, parameter offsets of whole rows): planned once.
  std::optional<rows::BwdPlan> ln_plan;

  int64_t T() const { return s.tokens(); }
  const bf16* P(int64_t l, int64_t off) const { return params + l * lay.count + off; }
  bf16* G(int64_t l, int64_t off) const { return grads + l * lay.count + off; }

  // C[m × n] = A[m × k]·B[n × k]ᵀ, all row-major with the given pitches.
  void mm(const bf16* A, int64_t lda, const bf16* B, int64_t ldb, bf16* C, int64_t ldc, int64_t m, int64_t n,
          int64_t k) {
    tc::Problem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.in = tc::InType::bf16;
    p.A = A;
    p.B = B;
    p.C = C;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    tc::launch_v08_tile_choice(p, ws, stream);
  }
  // out = in[rows × cols]ᵀ (contiguous) from the arena, transient.
  bf16* transposed(const bf16* in, int64_t rows, int64_t cols) {
    bf16* out = arena->get<bf16>(rows * cols, Kind::Transient);
    kernels::transformer::transpose_bf16(in, cols, out, rows, rows, cols, stream);
    return out;
  }
  void add(const bf16* a, const bf16* b, bf16* out, int64_t n) {
    ew::run_chain<bf16, 2>({a, b}, out, n, AddFn{}, stream);
  }

  rows::RowArgs<bf16> ln_args(const bf16* x, bf16* y, int64_t l, int64_t gamma_off, int64_t beta_off, float* mean,
                              float* rstd) const {
    rows::RowArgs<bf16> a;
    a.x = x;
    a.y = y;
    a.gamma = P(l, gamma_off);
    a.beta = P(l, beta_off);
    a.stat0 = mean;
    a.stat1 = rstd;
    a.rows = T();
    a.cols = s.d_model;
    a.ldx = a.ldy = s.d_model;
    return a;
  }
  attn::AttnArgs<bf16> attn_args(const LayerActs& a) const {
    const int64_t td = T() * s.d_model;
    attn::AttnArgs<bf16> f;
    f.q = a.qkv;
    f.k = a.qkv + td;
    f.v = a.qkv + 2 * td;
    f.o = a.o;
    f.lse = a.lse;
    f.b = s.batch;
    f.h = f.hkv = s.heads;
    f.n = f.nk = s.seq;
    f.d = int(s.head_dim());
    f.causal = false;  // as the planner's attention model
    f.scale = 1.f / std::sqrt(float(s.head_dim()));
    return f;
  }

  // Forward of layer l from x (owned by the caller); returns the saved tensors, and the layer's
  // output, booked as out_kind, in *y.
  LayerActs forward(int64_t l, bf16* x, Kind out_kind, bf16** y) {
    const int64_t t = T(), d = s.d_model, f = s.mlp(), td = t * d;
    LayerActs a;
    a.x = x;
    a.mean1 = arena->get<float>(t, Kind::Saved);
    a.rstd1 = arena->get<float>(t, Kind::Saved);
    a.a1 = arena->get<bf16>(td, Kind::Saved);
    rows::layernorm_forward(rows::Impl::Registers, ln_args(x, a.a1, l, lay.ln1_gamma, lay.ln1_beta, a.mean1, a.rstd1),
                            static_cast<bf16*>(nullptr), stream);
    a.qkv = arena->get<bf16>(3 * td, Kind::Saved);
    for (int i = 0; i < 3; ++i) mm(a.a1, d, P(l, lay.w_qkv) + i * d * d, d, a.qkv + i * td, d, t, d, d);
    a.o = arena->get<bf16>(td, Kind::Saved);
    a.lse = arena->get<float>(s.batch * s.heads * s.seq, Kind::Saved);
    attn::flash_forward(attn_args(a), stream, 1);
    bf16* proj = arena->get<bf16>(td, Kind::Transient);
    mm(a.o, d, P(l, lay.w_out), d, proj, d, t, d, d);
    a.h = arena->get<bf16>(td, Kind::Saved);
    add(x, proj, a.h, td);
    arena->put(proj);
    a.mean2 = arena->get<float>(t, Kind::Saved);
    a.rstd2 = arena->get<float>(t, Kind::Saved);
    a.a2 = arena->get<bf16>(td, Kind::Saved);
    rows::layernorm_forward(rows::Impl::Registers, ln_args(a.h, a.a2, l, lay.ln2_gamma, lay.ln2_beta, a.mean2, a.rstd2),
                            static_cast<bf16*>(nullptr), stream);
    a.u = arena->get<bf16>(t * f, Kind::Saved);
    mm(a.a2, d, P(l, lay.w_up), d, a.u, f, t, f, d);
    a.g = arena->get<bf16>(t * f, Kind::Saved);
    ew::run_chain<bf16, 1>({a.u}, a.g, t * f, GeluFn{}, stream);
    bf16* down = arena->get<bf16>(td, Kind::Transient);
    mm(a.g, f, P(l, lay.w_down), f, down, d, t, d, f);
    *y = arena->get<bf16>(td, out_kind);
    add(a.h, down, *y, td);
    arena->put(down);
    return a;
  }

  // Releases what forward() saved, the layer input included.
  void release(const LayerActs& a) {
    for (const void* p : {(const void*)a.x, (const void*)a.mean1, (const void*)a.rstd1, (const void*)a.a1,
                          (const void*)a.qkv, (const void*)a.o, (const void*)a.lse, (const void*)a.h,
                          (const void*)a.mean2, (const void*)a.rstd2, (const void*)a.a2, (const void*)a.u,
                          (const void*)a.g})
      arena->put(p);
  }

  // x reaches the layer's rest both through a LayerNorm and around it (the residual): its gradient
  // is d_skip + LN's backward of dy (dγ, dβ into the layer's gradient block). A new transient.
  bf16* ln_residual_backward(int64_t l, const bf16* x, const bf16* dy, const float* mean, const float* rstd,
                             int64_t gamma_off, int64_t beta_off, const bf16* d_skip) {
    rows::BwdArgs<bf16> b;
    b.a = x;
    b.dy = dy;
    b.dx = arena->get<bf16>(T() * s.d_model, Kind::Transient);
    b.gamma = P(l, gamma_off);
    b.mean = mean;
    b.rstd = rstd;
    b.dgamma = G(l, gamma_off);
    b.dbeta = G(l, beta_off);
    b.rows = T();
    b.cols = s.d_model;
    b.lda = b.lddy = b.lddx = s.d_model;
    if (!ln_plan) ln_plan = rows::layernorm_bwd_plan(b);
    const rows::BwdPlan& plan = *ln_plan;
    b.work = arena->get<float>(plan.work_floats, Kind::Transient);
    rows::layernorm_bwd(false, b, plan, rows::BwdTemps<bf16>{}, stream);
    arena->put(b.work);
    bf16* dx = arena->get<bf16>(T() * s.d_model, Kind::Transient);
    add(d_skip, b.dx, dx, T() * s.d_model);
    arena->put(b.dx);
    return dx;
  }

  // y = x·Wᵀ (x [t × in], W [out × in], dy [t × out]) backward on the TN-only GEMM:
  // dW = dyᵀ·x (A = dyᵀ, B = xᵀ) into the gradient block; returns dx = dy·W (B = Wᵀ), transient.
  bf16* linear_backward(const bf16* dy, const bf16* x, const bf16* W, bf16* dW, int64_t in, int64_t out) {
    const int64_t t = T();
    bf16* dyT = transposed(dy, t, out);
    bf16* xT = transposed(x, t, in);
    mm(dyT, t, xT, t, dW, in, out, in, t);
    arena->put(xT);
    arena->put(dyT);
    bf16* WT = transposed(W, out, in);  // [in × out]
    bf16* dx = arena->get<bf16>(t * in, Kind::Transient);
    mm(dy, out, WT, out, dx, in, t, in, out);
    arena->put(WT);
    return dx;
  }

  // Backward of layer l: dy (the gradient of its output) → a new transient dx; weight gradients
  // written into the layer's block. dy stays the caller's.
  bf16* backward(int64_t l, const LayerActs& a, const bf16* dy) {
    const int64_t t = T(), d = s.d_model, f = s.mlp(), td = t * d;
    // MLP down, GeLU, MLP up.
    bf16* dg = linear_backward(dy, a.g, P(l, lay.w_down), G(l, lay.w_down), f, d);
    bf16* du = arena->get<bf16>(t * f, Kind::Transient);
    ew::run_chain<bf16, 2>({dg, a.u}, du, t * f, GeluBwdFn{}, stream);
    arena->put(dg);
    bf16* da2 = linear_backward(du, a.a2, P(l, lay.w_up), G(l, lay.w_up), d, f);
    arena->put(du);
    bf16* dh = ln_residual_backward(l, a.h, da2, a.mean2, a.rstd2, lay.ln2_gamma, lay.ln2_beta, dy);
    arena->put(da2);
    bf16* dO = linear_backward(dh, a.o, P(l, lay.w_out), G(l, lay.w_out), d, d);
    // Attention (deterministic): dQ, dK, dV into one [3, t, d] block.
    bf16* dqkv = arena->get<bf16>(3 * td, Kind::Transient);
    attn::AttnBwdArgs<bf16> ab;
    ab.f = attn_args(a);
    ab.dout = dO;
    ab.dq = dqkv;
    ab.dk = dqkv + td;
    ab.dv = dqkv + 2 * td;
    ab.dq_accum = arena->get<float>(td, Kind::Transient);
    ab.delta = arena->get<float>(s.batch * s.heads * s.seq, Kind::Transient);
    ab.deterministic = true;
    attn::flash_backward(ab, stream);
    arena->put(ab.delta);
    arena->put(ab.dq_accum);
    arena->put(dO);
    // The QKV matmul's output gradient as one [t × 3d] matrix (dQ | dK | dV per row): a pitched copy.
    bf16* dcat = arena->get<bf16>(3 * td, Kind::Transient);
    for (int i = 0; i < 3; ++i)
      SOL_CUDA_CHECK(cudaMemcpy2DAsync(dcat + i * d, size_t(3 * d) * 2, dqkv + i * td, size_t(d) * 2, size_t(d) * 2,
                                       size_t(t), cudaMemcpyDeviceToDevice, stream));
    arena->put(dqkv);
    bf16* da1 = linear_backward(dcat, a.a1, P(l, lay.w_qkv), G(l, lay.w_qkv), d, 3 * d);
    arena->put(dcat);
    bf16* dx = ln_residual_backward(l, a.x, da1, a.mean1, a.rstd1, lay.ln1_gamma, lay.ln1_beta, dh);
    arena->put(da1);
    arena->put(dh);
    return dx;
  }

  // One forward + backward under the schedule, as stack.hpp describes.
  void run(const std::vector<model::Segment>& segs) {
    const int64_t L = s.layers, td = T() * s.d_model;
    int64_t next = 0;
    for (const auto& g : segs) {
      if (g.first != next || g.length < 1) bad_input("segments must cover the layers in order without gaps");
      next += g.length;
    }
    if (next != L) bad_input("segments cover " + std::to_string(next) + " layers, not " + std::to_string(L));
    std::vector<LayerActs> acts(static_cast<size_t>(L));
    std::vector<bf16*> inputs(static_cast<size_t>(L), nullptr);  // each layer's input while it is held
    bf16* cur = arena->get<bf16>(td, Kind::Saved);  // layer 0's input: a kept tensor like any other
    SOL_CUDA_CHECK(cudaMemcpyAsync(cur, x0, size_t(td) * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    // Forward: kept segments keep everything; a recomputed one keeps its input only.
    for (const auto& g : segs)
      for (int64_t l = g.first; l < g.first + g.length; ++l) {
        inputs[size_t(l)] = cur;
        bf16* y = nullptr;
        acts[size_t(l)] = forward(l, cur, l == L - 1 ? Kind::Transient : Kind::Saved, &y);
        if (g.recompute) {
          LayerActs internal = acts[size_t(l)];
          internal.x = l == g.first ? nullptr : cur;  // the checkpoint stays; inner inputs go
          release(internal);
          acts[size_t(l)] = {};
          if (l != g.first) inputs[size_t(l)] = nullptr;
        }
        cur = y;
      }
    arena->put(cur);  // the stack's output: the loss Σ dY∘Y needs only dY for the backward
    // Backward, segments in reverse; a recomputed segment first re-runs its forward from its input.
    bf16* grad = arena->get<bf16>(td, Kind::Transient);
    SOL_CUDA_CHECK(cudaMemcpyAsync(grad, dy, size_t(td) * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
      const model::Segment& g = *it;
      if (g.recompute) {
        bf16* in = inputs[size_t(g.first)];
        for (int64_t l = g.first; l < g.first + g.length; ++l) {
          bf16* y = nullptr;
          const bool last = l == g.first + g.length - 1;
          acts[size_t(l)] = forward(l, in, last ? Kind::Transient : Kind::Saved, &y);
          if (last) arena->put(y);  // the next segment's input, already used and released
          in = y;
        }
      }
      for (int64_t l = g.first + g.length - 1; l >= g.first; --l) {
        bf16* dx = backward(l, acts[size_t(l)], grad);
        release(acts[size_t(l)]);
        arena->put(grad);
        grad = dx;
      }
    }
    SOL_CUDA_CHECK(cudaMemcpyAsync(dx0, grad, size_t(td) * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    arena->put(grad);
  }

  std::vector<uint16_t> copy(const bf16* p, int64_t n) const {
    std::vector<uint16_t> h(static_cast<size_t>(n));
    SOL_CUDA_CHECK(cudaStreamSynchronize(stream));
    SOL_CUDA_CHECK(cudaMemcpy(h.data(), p, size_t(n) * 2, cudaMemcpyDeviceToHost));
    return h;
  }
};

Stack::Stack(const Shape& s, uint64_t seed) : shape_(s), impl_(std::make_unique<Impl>()) {
  if (s.layers < 1 || s.batch < 1 || s.seq < 1 || s.d_model < 1 || s.heads < 1 || s.mlp_ratio < 1)
    bad_input("transformer stack: every size must be ≥ 1");
  if (!s.flash || s.dtype != DType::bf16)
    bad_input("transformer stack: runs flash attention in bf16 only", "plan other shapes with `sol checkpoint` (no --measure)");
  if (s.d_model % s.heads != 0 || (s.head_dim() != 64 && s.head_dim() != 128))
    bad_input("transformer stack: head dim d_model / heads = " + std::to_string(double(s.d_model) / double(s.heads)) +
                  " is not built",
              "the flash kernels run head dim 64 or 128");
  if (s.d_model % 64 != 0 || s.tokens() % 64 != 0)
    bad_input("transformer stack: d_model and batch·seq must be multiples of 64 (GEMM tiles, 128-byte rows)");
  std::string why;
  if (!device_available(&why)) failure(why, "run --measure on a machine with a CUDA GPU");
  Impl& m = *impl_;
  m.s = s;
  m.lay = ParamLayout::of(s);
  SOL_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  m.arena = std::make_unique<Arena>(m.stream);
  const int64_t td = s.tokens() * s.d_model, n = s.layers * m.lay.count;
  SOL_CUDA_CHECK(cudaMalloc(&m.params, size_t(n) * 2));
  SOL_CUDA_CHECK(cudaMalloc(&m.grads, size_t(n) * 2));
  SOL_CUDA_CHECK(cudaMalloc(&m.x0, size_t(td) * 2));
  SOL_CUDA_CHECK(cudaMalloc(&m.dy, size_t(td) * 2));
  SOL_CUDA_CHECK(cudaMalloc(&m.dx0, size_t(td) * 2));
  const ParamLayout& p = m.lay;
  const float d = float(s.d_model), f = float(s.mlp());
  for (int64_t l = 0; l < s.layers; ++l) {
    bf16* w = m.params + l * p.count;
    const uint64_t ls = kernels::hash64(seed, uint64_t(l) + 1);
    // γ near 1 and β near 0 (not exactly, so that their gradients matter); weights ±1/√fan_in.
    init(w + p.ln1_gamma, s.d_model, ls + 1, 1.f, 0.1f, m.stream);
    init(w + p.ln1_beta, s.d_model, ls + 2, 0.f, 0.1f, m.stream);
    init(w + p.w_qkv, 3 * s.d_model * s.d_model, ls + 3, 0.f, 1.f / std::sqrt(d), m.stream);
    init(w + p.w_out, s.d_model * s.d_model, ls + 4, 0.f, 1.f / std::sqrt(d), m.stream);
    init(w + p.ln2_gamma, s.d_model, ls + 5, 1.f, 0.1f, m.stream);
    init(w + p.ln2_beta, s.d_model, ls + 6, 0.f, 0.1f, m.stream);
    init(w + p.w_up, s.mlp() * s.d_model, ls + 7, 0.f, 1.f / std::sqrt(d), m.stream);
    init(w + p.w_down, s.d_model * s.mlp(), ls + 8, 0.f, 1.f / std::sqrt(f), m.stream);
  }
  init(m.x0, td, kernels::hash64(seed, 0xA11), 0.f, 1.f, m.stream);
  init(m.dy, td, kernels::hash64(seed, 0xD1), 0.f, 1.f, m.stream);
  SOL_CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

Stack::~Stack() {
  if (!impl_) return;
  Impl& m = *impl_;
  (void)cudaStreamSynchronize(m.stream);
  m.arena.reset();
  for (void* p : {(void*)m.params, (void*)m.grads, (void*)m.x0, (void*)m.dy, (void*)m.dx0}) (void)cudaFree(p);
  (void)cudaStreamDestroy(m.stream);
}

StepMemory Stack::step(const std::vector<model::Segment>& segments, bool sample_device) {
  Impl& m = *impl_;
  SOL_CUDA_CHECK(cudaMemsetAsync(m.grads, 0xFF, size_t(shape_.layers * m.lay.count) * 2, m.stream));  // bf16 NaN
  SOL_CUDA_CHECK(cudaMemsetAsync(m.dx0, 0xFF, size_t(shape_.tokens() * shape_.d_model) * 2, m.stream));
  impl_->arena->begin(sample_device);
  impl_->run(segments);
  return impl_->arena->end();
}

std::vector<double> Stack::time_steps(const std::vector<model::Segment>& segments, int warmup, int reps,
                                      std::vector<double>* enqueue_ms) {
  if (warmup < 0 || reps < 1) bad_input("timing needs warmup ≥ 0 and reps ≥ 1");
  Impl& m = *impl_;
  for (int i = 0; i < warmup; ++i) step(segments);
  cudaEvent_t start{}, stop{};
  SOL_CUDA_CHECK(cudaEventCreate(&start));
  SOL_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    m.arena->begin(false);
    const auto host0 = std::chrono::steady_clock::now();
    SOL_CUDA_CHECK(cudaEventRecord(start, m.stream));
    m.run(segments);
    SOL_CUDA_CHECK(cudaEventRecord(stop, m.stream));
    const auto host1 = std::chrono::steady_clock::now();
    if (enqueue_ms) enqueue_ms->push_back(std::chrono::duration<double, std::milli>(host1 - host0).count());
    m.arena->end();
    float t = 0;
    SOL_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(double(t));
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  return ms;
}

std::vector<uint16_t> Stack::input() const { return impl_->copy(impl_->x0, shape_.tokens() * shape_.d_model); }
std::vector<uint16_t> Stack::upstream() const { return impl_->copy(impl_->dy, shape_.tokens() * shape_.d_model); }
std::vector<uint16_t> Stack::params(int64_t layer) const {
  if (layer < 0 || layer >= shape_.layers) bad_input("no layer " + std::to_string(layer));
  return impl_->copy(impl_->params + layer * impl_->lay.count, impl_->lay.count);
}
std::vector<uint16_t> Stack::gradients() const {
  std::vector<uint16_t> out = impl_->copy(impl_->dx0, shape_.tokens() * shape_.d_model);
  const std::vector<uint16_t> g = impl_->copy(impl_->grads, shape_.layers * impl_->lay.count);
  out.insert(out.end(), g.begin(), g.end());
  return out;
}

}  // namespace sol::transformer

// Registry wrapper for the attention forward: one Case per element type (bf16, fp16). Inputs
// are hashed values (kernels/common/random.cuh), so the host rebuilds any Q/K/V row in double
// without copying it back. The reference (sol::ref::attention_row, double) runs on sampled
// rows of sampled heads — all of them at small shapes — while O and L are scanned whole for
// unwritten (poisoned) and non-finite entries.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/attention/case.hpp"
#include "kernels/attention/decode.cuh"
#include "kernels/attention/forward.cuh"
#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/variant.cuh"
#include "sol/formats/cast.hpp"
#include "sol/kernels.hpp"
#include "sol/ref/attention.hpp"

namespace sol::kernels::attention {
namespace {

constexpr int64_t kMaxSampledHeads = 4;
constexpr int64_t kMaxSampledRows = 64;  // per sampled head
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// fp16 bits of a Signed draw: ±(1 + m/1024)·2^e, e ∈ {−2, −1, 0, 1} — the same range as the
// bf16 and fp32 draws, every value exact in fp16.
__host__ __device__ inline uint16_t random_f16_bits(uint64_t seed, uint64_t i) {
  const uint64_t h = hash64(seed, i);
  return uint16_t((uint32_t(h >> 63) << 15) | ((13u + uint32_t(h >> 32) % 4u) << 10) | (uint32_t(h) & 0x3FFu));
}
double decode_f16(uint16_t b) { return formats::decode_value(formats::Format::fp16, b); }

__global__ void fill_f16_kernel(uint16_t* p, int64_t n, uint64_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = random_f16_bits(seed, uint64_t(i));
}

// The element types: fill, host decode of element i, is-fp16 flag.
template <class T>
struct Half;
template <>
struct Half<__nv_bfloat16> {
  static void fill(__nv_bfloat16* p, int64_t n, uint64_t seed) { fill_random_bf16(p, n, seed, Dist::Signed, nullptr); }
  static double value(uint64_t seed, int64_t i) { return decode_bf16(random_bf16_bits(seed, uint64_t(i), Dist::Signed)); }
  static double decode(uint16_t b) { return decode_bf16(b); }
};
template <>
struct Half<__half> {
  static void fill(__half* p, int64_t n, uint64_t seed) {
    const int64_t blocks = std::clamp<int64_t>(blocks_for(n, 256), 1, 65536);
    fill_f16_kernel<<<unsigned(blocks), 256>>>(reinterpret_cast<uint16_t*>(p), n, seed);
    SOL_LAUNCH_CHECK();
  }
  static double value(uint64_t seed, int64_t i) { return decode_f16(random_f16_bits(seed, uint64_t(i))); }
  static double decode(uint16_t b) { return decode_f16(b); }
};

struct Dims {
  int64_t b, h, hkv, n, nk, d;
  bool causal;
  int64_t wl, wr, softcap;  // the window's sizes (−1: unbounded), the softcap (0: off)
  bool windowed() const { return wl >= 0 || wr >= 0 || softcap > 0; }
};

Dims dims(const Shape& s) {
  const int64_t h = s.at("h");
  return {s.at("b"),   h,   s.get("hkv", h), s.at("n"), s.get("nk", s.at("n")), s.at("d"), s.get("causal", 0) != 0,
          s.get("wl", -1), s.get("wr", -1), s.get("softcap", 0)};
}

// The double reference's view of one head of a shape.
ref::AttentionHead ref_head(const Dims& x) {
  ref::AttentionHead head{x.n, x.nk, x.d, x.causal, 1.0 / std::sqrt(double(x.d))};
  head.window_left = x.wl;
  head.window_right = x.wr;
  head.softcap = double(x.softcap);
  return head;
}

// Spread picks of `count` out of [0, total): all when few, else the first, the last and hashed ones.
std::vector<int64_t> pick(int64_t total, int64_t count, uint64_t salt) {
  std::vector<int64_t> v;
  if (total <= count) {
    for (int64_t i = 0; i < total; ++i) v.push_back(i);
    return v;
  }
  v.push_back(0);
  v.push_back(total - 1);
  for (uint64_t k = 0; int64_t(v.size()) < count; ++k) v.push_back(int64_t(hash64(salt, k) % uint64_t(total)));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Rows [0, rows) of one head of a hashed [b, rows, heads, d] tensor, as doubles [rows × d].
template <class T>
std::vector<double> decode_head(uint64_t seed, int64_t bi, int64_t head, int64_t rows, int64_t heads, int64_t d) {
  std::vector<double> out(static_cast<size_t>(rows * d));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < d; ++c) out[size_t(r * d + c)] = Half<T>::value(seed, ((bi * rows + r) * heads + head) * d + c);
  return out;
}

// The same for a tensor copied back from the device as raw 16-bit elements.
template <class T>
std::vector<double> decode_head(const std::vector<uint16_t>& bits, int64_t bi, int64_t head, int64_t rows, int64_t heads,
                                int64_t d) {
  std::vector<double> out(static_cast<size_t>(rows * d));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < d; ++c) out[size_t(r * d + c)] = Half<T>::decode(bits[size_t(((bi * rows + r) * heads + head) * d + c)]);
  return out;
}

// Unwritten (poisoned) elements over a whole output; appended to the result's verdict.
template <class Bits>
void require_written(CheckResult& r, const std::vector<Bits>& got, const char* what) {
  const int64_t n = std::count_if(got.begin(), got.end(), [](Bits b) { return is_poison(b); });
  if (n == 0) return;
  r.ok = false;
  r.unwritten += n;
  r.detail += (r.detail.empty() ? "" : "; ") + std::to_string(n) + " " + what + " element(s) unwritten";
}

// Q, K, V (hashed inputs) and O, L (the forward's outputs) of every rotating set; both Cases hold one.
template <class T>
struct ForwardSets {
  Dims x;
  std::vector<DeviceBuffer<T>> q, k, v, o;
  std::vector<DeviceBuffer<float>> lse;

  ForwardSets(const Dims& dims, int sets) : x(dims) {
    for (int i = 0; i < sets; ++i) {
      q.emplace_back(x.b * x.n * x.h * x.d);
      k.emplace_back(x.b * x.nk * x.hkv * x.d);
      v.emplace_back(x.b * x.nk * x.hkv * x.d);
      o.emplace_back(x.b * x.n * x.h * x.d);
      lse.emplace_back(x.b * x.h * x.n);
    }
  }
  // Set i's Q, K, V: element seeds hash64(set seed, 'Q' | 'K' | 'V').
  void fill(int i, uint64_t set_seed) const {
    Half<T>::fill(q[size_t(i)].get(), q[size_t(i)].count(), hash64(set_seed, 'Q'));
    Half<T>::fill(k[size_t(i)].get(), k[size_t(i)].count(), hash64(set_seed, 'K'));
    Half<T>::fill(v[size_t(i)].get(), v[size_t(i)].count(), hash64(set_seed, 'V'));
  }
  AttnArgs<T> args(int set) const {
    AttnArgs<T> a;
    a.q = q.at(size_t(set)).get();
    a.k = k.at(size_t(set)).get();
    a.v = v.at(size_t(set)).get();
    a.o = o.at(size_t(set)).get();
    a.lse = lse.at(size_t(set)).get();
    a.b = x.b;
    a.h = x.h;
    a.hkv = x.hkv;
    a.n = x.n;
    a.nk = x.nk;
    a.d = int(x.d);
    a.causal = x.causal;
    a.scale = float(1.0 / std::sqrt(double(x.d)));
    a.window_left = x.wl;
    a.window_right = x.wr;
    a.softcap = float(x.softcap);
    return a;
  }
};

// The public API's arguments for the same tensors (packed BSHD).
template <class T>
AttentionArgs public_args(const AttnArgs<T>& a) {
  AttentionArgs p;
  p.dtype = std::is_same_v<T, __half> ? DType::f16 : DType::bf16;
  p.b = a.b;
  p.h = a.h;
  p.h_kv = a.hkv;
  p.n = a.n;
  p.nk = a.nk;
  p.d = a.d;
  p.causal = a.causal;
  p.scale = a.scale;
  p.window_left = a.window_left;
  p.window_right = a.window_right;
  p.softcap = a.softcap;
  p.q = a.q;
  p.k = a.k;
  p.v = a.v;
  p.o = a.o;
  p.lse = a.lse;
  return p;
}

// The rung a dispatcher's Choice names ("attention/v04_flash_wgmma"), for the launch it describes.
template <class V>
V rung_named(const std::string& implementation, std::initializer_list<std::pair<const char*, V>> rungs) {
  const std::string name = implementation.substr(implementation.find('/') + 1);
  for (const auto& [n, v] : rungs)
    if (name == n) return v;
  failure("attention dispatch chose " + implementation + ", which is not a rung of its family");
}

// Bytes of Q-shaped and K-shaped tensors per set, for rotating_sets.
double set_bytes(const Dims& x, int q_like, int k_like, int elem) {
  return (double(q_like) * double(x.b * x.n * x.h * x.d) + double(k_like) * double(x.b * x.nk * x.hkv * x.d)) * elem;
}

template <class T>
class AttentionCase final : public Case {
 public:
  AttentionCase(Version v, const Shape& s, const CaseOptions& opts)
      : v_(v), x_(dims(s)), sets_(rotating_sets(set_bytes(x_, 2, 2, sizeof(T)), opts)), io_(x_, sets_) {
    if (v_ == Version::v01_standard) {  // one workspace for every set: S and P are scratch
      s_ = DeviceBuffer<float>(x_.b * x_.h * x_.n * x_.nk);
      p_ = DeviceBuffer<T>(x_.b * x_.h * x_.n * x_.nk);
    }
    if (v_ == Version::dispatch || v_ == Version::v06_split_kv_decode) {  // the entry's (or the splits') workspace
      workspace_bytes_ = v_ == Version::dispatch ? attention_forward_workspace_size(public_args(args(0)))
                                                 : decode_workspace_bound(decode_shape(args(0)));
      workspace_ = DeviceBuffer<float>(int64_t(workspace_bytes_ / sizeof(float)));
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int i = 0; i < sets_; ++i) io_.fill(i, set_seed(seed, i));
    seed0_ = set_seed(seed, 0);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override {
    io_.o.at(size_t(set)).poison();
    io_.lse.at(size_t(set)).poison();
  }

  void run(int set, void* stream) override {
    const AttnArgs<T> a = args(set);
    const auto st = static_cast<cudaStream_t>(stream);
    if (v_ == Version::dispatch) return attention_forward(public_args(a), workspace_.get(), workspace_bytes_, st);
    if (v_ == Version::v06_split_kv_decode)
      return decode_forward(decode_args(a, nullptr, sm_count(), workspace_.get()), st);
    if (v_ == Version::v01_standard) return standard_forward(a, s_.get(), p_.get(), st);
    if (wgmma(v_)) return flash_wgmma_forward(a, st, v_ == Version::v05_flash_wgmma_overlap);
    flash_forward(a, st, slices(v_));
  }

  LaunchInfo launch() const override {
    const AttnArgs<T> a = args(0);
    const Version v = v_ != Version::dispatch
                          ? v_
                          : rung_named<Version>(explain_attention_forward(public_args(a)).implementation,
                                                {{"v02_flash_mma", Version::v02_flash_mma},
                                                 {"v03_flash_mma_128", Version::v03_flash_mma_128},
                                                 {"v04_flash_wgmma", Version::v04_flash_wgmma},
                                                 {"v05_flash_wgmma_overlap", Version::v05_flash_wgmma_overlap},
                                                 {"v06_split_kv_decode", Version::v06_split_kv_decode}});
    if (v == Version::v06_split_kv_decode) return decode_plan(decode_args(a, nullptr, sm_count(), nullptr));
    if (wgmma(v)) return flash_wgmma_plan(a, v == Version::v05_flash_wgmma_overlap);
    return v == Version::v01_standard ? standard_plan(a) : flash_plan(a, slices(v));
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2;
    const std::vector<uint16_t> gotO = io_.o[0].template to_host<uint16_t>(0, io_.o[0].count());
    const std::vector<uint32_t> gotL = io_.lse[0].template to_host<uint32_t>(0, io_.lse[0].count());

    // Reference rows: (head index bi·h + hi, row i) pairs; per head K and V decoded once.
    struct Row {
      int64_t bh, i;
    };
    std::vector<Row> rows;
    std::vector<int64_t> heads = pick(x_.b * x_.h, kMaxSampledHeads, seed0_ ^ 0x4EAD);
    for (int64_t bh : heads)
      for (int64_t i : pick(x_.n, kMaxSampledRows, seed0_ ^ uint64_t(bh)))
        rows.push_back({bh, i});
    std::vector<std::vector<double>> kh(heads.size()), vh(heads.size());
    for (size_t hix = 0; hix < heads.size(); ++hix) {
      const int64_t bi = heads[hix] / x_.h, hk = (heads[hix] % x_.h) / (x_.h / x_.hkv);
      kh[hix] = decode_head<T>(hash64(seed0_, 'K'), bi, hk, x_.nk, x_.hkv, x_.d);
      vh[hix] = decode_head<T>(hash64(seed0_, 'V'), bi, hk, x_.nk, x_.hkv, x_.d);
    }
    const ref::AttentionHead head = ref_head(x_);
    std::vector<double> refO(rows.size() * size_t(x_.d)), refL(rows.size());
    parallel_chunks(
        int64_t(rows.size()),
        [&](int64_t begin, int64_t end, int) {
          std::vector<double> q(static_cast<size_t>(x_.d));
          for (int64_t r = begin; r < end; ++r) {
            const Row& row = rows[size_t(r)];
            const size_t hix = size_t(std::lower_bound(heads.begin(), heads.end(), row.bh) - heads.begin());
            const int64_t bi = row.bh / x_.h, hi = row.bh % x_.h;
            for (int64_t c = 0; c < x_.d; ++c)
              q[size_t(c)] = Half<T>::value(hash64(seed0_, 'Q'), ((bi * x_.n + row.i) * x_.h + hi) * x_.d + c);
            refL[size_t(r)] = ref::attention_row(head, row.i, q.data(), kh[hix].data(), vh[hix].data(),
                                                   refO.data() + r * x_.d);
          }
        },
        std::min<int>(int(rows.size()), host_chunks(int64_t(rows.size()) * x_.nk * x_.d / 16)));

    CheckResult o = compare(int64_t(refO.size()), tol, [&](int64_t e) {
      const Row& row = rows[size_t(e / x_.d)];
      const int64_t bi = row.bh / x_.h, hi = row.bh % x_.h;
      const uint16_t bits = gotO[size_t(((bi * x_.n + row.i) * x_.h + hi) * x_.d + e % x_.d)];
      return Sample{Half<T>::decode(bits), refO[size_t(e)], is_poison(bits)};
    });
    CheckResult l = compare(int64_t(refL.size()), tol, [&](int64_t r) {
      const uint32_t bits = gotL[size_t(rows[size_t(r)].bh * x_.n + rows[size_t(r)].i)];
      double have = decode_f32(bits), want = refL[size_t(r)];
      if (want == kNegInf && have == kNegInf) have = want = 0;  // no visible key: L = −∞ on both sides
      return Sample{have, want, is_poison(bits)};
    });
    CheckResult out = o;
    merge(out, l, "logsumexp");
    require_written(out, gotO, "O");  // anywhere, not only in the sampled rows
    require_written(out, gotL, "L");
    return out;
  }

 private:
  AttnArgs<T> args(int set) const { return io_.args(set); }
  static int slices(Version v) { return v == Version::v03_flash_mma_128 ? 2 : 1; }  // 64-row slices per CTA
  static bool wgmma(Version v) { return v == Version::v04_flash_wgmma || v == Version::v05_flash_wgmma_overlap; }

  Version v_;
  Dims x_;
  int sets_ = 1;
  ForwardSets<T> io_;
  DeviceBuffer<float> s_;
  DeviceBuffer<T> p_;
  DeviceBuffer<float> workspace_;  // dispatch and v06 only
  size_t workspace_bytes_ = 0;
  uint64_t seed0_ = 0;
  bool randomized_ = false;
};

// attention_bwd: inputs Q, K, V, dO hashed; O and L from the sol forward (v02) on each set.
// The reference takes the device's O and L as given (the backward's inputs) and recomputes every
// sampled gradient row in double: dQ rows of sampled query heads, dK and dV rows of sampled K/V
// heads summed over their query-head group.
template <class T>
class AttentionBwdCase final : public Case {
 public:
  AttentionBwdCase(BwdVersion v, const Shape& s, const CaseOptions& opts)
      : v_(v), x_(dims(s)), det_(s.get("det", 0) != 0), sets_(rotating_sets(set_bytes(x_, 5, 4, sizeof(T)), opts)), fwd_(x_, sets_) {
    const int64_t nq = x_.b * x_.n * x_.h * x_.d, nkv = x_.b * x_.nk * x_.hkv * x_.d;
    for (int i = 0; i < sets_; ++i) {
      dout_.emplace_back(nq);
      dq_.emplace_back(nq);
      dk_.emplace_back(nkv);
      dv_.emplace_back(nkv);
    }
    dq_accum_ = DeviceBuffer<float>(nq);
    delta_ = DeviceBuffer<float>(x_.b * x_.h * x_.n);
    if (v_ == BwdVersion::dispatch) {  // the entry's one workspace (dq_accum, delta)
      workspace_bytes_ = attention_backward_workspace_size(public_args(args(0)));
      workspace_ = DeviceBuffer<float>(int64_t(workspace_bytes_ / sizeof(float)));
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int i = 0; i < sets_; ++i) {
      fwd_.fill(i, set_seed(seed, i));
      Half<T>::fill(dout_[size_t(i)].get(), dout_[size_t(i)].count(), hash64(set_seed(seed, i), 'G'));
      // O and L of the forward: v02's, or, with a window or softcap, v05's (the rungs with them, as
      // the backward rungs with them, are sm_90a).
      if (x_.windowed()) flash_wgmma_forward(fwd_.args(i), nullptr, true);
      else flash_forward(fwd_.args(i), nullptr);
    }
    seed0_ = set_seed(seed, 0);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override {
    dq_.at(size_t(set)).poison();
    dk_.at(size_t(set)).poison();
    dv_.at(size_t(set)).poison();
  }

  void run(int set, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    if (v_ == BwdVersion::dispatch) return attention_backward(public_args(args(set)), workspace_.get(), workspace_bytes_, st);
    if (v_ == BwdVersion::v02_flash_bwd_8warp) return flash_backward_v02(args(set), st);
    if (warpgroups(v_) > 0) return flash_backward_wgmma(args(set), st, warpgroups(v_));
    flash_backward(args(set), st);
  }

  LaunchInfo launch() const override {
    const BwdVersion v = v_ != BwdVersion::dispatch
                             ? v_
                             : rung_named<BwdVersion>(explain_attention_backward(public_args(args(0))).implementation,
                                                      {{"v01_flash_bwd", BwdVersion::v01_flash_bwd},
                                                       {"v02_flash_bwd_8warp", BwdVersion::v02_flash_bwd_8warp},
                                                       {"v03_flash_bwd_wgmma", BwdVersion::v03_flash_bwd_wgmma},
                                                       {"v04_flash_bwd_2wg", BwdVersion::v04_flash_bwd_2wg}});
    if (warpgroups(v) > 0) return flash_backward_wgmma_plan(args(0), warpgroups(v));
    return v == BwdVersion::v02_flash_bwd_8warp ? flash_backward_v02_plan(args(0)) : flash_backward_plan(args(0));
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2;
    const std::vector<uint16_t> gotO = fwd_.o[0].template to_host<uint16_t>(0, fwd_.o[0].count());
    const std::vector<uint32_t> lbits = fwd_.lse[0].template to_host<uint32_t>(0, fwd_.lse[0].count());
    const std::vector<uint16_t> gotDQ = dq_[0].template to_host<uint16_t>(0, dq_[0].count());
    const std::vector<uint16_t> gotDK = dk_[0].template to_host<uint16_t>(0, dk_[0].count());
    const std::vector<uint16_t> gotDV = dv_[0].template to_host<uint16_t>(0, dv_[0].count());
    std::vector<double> lse(lbits.size());
    for (size_t i = 0; i < lbits.size(); ++i) lse[i] = decode_f32(lbits[i]);
    const ref::AttentionHead head = ref_head(x_);
    const int64_t d = x_.d, group = x_.h / x_.hkv;
    const uint64_t sq = hash64(seed0_, 'Q'), sk = hash64(seed0_, 'K'), sv = hash64(seed0_, 'V'), sg = hash64(seed0_, 'G');

    // dQ: sampled rows of sampled query heads.
    struct Row {
      int64_t head, r;  // head: bi·h + hi (dQ) or bi·hkv + hk (dK, dV); r: query or key row
    };
    std::vector<Row> qrows;
    for (int64_t bh : pick(x_.b * x_.h, kMaxSampledHeads, seed0_ ^ 0xD0))
      for (int64_t i : pick(x_.n, kMaxSampledRows / 2, seed0_ ^ uint64_t(bh))) qrows.push_back({bh, i});
    std::vector<double> refDQ(qrows.size() * size_t(d));
    parallel_chunks(
        int64_t(qrows.size()),
        [&](int64_t begin, int64_t end, int) {
          int64_t cached = -1;
          std::vector<double> kh, vh;
          for (int64_t r = begin; r < end; ++r) {
            const Row& row = qrows[size_t(r)];
            const int64_t bi = row.head / x_.h, hi = row.head % x_.h;
            if (row.head != cached) {
              kh = decode_head<T>(sk, bi, hi / group, x_.nk, x_.hkv, d);
              vh = decode_head<T>(sv, bi, hi / group, x_.nk, x_.hkv, d);
              cached = row.head;
            }
            std::vector<double> q(static_cast<size_t>(d)), g(q.size()), o(q.size());
            for (int64_t c = 0; c < d; ++c) {
              const int64_t at = ((bi * x_.n + row.r) * x_.h + hi) * d + c;
              q[size_t(c)] = Half<T>::value(sq, at);
              g[size_t(c)] = Half<T>::value(sg, at);
              o[size_t(c)] = Half<T>::decode(gotO[size_t(at)]);
            }
            ref::attention_backward_query(head, row.r, q.data(), kh.data(), vh.data(), o.data(),
                                            lse[size_t(row.head * x_.n + row.r)], g.data(), refDQ.data() + r * d);
          }
        },
        std::min<int>(int(qrows.size()), host_chunks(int64_t(qrows.size()) * x_.nk * d / 16)));
    CheckResult out;
    out.ok = true;
    merge(out, compare(int64_t(refDQ.size()), tol, [&](int64_t e) {
      const Row& row = qrows[size_t(e / d)];
      const uint16_t bits = gotDQ[size_t(((row.head / x_.h * x_.n + row.r) * x_.h + row.head % x_.h) * d + e % d)];
      return Sample{Half<T>::decode(bits), refDQ[size_t(e)], is_poison(bits)};
    }), "dQ");

    // dK, dV: sampled key rows of sampled K/V heads, each summed over the group's query heads.
    std::vector<Row> krows;
    const std::vector<int64_t> kvheads = pick(x_.b * x_.hkv, kMaxSampledHeads, seed0_ ^ 0xD1);
    for (int64_t bk : kvheads)
      for (int64_t j : pick(x_.nk, kMaxSampledRows / 2, seed0_ ^ uint64_t(bk) ^ 0x77)) krows.push_back({bk, j});
    std::vector<double> refDK(krows.size() * size_t(d), 0.0), refDV(refDK.size(), 0.0);
    for (int64_t bk : kvheads) {
      const int64_t bi = bk / x_.hkv, hk = bk % x_.hkv;
      const std::vector<double> kh = decode_head<T>(sk, bi, hk, x_.nk, x_.hkv, d);
      const std::vector<double> vh = decode_head<T>(sv, bi, hk, x_.nk, x_.hkv, d);
      for (int64_t hq = hk * group; hq < (hk + 1) * group; ++hq) {
        const std::vector<double> qh = decode_head<T>(sq, bi, hq, x_.n, x_.h, d);
        const std::vector<double> gh = decode_head<T>(sg, bi, hq, x_.n, x_.h, d);
        const std::vector<double> oh = decode_head<T>(gotO, bi, hq, x_.n, x_.h, d);
        const double* lh = lse.data() + (bi * x_.h + hq) * x_.n;
        parallel_chunks(
            int64_t(krows.size()),
            [&](int64_t begin, int64_t end, int) {
              for (int64_t r = begin; r < end; ++r) {
                const Row& row = krows[size_t(r)];
                if (row.head != bk) continue;
                ref::attention_backward_key(head, row.r, qh.data(), kh.data() + row.r * d, vh.data() + row.r * d,
                                              oh.data(), lh, gh.data(), refDK.data() + r * d, refDV.data() + r * d);
              }
            },
            std::min<int>(int(krows.size()), host_chunks(int64_t(krows.size()) * x_.n * d / 16)));
      }
    }
    for (int which = 0; which < 2; ++which) {
      const std::vector<uint16_t>& got = which == 0 ? gotDK : gotDV;
      const std::vector<double>& ref = which == 0 ? refDK : refDV;
      merge(out, compare(int64_t(ref.size()), tol, [&](int64_t e) {
              const Row& row = krows[size_t(e / d)];
              const uint16_t bits = got[size_t(((row.head / x_.hkv * x_.nk + row.r) * x_.hkv + row.head % x_.hkv) * d + e % d)];
              return Sample{Half<T>::decode(bits), ref[size_t(e)], is_poison(bits)};
            }), which == 0 ? "dK" : "dV");
    }
    require_written(out, gotDQ, "dQ");
    require_written(out, gotDK, "dK");
    require_written(out, gotDV, "dV");
    if (det_) {  // every bit of dQ, dK, dV, in order: det=1 promises the same ones every run
      uint64_t digest = 0x6A09E667F3BCC908ull;
      for (const std::vector<uint16_t>* g : {&gotDQ, &gotDK, &gotDV})
        for (size_t e = 0; e < g->size(); ++e) digest = hash64(digest, (uint64_t(e) << 16) | (*g)[e]);
      out.output_digest = digest | 1;  // never 0 ("no digest")
    }
    return out;
  }

 private:
  // The Hopper rungs' consumer warpgroups per CTA (v03 one, v04 two); 0 for the others.
  static int warpgroups(BwdVersion v) {
    return v == BwdVersion::v03_flash_bwd_wgmma ? 1 : v == BwdVersion::v04_flash_bwd_2wg ? 2 : 0;
  }
  // The public API's arguments for set `set`'s tensors.
  static AttentionBackwardArgs public_args(const AttnBwdArgs<T>& a) {
    AttentionBackwardArgs p;
    p.fwd = attention::public_args(a.f);
    p.dout = a.dout;
    p.dq = a.dq;
    p.dk = a.dk;
    p.dv = a.dv;
    p.deterministic = a.deterministic;
    return p;
  }
  AttnBwdArgs<T> args(int set) const {
    AttnBwdArgs<T> a;
    a.f = fwd_.args(set);
    a.dout = dout_.at(size_t(set)).get();
    a.dq = dq_.at(size_t(set)).get();
    a.dk = dk_.at(size_t(set)).get();
    a.dv = dv_.at(size_t(set)).get();
    a.dq_accum = dq_accum_.get();
    a.delta = delta_.get();
    a.deterministic = det_;
    return a;
  }

  BwdVersion v_;
  Dims x_;
  bool det_;
  int sets_ = 1;
  ForwardSets<T> fwd_;
  std::vector<DeviceBuffer<T>> dout_, dq_, dk_, dv_;
  DeviceBuffer<float> dq_accum_, delta_;
  DeviceBuffer<float> workspace_;  // dispatch only
  size_t workspace_bytes_ = 0;
  uint64_t seed0_ = 0;
  bool randomized_ = false;
};

// S (fp32) and P (2 bytes) per score: the standard version's workspace, bounded by this.
constexpr int64_t kMaxStandardWorkspace = int64_t(64) << 30;

}  // namespace

namespace {

// Shape rules of both families; attention_bwd also takes det (0/1).
std::string shape_problem(const Shape& s, bool backward) {
  std::vector<DimRule> rules = {{"b", 1, 65535},        {"h", 1, 65535},         {"hkv", 1, 65535, false},
                                {"n", 1, int64_t(1) << 24}, {"nk", 1, int64_t(1) << 24, false},
                                {"d", 64, 128},         {"causal", 0, 1, false}, {"fp16", 0, 1, false},
                                {"wl", 0, int64_t(1) << 24, false}, {"wr", 0, int64_t(1) << 24, false},
                                {"softcap", 1, 1000, false}};
  if (backward) rules.push_back({"det", 0, 1, false});
  if (std::string why = check_dims(s, rules); !why.empty()) return why;
  if (s.get("causal", 0) && s.get("wr", 0) > 0) return "causal=1 is wr=0: causal with wr=" + std::to_string(s.at("wr")) + " contradicts it";
  return {};
}

// The rungs with a Windowed form (forward.cuh's Scores): the wgmma ones and the decode kernel.
std::string window_problem(const Dims& x, bool has_windowed_form) {
  if (!x.windowed() || has_windowed_form) return {};
  return "a sliding window (wl, wr) or softcap is built into the wgmma rungs (forward v04, v05; backward v04) "
         "and the decode kernel (v06) only";
}

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  if (std::string why = shape_problem(s, false); !why.empty()) return why;
  const Dims x = dims(s);
  if (v == Version::v06_split_kv_decode && x.n > kDecodeMaxQueries)
    return "n=" + std::to_string(x.n) + ": the split-KV decode kernel serves 1 to " + std::to_string(kDecodeMaxQueries) +
           " query tokens (the prefill rungs serve longer query blocks)";
  if (x.d != 64 && x.d != 128) return "d=" + std::to_string(x.d) + " is not built: use d=64 or d=128";
  if (x.h % x.hkv != 0) return "hkv=" + std::to_string(x.hkv) + " must divide h=" + std::to_string(x.h);
  if (x.b * x.h > 65535) return "b·h = " + std::to_string(x.b * x.h) + " exceeds 65535 (one grid dimension)";
  if (product_or_minus1({x.b, x.h, x.n, x.d, 2}, int64_t(1) << 40) < 0 ||
      product_or_minus1({x.b, x.hkv, x.nk, x.d, 2}, int64_t(1) << 40) < 0)
    return "Q, K or V would exceed 1 TiB";
  if (std::string why = window_problem(x, v == Version::v04_flash_wgmma || v == Version::v05_flash_wgmma_overlap ||
                                              v == Version::v06_split_kv_decode || v == Version::dispatch);
      !why.empty())
    return why;
  if (v == Version::v01_standard) {
    if (x.n > (int64_t(1) << 20)) return "n > 2^20: the standard kernels' grid.y (n/16) would exceed 65535";
    const int64_t ws = product_or_minus1({x.b, x.h, x.n, x.nk, 6}, int64_t(1) << 62);
    if (ws < 0 || ws > kMaxStandardWorkspace)
      return "standard attention materializes S and P (6 bytes per score): b·h·n·nk·6 exceeds 64 GiB";
  }
  return {};
}

Tolerance tolerance(Version v) {
  if (v == Version::v01_standard)
    return {1e-2, "O in bf16/fp16 from P rounded to bf16/fp16 (2^-9 per element) and summed in fp32; "
                  "L in fp32; reference in double on sampled rows (expected ≈ 3e-3 in bf16)"};
  return {1e-2, "O in bf16/fp16 from P rounded to bf16/fp16 before P·V (as FlashAttention does) with fp32 "
                "accumulation; L in fp32 via exp2; reference in double on sampled rows (expected ≈ 3e-3 in bf16)"};
}

std::unique_ptr<Case> make(Version v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input("attention: " + why);
  if (s.get("fp16", 0)) return std::make_unique<AttentionCase<__half>>(v, s, opts);
  return std::make_unique<AttentionCase<__nv_bfloat16>>(v, s, opts);
}

std::string unsupported(BwdVersion v, const Shape& s) {
  if (std::string why = shape_problem(s, true); !why.empty()) return why;
  if (std::string why = window_problem(dims(s), v == BwdVersion::v04_flash_bwd_2wg || v == BwdVersion::dispatch);
      !why.empty())
    return why;
  Shape forward = s;  // the forward's own rules for the rest (the window's checked above)
  std::erase_if(forward.dims, [](const auto& kv) { return kv.first == "det" || kv.first == "wl" || kv.first == "wr" || kv.first == "softcap"; });
  return unsupported(Version::v02_flash_mma, forward);
}

Tolerance tolerance(BwdVersion) {
  return {3e-2, "gradients in bf16/fp16: P and dS = P∘(dP − D) are rounded to 16 bits before their GEMMs and dS "
                "subtracts nearly equal terms (dP − D), so errors are relatively larger than the forward's; "
                "dQ summed in fp32 atomics; reference in double from the device's O and L on sampled rows"};
}

std::unique_ptr<Case> make(BwdVersion v, const Shape& s, const CaseOptions& opts) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input("attention_bwd: " + why);
  if (s.get("fp16", 0)) return std::make_unique<AttentionBwdCase<__half>>(v, s, opts);
  return std::make_unique<AttentionBwdCase<__nv_bfloat16>>(v, s, opts);
}

}  // namespace sol::kernels::attention

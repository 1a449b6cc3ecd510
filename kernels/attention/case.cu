// Registry wrapper for the attention forward: one Case per element type (bf16, fp16). Inputs
// are hashed values (kernels/common/random.cuh), so the host rebuilds any Q/K/V row in double
// without copying it back. The reference (sol::model::attention_row, double) runs on sampled
// rows of sampled heads — all of them at small shapes — while O and L are scanned whole for
// unwritten (poisoned) and non-finite entries.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/attention/case.hpp"
#include "kernels/attention/forward.cuh"
#include "kernels/common/buffer.cuh"
#include "kernels/common/compare.cuh"
#include "kernels/common/elem.cuh"
#include "kernels/common/variant.cuh"
#include "sol/model/attention_ref.hpp"

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
double decode_f16(uint16_t b) {
  const int e = (b >> 10) & 0x1F, m = b & 0x3FF;
  const double mag = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
  return (b >> 15) ? -mag : mag;
}

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
};

Dims dims(const Shape& s) {
  const int64_t h = s.at("h");
  return {s.at("b"), h, s.get("hkv", h), s.at("n"), s.get("nk", s.at("n")), s.at("d"), s.get("causal", 0) != 0};
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

template <class T>
class AttentionCase final : public Case {
 public:
  AttentionCase(Version v, const Shape& s) : v_(v), x_(dims(s)) {
    const int64_t nq = x_.b * x_.n * x_.h * x_.d, nkv = x_.b * x_.nk * x_.hkv * x_.d;
    sets_ = rotating_sets(double(2 * nq + 2 * nkv) * sizeof(T));
    for (int i = 0; i < sets_; ++i) {
      q_.emplace_back(nq);
      k_.emplace_back(nkv);
      v_buf_.emplace_back(nkv);
      o_.emplace_back(nq);
      lse_.emplace_back(x_.b * x_.h * x_.n);
    }
    if (v_ == Version::v01_standard) {  // one workspace for every set: S and P are scratch
      s_ = DeviceBuffer<float>(x_.b * x_.h * x_.n * x_.nk);
      p_ = DeviceBuffer<T>(x_.b * x_.h * x_.n * x_.nk);
    }
  }

  int sets() const override { return sets_; }

  void randomize(uint64_t seed) override {
    for (int i = 0; i < sets_; ++i) {
      const uint64_t ss = set_seed(seed, i);
      Half<T>::fill(q_[size_t(i)].get(), q_[size_t(i)].count(), hash64(ss, 'Q'));
      Half<T>::fill(k_[size_t(i)].get(), k_[size_t(i)].count(), hash64(ss, 'K'));
      Half<T>::fill(v_buf_[size_t(i)].get(), v_buf_[size_t(i)].count(), hash64(ss, 'V'));
    }
    seed0_ = set_seed(seed, 0);
    SOL_CUDA_CHECK(cudaDeviceSynchronize());
    randomized_ = true;
  }

  void poison(int set) override {
    o_.at(size_t(set)).poison();
    lse_.at(size_t(set)).poison();
  }

  void run(int set, void* stream) override {
    const AttnArgs<T> a = args(set);
    const auto st = static_cast<cudaStream_t>(stream);
    if (v_ == Version::v01_standard) return standard_forward(a, s_.get(), p_.get(), st);
    flash_forward(a, st);
  }

  LaunchInfo launch() const override {
    const AttnArgs<T> a = args(0);
    return launch_info(v_ == Version::v01_standard ? standard_plan(a) : flash_plan(a));
  }

  CheckResult check() override {
    if (!randomized_) failure("check() called before randomize()", "randomize the inputs first");
    const double tol = tolerance(v_).rel_l2;
    const int64_t no = o_[0].count(), nl = lse_[0].count();
    const std::vector<uint16_t> gotO = o_[0].template to_host<uint16_t>(0, no);
    const std::vector<uint32_t> gotL = lse_[0].template to_host<uint32_t>(0, nl);

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
      kh[hix].resize(size_t(x_.nk * x_.d));
      vh[hix].resize(size_t(x_.nk * x_.d));
      for (int64_t j = 0; j < x_.nk; ++j)
        for (int64_t c = 0; c < x_.d; ++c) {
          const int64_t at = ((bi * x_.nk + j) * x_.hkv + hk) * x_.d + c;
          kh[hix][size_t(j * x_.d + c)] = Half<T>::value(hash64(seed0_, 'K'), at);
          vh[hix][size_t(j * x_.d + c)] = Half<T>::value(hash64(seed0_, 'V'), at);
        }
    }
    const model::AttentionHead head{x_.n, x_.nk, x_.d, x_.causal, 1.0 / std::sqrt(double(x_.d))};
    std::vector<double> refO(rows.size() * size_t(x_.d)), refL(rows.size());
    parallel_chunks(
        int64_t(rows.size()),
        [&](int64_t begin, int64_t end, int) {
          std::vector<double> q(size_t(x_.d));
          for (int64_t r = begin; r < end; ++r) {
            const Row& row = rows[size_t(r)];
            const size_t hix = size_t(std::lower_bound(heads.begin(), heads.end(), row.bh) - heads.begin());
            const int64_t bi = row.bh / x_.h, hi = row.bh % x_.h;
            for (int64_t c = 0; c < x_.d; ++c)
              q[size_t(c)] = Half<T>::value(hash64(seed0_, 'Q'), ((bi * x_.n + row.i) * x_.h + hi) * x_.d + c);
            refL[size_t(r)] = model::attention_row(head, row.i, q.data(), kh[hix].data(), vh[hix].data(),
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
    // Unwritten anywhere (not only in the sampled rows).
    const int64_t unwrittenO = std::count_if(gotO.begin(), gotO.end(), [](uint16_t b) { return is_poison(b); });
    const int64_t unwrittenL = std::count_if(gotL.begin(), gotL.end(), [](uint32_t b) { return is_poison(b); });

    CheckResult out = o;
    out.ok = o.ok && l.ok && unwrittenO == 0 && unwrittenL == 0;
    out.rel_l2 = std::max(o.rel_l2, l.rel_l2);
    out.unwritten = unwrittenO + unwrittenL;
    out.nonfinite += l.nonfinite;
    if (!l.ok) out.detail += (out.detail.empty() ? "" : "; ") + std::string("logsumexp: ") + l.detail;
    if (unwrittenO || unwrittenL)
      out.detail += (out.detail.empty() ? "" : "; ") + std::to_string(unwrittenO) + " O and " +
                    std::to_string(unwrittenL) + " L element(s) unwritten over the whole output";
    return out;
  }

 private:
  AttnArgs<T> args(int set) const {
    AttnArgs<T> a;
    a.q = q_.at(size_t(set)).get();
    a.k = k_.at(size_t(set)).get();
    a.v = v_buf_.at(size_t(set)).get();
    a.o = o_.at(size_t(set)).get();
    a.lse = lse_.at(size_t(set)).get();
    a.b = x_.b;
    a.h = x_.h;
    a.hkv = x_.hkv;
    a.n = x_.n;
    a.nk = x_.nk;
    a.d = int(x_.d);
    a.causal = x_.causal;
    a.scale = float(1.0 / std::sqrt(double(x_.d)));
    return a;
  }

  Version v_;
  Dims x_;
  int sets_ = 1;
  std::vector<DeviceBuffer<T>> q_, k_, v_buf_, o_;
  std::vector<DeviceBuffer<float>> lse_;
  DeviceBuffer<float> s_;
  DeviceBuffer<T> p_;
  uint64_t seed0_ = 0;
  bool randomized_ = false;
};

// S (fp32) and P (2 bytes) per score: the standard version's workspace, bounded by this.
constexpr int64_t kMaxStandardWorkspace = int64_t(64) << 30;

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  const std::vector<DimRule> rules = {{"b", 1, 65535},        {"h", 1, 65535},         {"hkv", 1, 65535, false},
                                      {"n", 1, int64_t(1) << 24}, {"nk", 1, int64_t(1) << 24, false},
                                      {"d", 64, 128},         {"causal", 0, 1, false}, {"fp16", 0, 1, false}};
  if (std::string why = check_dims(s, rules); !why.empty()) return why;
  const Dims x = dims(s);
  if (x.d != 64 && x.d != 128) return "d=" + std::to_string(x.d) + " is not built: use d=64 or d=128";
  if (x.h % x.hkv != 0) return "hkv=" + std::to_string(x.hkv) + " must divide h=" + std::to_string(x.h);
  if (x.b * x.h > 65535) return "b·h = " + std::to_string(x.b * x.h) + " exceeds 65535 (one grid dimension)";
  if (product_or_minus1({x.b, x.h, x.n, x.d, 2}, int64_t(1) << 40) < 0 ||
      product_or_minus1({x.b, x.hkv, x.nk, x.d, 2}, int64_t(1) << 40) < 0)
    return "Q, K or V would exceed 1 TiB";
  if (v == Version::v01_standard) {
    const int64_t ws = product_or_minus1({x.b, x.h, x.n, x.nk, 6}, int64_t(1) << 62);
    if (ws < 0 || ws > kMaxStandardWorkspace)
      return "standard attention materializes S and P (6 bytes per score): b·h·n·nk·6 exceeds 64 GiB";
  }
  return {};
}

model::Cost cost(Version v, const Shape& s) {
  const Dims x = dims(s);
  model::AttentionOp op;
  op.batch = x.b;
  op.heads = x.h;
  op.seq = x.n;
  op.head_dim = x.d;
  op.flash = v != Version::v01_standard;
  op.block_q = 64;
  op.causal = x.causal;
  op.dtype = s.get("fp16", 0) ? DType::f16 : DType::bf16;
  model::Cost c = model::attention(op);
  if (x.nk != x.n) {
    c.flops *= double(x.nk) / double(x.n);
    c.notes.push_back("nk ≠ n: FLOPs scaled by nk/n (4·b·h·n·nk·d, halved when causal); bytes counted as for nk = n");
  }
  if (x.hkv != x.h) c.notes.push_back("grouped-query attention: K and V bytes counted as if hkv = h (an upper bound)");
  return c;
}

Tolerance tolerance(Version v) {
  if (v == Version::v01_standard)
    return {1e-2, "O in bf16/fp16 from P rounded to bf16/fp16 (2^-9 per element) and summed in fp32; "
                  "L in fp32; reference in double on sampled rows (expected ≈ 3e-3 in bf16)"};
  return {1e-2, "O in bf16/fp16 from P rounded to bf16/fp16 before P·V (as FlashAttention does) with fp32 "
                "accumulation; L in fp32 via exp2; reference in double on sampled rows (expected ≈ 3e-3 in bf16)"};
}

std::unique_ptr<Case> make(Version v, const Shape& s) {
  if (std::string why = unsupported(v, s); !why.empty()) bad_input("attention: " + why);
  if (s.get("fp16", 0)) return std::make_unique<AttentionCase<__half>>(v, s);
  return std::make_unique<AttentionCase<__nv_bfloat16>>(v, s);
}

}  // namespace sol::kernels::attention

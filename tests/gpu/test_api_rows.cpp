// The row operations of the public API (include/sol/kernels.hpp): LayerNorm, RMSNorm and softmax,
// forward and backward, in fp32, bf16 and fp16, against double-precision references computed here
// from the same rounded inputs — odd, prime and tiny shapes, padded pitches (the padding must stay
// untouched), γ/β absent, eps other than the default, vocabulary-sized softmax rows. The argument
// checks and the forward dispatcher's choice need no GPU: they throw or decide before any CUDA call.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/api/choice.hpp"
#include "sol/formats/scalar.hpp"
#include "sol/kernels.hpp"
#include "sol/model/model_shapes.hpp"
#include "tests/gpu/api_test_util.hpp"
#include "tests/gpu/dtype_host.hpp"

using namespace sol;
using namespace sol::test;

namespace {

constexpr double kPad = 7.25;  // what the padding of every pitched tensor holds (exact in each dtype)

// A rows × cols matrix of dtype d with row pitch ld (≥ cols) on the host and the device.
class Matrix {
 public:
  Matrix(DType d, int64_t rows, int64_t cols, int64_t ld) : d_(d), rows_(rows), cols_(cols), ld_(ld) {
    host_.assign(size_t(rows * ld * bytes_of(d)), 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < ld; ++c) set(r, c, kPad);
    EXPECT_EQ(cudaMalloc(&dev_, host_.size()), cudaSuccess);
  }
  ~Matrix() { cudaFree(dev_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;

  void set(int64_t r, int64_t c, double v) { store(d_, &host_[size_t((r * ld_ + c) * bytes_of(d_))], v); }
  double at(int64_t r, int64_t c) const { return load(d_, &host_[size_t((r * ld_ + c) * bytes_of(d_))]); }
  // Random values (scaled), rounded to d.
  void fill(uint64_t seed, double scale = 2.0) {
    Lcg g{seed};
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = 0; c < cols_; ++c) set(r, c, g.next() * scale);
  }
  void upload() { EXPECT_EQ(cudaMemcpy(dev_, host_.data(), host_.size(), cudaMemcpyHostToDevice), cudaSuccess); }
  void download() { EXPECT_EQ(cudaMemcpy(host_.data(), dev_, host_.size(), cudaMemcpyDeviceToHost), cudaSuccess); }
  // Every padding element still holds kPad.
  bool padding_intact() const {
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = cols_; c < ld_; ++c)
        if (at(r, c) != kPad) return false;
    return true;
  }
  void* dev() const { return dev_; }
  int64_t ld() const { return ld_; }

 private:
  DType d_;
  int64_t rows_, cols_, ld_;
  std::vector<unsigned char> host_;
  void* dev_ = nullptr;
};

class Floats {
 public:
  explicit Floats(int64_t n) : host_(size_t(n), -12345.f) { EXPECT_EQ(cudaMalloc(&dev_, size_t(n) * 4), cudaSuccess); }
  ~Floats() { cudaFree(dev_); }
  Floats(const Floats&) = delete;
  Floats& operator=(const Floats&) = delete;
  void upload() { EXPECT_EQ(cudaMemcpy(dev_, host_.data(), host_.size() * 4, cudaMemcpyHostToDevice), cudaSuccess); }
  void download() { EXPECT_EQ(cudaMemcpy(host_.data(), dev_, host_.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess); }
  float* dev() const { return static_cast<float*>(dev_); }
  std::vector<float> host_;

 private:
  void* dev_ = nullptr;
};

// ‖got − want‖ / max(‖want‖, floor), accumulated element by element. The references are rounded
// to the dtype first: fp16 softmax probabilities over 10^5 columns are subnormal, where the
// storage alone would be percent-level off the unrounded value.
struct RelL2 {
  double err2 = 0, ref2 = 0, floor2 = 0;
  bool finite = true;
  void add(double got, double want, double term = 0) {
    if (!std::isfinite(got)) finite = false;
    err2 += (got - want) * (got - want);
    ref2 += want * want;
    floor2 += term * term;
  }
  double value() const { return std::sqrt(err2) / std::max(std::sqrt(std::max(ref2, floor2)), 1e-30); }
};

// Output rounding of each dtype, with headroom for fp32 sums of long rows.
double tol(DType d) { return d == DType::f32 ? 2e-5 : d == DType::bf16 ? 4e-3 : 1e-3; }

enum class Op { LayerNorm, RMSNorm, Softmax };
const char* op_name(Op o) { return o == Op::LayerNorm ? "layernorm" : o == Op::RMSNorm ? "rmsnorm" : "softmax"; }

struct Problem {
  Op op;
  DType dtype;
  int64_t rows, cols;
  int64_t pad_x = 0, pad_y = 0, pad_dy = 0;  // extra elements per row (pitch = cols + pad)
  bool affine = true;                         // γ (and β) given
  float eps = 1e-5f;
  double scale = 2.0;  // input magnitude
  bool grads = true;   // dγ (and dβ) asked for
  std::string str() const {
    return std::string(op_name(op)) + " " + dtype_name(dtype) + " " + std::to_string(rows) + "×" + std::to_string(cols) +
           " pads " + std::to_string(pad_x) + "/" + std::to_string(pad_y) + "/" + std::to_string(pad_dy) +
           (affine ? "" : " no γ/β") + " eps " + std::to_string(eps);
  }
};

// Per-row reference statistics in double: (mean, rstd) for LayerNorm, (0, rstd) for RMSNorm,
// (max, Σexp) for softmax.
struct Stat {
  double a = 0, b = 0;
};
Stat row_stat(const Problem& p, const Matrix& x, int64_t r) {
  Stat s;
  const double n = double(p.cols);
  if (p.op == Op::LayerNorm) {
    for (int64_t c = 0; c < p.cols; ++c) s.a += x.at(r, c);
    s.a /= n;
    double m2 = 0;
    for (int64_t c = 0; c < p.cols; ++c) m2 += (x.at(r, c) - s.a) * (x.at(r, c) - s.a);
    s.b = 1 / std::sqrt(m2 / n + double(p.eps));
  } else if (p.op == Op::RMSNorm) {
    double sq = 0;
    for (int64_t c = 0; c < p.cols; ++c) sq += x.at(r, c) * x.at(r, c);
    s.b = 1 / std::sqrt(sq / n + double(p.eps));
  } else {
    s.a = -INFINITY;
    for (int64_t c = 0; c < p.cols; ++c) s.a = std::max(s.a, x.at(r, c));
    for (int64_t c = 0; c < p.cols; ++c) s.b += std::exp(x.at(r, c) - s.a);
  }
  return s;
}

// ---- forward -------------------------------------------------------------------------------------
void check_forward(const Problem& p) {
  SCOPED_TRACE(p.str());
  Matrix x(p.dtype, p.rows, p.cols, p.cols + p.pad_x), y(p.dtype, p.rows, p.cols, p.cols + p.pad_y);
  Matrix g(p.dtype, 1, p.cols, p.cols), b(p.dtype, 1, p.cols, p.cols);
  x.fill(0x1234 + uint64_t(p.rows * 7 + p.cols), p.scale);
  g.fill(0x77);
  b.fill(0x99);
  for (int64_t c = 0; c < p.cols; ++c) g.set(0, c, round_to(p.dtype, 1 + 0.5 * g.at(0, c)));
  x.upload();
  y.upload();
  g.upload();
  b.upload();
  Floats s0(p.rows), s1(p.rows);
  s0.upload();
  s1.upload();
  const void* gamma = p.affine ? g.dev() : nullptr;
  const void* beta = p.affine ? b.dev() : nullptr;
  Choice choice;
  // Pitches: some given as 0 (packed) where there is no padding, the others explicit.
  const int64_t ldx0 = p.pad_x ? x.ld() : 0, ldy0 = p.pad_y ? y.ld() : 0;
  if (p.op == Op::LayerNorm) {
    const LayerNormArgs a{.dtype = p.dtype, .rows = p.rows, .cols = p.cols, .x = x.dev(), .y = y.dev(), .ldx = ldx0,
                          .ldy = y.ld(), .gamma = gamma, .beta = beta, .eps = p.eps, .mean = s0.dev(), .rstd = s1.dev()};
    ASSERT_EQ(layernorm_forward_workspace_size(a), 0u);
    choice = explain_layernorm_forward(a);
    layernorm_forward(a, nullptr, 0, nullptr);
  } else if (p.op == Op::RMSNorm) {
    const RMSNormArgs a{.dtype = p.dtype, .rows = p.rows, .cols = p.cols, .x = x.dev(), .y = y.dev(), .ldx = x.ld(),
                        .ldy = ldy0, .gamma = gamma, .eps = p.eps, .rstd = s1.dev()};
    ASSERT_EQ(rmsnorm_forward_workspace_size(a), 0u);
    choice = explain_rmsnorm_forward(a);
    rmsnorm_forward(a, nullptr, 0, nullptr);
  } else {
    const SoftmaxArgs a{.dtype = p.dtype, .rows = p.rows, .cols = p.cols, .x = x.dev(), .y = y.dev(), .ldx = x.ld(),
                        .ldy = y.ld()};
    ASSERT_EQ(softmax_forward_workspace_size(a), 0u);
    choice = explain_softmax_forward(a);
    softmax_forward(a, nullptr, 0, nullptr);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_FALSE(choice.implementation.empty());
  EXPECT_FALSE(choice.reason.empty());
  EXPECT_GT(choice.predicted_s, 0);
  y.download();
  s0.download();
  s1.download();
  EXPECT_TRUE(y.padding_intact()) << "y's padding was written";
  RelL2 ey, es;
  for (int64_t r = 0; r < p.rows; ++r) {
    const Stat s = row_stat(p, x, r);
    for (int64_t c = 0; c < p.cols; ++c) {
      const double xv = x.at(r, c), gv = p.affine ? g.at(0, c) : 1, bv = p.affine ? b.at(0, c) : 0;
      const double want = p.op == Op::LayerNorm ? (xv - s.a) * s.b * gv + bv
                          : p.op == Op::RMSNorm ? xv * s.b * gv
                                                : std::exp(xv - s.a) / s.b;
      ey.add(y.at(r, c), round_to(p.dtype, want));
    }
    if (p.op == Op::LayerNorm) es.add(s0.host_[size_t(r)], s.a, p.scale);  // a mean near 0: floored by |x|
    if (p.op != Op::Softmax) es.add(s1.host_[size_t(r)], s.b);
  }
  EXPECT_TRUE(ey.finite);
  EXPECT_LE(ey.value(), tol(p.dtype)) << choice.implementation << ": " << choice.reason;
  if (p.op != Op::Softmax) {
    EXPECT_LE(es.value(), 2e-5) << "saved statistics";
  }
}

// ---- backward ------------------------------------------------------------------------------------
void check_backward(const Problem& p) {
  SCOPED_TRACE(p.str());
  const int64_t R = p.rows, C = p.cols;
  // a: x (norms) or y = softmax(x) (rounded to the dtype); dy; dx.
  Matrix a(p.dtype, R, C, C + p.pad_x), dy(p.dtype, R, C, C + p.pad_dy), dx(p.dtype, R, C, C + p.pad_y);
  Matrix g(p.dtype, 1, C, C), dg(p.dtype, 1, C, C), db(p.dtype, 1, C, C);
  a.fill(0x5151 + uint64_t(R * 3 + C), p.scale);
  dy.fill(0xD1D1 + uint64_t(C));
  g.fill(0x77);
  for (int64_t c = 0; c < C; ++c) g.set(0, c, round_to(p.dtype, 1 + 0.5 * g.at(0, c)));
  Floats mean(R), rstd(R);
  for (int64_t r = 0; r < R; ++r) {
    const Stat s = row_stat(p, a, r);
    if (p.op == Op::Softmax) {
      std::vector<double> yv(static_cast<size_t>(C));
      for (int64_t c = 0; c < C; ++c) yv[size_t(c)] = std::exp(a.at(r, c) - s.a) / s.b;
      for (int64_t c = 0; c < C; ++c) a.set(r, c, yv[size_t(c)]);
    } else {
      mean.host_[size_t(r)] = float(s.a);
      rstd.host_[size_t(r)] = float(s.b);
    }
  }
  for (Matrix* m : {&a, &dy, &dx, &g, &dg, &db}) m->upload();
  mean.upload();
  rstd.upload();
  const void* gamma = p.affine ? g.dev() : nullptr;
  void* dgamma = p.grads ? dg.dev() : nullptr;
  void* dbeta = p.grads ? db.dev() : nullptr;
  void* work = nullptr;
  size_t bytes = 0;
  Choice choice;
  auto run = [&](auto& args, auto size_fn, auto explain_fn, auto run_fn) {
    bytes = size_fn(args);
    if (bytes) {
      ASSERT_EQ(cudaMalloc(&work, bytes), cudaSuccess);
    }
    choice = explain_fn(args);
    run_fn(args, work, bytes, nullptr);
  };
  const int64_t lda0 = p.pad_x ? a.ld() : 0, lddy0 = p.pad_dy ? dy.ld() : 0, lddx0 = p.pad_y ? dx.ld() : 0;
  if (p.op == Op::LayerNorm) {
    LayerNormBackwardArgs b{.dtype = p.dtype, .rows = R, .cols = C, .x = a.dev(), .dy = dy.dev(), .dx = dx.dev(),
                            .ldx = a.ld(), .lddy = lddy0, .lddx = dx.ld(), .gamma = gamma, .mean = mean.dev(),
                            .rstd = rstd.dev(), .dgamma = dgamma, .dbeta = dbeta};
    run(b, layernorm_backward_workspace_size, explain_layernorm_backward, layernorm_backward);
  } else if (p.op == Op::RMSNorm) {
    RMSNormBackwardArgs b{.dtype = p.dtype, .rows = R, .cols = C, .x = a.dev(), .dy = dy.dev(), .dx = dx.dev(),
                          .ldx = lda0, .lddy = dy.ld(), .lddx = dx.ld(), .gamma = gamma, .rstd = rstd.dev(),
                          .dgamma = dgamma};
    run(b, rmsnorm_backward_workspace_size, explain_rmsnorm_backward, rmsnorm_backward);
  } else {
    SoftmaxBackwardArgs b{.dtype = p.dtype, .rows = R, .cols = C, .y = a.dev(), .dy = dy.dev(), .dx = dx.dev(),
                          .ldy = a.ld(), .lddy = dy.ld(), .lddx = lddx0};
    run(b, softmax_backward_workspace_size, explain_softmax_backward, softmax_backward);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(work);
  EXPECT_FALSE(choice.implementation.empty());
  EXPECT_GT(choice.predicted_s, 0);
  dx.download();
  dg.download();
  db.download();
  EXPECT_TRUE(dx.padding_intact()) << "dx's padding was written";
  // dx, relative to max(‖dx‖, ‖its terms‖): rstd·dy·γ (norms) or y·dy (softmax).
  RelL2 e, eg, eb;
  std::vector<double> rg(size_t(C), 0.0), rb(size_t(C), 0.0), tg(size_t(C), 0.0), tb(size_t(C), 0.0);
  for (int64_t r = 0; r < R; ++r) {
    const double mu = mean.host_[size_t(r)], rs = rstd.host_[size_t(r)];
    double m1 = 0, m2 = 0;
    for (int64_t c = 0; c < C; ++c) {
      const double av = a.at(r, c), d = dy.at(r, c), gv = p.affine ? g.at(0, c) : 1;
      if (p.op == Op::Softmax) {
        m2 += d * av;
        continue;
      }
      const double xh = (av - (p.op == Op::LayerNorm ? mu : 0)) * rs;
      m1 += d * gv;
      m2 += d * gv * xh;
      rg[size_t(c)] += d * xh;
      rb[size_t(c)] += d;
      tg[size_t(c)] += (d * xh) * (d * xh);
      tb[size_t(c)] += d * d;
    }
    if (p.op != Op::Softmax) {
      m1 = p.op == Op::LayerNorm ? m1 / double(C) : 0;
      m2 /= double(C);
    }
    for (int64_t c = 0; c < C; ++c) {
      const double av = a.at(r, c), d = dy.at(r, c), gv = p.affine ? g.at(0, c) : 1;
      if (p.op == Op::Softmax) {
        e.add(dx.at(r, c), round_to(p.dtype, av * (d - m2)), av * d);
      } else {
        const double xh = (av - (p.op == Op::LayerNorm ? mu : 0)) * rs;
        e.add(dx.at(r, c), round_to(p.dtype, rs * (d * gv - m1 - xh * m2)), rs * d * gv);
      }
    }
  }
  EXPECT_TRUE(e.finite);
  EXPECT_LE(e.value(), tol(p.dtype)) << choice.implementation << ": " << choice.reason;
  if (p.op == Op::Softmax || !p.grads) return;
  for (int64_t c = 0; c < C; ++c) {
    eg.add(dg.at(0, c), round_to(p.dtype, rg[size_t(c)]), std::sqrt(tg[size_t(c)]));
    eb.add(db.at(0, c), round_to(p.dtype, rb[size_t(c)]), std::sqrt(tb[size_t(c)]));
  }
  EXPECT_LE(eg.value(), tol(p.dtype)) << "dγ";
  if (p.op == Op::LayerNorm) {
    EXPECT_LE(eb.value(), tol(p.dtype)) << "dβ";
  }
  if (p.op == Op::RMSNorm) {  // RMSNorm has no dβ: its buffer stays as uploaded
    for (int64_t c = 0; c < C; ++c) EXPECT_EQ(db.at(0, c), kPad) << "dβ written by RMSNorm";
  }
}

const DType kTypes[] = {DType::f32, DType::bf16, DType::f16};
const Op kOps[] = {Op::LayerNorm, Op::RMSNorm, Op::Softmax};

// Tiny, odd, prime, warp-sized, block-sized and register-limit shapes.
const int64_t kShapes[][2] = {{1, 1}, {3, 2}, {5, 7}, {2, 8}, {37, 1}, {31, 33}, {129, 127}, {7, 1000},
                              {9, 1024}, {13, 1032}, {3, 4099}, {5, 8192}, {2, 16381}, {2, 32768}, {2, 65536}};

TEST(ApiRows, ForwardEveryOpAndTypeAgainstTheReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op o : kOps)
    for (DType d : kTypes)
      for (const auto& s : kShapes) check_forward({o, d, s[0], s[1]});
}

TEST(ApiRows, ForwardPaddedPitchesLeaveThePaddingAlone) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op o : kOps)
    for (DType d : kTypes) {
      check_forward({o, d, 5, 64, 8, 16});     // 16-byte aligned pitches: the register kernel
      check_forward({o, d, 5, 64, 3, 1});      // unaligned pitches: the looped kernel
      check_forward({o, d, 4, 1000, 24, 5});   // mixed
      check_forward({o, d, 3, 4099, 1, 13});   // odd cols
    }
}

TEST(ApiRows, ForwardWithoutGammaBetaAndOtherEps) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op o : {Op::LayerNorm, Op::RMSNorm})
    for (DType d : kTypes) {
      Problem p{o, d, 7, 1024};
      p.affine = false;
      check_forward(p);
      p.affine = true;
      p.eps = 0.05f;   // comparable to the variance of inputs of magnitude 0.25: eps matters
      p.scale = 0.25;
      check_forward(p);
      p.cols = 4099;
      p.eps = 0.f;
      check_forward(p);
    }
}

TEST(ApiRows, SoftmaxForwardAtVocabularySizes) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes)
    for (int64_t cols : {int64_t(151936), int64_t(152064), int64_t(128256), int64_t(50257), int64_t(100003),
                         int64_t(65537), int64_t(131075)}) {
      check_forward({Op::Softmax, d, 3, cols, 0, 0, 0, true, 1e-5f, 8.0});
      check_forward({Op::Softmax, d, 2, cols, 8, 3});
    }
  // Norms take such rows too (the looped kernel).
  for (DType d : kTypes) check_forward({Op::LayerNorm, d, 2, 152064});
}

// The cluster rung (softmax v05/v06, the dispatcher's choice past the registers): every way it splits a row — one
// to eight slices, 16-byte packs over aligned rows or over each row's aligned window (odd lengths, odd
// pitches: partial first and last packs), single elements (x and y at other offsets) — the model
// set's vocabularies, 2^18 and one past it, a prime, masked-size extremes, a row past what a
// cluster holds (the looped kernel again), and rows walked by many clusters. Same tolerance as
// every softmax: the output's one rounding (the sums are fp32 over ≤ 2^18 terms, ~1e-7).
TEST(ApiRows, SoftmaxForwardOnTheClusterRung) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes) {
    for (int64_t cols : {int64_t(1025), int64_t(2048), int64_t(4099), int64_t(32000), int64_t(50257), int64_t(65537),
                         int64_t(100003), int64_t(128256), int64_t(151936), int64_t(262144), int64_t(262145)}) {
      check_forward({Op::Softmax, d, 3, cols, 0, 0, 0, true, 1e-5f, 8.0});
      check_forward({Op::Softmax, d, 2, cols, 8, 3});  // x and y rows at other offsets: single elements
      check_forward({Op::Softmax, d, 3, cols, 5, 5});  // equal odd pitches: packs over each row's window
    }
    check_forward({Op::Softmax, d, 1, 262144, 0, 0, 0, true, 1e-5f, 30.0});  // peaked: one term dominates Σ
    check_forward({Op::Softmax, d, 200, 70001});  // many clusters, rows at every 16-byte offset
    check_forward({Op::Softmax, d, 2, 1000003});                              // past a cluster: looped
  }
}

// The residual add fused into the norms: s = round(x + h) (one fp32 add, as an add kernel), y =
// norm(s) with s's statistics, s written to sum — a buffer of its own, or h or x in place (the
// decoder's residual stream updated where it lies). Shapes: lane groups, whole-warp blocks, an
// unaligned row and a row past the residual's register limit (the looped kernel), padded pitches.
enum class SumAt { Own, Residual, X };
void check_residual(Op op, DType d, int64_t rows, int64_t cols, int64_t pad, SumAt at) {
  SCOPED_TRACE(std::string(op_name(op)) + " " + dtype_name(d) + " " + std::to_string(rows) + "×" + std::to_string(cols) +
               " pad " + std::to_string(pad) + " sum at " + std::to_string(int(at)));
  const int64_t ld = cols + pad;
  Matrix x(d, rows, cols, ld), h(d, rows, cols, ld), y(d, rows, cols, cols), own(d, rows, cols, ld);
  Matrix g(d, 1, cols, cols), b(d, 1, cols, cols);
  x.fill(0xA11 + uint64_t(cols));
  h.fill(0xB22 + uint64_t(rows));
  g.fill(0x77);
  b.fill(0x99);
  std::vector<double> want_s(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      want_s[size_t(r * cols + c)] = round_to(d, double(float(x.at(r, c)) + float(h.at(r, c))));
  for (Matrix* m : {&x, &h, &y, &own, &g, &b}) m->upload();
  Floats s0(rows), s1(rows);
  Matrix& sum = at == SumAt::Own ? own : at == SumAt::Residual ? h : x;
  if (op == Op::LayerNorm) {
    const LayerNormArgs a{.dtype = d, .rows = rows, .cols = cols, .x = x.dev(), .y = y.dev(), .ldx = ld, .ldy = 0,
                          .gamma = g.dev(), .beta = b.dev(), .mean = s0.dev(), .rstd = s1.dev(), .residual = h.dev(),
                          .sum = sum.dev(), .ldr = ld, .lds = ld};
    EXPECT_NE(explain_layernorm_forward(a).reason.find("residual"), std::string::npos);
    layernorm_forward(a, nullptr, 0, nullptr);
  } else {
    const RMSNormArgs a{.dtype = d, .rows = rows, .cols = cols, .x = x.dev(), .y = y.dev(), .ldx = ld, .ldy = 0,
                        .gamma = g.dev(), .rstd = s1.dev(), .residual = h.dev(), .sum = sum.dev(), .ldr = ld, .lds = ld};
    EXPECT_NE(explain_rmsnorm_forward(a).reason.find("residual"), std::string::npos);
    rmsnorm_forward(a, nullptr, 0, nullptr);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  y.download();
  sum.download();
  s1.download();
  s0.download();
  EXPECT_TRUE(sum.padding_intact()) << "sum's padding was written";
  int64_t sum_wrong = 0;
  RelL2 ey, es;
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, m2 = 0, sq = 0;
    for (int64_t c = 0; c < cols; ++c) mean += want_s[size_t(r * cols + c)] / double(cols);
    for (int64_t c = 0; c < cols; ++c) {
      const double v = want_s[size_t(r * cols + c)];
      m2 += (v - mean) * (v - mean);
      sq += v * v;
      sum_wrong += sum.at(r, c) != v;
    }
    const double eps = op == Op::LayerNorm ? 1e-5 : 1e-6;
    const double rstd = 1 / std::sqrt((op == Op::LayerNorm ? m2 : sq) / double(cols) + eps);
    for (int64_t c = 0; c < cols; ++c) {
      const double v = want_s[size_t(r * cols + c)];
      const double want = op == Op::LayerNorm ? (v - mean) * rstd * g.at(0, c) + b.at(0, c) : v * rstd * g.at(0, c);
      ey.add(y.at(r, c), round_to(d, want));
    }
    es.add(s1.host_[size_t(r)], rstd);
    if (op == Op::LayerNorm) es.add(s0.host_[size_t(r)], mean, 2.0);
  }
  EXPECT_EQ(sum_wrong, 0) << "elements of sum not round(x + h)";
  EXPECT_TRUE(ey.finite);
  EXPECT_LE(ey.value(), tol(d));
  EXPECT_LE(es.value(), 2e-5) << "saved statistics (of the sum)";
}

TEST(ApiRows, ResidualAddFusedIntoTheNorms) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op op : {Op::LayerNorm, Op::RMSNorm})
    for (DType d : kTypes) {
      for (const auto& s : {std::array<int64_t, 2>{37, 128}, {19, 5120}, {3, 4099}, {5, 7}, {2, 40960}, {1000, 96}})
        check_residual(op, d, s[0], s[1], 0, SumAt::Own);
      check_residual(op, d, 9, 1024, 8, SumAt::Residual);  // in place, aligned pitches: the register kernel
      check_residual(op, d, 9, 1024, 3, SumAt::X);         // in place, unaligned pitches: the looped kernel
      check_residual(op, d, 4, 5120, 0, SumAt::Residual);
    }
}

// The norms' e4m3 codes of y (y_fp8 under *fp8_scale): beside y, every code is the host's
// saturating encode of the written y times the scale (the scale makes |y| > 4.48 saturate, which
// these inputs reach); with y nullptr the codes are the same; padded code rows keep their
// padding. Lane groups, whole-warp blocks, the looped kernel's vectors (past the registers) and
// single elements (unaligned rows), tiny rows, the residual add.
void check_fp8(Op op, DType d, int64_t rows, int64_t cols, int64_t pad, bool residual) {
  SCOPED_TRACE(std::string(op_name(op)) + " " + dtype_name(d) + " " + std::to_string(rows) + "×" + std::to_string(cols) +
               " code pad " + std::to_string(pad) + (residual ? " residual" : ""));
  const float scale = 100.f;
  const int64_t ld8 = cols + pad;
  const size_t code_bytes = size_t(rows * ld8);
  Matrix x(d, rows, cols, cols), h(d, rows, cols, cols), sum(d, rows, cols, cols), y(d, rows, cols, cols);
  Matrix g(d, 1, cols, cols), b(d, 1, cols, cols);
  x.fill(0xF8 + uint64_t(cols));
  h.fill(0x8F + uint64_t(rows));
  g.fill(0x77);
  b.fill(0x99);
  for (Matrix* m : {&x, &h, &sum, &y, &g, &b}) m->upload();
  float* dScale = nullptr;
  void* dCodes[2] = {nullptr, nullptr};
  ASSERT_EQ(cudaMalloc(&dScale, sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dScale, &scale, sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  for (void*& c : dCodes) {
    ASSERT_EQ(cudaMalloc(&c, code_bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(c, 0xFF, code_bytes), cudaSuccess);
  }
  for (int pass = 0; pass < 2; ++pass) {  // y and its codes, then the codes alone
    void* out = pass == 0 ? y.dev() : nullptr;
    const void* res = residual ? h.dev() : nullptr;
    void* s = residual ? sum.dev() : nullptr;
    Choice c;
    if (op == Op::LayerNorm) {
      const LayerNormArgs a{.dtype = d, .rows = rows, .cols = cols, .x = x.dev(), .y = out, .gamma = g.dev(),
                            .beta = b.dev(), .residual = res, .sum = s, .y_fp8 = dCodes[pass], .ldy_fp8 = ld8,
                            .fp8_scale = dScale};
      c = explain_layernorm_forward(a);
      layernorm_forward(a, nullptr, 0, nullptr);
    } else {
      const RMSNormArgs a{.dtype = d, .rows = rows, .cols = cols, .x = x.dev(), .y = out, .gamma = g.dev(),
                          .residual = res, .sum = s, .y_fp8 = dCodes[pass], .ldy_fp8 = ld8, .fp8_scale = dScale};
      c = explain_rmsnorm_forward(a);
      rmsnorm_forward(a, nullptr, 0, nullptr);
    }
    EXPECT_NE(c.reason.find(pass == 0 ? "e4m3 codes written beside it" : "e4m3 codes written in its place"),
              std::string::npos) << c.reason;
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  y.download();
  std::vector<uint8_t> codes[2] = {std::vector<uint8_t>(code_bytes), std::vector<uint8_t>(code_bytes)};
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(cudaMemcpy(codes[i].data(), dCodes[i], code_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  int64_t wrong = 0, differ = 0, padding = 0, saturated = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ld8; ++c) {
      const size_t i = size_t(r * ld8 + c);
      if (c >= cols) {
        padding += codes[0][i] != 0xFF || codes[1][i] != 0xFF;
        continue;
      }
      const float v = float(y.at(r, c)) * scale;
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const uint32_t want = formats::encode(bits, formats::kE4m3, formats::Overflow::Saturate);
      wrong += codes[0][i] != want;
      differ += codes[1][i] != codes[0][i];
      saturated += (want & 0x7F) == formats::kE4m3.max_code;
    }
  EXPECT_EQ(wrong, 0) << "codes that are not e4m3(y · scale) of the y written";
  EXPECT_EQ(differ, 0) << "codes written without y that differ from those written beside it";
  EXPECT_EQ(padding, 0) << "padding bytes of the code rows written";
  if (rows * cols >= 1000) EXPECT_GT(saturated, 0) << "no code saturated: the check of ±448 did not run";
  cudaFree(dScale);
  for (void* c : dCodes) cudaFree(c);
}

TEST(ApiRows, Fp8CodesOfTheNorms) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op op : {Op::LayerNorm, Op::RMSNorm})
    for (DType d : kTypes) {
      for (const auto& s : {std::array<int64_t, 2>{37, 128}, {19, 5120}, {3, 4099}, {5, 7}, {2, 70000}, {1000, 96}})
        check_fp8(op, d, s[0], s[1], 0, false);
      check_fp8(op, d, 33, 4096, 0, true);  // the decoder's residual add, then the codes
      check_fp8(op, d, 9, 1024, 16, true);  // padded code rows, 16-byte aligned: the register kernel
      check_fp8(op, d, 9, 1024, 3, false);  // padded code rows, unaligned: the looped kernel
    }
}

TEST(ApiRows, BackwardEveryOpAndTypeAgainstTheReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op o : kOps)
    for (DType d : kTypes)
      for (const auto& s : kShapes) check_backward({o, d, s[0], s[1]});
  // Persistent parts walking many rows.
  for (Op o : kOps) check_backward({o, DType::bf16, 3000, 1024});
}

TEST(ApiRows, BackwardPaddedPitchesAbsentGammaAndGradients) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (Op o : kOps)
    for (DType d : kTypes) {
      check_backward({o, d, 5, 64, 8, 16, 24});    // aligned pitches: 16-byte packs
      check_backward({o, d, 5, 64, 3, 1, 0});      // unaligned: single elements
      check_backward({o, d, 3, 16384, 8, 0, 1});   // a cluster row, one pitch unaligned
      Problem p{o, d, 9, 1000};
      p.affine = false;
      check_backward(p);
      p.grads = false;
      check_backward(p);
    }
}

// Softmax rows that are not 16-byte aligned but lie at one offset in y, dy and dx (odd lengths;
// equal odd pitches) are read in 16-byte packs over each row's window, with partial first and
// last packs: lane-group rows, block rows, cluster rows, 16-bit rows past a 256-thread cluster
// (512-thread CTAs), and many rows at every offset. Rows at other offsets in each tensor take
// single elements.
TEST(ApiRows, SoftmaxBackwardOverRowWindows) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes) {
    for (int64_t cols : {int64_t(3), int64_t(33), int64_t(127), int64_t(1001), int64_t(4099), int64_t(50257),
                         int64_t(65537), int64_t(100003), int64_t(131071)}) {
      check_backward({Op::Softmax, d, 5, cols});           // packed odd rows
      check_backward({Op::Softmax, d, 3, cols, 5, 5, 5});  // equal odd pitches
      check_backward({Op::Softmax, d, 3, cols, 5, 0, 3});  // other offsets: single elements
    }
    check_backward({Op::Softmax, d, 200, 50257});
  }
}

TEST(ApiRows, BackwardPastAClusterRow) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : kTypes)
    for (int64_t cols : {int64_t(151936), int64_t(152064), int64_t(100003), int64_t(65544), int64_t(131072),
                         int64_t(262144), int64_t(262145), int64_t(262152)}) {
      check_backward({Op::Softmax, d, 3, cols});
      check_backward({Op::Softmax, d, 2, cols, 8, 0, 3});
    }
  // 16-bit softmax rows to 2^18 stay one read: a cluster of 512-thread CTAs, walking several rows.
  for (DType d : {DType::bf16, DType::f16}) check_backward({Op::Softmax, d, 300, 131072});
  // Norms: dγ/dβ accumulated in the workspace by parts walking several rows.
  for (Op o : {Op::LayerNorm, Op::RMSNorm}) {
    check_backward({o, DType::bf16, 300, 70000});
    check_backward({o, DType::f32, 3, 70001, 1, 0, 0});
  }
}

TEST(ApiRows, BackwardIsBitIdenticalAcrossRuns) {
  SOL_REQUIRE_GPU_OR_SKIP();
  // Two runs of a LayerNorm backward with dγ/dβ into the same outputs give the same bits.
  const int64_t R = 700, C = 4096;
  Matrix x(DType::bf16, R, C, C), dy(DType::bf16, R, C, C), dx(DType::bf16, R, C, C);
  Matrix dg(DType::bf16, 1, C, C), db(DType::bf16, 1, C, C);
  x.fill(1);
  dy.fill(2);
  Floats mean(R), rstd(R);
  for (int64_t r = 0; r < R; ++r) rstd.host_[size_t(r)] = 1.5f, mean.host_[size_t(r)] = 0.01f;
  for (Matrix* m : {&x, &dy, &dx, &dg, &db}) m->upload();
  mean.upload();
  rstd.upload();
  const LayerNormBackwardArgs b{.rows = R, .cols = C, .x = x.dev(), .dy = dy.dev(), .dx = dx.dev(), .mean = mean.dev(),
                                .rstd = rstd.dev(), .dgamma = dg.dev(), .dbeta = db.dev()};
  const size_t bytes = layernorm_backward_workspace_size(b);
  void* work = nullptr;
  ASSERT_EQ(cudaMalloc(&work, bytes), cudaSuccess);
  std::vector<double> first;
  for (int run = 0; run < 2; ++run) {
    layernorm_backward(b, work, bytes, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    dg.download();
    db.download();
    std::vector<double> got;
    for (int64_t c = 0; c < C; ++c) got.push_back(dg.at(0, c)), got.push_back(db.at(0, c));
    if (run == 0) first = got;
    else EXPECT_EQ(got, first);
  }
  cudaFree(work);
}

TEST(ApiRows, BackwardRefusesATooSmallWorkspace) {
  SOL_REQUIRE_GPU_OR_SKIP();
  Matrix x(DType::bf16, 64, 1024, 1024), dy(DType::bf16, 64, 1024, 1024), dx(DType::bf16, 64, 1024, 1024);
  Floats mean(64), rstd(64);
  const LayerNormBackwardArgs b{.rows = 64, .cols = 1024, .x = x.dev(), .dy = dy.dev(), .dx = dx.dev(), .mean = mean.dev(),
                                .rstd = rstd.dev()};
  const size_t bytes = layernorm_backward_workspace_size(b);
  ASSERT_GT(bytes, 0u);
  void* work = nullptr;
  ASSERT_EQ(cudaMalloc(&work, bytes), cudaSuccess);
  EXPECT_THROW(layernorm_backward(b, work, bytes - 4, nullptr), Error);
  EXPECT_THROW(layernorm_backward(b, nullptr, bytes, nullptr), Error);
  cudaFree(work);
  // Softmax needs none.
  const SoftmaxBackwardArgs s{.rows = 64, .cols = 1024, .y = x.dev(), .dy = dy.dev(), .dx = dx.dev()};
  EXPECT_EQ(softmax_backward_workspace_size(s), 0u);
  EXPECT_NO_THROW(softmax_backward(s, nullptr, 0, nullptr));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// ---- without a GPU: the checks and the forward dispatcher -----------------------------------------
// Addresses that are never dereferenced: every call below throws or only decides.
void* fake(uintptr_t offset = 0) { return reinterpret_cast<void*>(uintptr_t(1) << 20 | offset); }
float* fake_f() { return static_cast<float*>(fake()); }

// The call throws a BadInput sol::Error whose message names `what`.
template <class Fn>
void expect_refused(Fn&& fn, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one naming " << what;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput) << e.line();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.line();
    EXPECT_FALSE(e.fix().empty()) << e.line();
  }
}

LayerNormArgs ln_ok() {
  LayerNormArgs a;
  a.rows = 4;
  a.cols = 64;
  a.x = fake();
  a.y = fake();
  return a;
}

TEST(ApiRowsChecks, ForwardRefusesBadArgumentsBeforeAnyCudaCall) {
  auto ln = [](auto edit) {
    LayerNormArgs a = ln_ok();
    edit(a);
    return [a] { layernorm_forward(a, nullptr, 0, nullptr); };
  };
  expect_refused(ln([](LayerNormArgs& a) { a.rows = 0; }), "rows = 0");
  expect_refused(ln([](LayerNormArgs& a) { a.cols = -3; }), "cols = -3");
  expect_refused(ln([](LayerNormArgs& a) { a.x = nullptr; }), "x is nullptr");
  expect_refused(ln([](LayerNormArgs& a) { a.y = nullptr; }), "y is nullptr");
  expect_refused(ln([](LayerNormArgs& a) { a.ldx = 63; }), "ldx = 63");
  expect_refused(ln([](LayerNormArgs& a) { a.ldy = -1; }), "ldy = -1");
  expect_refused(ln([](LayerNormArgs& a) { a.dtype = DType::fp8_e4m3; }), "fp8_e4m3");
  expect_refused(ln([](LayerNormArgs& a) { a.eps = -1.f; }), "eps");
  expect_refused(ln([](LayerNormArgs& a) { a.eps = NAN; }), "eps");
  expect_refused(ln([](LayerNormArgs& a) { a.rows = int64_t(1) << 40; }), "rows");
  expect_refused(ln([](LayerNormArgs& a) { a.cols = int64_t(1) << 40, a.rows = int64_t(1) << 30; }), "overflow");
  expect_refused([] { LayerNormArgs a = ln_ok(); a.rows = 0; (void)explain_layernorm_forward(a); }, "rows = 0");
  expect_refused([] { LayerNormArgs a = ln_ok(); a.x = nullptr; (void)layernorm_forward_workspace_size(a); }, "x is nullptr");
  // The residual add: both pointers or neither, sum apart from y, in place only with the same pitch.
  void* other = reinterpret_cast<void*>(uintptr_t(1) << 21);
  expect_refused(ln([other](LayerNormArgs& a) { a.sum = other; }), "sum is given without residual");
  expect_refused(ln([other](LayerNormArgs& a) { a.residual = other; }), "sum (x + residual, required");
  expect_refused(ln([other](LayerNormArgs& a) { a.residual = other, a.sum = a.y; }), "sum and y are one buffer");
  expect_refused(ln([other](LayerNormArgs& a) { a.residual = other, a.sum = const_cast<void*>(a.x), a.lds = 128; }),
                 "another pitch");
  expect_refused(ln([other](LayerNormArgs& a) { a.residual = a.sum = other, a.ldr = 63; }), "ldr = 63");
  // The e4m3 codes: with their scale, in a buffer of their own, rows at least cols bytes apart.
  expect_refused(ln([other](LayerNormArgs& a) { a.y_fp8 = other; }), "fp8_scale (required with y_fp8)");
  expect_refused(ln([](LayerNormArgs& a) { a.fp8_scale = fake_f(); }), "fp8_scale is given without y_fp8");
  expect_refused(ln([](LayerNormArgs& a) { a.y_fp8 = const_cast<void*>(a.x), a.fp8_scale = fake_f(); }), "y_fp8 is x");
  expect_refused(ln([other](LayerNormArgs& a) { a.y_fp8 = other, a.fp8_scale = fake_f(), a.ldy_fp8 = 10; }),
                 "ldy_fp8 = 10");
  expect_refused(ln([other](LayerNormArgs& a) {
                   a.y_fp8 = other, a.fp8_scale = reinterpret_cast<const float*>(fake(2));
                 }),
                 "not 4-byte aligned");
  expect_refused(ln([](LayerNormArgs& a) { a.y = nullptr, a.fp8_scale = fake_f(); }), "y is nullptr");

  RMSNormArgs r;
  r.rows = 2;
  r.cols = 8;
  r.x = fake();
  expect_refused([r] { rmsnorm_forward(r, nullptr, 0, nullptr); }, "y is nullptr");
  r.y = fake();
  r.dtype = DType::int8;
  expect_refused([r] { rmsnorm_forward(r, nullptr, 0, nullptr); }, "int8");
  SoftmaxArgs s;
  s.rows = 2;
  s.cols = 0;
  s.x = s.y = fake();
  expect_refused([s] { softmax_forward(s, nullptr, 0, nullptr); }, "cols = 0");
  s.cols = 8;
  s.ldx = 4;
  expect_refused([s] { (void)explain_softmax_forward(s); }, "ldx = 4");
}

TEST(ApiRowsChecks, BackwardRefusesBadArgumentsAndMissingStatistics) {
  LayerNormBackwardArgs l;
  l.rows = 4;
  l.cols = 64;
  l.x = l.dy = fake();
  l.dx = fake();
  l.rstd = fake_f();
  expect_refused([l] { layernorm_backward(l, nullptr, 0, nullptr); }, "mean");
  expect_refused([l] { (void)layernorm_backward_workspace_size(l); }, "mean");
  l.mean = fake_f();
  l.rstd = nullptr;
  expect_refused([l] { (void)explain_layernorm_backward(l); }, "rstd");
  l.rstd = fake_f();
  l.dx = nullptr;
  expect_refused([l] { layernorm_backward(l, nullptr, 0, nullptr); }, "dx is nullptr");
  l.dx = fake();
  l.lddy = 10;
  expect_refused([l] { layernorm_backward(l, nullptr, 0, nullptr); }, "lddy = 10");
  l.lddy = 0;
  l.dtype = DType::f64;
  expect_refused([l] { layernorm_backward(l, nullptr, 0, nullptr); }, "fp64");

  RMSNormBackwardArgs r;
  r.rows = 4;
  r.cols = 64;
  r.x = r.dy = fake();
  r.dx = fake();
  expect_refused([r] { rmsnorm_backward(r, nullptr, 0, nullptr); }, "rstd");
  r.rstd = fake_f();
  r.x = nullptr;
  expect_refused([r] { (void)rmsnorm_backward_workspace_size(r); }, "x is nullptr");
  r.x = fake();
  r.lddx = 1;
  expect_refused([r] { rmsnorm_backward(r, nullptr, 0, nullptr); }, "lddx = 1");

  SoftmaxBackwardArgs s;
  s.rows = 4;
  s.cols = 64;
  s.dy = s.dx = fake();
  expect_refused([s] { softmax_backward(s, nullptr, 0, nullptr); }, "y is nullptr");
  s.y = fake();
  s.ldy = 32;
  expect_refused([s] { (void)explain_softmax_backward(s); }, "ldy = 32");
  s.ldy = 0;
  s.rows = -1;
  expect_refused([s] { (void)softmax_backward_workspace_size(s); }, "rows = -1");
}

// The backward's explanation says how its plan reads rows (the plan needs the device: occupancy).
TEST(ApiRows, BackwardExplainsHowItReadsRows) {
  SOL_REQUIRE_GPU_OR_SKIP();
  RMSNormBackwardArgs r;
  r.rows = 1048576;
  r.cols = 128;  // qk-norm: 16 packs, four lanes of four
  r.x = r.dy = r.dx = fake();
  r.rstd = fake_f();
  const Choice qk = explain_rmsnorm_backward(r);
  EXPECT_NE(qk.reason.find("16-byte packs, 4 lanes per row, 64 rows to a block"), std::string::npos) << qk.reason;
  SoftmaxBackwardArgs s;
  s.rows = 4096;
  s.cols = 50257;  // GPT-2's vocabulary: each row at its own offset, the same in y, dy and dx
  s.y = s.dy = s.dx = fake();
  const Choice window = explain_softmax_backward(s);
  EXPECT_NE(window.reason.find("aligned window"), std::string::npos) << window.reason;
  EXPECT_NE(window.reason.find("a cluster of 7 CTAs of 256 threads"), std::string::npos) << window.reason;
  s.dx = fake(2);  // dx one element off: single elements
  const Choice single = explain_softmax_backward(s);
  EXPECT_NE(single.reason.find("single elements"), std::string::npos) << single.reason;
}

// The forward dispatcher decides from the shape, dtype, alignment and pitches alone.
TEST(ApiRowsChecks, ForwardDispatchTakesTheRegisterKernelOnlyWhereItCanRun) {
  LayerNormArgs a = ln_ok();
  a.cols = 4096;
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v03_one_read_bf16");
  a.dtype = DType::f32;
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v04_one_read_fp32");
  a.dtype = DType::f16;
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v03_one_read_fp16");
  a.dtype = DType::bf16;
  a.ldx = 4104;  // 16-byte multiple: still one read
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v03_one_read_bf16");
  a.ldx = 4097;  // rows no longer 16-byte aligned
  const Choice c = explain_layernorm_forward(a);
  EXPECT_EQ(c.implementation, "layernorm/v02_two_read_bf16");
  EXPECT_NE(c.reason.find("aligned"), std::string::npos) << c.reason;
  a.ldx = 0;
  a.gamma = fake(2);  // γ off 16 bytes
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v02_two_read_bf16");
  a.gamma = nullptr;
  a.y = fake(8);
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v02_two_read_bf16");
  a.y = fake();
  a.cols = 4099;  // odd row length
  EXPECT_EQ(explain_layernorm_forward(a).implementation, "layernorm/v02_two_read_bf16");

  SoftmaxArgs s;
  s.rows = 8;
  s.x = s.y = fake();
  s.cols = 65536;  // the registers' limit in bf16
  EXPECT_EQ(explain_softmax_forward(s).implementation, "softmax/v03_one_pass_bf16");
  s.cols = 152064;  // vocabulary logits: past the registers
  const Choice v = api::explain_softmax_forward_on(s, 90);  // on an H200: the cluster rung
  EXPECT_EQ(v.implementation, "softmax/v05_cluster_bf16");
  EXPECT_NE(v.reason.find("152064"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("16-byte packs"), std::string::npos) << v.reason;
  EXPECT_GT(v.predicted_s, 0);
  // Without a usable device (cc 0: no clusters), the looped kernel.
  EXPECT_EQ(api::explain_softmax_forward_on(s, 0).implementation, "softmax/v02_online_bf16");
  {  // the cluster rung's splits: 16-byte packs or single elements; past it, looped
    SoftmaxArgs odd = s;
    odd.cols = 65536;  // fits the registers: the register kernel (measured ahead of the looped one)
    EXPECT_EQ(api::explain_softmax_forward_on(odd, 90).implementation, "softmax/v03_one_pass_bf16");
    odd.cols = 65544;  // past them: four slices of under 40 KiB
    EXPECT_NE(api::explain_softmax_forward_on(odd, 90).reason.find("over 4 CTAs"), std::string::npos);
    odd.cols = 50257;  // not a multiple of 8: packs over each row's window, three slices
    const Choice window = api::explain_softmax_forward_on(odd, 90);
    EXPECT_NE(window.reason.find("aligned window"), std::string::npos) << window.reason;
    EXPECT_NE(window.reason.find("over 3 CTAs"), std::string::npos) << window.reason;
    SoftmaxArgs apart = odd;  // y one element past x's offset: single elements
    apart.y = static_cast<char*>(apart.y) + 2;
    const Choice single = api::explain_softmax_forward_on(apart, 90);
    EXPECT_NE(single.reason.find("single elements"), std::string::npos) << single.reason;
    EXPECT_NE(single.reason.find("over 3 CTAs"), std::string::npos) << single.reason;
    odd.cols = 999;  // short unaligned rows: a warp per row, looped
    EXPECT_EQ(api::explain_softmax_forward_on(odd, 90).implementation, "softmax/v02_online_bf16");
    odd.cols = 786433;  // past 8 × 192 KiB
    EXPECT_EQ(api::explain_softmax_forward_on(odd, 90).implementation, "softmax/v02_online_bf16");
    odd.cols = 262144;
    odd.dtype = DType::f32;
    EXPECT_EQ(api::explain_softmax_forward_on(odd, 90).implementation, "softmax/v06_cluster_fp32");
    odd.cols = 40000;  // sm_80: one CTA of ≤ 160 KiB holds it
    EXPECT_EQ(api::explain_softmax_forward_on(odd, 80).implementation, "softmax/v06_cluster_fp32");
    odd.cols = 41000;
    EXPECT_EQ(api::explain_softmax_forward_on(odd, 80).implementation, "softmax/v02_online_fp32");
  }
  s.dtype = DType::f32;
  s.cols = 32768;
  EXPECT_EQ(explain_softmax_forward(s).implementation, "softmax/v04_one_pass_fp32");
  s.cols = 32776;  // fp32 rows hold half the bf16 columns in the same registers
  EXPECT_EQ(api::explain_softmax_forward_on(s, 0).implementation, "softmax/v02_online_fp32");
  EXPECT_EQ(api::explain_softmax_forward_on(s, 90).implementation, "softmax/v06_cluster_fp32");
}

// The e4m3 codes go where y goes: the register kernel when their rows are aligned too, y's bytes
// replaced by one a column in the prediction when y is not written.
TEST(ApiRowsChecks, ForwardDispatchOfTheFp8Codes) {
  RMSNormArgs r;
  r.rows = 1024;
  r.cols = 4096;
  r.x = fake();
  r.y_fp8 = fake(0x1000);  // distinct buffers, 16-byte aligned
  r.fp8_scale = fake_f();
  const Choice alone = explain_rmsnorm_forward(r);
  EXPECT_EQ(alone.implementation, "rmsnorm/v03_one_read_bf16");
  EXPECT_NE(alone.reason.find("in its place"), std::string::npos) << alone.reason;
  r.y = fake(0x2000);
  const Choice beside = explain_rmsnorm_forward(r);
  EXPECT_NE(beside.reason.find("beside it"), std::string::npos) << beside.reason;
  EXPECT_GT(beside.predicted_s, alone.predicted_s);  // 5 bytes an element against 3
  r.y_fp8 = fake(0x1008);  // code rows off a 16-byte boundary
  const Choice looped = explain_rmsnorm_forward(r);
  EXPECT_EQ(looped.implementation, "rmsnorm/v02_two_read_bf16");
  EXPECT_NE(looped.reason.find("y_fp8"), std::string::npos) << looped.reason;
}

// Over the model shape set (bf16, packed): hidden sizes and head dims take the register kernel
// (RMSNorm's looped one where x is at most api::kRmsLoopedMaxBytes);
// vocabulary rows — past the registers' 65536 bf16 columns, or (GPT-2's 50257) not a multiple of
// 8 elements — the looped one for the norms, softmax's (on an H200) the cluster rung.
TEST(ApiRowsChecks, ForwardDispatchOverTheModelShapeSet) {
  for (const std::string fam : {"layernorm", "rmsnorm", "softmax"}) {
    const auto shapes = model::model_shapes(fam);
    EXPECT_FALSE(shapes.empty()) << fam;
    for (const model::ModelShape& m : shapes) {
      const int64_t rows = m.shape.at("rows"), cols = m.shape.at("cols");
      SCOPED_TRACE(fam + " " + m.shape.str() + " (" + m.model + "/" + m.layer + ")");
      Choice c;
      if (fam == "layernorm") c = explain_layernorm_forward({.rows = rows, .cols = cols, .x = fake(), .y = fake()});
      else if (fam == "rmsnorm") c = explain_rmsnorm_forward({.rows = rows, .cols = cols, .x = fake(), .y = fake()});
      else c = api::explain_softmax_forward_on({.rows = rows, .cols = cols, .x = fake(), .y = fake()}, 90);
      const bool small_rms = fam == "rmsnorm" && rows * cols * 2 <= api::kRmsLoopedMaxBytes;
      const bool registers = cols % 8 == 0 && cols <= 65536 && !small_rms;
      const std::string want = fam == "softmax" ? (registers ? "softmax/v03_one_pass_bf16" : "softmax/v05_cluster_bf16")
                                                : fam + (registers ? "/v03_one_read_bf16" : "/v02_two_read_bf16");
      EXPECT_EQ(c.implementation, want) << c.reason;
      EXPECT_GT(c.predicted_s, 0);
    }
  }
}

}  // namespace

#else
TEST(ApiRows, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif  // SOL_WITH_CUDA

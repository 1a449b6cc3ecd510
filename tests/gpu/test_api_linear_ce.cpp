// sol::linear_cross_entropy (include/sol/kernels.hpp) against two references: a double-precision one
// computed here from the same rounded h and W (the logits and dlogits rounded to the dtype, as every
// path that stores them does), and the unfused sol path on the device (sol::matmul for the logits,
// sol::cross_entropy in place, sol::matmul for dh and for dW). Shapes: rows 1, 17, 1000; hidden 64,
// 520, 4096; vocab 1, 7, 32000, 50257; chunks of 1 row, a few, more than the rows and the rule's;
// ignored rows (all of them, too), label smoothing, Mean and Sum, int32 labels, padded pitches (the
// padding of h and W holds NaN, that of dh and dW must stay untouched), each output alone, dW in
// fp32 and in the dtype, overwritten and accumulated, a CUDA graph of the call. The largest shape
// (1000 × 4096 × 50257) checks sampled rows against the double reference and everything against the
// unfused path. The argument checks, the workspace size and explain need no GPU.
// Tolerances, relative L2 over each output: the losses within 4e-3 (bf16) / 1e-3 (fp16) of
// max(‖loss‖, ‖lse‖) — a logit one rounding step away (another GEMM's accumulation order) moves a
// row's loss by up to 2^-8 of that logit; dh and dW within 1e-2 / 4e-3 of max(‖want‖, ‖their terms‖)
// (the norm of Σ|dlogits·W| and Σ|dlogits·h|: dlogits carry one rounding of 2^-9 / 2^-11, and p − 1
// cancels where a label's p nears 1), plus one rounding per chunk where dW accumulates in the dtype.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/api/linear_ce_plan.hpp"
#include "kernels/gemm/tc/lt_workspace.hpp"
#include "sol/kernels.hpp"
#include "tests/gpu/api_test_util.hpp"
#include "tests/gpu/dtype_host.hpp"

using namespace sol;
using namespace sol::test;

namespace {

constexpr int64_t kIgnore = -100;
constexpr float kGradScale = 1.5f;

double loss_tol(DType d) { return d == DType::bf16 ? 4e-3 : 1e-3; }
double grad_tol(DType d) { return d == DType::bf16 ? 1e-2 : 4e-3; }
double rounding(DType d) { return d == DType::bf16 ? 0x1p-9 : d == DType::f16 ? 0x1p-11 : 0x1p-24; }

// body(i) for i in [0, n), over the host's cores.
void parallel_for(int64_t n, const std::function<void(int64_t)>& body) {
  const int64_t threads = std::max<int64_t>(1, std::min<int64_t>(n, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int64_t i = t; i < n; i += threads) body(i);
    });
  for (auto& th : pool) th.join();
}

// rows × cols in dtype t with row pitch ld; the padding holds `pad` bytes (0xFF: NaN in every type).
struct HostMat {
  DType t;
  int64_t rows, cols, ld;
  std::vector<unsigned char> bytes;
  std::vector<double> v;  // rows × cols, the stored values
  double at(int64_t r, int64_t c) const { return v[size_t(r * cols + c)]; }
};
HostMat host_mat(DType t, int64_t rows, int64_t cols, int64_t ld, double scale, uint64_t seed) {
  const int eb = bytes_of(t);
  HostMat m{t, rows, cols, ld, std::vector<unsigned char>(size_t(rows * ld * eb), 0xFF), std::vector<double>(size_t(rows * cols))};
  Lcg g{seed};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const double x = round_to(t, g.next() * scale);
      m.v[size_t(r * cols + c)] = x;
      store(t, &m.bytes[size_t((r * ld + c) * eb)], x);
    }
  return m;
}

struct Problem {
  DType dtype = DType::bf16;
  int64_t rows = 1, hidden = 64, vocab = 1;
  int64_t chunk = 0;         // 0: the rule's
  int64_t ignore_every = 0;  // rows r % k == k − 1 get ignore_index
  float smoothing = 0.f;
  Reduction reduction = Reduction::Mean;
  IndexType labels = IndexType::i64;
  DType dw_type = DType::f32;
  bool accumulate = false;   // dW += (from known values)
  bool loss = true, reduced = true, dh = true, dw = true;
  int64_t pad = 0;           // extra elements per row of h, W, dh and dW
  bool full_reference = true;  // false: loss and dh of sampled rows against the double reference
  std::string str() const {
    return dtype_name(dtype) + " " + std::to_string(rows) + "×" + std::to_string(hidden) + "×" + std::to_string(vocab) +
           " chunk " + std::to_string(chunk) + " ignore/" + std::to_string(ignore_every) + " ε " +
           std::to_string(smoothing) + (reduction == Reduction::Sum ? " sum" : " mean") +
           (labels == IndexType::i32 ? " i32" : "") + " dW " + dtype_name(dw_type) + (accumulate ? " +=" : "") +
           " pad " + std::to_string(pad) + (loss ? " loss" : "") + (reduced ? " reduced" : "") + (dh ? " dh" : "") +
           (dw ? " dW" : "");
  }
};

// ‖got − want‖ / max(‖want‖, ‖floor‖).
double rel_err(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& floor) {
  double f2 = 0;
  for (double x : floor) f2 += x * x;
  return rel_l2(got, want, f2);
}

// Device outputs of one path, read back as doubles (rows × hidden, vocab × hidden, rows, 1).
struct Outputs {
  std::vector<double> loss, dh, dw;
  double reduced = 0;
  bool dh_padding_intact = true, dw_padding_intact = true;
};

// What every path reads: the inputs on the device and the outputs' buffers.
struct Inputs {
  const Problem& p;
  HostMat h, w, dw0;
  std::vector<int64_t> label;
  DevBuf dH, dW, dLabels;
  int64_t ldh, ldw;
  explicit Inputs(const Problem& pr)
      : p(pr),
        h(host_mat(pr.dtype, pr.rows, pr.hidden, pr.hidden + pr.pad, 1.0, 0x1234ull + uint64_t(pr.rows * 31 + pr.hidden))),
        // W scaled so that the logits have a spread of about 2 whatever the hidden size.
        w(host_mat(pr.dtype, pr.vocab, pr.hidden, pr.hidden + pr.pad, 3.5 / std::sqrt(double(pr.hidden)),
                   0x5678ull + uint64_t(pr.vocab * 17 + pr.hidden))),
        dw0(host_mat(pr.dw_type, pr.vocab, pr.hidden, pr.hidden + pr.pad, pr.accumulate ? 0.25 : 0.0, 0x9ABCull)),
        label(size_t(pr.rows)),
        dH(h.bytes.size()),
        dW(w.bytes.size()),
        dLabels(size_t(pr.rows) * 8),
        ldh(pr.hidden + pr.pad),
        ldw(pr.hidden + pr.pad) {
    for (int64_t r = 0; r < p.rows; ++r) {
      const bool ignored = p.ignore_every > 0 && r % p.ignore_every == p.ignore_every - 1;
      label[size_t(r)] = ignored ? kIgnore : int64_t((uint64_t(r) * 2654435761u + 7) % uint64_t(p.vocab));
    }
    if (!p.accumulate) std::fill(dw0.bytes.begin(), dw0.bytes.end(), 0xFF);  // NaN: an overwritten dW is never read
    dH.upload(h.bytes);
    dW.upload(w.bytes);
    if (p.labels == IndexType::i64) dLabels.upload(label);
    else dLabels.upload(std::vector<int32_t>(label.begin(), label.end()));
  }
  int64_t counted() const {
    int64_t n = 0;
    for (int64_t l : label) n += l != kIgnore;
    return n;
  }
};

// Reads a pitched output back: the values and whether the padding still holds 0xFF.
std::vector<double> read_back(const DevBuf& b, DType t, int64_t rows, int64_t cols, int64_t ld, bool* padding_intact) {
  const int eb = bytes_of(t);
  const std::vector<unsigned char> raw = b.download<unsigned char>(size_t(rows * ld * eb));
  std::vector<double> v(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) v[size_t(r * cols + c)] = load(t, &raw[size_t((r * ld + c) * eb)]);
    for (int64_t c = cols * eb; c < ld * eb; ++c) *padding_intact = *padding_intact && raw[size_t(r * ld * eb + c)] == 0xFF;
  }
  return v;
}

// The fused call. `graph`: captured into a CUDA graph (after one direct call) and replayed.
Outputs run_fused(Inputs& s, bool graph = false) {
  const Problem& p = s.p;
  const int64_t lddh = p.hidden + p.pad, lddw = p.hidden + p.pad;
  DevBuf dDh(size_t(p.rows * lddh * bytes_of(p.dtype))), dDw(s.dw0.bytes.size()), dLoss(size_t(p.rows) * 4), dRed(4);
  cudaMemset(dDh.get(), 0xFF, dDh.bytes());
  dDw.upload(s.dw0.bytes);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // before a call on a stream that does not wait for these
  LinearCrossEntropyArgs a{.dtype = p.dtype, .rows = p.rows, .hidden = p.hidden, .vocab = p.vocab, .h = s.dH.get(),
                           .ldh = s.ldh, .w = s.dW.get(), .ldw = s.ldw, .labels = s.dLabels.get(), .label_type = p.labels,
                           .ignore_index = kIgnore, .label_smoothing = p.smoothing, .reduction = p.reduction,
                           .grad_scale = kGradScale, .loss = p.loss ? dLoss.get<float>() : nullptr,
                           .loss_reduced = p.reduced ? dRed.get<float>() : nullptr, .dh = p.dh ? dDh.get() : nullptr,
                           .lddh = lddh, .dw = p.dw ? dDw.get() : nullptr, .lddw = lddw, .dw_type = p.dw_type,
                           .dw_accumulate = p.accumulate, .chunk_rows = p.chunk};
  const size_t bytes = linear_cross_entropy_workspace_size(a);
  DevBuf work(bytes);
  const Choice choice = explain_linear_cross_entropy(a);
  EXPECT_EQ(choice.implementation, "linear_ce/dispatch");
  EXPECT_NE(choice.reason.find(" rows: "), std::string::npos) << choice.reason;
  EXPECT_GT(choice.predicted_s, 0);
  if (!graph) {
    linear_cross_entropy(a, work.get(), bytes, nullptr);
  } else {
    cudaStream_t st;
    EXPECT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    linear_cross_entropy(a, work.get(), bytes, st);  // first use: libraries, kernel attributes
    EXPECT_EQ(cudaStreamSynchronize(st), cudaSuccess);
    dDw.upload(s.dw0.bytes);  // the replay starts from the same dW
    cudaMemset(dDh.get(), 0xFF, dDh.bytes());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    EXPECT_EQ(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
    linear_cross_entropy(a, work.get(), bytes, st);
    EXPECT_EQ(cudaStreamEndCapture(st, &g), cudaSuccess);
    EXPECT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
    EXPECT_EQ(cudaGraphLaunch(exec, st), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(st), cudaSuccess);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    cudaStreamDestroy(st);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Outputs o;
  if (p.loss) {
    for (float x : dLoss.download<float>(size_t(p.rows))) o.loss.push_back(x);
  }
  if (p.reduced) o.reduced = dRed.download<float>(1)[0];
  if (p.dh) o.dh = read_back(dDh, p.dtype, p.rows, p.hidden, lddh, &o.dh_padding_intact);
  if (p.dw) o.dw = read_back(dDw, p.dw_type, p.vocab, p.hidden, lddw, &o.dw_padding_intact);
  return o;
}

// The unfused sol path: all rows × vocab logits, then the same outputs.
Outputs run_unfused(Inputs& s) {
  const Problem& p = s.p;
  const int64_t lddh = p.hidden + p.pad, lddw = p.hidden + p.pad;
  DevBuf dLogits(size_t(p.rows * p.vocab * bytes_of(p.dtype))), dDh(size_t(p.rows * lddh * bytes_of(p.dtype)));
  DevBuf dDw(s.dw0.bytes.size()), dLoss(size_t(p.rows) * 4), dRed(4);
  cudaMemset(dDh.get(), 0xFF, dDh.bytes());
  dDw.upload(s.dw0.bytes);
  const auto mm = [](const MatmulArgs& m) {
    DevBuf ws(matmul_workspace_size(m));
    matmul(m, ws.get(), ws.bytes(), nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  };
  mm({.m = p.rows, .n = p.vocab, .k = p.hidden, .a_type = p.dtype, .b_type = p.dtype, .c_type = p.dtype,
      .trans_a = Transpose::N, .trans_b = Transpose::T, .a = s.dH.get(), .b = s.dW.get(), .c = dLogits.get(),
      .lda = s.ldh, .ldb = s.ldw, .ldc = p.vocab});
  const CrossEntropyArgs c{.dtype = p.dtype, .rows = p.rows, .vocab = p.vocab, .logits = dLogits.get(),
                           .labels = s.dLabels.get(), .label_type = p.labels, .ignore_index = kIgnore,
                           .label_smoothing = p.smoothing, .reduction = p.reduction, .grad_scale = kGradScale,
                           .loss = dLoss.get<float>(), .loss_reduced = dRed.get<float>(), .dlogits = dLogits.get()};
  DevBuf ce_ws(cross_entropy_workspace_size(c));
  cross_entropy(c, ce_ws.get(), ce_ws.bytes(), nullptr);
  mm({.m = p.rows, .n = p.hidden, .k = p.vocab, .a_type = p.dtype, .b_type = p.dtype, .c_type = p.dtype,
      .trans_a = Transpose::N, .trans_b = Transpose::N, .a = dLogits.get(), .b = s.dW.get(), .c = dDh.get(),
      .lda = p.vocab, .ldb = s.ldw, .ldc = lddh});
  mm({.m = p.vocab, .n = p.hidden, .k = p.rows, .a_type = p.dtype, .b_type = p.dtype, .c_type = p.dw_type,
      .trans_a = Transpose::T, .trans_b = Transpose::N, .a = dLogits.get(), .b = s.dH.get(), .c = dDw.get(),
      .lda = p.vocab, .ldb = s.ldh, .ldc = lddw, .beta = p.accumulate ? 1.f : 0.f});
  Outputs o;
  for (float x : dLoss.download<float>(size_t(p.rows))) o.loss.push_back(x);
  o.reduced = dRed.download<float>(1)[0];
  o.dh = read_back(dDh, p.dtype, p.rows, p.hidden, lddh, &o.dh_padding_intact);
  o.dw = read_back(dDw, p.dw_type, p.vocab, p.hidden, lddw, &o.dw_padding_intact);
  return o;
}

// The double reference of the rows in `rows` (all of them for dW): per row its loss and lse, its
// dlogits (rounded to the dtype), dh's row and its terms' norm; dW and its terms from every row.
struct Reference {
  std::vector<double> loss, lse, dh, dh_terms, dw, dw_terms;
  double reduced = 0;
};
Reference reference(const Inputs& s, const std::vector<int64_t>& rows, bool with_dw) {
  const Problem& p = s.p;
  const int64_t V = p.vocab, H = p.hidden, n = int64_t(rows.size());
  const double eps = p.smoothing;
  const int64_t counted = s.counted();
  const double gs = kGradScale * (p.reduction == Reduction::Mean ? 1.0 / double(counted) : 1.0);
  Reference ref;
  ref.loss.assign(size_t(n), 0);
  ref.lse.assign(size_t(n), 0);
  ref.dh.assign(size_t(n * H), 0);
  ref.dh_terms.assign(size_t(n * H), 0);
  std::vector<double> dl(size_t(n * V), 0);  // dlogits rounded to the dtype
  parallel_for(n, [&](int64_t i) {
    const int64_t r = rows[size_t(i)], l = s.label[size_t(r)];
    std::vector<double> x(static_cast<size_t>(V));
    for (int64_t c = 0; c < V; ++c) {
      double z = 0;
      for (int64_t k = 0; k < H; ++k) z += s.h.at(r, k) * s.w.at(c, k);
      x[size_t(c)] = round_to(p.dtype, z);
    }
    if (l == kIgnore) return;
    double mx = -INFINITY, sum = 0, sx = 0;
    for (double v : x) mx = std::max(mx, v);
    for (double v : x) sum += std::exp(v - mx), sx += v;
    const double lse = mx + std::log(sum);
    ref.lse[size_t(i)] = lse;
    ref.loss[size_t(i)] = lse - (1 - eps) * x[size_t(l)] - eps * sx / double(V);
    for (int64_t c = 0; c < V; ++c)
      dl[size_t(i * V + c)] = round_to(p.dtype, (std::exp(x[size_t(c)] - lse) - (c == l ? 1 - eps : 0) - eps / double(V)) * gs);
    for (int64_t k = 0; k < H; ++k) {
      double acc = 0, terms = 0;
      for (int64_t c = 0; c < V; ++c) {
        const double t = dl[size_t(i * V + c)] * s.w.at(c, k);
        acc += t, terms += std::abs(t);
      }
      ref.dh[size_t(i * H + k)] = round_to(p.dtype, acc);
      ref.dh_terms[size_t(i * H + k)] = terms;
    }
  });
  for (int64_t i = 0; i < n; ++i) ref.reduced += ref.loss[size_t(i)];
  if (p.reduction == Reduction::Mean) ref.reduced /= double(counted);
  if (with_dw) {
    ref.dw.assign(size_t(V * H), 0);
    ref.dw_terms.assign(size_t(V * H), 0);
    parallel_for(V, [&](int64_t c) {
      for (int64_t k = 0; k < H; ++k) {
        double acc = p.accumulate ? s.dw0.at(c, k) : 0, terms = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double t = dl[size_t(i * V + c)] * s.h.at(rows[size_t(i)], k);
          acc += t, terms += std::abs(t);
        }
        ref.dw[size_t(c * H + k)] = acc;
        ref.dw_terms[size_t(c * H + k)] = terms;
      }
    });
  }
  return ref;
}

// The rows whose dh and loss the sampled check reads: the first, the last, and a few between.
std::vector<int64_t> sampled_rows(int64_t rows) {
  std::vector<int64_t> v;
  for (int64_t r : {int64_t(0), int64_t(1), rows / 3, rows / 2, rows - 2, rows - 1})
    if (r >= 0 && r < rows && std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
  return v;
}

template <class T>
std::vector<T> pick(const std::vector<T>& all, const std::vector<int64_t>& rows, int64_t width) {
  std::vector<T> v;
  for (int64_t r : rows)
    for (int64_t k = 0; k < width; ++k) v.push_back(all[size_t(r * width + k)]);
  return v;
}

void expect_reduced(double got, double want, const Problem& p, int64_t counted, const char* what) {
  if (p.reduction == Reduction::Mean && counted == 0) {
    EXPECT_TRUE(std::isnan(got)) << what << ": every row ignored, the mean is 0/0";
    return;
  }
  EXPECT_LE(std::abs(got - want), loss_tol(p.dtype) * std::max(1.0, std::abs(want))) << what << ": " << got << " vs " << want;
}

void check(const Problem& p) {
  SCOPED_TRACE(p.str());
  Inputs s(p);
  const Outputs fused = run_fused(s);
  const Outputs unfused = run_unfused(s);
  const int64_t counted = s.counted();
  std::vector<int64_t> rows;
  if (p.full_reference) {
    for (int64_t r = 0; r < p.rows; ++r) rows.push_back(r);
  } else {
    rows = sampled_rows(p.rows);
  }
  const Reference ref = reference(s, rows, p.full_reference && p.dw);
  // dW's tolerance: one rounding per chunk where it accumulates in the dtype.
  // The rule's chunk has at least min(rows, 128) rows (kernels/api/linear_ce_plan.hpp).
  const int64_t chunk = p.chunk > 0 ? p.chunk : std::min<int64_t>(p.rows, 128), chunks = (p.rows + chunk - 1) / chunk;
  const double dw_tol = grad_tol(p.dtype) + (p.dw_type == DType::f32 ? 0 : 2 * rounding(p.dw_type) * std::sqrt(double(chunks)));
  if (p.loss) {
    EXPECT_LE(rel_err(pick(fused.loss, rows, 1), ref.loss, ref.lse), loss_tol(p.dtype)) << "loss vs the double reference";
    EXPECT_LE(rel_err(fused.loss, unfused.loss, unfused.loss), loss_tol(p.dtype)) << "loss vs the unfused path";
  }
  if (p.reduced && p.full_reference) {
    expect_reduced(fused.reduced, ref.reduced, p, counted, "reduced loss vs the double reference");
  }
  if (p.reduced) expect_reduced(fused.reduced, unfused.reduced, p, counted, "reduced loss vs the unfused path");
  if (p.dh) {
    EXPECT_TRUE(fused.dh_padding_intact) << "dh's padding was written";
    EXPECT_LE(rel_err(pick(fused.dh, rows, p.hidden), ref.dh, ref.dh_terms), grad_tol(p.dtype)) << "dh vs the double reference";
    EXPECT_LE(rel_err(fused.dh, unfused.dh, unfused.dh), grad_tol(p.dtype)) << "dh vs the unfused path";
  }
  if (p.dw) {
    EXPECT_TRUE(fused.dw_padding_intact) << "dW's padding was written";
    if (p.full_reference) {
      EXPECT_LE(rel_err(fused.dw, ref.dw, ref.dw_terms), dw_tol) << "dW vs the double reference";
    }
    EXPECT_LE(rel_err(fused.dw, unfused.dw, unfused.dw), dw_tol) << "dW vs the unfused path";
  }
}

TEST(ApiLinearCrossEntropy, ShapesAgainstTheReferenceAndTheUnfusedPath) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const int64_t shapes[][3] = {{1, 64, 1},      {1, 64, 7},      {17, 64, 7},     {17, 520, 32000}, {17, 520, 50257},
                               {1, 4096, 50257}, {17, 4096, 7},   {1000, 520, 7},  {1000, 4096, 1},  {1000, 64, 32000}};
  for (DType d : {DType::bf16, DType::f16})
    for (const auto& sh : shapes) check({.dtype = d, .rows = sh[0], .hidden = sh[1], .vocab = sh[2]});
}

TEST(ApiLinearCrossEntropy, ChunkSizes) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (int64_t chunk : {1, 3, 128, 999, 1000, 5000})
    check({.rows = 1000, .hidden = 64, .vocab = 7, .chunk = chunk, .ignore_every = 4});
  for (int64_t chunk : {1, 4, 16, 17, 100})
    check({.rows = 17, .hidden = 520, .vocab = 32000, .chunk = chunk, .ignore_every = 5, .smoothing = 0.1f});
}

TEST(ApiLinearCrossEntropy, IgnoredRowsSmoothingReductionsAndLabelTypes) {
  SOL_REQUIRE_GPU_OR_SKIP();
  for (DType d : {DType::bf16, DType::f16}) {
    check({.dtype = d, .rows = 17, .hidden = 520, .vocab = 50257, .chunk = 5, .ignore_every = 3});
    check({.dtype = d, .rows = 17, .hidden = 64, .vocab = 32000, .chunk = 4, .smoothing = 0.1f, .reduction = Reduction::Sum});
    check({.dtype = d, .rows = 1000, .hidden = 64, .vocab = 7, .chunk = 333, .ignore_every = 2, .smoothing = 1.f,
           .labels = IndexType::i32});
    check({.dtype = d, .rows = 17, .hidden = 64, .vocab = 7, .chunk = 4, .ignore_every = 1});  // mean: NaN, grads 0
    check({.dtype = d, .rows = 17, .hidden = 64, .vocab = 7, .chunk = 4, .ignore_every = 1, .reduction = Reduction::Sum});
  }
}

TEST(ApiLinearCrossEntropy, OutputsAlonePitchesAndDwAccumulation) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const Problem base{.rows = 17, .hidden = 520, .vocab = 32000, .chunk = 5, .ignore_every = 4};
  auto with = [&](auto edit) {
    Problem p = base;
    edit(p);
    return p;
  };
  check(with([](Problem& p) { p.reduced = p.dh = p.dw = false; }));   // per-row losses, no gradients
  check(with([](Problem& p) { p.loss = p.dh = p.dw = false; }));      // the reduced loss alone
  check(with([](Problem& p) { p.loss = p.reduced = p.dw = false; }));  // dh alone
  check(with([](Problem& p) { p.loss = p.reduced = p.dh = false; }));  // dW alone
  check(with([](Problem& p) { p.pad = 3; }));                          // unaligned pitches
  check(with([](Problem& p) { p.pad = 8; }));
  check(with([](Problem& p) { p.accumulate = true; }));
  check(with([](Problem& p) { p.dw_type = DType::bf16; }));
  check(with([](Problem& p) { p.dw_type = DType::bf16, p.accumulate = true, p.chunk = 1; }));
  check(with([](Problem& p) { p.dtype = p.dw_type = DType::f16, p.pad = 5; }));
}

TEST(ApiLinearCrossEntropy, LargeShapeSampledRows) {
  SOL_REQUIRE_GPU_OR_SKIP();
  check({.rows = 1000, .hidden = 4096, .vocab = 50257, .ignore_every = 7, .full_reference = false});
  check({.rows = 1000, .hidden = 4096, .vocab = 50257, .chunk = 256, .smoothing = 0.05f, .full_reference = false});
}

// The call enqueues everything on its stream: captured into a CUDA graph and replayed, it writes what
// a direct call writes, bit for bit.
TEST(ApiLinearCrossEntropy, CapturedInACudaGraph) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const Problem p{.rows = 300, .hidden = 520, .vocab = 32000, .chunk = 128, .ignore_every = 3, .accumulate = true};
  Inputs s(p);
  const Outputs direct = run_fused(s);
  const Outputs replayed = run_fused(s, /*graph=*/true);
  EXPECT_EQ(direct.loss, replayed.loss);
  EXPECT_EQ(direct.reduced, replayed.reduced);
  EXPECT_EQ(direct.dh, replayed.dh);
  EXPECT_EQ(direct.dw, replayed.dw);
}

// ---- without a GPU: the checks, the workspace size, explain --------------------------------------------
// Addresses 2^40 bytes apart: no buffer of these shapes overlaps another; never dereferenced.
template <class T = void>
T* far(uintptr_t i) {
  return reinterpret_cast<T*>(i << 40);
}

LinearCrossEntropyArgs ok_args() {
  return {.rows = 16384, .hidden = 4096, .vocab = 128256, .h = far(1), .w = far(2), .labels = far(3),
          .loss = far<float>(4), .loss_reduced = far<float>(5), .dh = far(6), .dw = far(7)};
}

TEST(ApiLinearCrossEntropyChecks, RefusesBadArgumentsBeforeAnyCudaCall) {
  auto with = [](auto edit) {
    LinearCrossEntropyArgs a = ok_args();
    edit(a);
    return a;
  };
  auto size = [](const LinearCrossEntropyArgs& a) { return linear_cross_entropy_workspace_size(a); };
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.dtype = DType::f32; })), "dtype fp32");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.rows = 0; })), "rows = 0");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.hidden = -1; })), "hidden = -1");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.vocab = 0; })), "vocab = 0");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.rows = int64_t(1) << 31; })), "rows");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.vocab = int64_t(1) << 31; })), "vocab");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.h = nullptr; })), "h is nullptr");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.w = nullptr; })), "w is nullptr");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.labels = nullptr; })), "labels is nullptr");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.label_smoothing = -0.5f; })), "label_smoothing");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.grad_scale = NAN; })), "grad_scale");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.reduction = Reduction(7); })), "reduction");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.label_type = IndexType(7); })), "label_type");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.dw_type = DType::f16; })), "dw_type fp16");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.chunk_rows = -4; })), "chunk_rows = -4");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.loss = a.loss_reduced = nullptr, a.dh = a.dw = nullptr; })), "no output");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.ldh = 100; })), "ldh = 100 is less than hidden = 4096");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.ldw = -1; })), "ldw = -1");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.lddh = 4095; })), "lddh = 4095");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.lddw = 7; })), "lddw = 7");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.ldh = int64_t(1) << 50; })), "overflow");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.h = static_cast<char*>(far(1)) + 1; })), "h is not aligned");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.labels = static_cast<char*>(far(3)) + 4; })), "labels is not aligned");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.dw = static_cast<char*>(far(7)) + 2; })), "dw is not aligned");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.dh = static_cast<char*>(far(1)) + 4096; })), "dh overlaps h");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.dw = far(2); })), "dw overlaps w");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.loss = far<float>(3); })), "loss overlaps labels");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.loss_reduced = a.loss + 7; })), "loss overlaps loss_reduced");
  SOL_EXPECT_BAD_INPUT(size(with([](auto& a) { a.dw = far(6); })), "dh overlaps dw");
  SOL_EXPECT_BAD_INPUT(explain_linear_cross_entropy(with([](auto& a) { a.rows = -3; })), "rows = -3");
  SOL_EXPECT_BAD_INPUT(linear_cross_entropy(ok_args(), nullptr, 0, nullptr), "workspace is nullptr");
  SOL_EXPECT_BAD_INPUT(linear_cross_entropy(ok_args(), far(9), 1000, nullptr), "less than the");
}

// The workspace is the plan's layout at the rule's chunk; without a GPU the rule is the H200's.
TEST(ApiLinearCrossEntropyChecks, WorkspaceSizeAndExplainFollowTheRule) {
  std::string why;
  const bool gpu = bench::gpu_available(&why);
  LinearCrossEntropyArgs a = ok_args();
  const size_t bytes = linear_cross_entropy_workspace_size(a);
  const kernels::api::LceShape shape{.rows = a.rows, .hidden = a.hidden, .vocab = a.vocab, .loss_rows_kept = true};
  const size_t unfused = kernels::api::lce_unfused_bytes(shape, kernels::gemm::tc::kLtWorkspaceBytes);
  EXPECT_LT(double(bytes), double(unfused) / 8) << "the workspace is within 1/8 of the unfused path's memory";
  if (!gpu) {  // the H200's rule: 9 chunks of 1920 rows, cuBLASLt's 32 MiB for every GEMM
    EXPECT_EQ(bytes, kernels::api::lce_layout(shape, 1920, kernels::gemm::tc::kLtWorkspaceBytes).total);
    const Choice c = explain_linear_cross_entropy(a);
    EXPECT_EQ(c.implementation, "linear_ce/dispatch");
    EXPECT_EQ(c.reason.rfind("9 chunks of 1920 rows: ", 0), 0u) << c.reason;
    EXPECT_NE(c.reason.find("crossentropy/v02_one_read_bf16"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find("896 rows"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find("no GPU visible"), std::string::npos) << c.reason;
    EXPECT_GT(c.predicted_s, 0);
  }
  // The caller's chunk: one row, the losses kept in the workspace.
  a.chunk_rows = 1;
  a.loss = nullptr;
  const Choice one = explain_linear_cross_entropy(a);
  EXPECT_NE(one.reason.find("16384 chunks of 1 row:"), std::string::npos) << one.reason;
  EXPECT_NE(one.reason.find("chunk_rows = 1 as asked"), std::string::npos) << one.reason;
  EXPECT_GT(linear_cross_entropy_workspace_size(a), size_t(a.rows) * 4);
}

}  // namespace

#endif  // SOL_WITH_CUDA

// sol::matmul (include/sol/kernels.hpp) through its public entry: every layout × input type ×
// output type it serves, odd and prime sizes, m = 1, padded leading dimensions, alpha and beta,
// against a CPU reference in double; and every argument error, which throws before anything is
// launched (those run without a GPU).
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sol/formats/cast.hpp"
#include "sol/kernels.hpp"
#include "tests/gpu/gpu_env.hpp"

namespace {

using sol::DType;
using sol::MatmulArgs;
using sol::Transpose;

sol::formats::Format format_of(DType t) {
  return t == DType::bf16 ? sol::formats::Format::bf16 : t == DType::f16 ? sol::formats::Format::fp16 : sol::formats::Format::e4m3;
}

// Host storage of one matrix in type t: the bytes and the exact values they hold.
struct HostMatrix {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};

// rows × ld elements; element (r, c < cols) is a multiple of 1/4 in [-2, 2] (exact in every type),
// the padding past cols holds NaN (a kernel that reads it poisons its result).
HostMatrix make(DType t, int64_t rows, int64_t cols, int64_t ld, uint32_t seed) {
  const int eb = sol::dtype_bytes(t);
  HostMatrix h;
  h.bytes.assign(size_t(rows * ld * eb), 0);
  h.values.assign(size_t(rows * ld), 0);
  uint32_t x = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < rows * ld; ++i) {
    x = x * 1664525u + 1013904223u;
    const bool pad = i % ld >= cols;
    const float v = pad ? NAN : float(int((x >> 16) % 17) - 8) / 4.f;
    h.values[size_t(i)] = v;
    uint32_t code = 0;
    if (t == DType::f32) {
      code = sol::formats::f32_bits(v);
    } else {
      code = sol::formats::encode_checked(format_of(t), v, sol::formats::Overflow::Saturate);
    }
    for (int b = 0; b < eb; ++b) h.bytes[size_t(i * eb + b)] = uint8_t(code >> (8 * b));
  }
  return h;
}

double decode(DType t, const uint8_t* p) {
  uint32_t code = 0;
  for (int b = 0; b < sol::dtype_bytes(t); ++b) code |= uint32_t(p[b]) << (8 * b);
  return t == DType::f32 ? sol::formats::f32_value(code) : sol::formats::decode_value(format_of(t), code);
}

struct Device {
  void* p = nullptr;
  explicit Device(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes ? bytes : 1), cudaSuccess); }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

struct Case {
  int64_t m, n, k;
  DType in, out;
  Transpose ta, tb;
  int64_t pad = 0;  // extra elements per row of A, B and C
  float alpha = 1.f, beta = 0.f;
  int64_t offset = 0;  // elements by which A, B and C start past their allocations (a slice's pointers)
};

std::string name(const Case& c) {
  return "m=" + std::to_string(c.m) + ",n=" + std::to_string(c.n) + ",k=" + std::to_string(c.k) + " " +
         sol::dtype_name(c.in) + "→" + sol::dtype_name(c.out) + " " + (c.ta == Transpose::T ? "T" : "N") +
         (c.tb == Transpose::T ? "T" : "N") + " pad=" + std::to_string(c.pad) + " alpha=" + std::to_string(c.alpha) +
         " beta=" + std::to_string(c.beta) + (c.offset ? " offset=" + std::to_string(c.offset) : "");
}

// Runs the case and returns ‖C − ref‖₂ / ‖ref‖₂ (or a large number where a value is not finite).
double run_case(const Case& c) {
  const bool at = c.ta == Transpose::T, bt = c.tb == Transpose::T;
  const int64_t a_rows = at ? c.k : c.m, a_cols = at ? c.m : c.k, b_rows = bt ? c.n : c.k, b_cols = bt ? c.k : c.n;
  const int64_t lda = a_cols + c.pad, ldb = b_cols + c.pad, ldc = c.n + c.pad;
  const HostMatrix A = make(c.in, a_rows, a_cols, lda, 1), B = make(c.in, b_rows, b_cols, ldb, 2);
  const HostMatrix C0 = make(c.out, c.m, c.n, ldc, 3);
  const int64_t ib = sol::dtype_bytes(c.in), offset_in = c.offset * ib, offset_out = c.offset * sol::dtype_bytes(c.out);
  Device dA(A.bytes.size() + offset_in), dB(B.bytes.size() + offset_in), dC(C0.bytes.size() + offset_out),
      dScale(2 * sizeof(float));
  char* pA = static_cast<char*>(dA.p) + offset_in;
  char* pB = static_cast<char*>(dB.p) + offset_in;
  char* pC = static_cast<char*>(dC.p) + offset_out;
  cudaMemcpy(pA, A.bytes.data(), A.bytes.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(pB, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(pC, C0.bytes.data(), C0.bytes.size(), cudaMemcpyHostToDevice);
  if (offset_out) cudaMemset(dC.p, 0x5A, size_t(offset_out));  // the bytes before C: never written
  const float scales[2] = {0.5f, 4.f};
  cudaMemcpy(dScale.p, scales, sizeof scales, cudaMemcpyHostToDevice);
  MatmulArgs a;
  a.m = c.m, a.n = c.n, a.k = c.k;
  a.a_type = a.b_type = c.in, a.c_type = c.out;
  a.trans_a = c.ta, a.trans_b = c.tb;
  a.a = pA, a.b = pB, a.c = pC;
  a.lda = lda, a.ldb = ldb, a.ldc = ldc;
  a.alpha = c.alpha, a.beta = c.beta;
  const bool fp8 = c.in == DType::fp8_e4m3;
  if (fp8) a.scale_a = static_cast<const float*>(dScale.p), a.scale_b = static_cast<const float*>(dScale.p) + 1;
  const size_t ws_bytes = sol::matmul_workspace_size(a);
  Device ws(ws_bytes);
  sol::matmul(a, ws.p, ws_bytes, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<uint8_t> got(C0.bytes.size());
  cudaMemcpy(got.data(), pC, got.size(), cudaMemcpyDeviceToHost);
  const double scale = double(c.alpha) * (fp8 ? scales[0] * scales[1] : 1.0);
  const int ob = sol::dtype_bytes(c.out);
  double err = 0, norm = 0;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < c.k; ++p)
        ref += A.values[size_t(at ? p * lda + i : i * lda + p)] * B.values[size_t(bt ? j * ldb + p : p * ldb + j)];
      ref = scale * ref + (c.beta != 0.f ? double(c.beta) * C0.values[size_t(i * ldc + j)] : 0.0);
      const double v = decode(c.out, got.data() + (i * ldc + j) * ob);
      if (!std::isfinite(v)) return 1e30;
      err += (v - ref) * (v - ref);
      norm += ref * ref;
    }
  // The bytes before C and the padding of C are never written.
  std::vector<uint8_t> before(static_cast<size_t>(offset_out));
  if (offset_out) cudaMemcpy(before.data(), dC.p, before.size(), cudaMemcpyDeviceToHost);
  for (uint8_t byte : before)
    if (byte != 0x5A) return 3e30;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = c.n; j < ldc; ++j)
      for (int b = 0; b < ob; ++b)
        if (got[size_t((i * ldc + j) * ob + b)] != C0.bytes[size_t((i * ldc + j) * ob + b)]) return 2e30;
  return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

double tolerance(DType out) { return out == DType::f32 ? 1e-5 : out == DType::f16 ? 2e-3 : 8e-3; }

}  // namespace

TEST(ApiMatmul, EveryLayoutTypeAndOutputMatchesTheReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  struct Size {
    int64_t m, n, k;
  };
  const std::vector<Size> sizes = {{1, 1, 1}, {1, 129, 64}, {31, 37, 41}, {130, 67, 96}, {33, 300, 1023}},
                          aligned_sizes = {{1, 128, 64}, {33, 48, 96}, {130, 64, 1024}};
  const DType ins[] = {DType::bf16, DType::f16, DType::fp8_e4m3, DType::f32};
  for (DType in : ins)
    for (DType out : {DType::bf16, DType::f16, DType::f32}) {
      if (in == DType::f32 && out != DType::f32) continue;
      for (Transpose ta : {Transpose::N, Transpose::T})
        for (Transpose tb : {Transpose::N, Transpose::T}) {
          if (in == DType::fp8_e4m3 && (ta != Transpose::N || tb != Transpose::T)) continue;
          // fp8 into f16 or f32 C is cuBLASLt's alone: k % 16 == 0 and 16-byte pitches (below
          // for what else it gets).
          const bool lt_rules = in == DType::fp8_e4m3 && out != DType::bf16;
          for (const auto& s : lt_rules ? aligned_sizes : sizes)
            for (int variant = 0; variant < 3; ++variant) {
              Case c{s.m, s.n, s.k, in, out, ta, tb};
              if (variant == 1) c.pad = lt_rules ? 16 : 3, c.alpha = 0.5f, c.beta = 1.5f;
              // Pointers into the middle of a tensor, with beta: cuBLASLt told their alignment
              // (fp8 into bf16: a rung into its scratch D, then the epilogue pass into C). The
              // rungs' own offset C is TheDispatchersRungsServeTheirLayoutAtAwkwardShapes'.
              if (variant == 2) c.offset = lt_rules ? 16 : 1, c.beta = 0.5f;
              const double e = run_case(c);
              EXPECT_LE(e, tolerance(out)) << name(c);
            }
        }
    }
}

TEST(ApiMatmul, TheDispatchersRungsServeTheirLayoutAtAwkwardShapes) {
  SOL_REQUIRE_GPU_OR_SKIP();
  // TN, bf16 C, no beta: where the table names a sol rung (unaligned pitches) and where
  // cuBLASLt's fp8 cannot run at all (k % 16 != 0).
  for (DType in : {DType::bf16, DType::f16, DType::fp8_e4m3})
    for (const Case& c : {Case{255, 1023, 1023, in, DType::bf16, Transpose::N, Transpose::T},
                          Case{257, 129, 333, in, DType::bf16, Transpose::N, Transpose::T, 5, 2.f},
                          Case{1, 4095, 17, in, DType::bf16, Transpose::N, Transpose::T},
                          Case{255, 1023, 1023, in, DType::bf16, Transpose::N, Transpose::T, 0, 1.f, 0.f, 1},
                          Case{257, 130, 300, in, DType::bf16, Transpose::N, Transpose::T, 2, 1.f, 0.f, 3}}) {
      EXPECT_LE(run_case(c), tolerance(DType::bf16)) << name(c);
    }
}

TEST(ApiMatmul, V08SplittingKMatchesTheReferenceWhereOptedIn) {
  SOL_REQUIRE_GPU_OR_SKIP();
  // v08 splits k over a cluster only where the table measured the split, or opted in
  // (SOL_DISPATCH_UNMEASURED=1, read on every call): both must give the same answer. The table
  // sends these to v08 (the host test ApiMatmulPlan.V08SplitsKOnlyWhereTheTableMeasuredTheSplit
  // checks it), whose 128×256 tiles are too few for a wave: k over 4 CTAs at 511 × 1023 × 1535 and
  // 255 × 1023 × 1535, over 8 at 255 × 511 × 4095.
  const char* was = std::getenv("SOL_DISPATCH_UNMEASURED");
  const std::string saved = was ? was : "";
  const Transpose N = Transpose::N, T = Transpose::T;
  for (const char* opt : {"1", "0"}) {
    setenv("SOL_DISPATCH_UNMEASURED", opt, 1);
    for (const Case& c : {Case{511, 1023, 1535, DType::bf16, DType::bf16, N, T},
                          Case{255, 1023, 1535, DType::bf16, DType::bf16, N, T, 0, 0.75f},
                          Case{255, 511, 4095, DType::bf16, DType::bf16, N, T}})
      EXPECT_LE(run_case(c), tolerance(DType::bf16)) << name(c) << " SOL_DISPATCH_UNMEASURED=" << opt;
  }
  if (was) setenv("SOL_DISPATCH_UNMEASURED", saved.c_str(), 1);
  else unsetenv("SOL_DISPATCH_UNMEASURED");
}

TEST(ApiMatmul, ExplainNamesTheImplementationAndTheMeasurementThatDecided) {
  // No GPU needed: explain_matmul reads no memory and, without a device, answers as on an H200.
  // m = 65: one token past the decode rule (kernels/gemm/gemv), so the table decides.
  static uint16_t a[65], b[1], c[65];
  MatmulArgs args;
  args.m = 65, args.n = args.k = 1;
  args.a = a, args.b = b, args.c = c;
  args.trans_b = Transpose::N;  // NN: only cuBLASLt serves it
  const sol::Choice nn = sol::explain_matmul(args);
  EXPECT_EQ(nn.implementation, "cublasLt");
  EXPECT_NE(nn.reason.find("trans_a=N, trans_b=T"), std::string::npos) << nn.reason;
  args.trans_b = Transpose::T;
  const sol::Choice tn = sol::explain_matmul(args);
  // On an H200 (or with no GPU) the table decides; elsewhere sol's rungs are not in play.
  EXPECT_TRUE(tn.reason.find("nearest measured") != std::string::npos ||
              tn.reason.find("built and measured for sm_90") != std::string::npos)
      << tn.reason;
}

TEST(ApiMatmul, EveryArgumentErrorThrowsBeforeAnyLaunch) {
  // Runs without a GPU: each of these is refused by the host-side validation.
  static uint16_t a[64], b[64], c[64];
  static float scale = 1.f;
  const auto base = [] {
    MatmulArgs x;
    x.m = 3, x.n = 4, x.k = 5;
    x.a = a, x.b = b, x.c = c;
    return x;
  };
  const struct {
    const char* what;
    void (*edit)(MatmulArgs&);
  } cases[] = {
      {"m = 0", [](MatmulArgs& x) { x.m = 0; }},
      {"n < 0", [](MatmulArgs& x) { x.n = -1; }},
      {"null a", [](MatmulArgs& x) { x.a = nullptr; }},
      {"null b", [](MatmulArgs& x) { x.b = nullptr; }},
      {"null c", [](MatmulArgs& x) { x.c = nullptr; }},
      {"lda < k", [](MatmulArgs& x) { x.lda = 4; }},
      {"ldb < k (T)", [](MatmulArgs& x) { x.ldb = 4; }},
      {"ldc < n", [](MatmulArgs& x) { x.ldc = 3; }},
      {"int8", [](MatmulArgs& x) { x.a_type = x.b_type = DType::int8; }},
      {"bf16 × f16", [](MatmulArgs& x) { x.b_type = DType::f16; }},
      {"f32 in, bf16 out", [](MatmulArgs& x) { x.a_type = x.b_type = DType::f32; }},
      {"fp8 without scales", [](MatmulArgs& x) { x.a_type = x.b_type = DType::fp8_e4m3; }},
      {"fp8 NN",
       [](MatmulArgs& x) {
         x.a_type = x.b_type = DType::fp8_e4m3, x.scale_a = x.scale_b = &scale, x.trans_b = Transpose::N;
       }},
      {"beta with C over A", [](MatmulArgs& x) { x.c = const_cast<void*>(x.a), x.beta = 1.f; }},
  };
  for (const auto& t : cases) {
    MatmulArgs x = base();
    t.edit(x);
    for (int entry = 0; entry < 3; ++entry) {
      try {
        if (entry == 0) sol::matmul(x, nullptr, 0, nullptr);
        if (entry == 1) (void)sol::matmul_workspace_size(x);
        if (entry == 2) (void)sol::explain_matmul(x);
        ADD_FAILURE() << t.what << " was accepted";
      } catch (const sol::Error& e) {
        EXPECT_EQ(e.kind(), sol::Error::Kind::BadInput) << t.what << ": " << e.what();
      }
    }
  }
  // fp8 into f32 C with k % 16 != 0: cuBLASLt's fp8 cannot, sol's rungs write bf16 only.
  {
    MatmulArgs x = base();
    x.a_type = x.b_type = DType::fp8_e4m3, x.c_type = DType::f32, x.scale_a = x.scale_b = &scale;
    try {
      (void)sol::matmul_workspace_size(x);
      ADD_FAILURE() << "fp8 → f32 with k=5 was accepted";
    } catch (const sol::Error& e) {
      EXPECT_NE(std::string(e.what()).find("nothing serves this call"), std::string::npos) << e.what();
    }
  }
  // A workspace below what the call needs (cuBLASLt's 32 MiB for NN) is refused, too.
  MatmulArgs x = base();
  x.trans_b = Transpose::N;
  try {
    sol::matmul(x, nullptr, 0, nullptr);
    ADD_FAILURE() << "an empty workspace was accepted";
  } catch (const sol::Error& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
}

#else
TEST(ApiMatmul, NeedsCuda) { GTEST_SKIP() << "sol::matmul is built only with CUDA (nvcc not found)"; }
#endif

// The decode GEMM (kernels/gemm/gemv) through sol::matmul: the dispatcher sends launch-bound
// decode calls to its rungs (each layout, C type and beta), the result matches a CPU reference in
// double, split k is bit-reproducible, and a short workspace is refused. The rungs themselves run
// the registry suite (test_registry.cpp) at their odd, prime, misaligned and det=1 test shapes.
#include <gtest/gtest.h>

#ifdef SOL_WITH_CUDA
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

#include "sol/kernels.hpp"
#include "tests/gpu/api_test_util.hpp"
#include "tests/gpu/gpu_env.hpp"

namespace {

using sol::DType;
using sol::MatmulArgs;
using sol::Transpose;
using sol::test::DevBuf;

struct Call {
  int64_t m, n, k;
  DType in = DType::bf16, out = DType::bf16;
  Transpose tb = Transpose::T;
  int64_t pad = 0;
  float beta = 0.f;
};

std::string name(const Call& c) {
  return "m=" + std::to_string(c.m) + ",n=" + std::to_string(c.n) + ",k=" + std::to_string(c.k) + " " +
         sol::dtype_name(c.in) + "→" + sol::dtype_name(c.out) + (c.tb == Transpose::T ? " T" : " N") +
         " pad=" + std::to_string(c.pad) + " beta=" + std::to_string(c.beta);
}

// rows × ld 16-bit values (multiples of 1/8 in [-1, 1], exact in bf16 and fp16) and their values.
std::vector<uint16_t> values16(int64_t count, uint32_t seed, bool fp16, std::vector<double>& out) {
  std::vector<uint16_t> bits(static_cast<size_t>(count));
  out.resize(size_t(count));
  uint32_t x = seed * 2654435761u + 7u;
  for (int64_t i = 0; i < count; ++i) {
    x = x * 1664525u + 1013904223u;
    out[size_t(i)] = double(int((x >> 16) % 17) - 8) / 8.0;
    bits[size_t(i)] = sol::test::half_bits(out[size_t(i)], fp16);
  }
  return bits;
}

struct Result {
  std::string implementation;
  double rel_l2 = 0;
  std::vector<uint8_t> bytes;
};

Result run(const Call& c) {
  const bool tb = c.tb == Transpose::T, in16 = c.in == DType::f16;
  const int64_t lda = c.k + c.pad, ldb = (tb ? c.k : c.n) + c.pad, ldc = c.n + c.pad;
  std::vector<double> A, W, C0;
  const auto hA = values16(c.m * lda, 1, in16, A), hW = values16((tb ? c.n : c.k) * ldb, 2, in16, W);
  const int ob = sol::dtype_bytes(c.out);
  std::vector<uint8_t> hC(size_t(c.m * ldc * ob));
  const auto h16 = values16(c.m * ldc, 3, c.out == DType::f16, C0);
  for (int64_t i = 0; i < c.m * ldc; ++i) {
    const uint32_t b = ob == 4 ? sol::test::f32_bits(float(C0[size_t(i)])) : h16[size_t(i)];
    for (int j = 0; j < ob; ++j) hC[size_t(i * ob + j)] = uint8_t(b >> (8 * j));
  }
  DevBuf dA(hA.size() * 2), dW(hW.size() * 2), dC(hC.size());
  dA.upload(hA), dW.upload(hW), dC.upload(hC);
  MatmulArgs a;
  a.m = c.m, a.n = c.n, a.k = c.k;
  a.a_type = a.b_type = c.in, a.c_type = c.out;
  a.trans_a = Transpose::N, a.trans_b = c.tb;
  a.a = dA.get(), a.b = dW.get(), a.c = dC.get();
  a.lda = lda, a.ldb = ldb, a.ldc = ldc;
  a.alpha = 1.25f, a.beta = c.beta;
  Result r;
  r.implementation = sol::explain_matmul(a).implementation;
  const size_t ws_bytes = sol::matmul_workspace_size(a);
  DevBuf ws(ws_bytes);
  sol::matmul(a, ws.get(), ws_bytes, nullptr);
  r.bytes = dC.download<uint8_t>(hC.size());
  double err = 0, norm = 0;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < c.k; ++p) ref += A[size_t(i * lda + p)] * W[size_t(tb ? j * ldb + p : p * ldb + j)];
      ref = 1.25 * ref + double(c.beta) * C0[size_t(i * ldc + j)];
      uint32_t b = 0;
      for (int q = 0; q < ob; ++q) b |= uint32_t(r.bytes[size_t((i * ldc + j) * ob + q)]) << (8 * q);
      const double v = ob == 4 ? double(sol::test::f32_of(b)) : sol::test::half_value(uint16_t(b), c.out == DType::f16);
      err += std::isfinite(v) ? (v - ref) * (v - ref) : 1e30;
      norm += ref * ref;
    }
  // The padding of C is never written.
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = c.n * ob; j < ldc * ob; ++j)
      if (r.bytes[size_t(i * ldc * ob + j)] != hC[size_t(i * ldc * ob + j)]) err = 1e30;
  r.rel_l2 = norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
  return r;
}

double tolerance(DType out) { return out == DType::f32 ? 1e-6 : out == DType::f16 ? 2e-3 : 8e-3; }

bool on_h200_class() {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor == 90;
}


}  // namespace

TEST(Gemv, DecodeCallsRunTheDecodeRungsAndMatchTheReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const sol::test::UnmeasuredOptIn opt_in;
  // Launch-bound sizes (≤ ~3 MB of W), where the opted-in decode rule picks its rung on sm_90. B k×n
  // at k = 2049: near k = 771 the table measured cuBLASLt below the rule's prediction for v11 at
  // 3 ≤ m ≤ 17, so there the rule rightly keeps cuBLASLt.
  std::vector<Call> calls;
  for (int64_t m : {1, 2, 3, 7, 8, 9, 16, 17, 31, 64}) {
    calls.push_back({m, 769, 771, DType::bf16, DType::bf16, Transpose::T});
    calls.push_back({m, 769, 2049, DType::bf16, DType::bf16, Transpose::N});
  }
  calls.push_back({5, 1000, 333, DType::f16, DType::f16, Transpose::T, 3, 0.5f});
  calls.push_back({33, 257, 1001, DType::bf16, DType::f32, Transpose::T, 1, 1.f});
  calls.push_back({2, 641, 129, DType::f16, DType::f32, Transpose::N, 5, -1.f});
  calls.push_back({64, 96, 4099, DType::bf16, DType::f16, Transpose::N, 2, 0.25f});
  calls.push_back({1, 1, 1, DType::bf16, DType::bf16, Transpose::T});
  for (const Call& c : calls) {
    const Result r = run(c);
    EXPECT_LE(r.rel_l2, tolerance(c.out)) << name(c) << " on " << r.implementation;
    if (!on_h200_class()) continue;
    // A decode rung that reads B's layout (which of v09, v10, v12, v13 and v14 follows the table's measurements).
    const bool served = c.tb == Transpose::N ? r.implementation.find("/v11_n_contiguous") != std::string::npos
                                             : r.implementation.find("/v09_warp_dot") != std::string::npos ||
                                                   r.implementation.find("/v10_mma_swapped") != std::string::npos ||
                                                   r.implementation.find("/v12_cluster_split_k") != std::string::npos ||
                                                   r.implementation.find("/v13_cluster_prefetch") != std::string::npos ||
                                                   r.implementation.find("/v14_tma_ring") != std::string::npos;
    EXPECT_TRUE(served) << name(c) << " ran " << r.implementation;
  }
}

TEST(Gemv, SplitKGivesTheSameBitsEveryRun) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const sol::test::UnmeasuredOptIn opt_in;
  for (const Call& c : {Call{1, 4096, 4096}, Call{8, 1024, 14336}, Call{64, 512, 8192}, Call{3, 4096, 4096, DType::bf16,
                                                                                              DType::bf16, Transpose::N}}) {
    const Result first = run(c), second = run(c);
    EXPECT_LE(first.rel_l2, tolerance(c.out)) << name(c);
    EXPECT_EQ(first.bytes, second.bytes) << name(c) << " on " << first.implementation;
  }
}

TEST(Gemv, AShortWorkspaceIsRefusedBeforeAnyLaunch) {
  SOL_REQUIRE_GPU_OR_SKIP();
  if (!on_h200_class()) GTEST_SKIP() << "the decode rule runs on sm_90";
  const sol::test::UnmeasuredOptIn opt_in;
  // W stored k×n (v11): m=1 against 4096² splits k through fp32 partials in the workspace.
  DevBuf dA(4096 * 2), dW(size_t(4096) * 4096 * 2), dC(4096 * 2);
  MatmulArgs a;
  a.m = 1, a.n = 4096, a.k = 4096;
  a.trans_b = Transpose::N, a.ldb = 4096;
  a.a = dA.get(), a.b = dW.get(), a.c = dC.get();
  // The H200's table sends the call to v11; another GPU's table may send it to cuBLASLt, which
  // takes a workspace as well. Either way the plan needs one, and a short one must be refused.
  const std::string impl = sol::explain_matmul(a).implementation;
  int dev = 0;
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&prop, dev), cudaSuccess);
  if (std::string(prop.name).find("H200") != std::string::npos) {
    EXPECT_NE(impl.find("v11_n_contiguous"), std::string::npos) << impl;
  }
  const size_t need = sol::matmul_workspace_size(a);
  ASSERT_GT(need, 0u) << impl << " plans no workspace";
  try {
    sol::matmul(a, dA.get(), need - 256, nullptr);
    ADD_FAILURE() << "a short workspace was accepted";
  } catch (const sol::Error& e) {
    EXPECT_EQ(e.kind(), sol::Error::Kind::BadInput) << e.what();
  }
}
#endif

// sol probe: this card's ceilings, each measured with the same sampling loop as the kernels.
//   copy       1 GiB → 1 GiB with 16-byte loads, 4 in flight per thread, one full wave of blocks;
//              and cudaMemcpyAsync device to device. Bytes = read + written.
//   L2         reads of a set a quarter of L2's size, repeated, bypassing L1 (ld.global.cg).
//   matrix     cuBLASLt C = AᵀB at 8192³ (bf16, fp16, tf32, fp32; fp8 e4m3 on cc ≥ 8.9), random
//              non-zero inputs, the best of the first kMatmulAlgos algorithms cuBLASLt's heuristic
//              offers (its first is not always its fastest), each timed alike (a rest, the warm-up,
//              the whole budget); the note names the winner and its SM clock.
//              FLOPs = 2·M·N·K.
//   fp32 FMA   8 independent FMA chains per thread, a full wave of blocks. FLOPs = 2 per FMA.
//   launch     1000 empty kernels back to back: time per launch on the GPU's clock.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "kernels/common/cublas_check.cuh"
#include "bench/gpu.cuh"
#include "kernels/common/random.cuh"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kCopyBytes = int64_t(1) << 30;
constexpr int kL2Reps = 64;
constexpr int kFmaIters = 4096;
constexpr int kFmaChains = 8;
constexpr int64_t kMatmulSize = 8192;
constexpr int kMatmulAlgos = 8;
constexpr double kMatmulRestS = 0.2;
constexpr double kMatmulBudgetS = 0.3;  // each algorithm's warm-up (the clock's ramp from idle) and its sampling
constexpr int kLaunches = 1000;

__global__ void copy16_kernel(const uint4* __restrict__ gSrc, uint4* __restrict__ gDst, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  // Four independent 16-byte loads before any store: 64 bytes in flight per thread.
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 r0 = gSrc[i], r1 = gSrc[i + stride], r2 = gSrc[i + 2 * stride], r3 = gSrc[i + 3 * stride];
    gDst[i] = r0;
    gDst[i + stride] = r1;
    gDst[i + 2 * stride] = r2;
    gDst[i + 3 * stride] = r3;
  }
  for (; i < n; i += stride) gDst[i] = gSrc[i];
}

__global__ void l2_read_kernel(const uint4* __restrict__ gSrc, int64_t n, int reps, uint32_t* gSink) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  for (int r = 0; r < reps; ++r) {
#pragma unroll 4
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const uint4 v = __ldcg(gSrc + i);  // .cg: cached in L2 only, so each rep reads L2, not L1
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 0x9E3779B9u) gSink[0] = acc;  // keeps the loads; the inputs never produce this value
}

__global__ void fma_kernel(float a, float b, int iters, float* gSink) {
  float r[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) r[c] = float(threadIdx.x + c) * 1e-3f;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) r[c] = fmaf(r[c], a, b);  // chains independent of each other
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) s += r[c];
  if (s == -1.0f) gSink[0] = s;  // the chains converge to b / (1 − a) > 0, never −1
}

__global__ void empty_kernel() {}

__global__ void fill_f16_kernel(__half* gOut, int64_t n, uint64_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    gOut[i] = __float2half_rn(__uint_as_float(kernels::random_f32_bits(seed, uint64_t(i), kernels::Dist::Signed)));
}

__global__ void fill_e4m3_small_kernel(uint8_t* gOut, int64_t n, uint64_t seed) {
  // Exponent field 5…8 (0.25 … 4): K = 8192 products stay far from the bf16 output's range.
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = kernels::hash64(seed, uint64_t(i));
    gOut[i] = uint8_t((uint32_t(h >> 63) << 7) | ((5u + uint32_t(h >> 32) % 4u) << 3) | (uint32_t(h) & 7u));
  }
}

int full_wave_blocks(const gpu::Device& d) { return d.sms * (2048 / kThreads); }

Options probe_timing(double budget_s) {
  Options o;
  o.budget_s = budget_s;
  // Long enough for the SM clock to ramp from idle (525 MHz seen at rest on the H200) to its
  // boost before the first sample; a short warm-up measured the matrix rate at a low clock.
  o.warmup_s = 0.3;
  o.min_samples = 5;
  o.max_samples = 200;
  o.settle = 0.01;
  return o;
}

// The matrix rates' timing: probe_timing with the warm-up as long as the budget and no sample
// cap short of it (see matmul_rate).
Options matrix_timing(double budget_s) {
  Options o = probe_timing(budget_s);
  o.warmup_s = budget_s;
  o.max_samples = 100000;
  o.full_budget = true;
  return o;
}

double rate(double amount, const gpu::Timed& t) { return t.summary.median > 0 ? amount / t.summary.median : 0; }

// ---- matrix throughput through cuBLASLt ---------------------------------------------------------
struct MatmulType {
  std::string key;  // "bf16", ...
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  int min_cc;
};

class LtHandle {
 public:
  LtHandle() { SOL_CUBLAS_CHECK(cublas::lt().cublasLtCreate(&h_)); }
  ~LtHandle() { (void)cublas::lt().cublasLtDestroy(h_); }
  cublasLtHandle_t get() const { return h_; }

 private:
  cublasLtHandle_t h_ = nullptr;
};

// Owners of the descriptors, destroyed even when a later call throws.
struct LtDescs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~LtDescs() {
    if (pref) (void)cublas::lt().cublasLtMatmulPreferenceDestroy(pref);
    for (auto l : {a, b, c})
      if (l) (void)cublas::lt().cublasLtMatrixLayoutDestroy(l);
    if (op) (void)cublas::lt().cublasLtMatmulDescDestroy(op);
  }
};

void fill_operand(void* p, int64_t n, const MatmulType& t, uint64_t seed, cudaStream_t s) {
  if (t.ab == CUDA_R_16BF) {
    kernels::fill_random_bf16(p, n, seed, kernels::Dist::Signed, s);
  } else if (t.ab == CUDA_R_16F) {
    fill_f16_kernel<<<1024, kThreads, 0, s>>>(static_cast<__half*>(p), n, seed);
    SOL_LAUNCH_CHECK();
  } else if (t.ab == CUDA_R_8F_E4M3) {
    fill_e4m3_small_kernel<<<1024, kThreads, 0, s>>>(static_cast<uint8_t*>(p), n, seed);
    SOL_LAUNCH_CHECK();
  } else {
    kernels::fill_random_f32(p, n, seed, kernels::Dist::Signed, s);
  }
}

int elem_bytes(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_8F_E4M3: return 1;
    case CUDA_R_16BF:
    case CUDA_R_16F: return 2;
    default: return 4;
  }
}

// The fastest of the algorithms timed: its rate, its rank among the heuristic's results (1 = the
// heuristic's own choice), how many were offered and timed, and the SM clock while it ran.
struct MatrixRate {
  double flops_per_s = 0;
  int rank = 0, offered = 0, timed = 0;
  std::string clocks;
};

// C[M×N] = Aᵀ·B with A stored K×M and B stored K×N (column-major "TN", the layout fp8 requires),
// each of the heuristic's first kMatmulAlgos algorithms timed for budget_s.
MatrixRate matmul_rate(const LtHandle& lt, const MatmulType& t, cudaStream_t s, double budget_s) {
  const int64_t m = kMatmulSize, n = kMatmulSize, k = kMatmulSize;
  kernels::DeviceBuffer<uint8_t> a(k * m * elem_bytes(t.ab)), b(k * n * elem_bytes(t.ab)), c(m * n * elem_bytes(t.cd));
  constexpr size_t kWorkspace = size_t(64) << 20;
  kernels::DeviceBuffer<uint8_t> work{int64_t(kWorkspace)};
  fill_operand(a.get(), k * m, t, 0xA11CEull, s);
  fill_operand(b.get(), k * n, t, 0xB0Bull, s);
  SOL_CUDA_CHECK(cudaStreamSynchronize(s));

  const cublas::LtLibrary& lib = cublas::lt();
  LtDescs d;
  const cudaDataType_t scale = CUDA_R_32F;
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescCreate(&d.op, t.compute, scale));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  SOL_CUBLAS_CHECK(lib.cublasLtMatrixLayoutCreate(&d.a, t.ab, uint64_t(k), uint64_t(m), k));
  SOL_CUBLAS_CHECK(lib.cublasLtMatrixLayoutCreate(&d.b, t.ab, uint64_t(k), uint64_t(n), k));
  SOL_CUBLAS_CHECK(lib.cublasLtMatrixLayoutCreate(&d.c, t.cd, uint64_t(m), uint64_t(n), m));
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulPreferenceCreate(&d.pref));
  SOL_CUBLAS_CHECK(lib.cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &kWorkspace, sizeof kWorkspace));
  cublasLtMatmulHeuristicResult_t heur[kMatmulAlgos] = {};
  int found = 0;
  SOL_CUBLAS_CHECK(
      lib.cublasLtMatmulAlgoGetHeuristic(lt.get(), d.op, d.a, d.b, d.c, d.c, d.pref, kMatmulAlgos, heur, &found));
  if (found == 0) failure("cuBLASLt found no algorithm for " + t.key + " at 8192³");
  const float alpha = 1.0f, beta = 0.0f;
  // Alike for every algorithm: a rest first (out of the power cap the one before drove the card
  // into), then the warm-up, then the whole budget (matrix_timing: fp8 at 8192³ runs in under
  // 1 ms on an H200, so probe_timing's 200-sample cap would end it at 0.17 s; and the warm-up loop
  // stops at the budget, bench/gpu.cu, so the warm-up asked for is the budget).
  Options timing = matrix_timing(budget_s);
  MatrixRate best;
  best.offered = found;
  std::string refused;
  for (int i = 0; i < found; ++i) {
    if (heur[i].state != CUBLAS_STATUS_SUCCESS) continue;
    auto run = [&](int, cudaStream_t st) {
      SOL_CUBLAS_CHECK(lib.cublasLtMatmul(lt.get(), d.op, &alpha, a.get(), d.a, b.get(), d.b, &beta, c.get(), d.c,
                                          c.get(), d.c, &heur[i].algo, work.get(), kWorkspace, st));
    };
    SOL_CUDA_CHECK(cudaStreamSynchronize(s));
    std::this_thread::sleep_for(std::chrono::duration<double>(kMatmulRestS));
    gpu::Timed timed;
    try {  // an algorithm refused at run time is skipped; the others still count
      timed = gpu::time_runs(run, 1, timing, s);
    } catch (const Error& e) {
      SOL_CUDA_CHECK(cudaStreamSynchronize(s));  // a fault of the GPU itself is not skipped
      (void)cudaGetLastError();                  // a refusal's error is not the next algorithm's
      if (refused.empty()) refused = e.line();
      continue;
    }
    ++best.timed;
    const double r = rate(2.0 * double(m) * double(n) * double(k), timed);
    if (r > best.flops_per_s) {
      best.flops_per_s = r;
      best.rank = i + 1;
      best.clocks = timed.clocks.note();
    }
  }
  if (best.timed == 0)
    failure("cuBLASLt ran none of the " + std::to_string(found) + " algorithms it offered for " + t.key + ": " +
            refused);
  return best;
}

std::string gbs(double v) { return si(v, "B/s"); }

}  // namespace

ProbeResult probe(const ProbeOptions& opts) {
  require_gpu();
  ProbeResult p;
  p.device = device_info();
  // The row first, so that a wrong --gpu fails before minutes of measuring.
  if (const std::string row = opts.gpu.empty() ? p.device.database_row : opts.gpu; !row.empty()) {
    p.row = hw::find(row).name;
  } else {
    std::string why;
    match_database_row(p.device, &why);
    p.notes.push_back("no database row: " + why);
  }
  const gpu::Device dev = gpu::current_device();
  gpu::Stream st;
  const cudaStream_t s = st.get();

  {  // copy: the kernel and cudaMemcpy over the same 1 GiB buffers
    kernels::DeviceBuffer<uint4> src(kCopyBytes / 16), dst(kCopyBytes / 16);
    kernels::fill_random_f32(src.get(), kCopyBytes / 4, 0xC0FFEEull, kernels::Dist::Signed, s);
    SOL_CUDA_CHECK(cudaStreamSynchronize(s));
    const int blocks = full_wave_blocks(dev);
    auto kernel = [&](int, cudaStream_t stream) {
      copy16_kernel<<<blocks, kThreads, 0, stream>>>(src.get(), dst.get(), src.count());
      SOL_LAUNCH_CHECK();
    };
    auto memcpy_run = [&](int, cudaStream_t stream) {
      SOL_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), size_t(kCopyBytes), cudaMemcpyDeviceToDevice, stream));
    };
    const double moved = 2.0 * double(kCopyBytes);
    p.copy_kernel_bytes_per_s = rate(moved, gpu::time_runs(kernel, 1, probe_timing(0.3), s));
    p.memcpy_bytes_per_s = rate(moved, gpu::time_runs(memcpy_run, 1, probe_timing(0.3), s));
    p.ceilings.copy_bytes_per_s = std::max(p.copy_kernel_bytes_per_s, p.memcpy_bytes_per_s);
    p.notes.push_back("copy: 1 GiB → 1 GiB, bytes read + written; kernel " + gbs(p.copy_kernel_bytes_per_s) +
                      " (16-byte loads, 4 in flight per thread, " + std::to_string(blocks) + " blocks × " +
                      std::to_string(kThreads) + "), cudaMemcpy " + gbs(p.memcpy_bytes_per_s) + "; ceiling = the better");
  }

  {  // launch overhead
    auto one = [&](cudaStream_t stream) {
      empty_kernel<<<1, 1, 0, stream>>>();
      SOL_LAUNCH_CHECK();
    };
    for (int i = 0; i < 100; ++i) one(s);
    st.sync();
    gpu::EventPairs ev(1);
    const auto h0 = std::chrono::steady_clock::now();
    ev.start(0, s);
    for (int i = 0; i < kLaunches; ++i) one(s);
    ev.stop(0, s);
    const auto h1 = std::chrono::steady_clock::now();
    ev.sync(0);
    p.ceilings.launch_overhead_s = ev.seconds(0) / kLaunches;
    p.launch_host_s = std::chrono::duration<double>(h1 - h0).count() / kLaunches;
    p.notes.push_back("launch: " + std::to_string(kLaunches) + " empty kernels back to back, " +
                      si(p.ceilings.launch_overhead_s, "s") + " each on the GPU's clock, " + si(p.launch_host_s, "s") +
                      " per launch call on the host");
  }

  if (!opts.quick) {
    {  // L2: a set of a quarter of L2, read repeatedly
      const int64_t set_bytes = std::max<int64_t>(dev.l2_bytes / 4, 1 << 20) / 16 * 16;
      kernels::DeviceBuffer<uint4> buf(set_bytes / 16);
      kernels::DeviceBuffer<uint32_t> sink(1);
      kernels::fill_random_f32(buf.get(), set_bytes / 4, 0x12ull, kernels::Dist::Signed, s);
      const int blocks = full_wave_blocks(dev);
      auto run = [&](int, cudaStream_t stream) {
        l2_read_kernel<<<blocks, kThreads, 0, stream>>>(buf.get(), buf.count(), kL2Reps, sink.get());
        SOL_LAUNCH_CHECK();
      };
      p.ceilings.l2_bytes_per_s = rate(double(set_bytes) * kL2Reps, gpu::time_runs(run, 1, probe_timing(0.3), s));
      p.notes.push_back("L2: " + bytes_iec(double(set_bytes)) + " read " + std::to_string(kL2Reps) +
                        " times with ld.global.cg (L1 bypassed)");
    }
    {  // fp32 FMA
      kernels::DeviceBuffer<float> sink(1);
      const int blocks = full_wave_blocks(dev);
      auto run = [&](int, cudaStream_t stream) {
        fma_kernel<<<blocks, kThreads, 0, stream>>>(0.999f, 0.001f, kFmaIters, sink.get());
        SOL_LAUNCH_CHECK();
      };
      const double flops = 2.0 * kFmaChains * double(kFmaIters) * blocks * kThreads;
      p.ceilings.fp32_fma_flops_per_s = rate(flops, gpu::time_runs(run, 1, probe_timing(0.3), s));
      p.notes.push_back("fp32 FMA: " + std::to_string(kFmaChains) + " independent chains per thread, " +
                        std::to_string(blocks) + " blocks × " + std::to_string(kThreads));
    }
    {  // matrix units through cuBLASLt
      LtHandle lt;
      const std::vector<MatmulType> types = {
          {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 80},
          {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 70},
          {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 80},
          {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 70},
          {"fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 89},
      };
      for (const auto& t : types) {
        if (dev.cc < t.min_cc) {
          p.notes.push_back(t.key + " matrix: not measured (needs compute capability " + std::to_string(t.min_cc / 10) +
                            "." + std::to_string(t.min_cc % 10) + ")");
          continue;
        }
        try {
          const MatrixRate r = matmul_rate(lt, t, s, kMatmulBudgetS);
          p.ceilings.matrix_flops_per_s[t.key] = r.flops_per_s;
          p.notes.push_back(t.key + " matrix: " + si(r.flops_per_s, "FLOP/s") + ", the heuristic's algorithm " +
                            std::to_string(r.rank) + " of the " + std::to_string(r.timed) + " timed (" +
                            std::to_string(r.offered) + " offered); " + r.clocks);
        } catch (const Error& e) {
          // A refusal is this dtype's; a fault of the GPU (a sticky error) ends the probe: every
          // later measurement would fail on the dead context, and no profile is saved from it.
          if (cudaDeviceSynchronize() != cudaSuccess) throw;
          (void)cudaGetLastError();
          p.notes.push_back(t.key + " matrix: not measured: " + e.line());
        }
      }
      const Options timing = matrix_timing(kMatmulBudgetS);
      p.notes.push_back("matrix: cuBLASLt C = AᵀB, 8192³, random non-zero inputs, fp32 accumulation; fp8 = e4m3 "
                        "inputs, bf16 output; fp32 = SIMT SGEMM; each the fastest of the first " +
                        std::to_string(kMatmulAlgos) + " algorithms cuBLASLt's heuristic offers, each after " +
                        fixed(kMatmulRestS, 1) + " s of rest and at least " + fixed(timing.warmup_s, 2) +
                        " s of warm-up, timed for " + fixed(timing.budget_s, 2) + " s");
    }
  } else {
    p.notes.push_back("quick probe: copy bandwidth and launch overhead only");
  }

  if (!opts.quick && opts.save) {
    if (p.row.empty()) {
      p.notes.push_back("profile not saved: no database row to fill the unmeasured fields from (pass --gpu NAME)");
    } else {
      const hw::HwSpec prof = measured_profile(p, hw::find(p.row));
      const std::string path = opts.profile_path.empty() ? hw::measured_profile_path() : opts.profile_path;
      const std::filesystem::path fp(path);
      std::error_code ec;
      if (fp.has_parent_path()) std::filesystem::create_directories(fp.parent_path(), ec);
      std::ofstream out(path);
      if (!out) failure("cannot write the measured profile to " + path, "set SOL_PROFILE to a writable path");
      out << hw::to_json(prof) << "\n";
      if (!out) failure("error while writing " + path);
      p.saved_to = path;
    }
  }
  return p;
}

}  // namespace sol::bench

// The registry's description of the decode GEMM rungs, host C++ in every build: the shapes they
// take (plan.hpp's refusal plus the shape keys of case.hpp), their cost from the matmul model, their
// tolerance. The Case factory (make) is in case.cu, CUDA builds only.
#include "kernels/gemm/gemv/case.hpp"

#include <string>

#include "kernels/common/spec.hpp"

namespace sol::kernels::gemm::gemv {

namespace {
int64_t out_bytes(const Shape& s) { return s.get("c32", 0) ? 4 : 2; }
}  // namespace

std::string unsupported(Version v, const Shape& s) {
  const int64_t kMax = kMaxDim, kPitch = int64_t(1) << 40;
  if (std::string why = check_dims(s, {{"m", 1, kMax},
                                       {"n", 1, kMax},
                                       {"k", 1, kMax},
                                       {"lda", 1, kPitch, false},
                                       {"ldb", 1, kPitch, false},
                                       {"ldc", 1, kPitch, false},
                                       {"tb", 0, 1, false},
                                       {"c16", 0, 1, false},
                                       {"c32", 0, 1, false},
                                       {"beta", 0, 1, false},
                                       {"det", 0, 1, false}});
      !why.empty())
    return why;
  if (s.get("c16", 0) && s.get("c32", 0)) return "c16=1 and c32=1 both given: C has one type";
  const int64_t m = s.at("m"), n = s.at("n"), k = s.at("k");
  const bool tb = s.get("tb", 1) != 0;
  const int64_t w_row = tb ? k : n, w_rows = tb ? n : k;
  const int64_t lda = s.get("lda", k), ldb = s.get("ldb", w_row), ldc = s.get("ldc", n);
  if (lda < k) return "lda=" + std::to_string(lda) + " is below the row length k=" + std::to_string(k);
  if (ldb < w_row) return "ldb=" + std::to_string(ldb) + " is below W's row length " + std::to_string(w_row);
  if (ldc < n) return "ldc=" + std::to_string(ldc) + " is below the row length n=" + std::to_string(n);
  const int64_t kBytes = int64_t(1) << 36;
  if (product_or_minus1({m, lda, 2}, kBytes) < 0 || product_or_minus1({w_rows, ldb, 2}, kBytes) < 0 ||
      product_or_minus1({m, ldc, out_bytes(s)}, kBytes) < 0)
    return "an operand is too large (over 64 GiB)";
  return refusal(v.rung, m, n, k, tb);
}

model::Cost cost(Version v, const Shape& s) {
  const int64_t m = s.at("m"), n = s.at("n"), k = s.at("k");
  const DType in = v.fp16 ? DType::f16 : DType::bf16;
  model::Cost c = model::matmul({m, n, k, in, model::MatmulImpl::Minimal, 0});
  const double ob = double(out_bytes(s)), mn = double(m) * double(n);
  c.bytes += (ob - 2.0) * mn;  // the model counts C at the input's 2 bytes
  if (s.get("beta", 0)) {
    c.bytes += ob * mn;
    c.notes.push_back("beta ≠ 0: C is also read");
  }
  c.notes.push_back(splits_on_chip(v.rung)
                        ? "W (n·k) dominates the bytes: FLOP/B ≈ m, memory-bound below the ridge; the split-k "
                          "partials stay on chip"
                        : "W (n·k) dominates the bytes: FLOP/B ≈ m, memory-bound below the ridge; split-k partials "
                          "(fp32, at most a quarter of W's bytes, mostly in L2) not counted");
  const bool tensor_cores = v.rung == Rung::v10_mma_swapped || splits_on_chip(v.rung);
  c.unit = tensor_cores ? hw::Unit::Matrix : hw::Unit::Vector;
  // How it runs, for the shape model: a stream of W, not tiles; mma.sync on the tensor-core rungs;
  // with k split off chip, a second launch sums the fp32 partials (written and read once each).
  const int launches = gemv::launches(v.rung, m, n, k);
  const double partials = 2.0 * double(workspace_bytes(v.rung, m, n, k));
  c.exec.declared = true;
  c.exec.kernels = launches;
  c.exec.mma = tensor_cores ? model::MatrixInstruction::MmaSync : model::MatrixInstruction::None;
  c.exec.dram_bytes = c.bytes + partials;
  c.exec.how = std::string("a stream of W") + (tensor_cores ? " on mma.sync" : " on FMAs") +
               (launches > 1 ? ", k split over " + std::to_string(geometry(v.rung, m, n, k).splits) +
                                   " CTAs whose fp32 partials a second launch sums"
                             : "");
  return c;
}

Tolerance tolerance(Version v) {
  (void)v;
  return {5e-3,
          "16-bit output: one rounding of at most 2^-9 relative (bf16; f16 and f32 C round less); fp32 "
          "accumulation in any order adds ~1e-6 at k ≈ 16384; 5e-3 leaves 2.5× over the worst-case rounding"};
}

}  // namespace sol::kernels::gemm::gemv

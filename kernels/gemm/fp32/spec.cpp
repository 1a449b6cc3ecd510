// The registry's description of the gemm_fp32 family, host C++ in every build: which shapes it
// takes, its cost from the model (with each rung's traffic model), its tolerance. The Case factory
// (make) is in case.cu, CUDA builds only.
#include "kernels/gemm/fp32/case.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/common/spec.hpp"

namespace sol::kernels::gemm::fp32 {

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 36;  // per matrix: 256 GiB of fp32
constexpr int64_t kMaxDim = int64_t(1) << 30;       // kernels index rows and columns in int, plus a tile
constexpr double kTolFp32 = 1e-5, kTolTf32 = 3e-3;

// The traffic model that describes how a rung moves data: untiled (v01, v02) or square tiles of
// side T (the block tile; v04's is 64, v05–v07's 128, v08 below); 0 for the peers (their tiling is unknown).
model::MatmulOp traffic_model(Version v, int64_t m, int64_t n, int64_t k) {
  model::MatmulOp op{.m = m, .n = n, .k = k, .dtype = DType::f32, .impl = model::MatmulImpl::Tiled, .tile = 0};
  switch (v) {
    case Version::v01_naive:
    case Version::v02_coalesced: op.impl = model::MatmulImpl::Naive; break;
    case Version::v03_smem_tiled: op.tile = 32; break;
    case Version::v04_regblock_1d: op.tile = 64; break;
    case Version::v05_regblock_2d:
    case Version::v06_vectorized:
    case Version::v07_warptile_cp_async: op.tile = 128; break;
    // v08's tiles are not square: A is re-read once per column of tiles, B once per row.
    case Version::v08_warptile_256x128:
      op.tile = 256;
      op.tile_n = 128;
      break;
    case Version::v08_warptile_128x256:
      op.tile = 128;
      op.tile_n = 256;
      break;
    default: op.impl = model::MatmulImpl::Minimal; break;
  }
  return op;
}

std::string gb(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  return text;
}

}  // namespace

std::string unsupported(Version v, const Shape& s) {
  (void)v;
  if (std::string why = check_dims(s, {{"m", 1, kMaxDim}, {"n", 1, kMaxDim}, {"k", 1, kMaxDim}, {"beta", 0, 1, false}});
      !why.empty())
    return why;
  const int64_t m = s.at("m"), n = s.at("n"), k = s.at("k");
  if (product_or_minus1({m, k}, kMaxElements) < 0) return "A (m·k) exceeds 2^36 elements";
  if (product_or_minus1({k, n}, kMaxElements) < 0) return "B (k·n) exceeds 2^36 elements";
  if (product_or_minus1({m, n}, kMaxElements) < 0) return "C (m·n) exceeds 2^36 elements";
  return {};
}

model::Cost cost(Version v, const Shape& s) {
  const int64_t m = s.at("m"), n = s.at("n"), k = s.at("k");
  const bool beta = s.get("beta", 0) != 0;
  model::Cost c = model::matmul({.m = m, .n = n, .k = k, .dtype = DType::f32});  // minimal traffic: the floor
  c.dtype = DType::f32;
  if (v == Version::peer_cublas_tf32) {
    c.unit = hw::Unit::Matrix;
    c.math_dtype = DType::tf32;
    c.notes.push_back("fp32 storage, TF32 tensor-core arithmetic (CUBLAS_TF32_TENSOR_OP_MATH)");
  } else {
    c.unit = hw::Unit::Vector;  // fp32 FMA on the CUDA cores: Hopper has no fp32 tensor-core path
  }
  if (beta) {
    c.bytes += 4.0 * double(m) * double(n);
    c.notes.push_back("beta=1: C is also read (+4·M·N bytes)");
  }
  c.notes.push_back("epilogue (alpha·, + beta·C) not counted in FLOPs: M·N ≪ M·N·K");
  const model::MatmulOp op = traffic_model(v, m, n, k);
  if (op.impl != model::MatmulImpl::Minimal) {
    const model::Cost t = model::matmul(op);
    const double moved = t.bytes + (beta ? 4.0 * double(m) * double(n) : 0.0);
    if (op.impl == model::MatmulImpl::Naive) {
      c.levels.push_back({"smem/L1", moved});
      c.notes.push_back("naive model (untiled): " + gb(moved) + " of operand loads, which L1/L2 absorb in part");
    } else {
      c.levels.push_back({"L2", moved});
      const std::string tile = op.tile_n > 0 && op.tile_n != op.tile
                                   ? std::to_string(op.tile) + "×" + std::to_string(op.tile_n)
                                   : "T=" + std::to_string(op.tile);
      c.notes.push_back("tiled model, " + tile + ": " + gb(moved) +
                        " to the SMs (A re-read once per column of tiles, B once per row), served by L2 or HBM; the "
                        "headline bytes are the minimal " + gb(c.bytes));
    }
  }
  return c;
}

Tolerance tolerance(Version v) {
  if (v == Version::peer_cublas_tf32)
    return {kTolTf32, "TF32 rounds A and B to 10 mantissa bits (2^-11 relative each): ~5e-4 typical, 3e-3 allowed"};
  return {kTolFp32,
          "fp32 sums of k random-sign terms err ~2^-24·sqrt(k/2): the check allows 1e-5·sqrt(k/8192), clamped to "
          "[8.8e-7, 1e-5], against a double reference"};
}

}  // namespace sol::kernels::gemm::fp32

#pragma once
// The host half of sol::matmul (include/sol/kernels.hpp): argument validation, the workspace
// size, and the dispatcher's decision. Host C++ without CUDA headers, so that every rule here is
// tested without a GPU; kernels/api/matmul.cu converts MatmulArgs to a MatmulCall and runs the plan.
//
// The decision, in order:
//  1. What can serve the call. sol's tensor-core rungs (kernels/gemm/tc) compute
//     C = alpha·A·Bᵀ with A m×k and B n×k k-contiguous (trans_a = N, trans_b = T), bf16 C, no
//     beta, on sm_90 (the build's architecture and the table's GPU). cuBLASLt serves every layout,
//     type and beta, except fp8 outside its documented rules (TN, k % 16 == 0, 16-byte pitches).
//  2. When both can: the table measured on an H200 (kernels/api/matmul_table.inc, written by
//     scripts/dispatch-table.py), at the nearest measured shape of the same dtype: the smallest
//     log-distance in m, n, k among the entries whose pitches have the same 16-byte alignment
//     as the call's (the shape model's alignment rule: a pitch that is not a multiple of 16 bytes
//     rules out the vector loads cuBLASLt's fast kernels need, so 4095³ and 4096³ are different
//     regimes although they are close in size).
//  3. The prediction: the shape model (sol/model/shapes.hpp) for the chosen implementation's tile.
// Before 1–3, the decode rule: at m ≤ 64 with 16-bit inputs and trans_a = N, sol's decode rungs
// (kernels/gemm/gemv: any C type, beta, pitch, both layouts of B) stream B once, so their time is
// predicted as bytes over the memory bandwidth plus a cost per launch (decode_prediction). By
// default a decode rung runs where the table measured it fastest at the nearest decode shape;
// opted in (Choices::any) also where its prediction beats the fastest time the table measured
// there (scaled up by the bytes where the call moves more).
// A tc rung runs with v08's k split (gemm_rungs::decomposition) only where the table measured it,
// or opted in (Choices::any).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sol/core/dtype.hpp"

namespace sol::kernels::api {

// One matmul call as the host sees it: sol::MatmulArgs without the CUDA header. trans_* true: T.
struct MatmulCall {
  int64_t m = 0, n = 0, k = 0;
  DType a_type = DType::bf16, b_type = DType::bf16, c_type = DType::bf16;
  bool trans_a = false, trans_b = true;
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: packed (resolved by validate)
  float alpha = 1.f, beta = 0.f;
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
};

// Throws sol::Error (BadInput: what is wrong, how to fix it) for a call the API cannot serve;
// returns the call with packed leading dimensions (0) resolved. Touches no device.
MatmulCall validate(const MatmulCall& call);

enum class Impl { cublaslt, tc_rung, gemv };

// What runs one call. Everything the launch needs beside the call itself.
struct MatmulPlan {
  Impl impl = Impl::cublaslt;
  std::string rung;       // impl == tc_rung or gemv: the registry's rung name ("v08_tile_choice")
  std::string family;     // "gemm_bf16", "gemm_fp16", "gemm_fp8", "gemm_fp32"
  std::string reason;     // one line
  double predicted_s = 0;
  // Workspace layout, bytes from its start (all offsets 256-aligned):
  size_t pack_bytes = 0;     // tc_rung: copies of A and/or B whose base or pitch the rung cannot read
  size_t lt_bytes = 0;       // cublaslt: cuBLASLt's own workspace
  size_t scratch_bytes = 0;  // cublaslt, one 16-bit type in, the other out: an fp32 m×n D converted
                             // into C; tc_rung, fp8 with beta ≠ 0: the rung's bf16 m×n D, then C read
  size_t scalars_bytes = 0;  // cublaslt with fp8: alpha·scale_a·scale_b and beta on the device
  size_t partial_bytes = 0;  // gemv: the split-k partials (kernels/gemm/gemv/plan.hpp)
  int max_splits = 1;        // tc_rung: the most CTAs v08 may split k over (tc::Problem::max_splits)
  size_t workspace_bytes() const;
  // Where the scratch D and the scalars start in the workspace (the layout above, in one place).
  size_t scratch_offset() const;
  size_t scalars_offset() const;
};

// The rungs of kernels/gemm/tc the dispatcher can run, in ladder order (names as the registry's).
const std::vector<std::string>& tc_rungs();
// The workspace bytes `rung` needs for copies of the operands it cannot read in place: those whose
// base or pitch is not a multiple of the rung's gemm_rungs::Rung::pack_pitch_bytes (v01: none;
// v02: 16 bytes for cp.async; v03–v08: 128 for TMA). Throws sol::Error for an unknown rung.
size_t rung_pack_bytes(const MatmulCall& call, const std::string& rung);

// The decode rungs of kernels/gemm/gemv the dispatcher can run (names as the registry's).
const std::vector<std::string>& gemv_rungs();

// The decode rule's view of one call: the rung that would serve it ("" and why not, if none),
// its predicted time, and the launches and bytes that prediction counts.
struct DecodePrediction {
  std::string rung;
  std::string refusal;
  double predicted_s = 0;
  int launches = 0;
  double bytes = 0;
};
// The GPU whose measured decode rows the decode rule reads: an H100's own
// (kernels/api/matmul_table_h100.inc) on an H100, the H200's (the whole table's) on every other GPU.
enum class TableGpu : uint8_t { h200, h100 };
// The table GPU of a database row name (hw::match_builtin's): h100 for "h100", else h200.
TableGpu table_gpu(const std::string& row);
std::string table_gpu_name(TableGpu gpu);  // "H200", "H100"

// kDecodeFraction of the table GPU's HBM bandwidth (the database's) and kLaunchS per kernel. rung:
// the decode rung to predict ("": the layout's, v11 for B k×n, else v09 at m = 1 and v10 above).
DecodePrediction decode_prediction(const MatmulCall& call, int cc, const std::string& rung = "",
                                   TableGpu gpu = TableGpu::h200);

// What the dispatcher may choose beyond what the committed tables measured. `measured`: a decode
// rung only where the table measured it fastest at the nearest decode shape and it serves the
// call, and v08 splitting k over a cluster only where the table's v08 records measured the split
// (matmul_table_facts.inc) — what never ran on the table's GPU is not a user's default; `any`:
// also a decode rung wherever the rule predicts it faster, and v08's split wherever its rule
// (gemm_rungs::decomposition) takes it. The default is `measured`; SOL_DISPATCH_UNMEASURED=1 in
// the environment makes it `any` (kernels/api/unmeasured.hpp).
enum class Choices { measured, any };
Choices choices_default();
// True when the H200 table's results measured v08 splitting k (kernels/api/matmul_table_facts.inc).
bool table_measured_split_k();
// True when the GPU's decode rows measured a decode rung (as its best or as the other kind).
bool table_measured_decode_rungs(TableGpu gpu = TableGpu::h200);

// The decision for a validated call on a device of compute capability cc (major·10 + minor) whose
// table GPU is `gpu`. Throws sol::Error when nothing on that device serves the call. explain =
// false (the hot path) leaves the reason and the prediction out, which cost more than the decision.
MatmulPlan plan(const MatmulCall& call, int cc, bool explain, Choices choices, TableGpu gpu = TableGpu::h200);
inline MatmulPlan plan(const MatmulCall& call, int cc, bool explain = true) {
  return plan(call, cc, explain, choices_default());
}

// The 16-byte alignment signature of a call's pitches (bit 0: A's, 1: B's, 2: C's pitch is a
// multiple of 16 bytes), the key the table lookup matches first.
int alignment_signature(DType in, DType out, int64_t lda, int64_t ldb, int64_t ldc);

// ---- the measured table (kernels/api/matmul_table.inc) -------------------------------------------
// One measured shape: the fastest implementation the dispatcher can run ("cublasLt" or a rung
// name) and the fastest of the other kind (a rung when the best is cuBLASLt, and the reverse),
// each with its median time; other = "" when that kind was not measured there.
struct Measured {
  DType dtype;
  int64_t m, n, k, lda, ldb, ldc;
  const char* best;
  double best_s;
  const char* other;
  double other_s;
};
const std::vector<Measured>& table();
// The decode rows (m ≤ 64, 16-bit types) the decode rule reads on `gpu`: its own table's where it
// has any, else the H200's.
const std::vector<const Measured*>& decode_rows(TableGpu gpu);
// The GPU those rows were measured on: `gpu`, or the H200 where `gpu` has no decode rows.
TableGpu decode_rows_of(TableGpu gpu);

// The entry nearest to (m, n, k) with dtype `in` and the same alignment signature if any has one,
// else the nearest of that dtype; nullptr when the table holds none of that dtype.
const Measured* nearest(const std::vector<Measured>& from, DType in, DType out, int64_t m, int64_t n, int64_t k,
                        int64_t lda, int64_t ldb, int64_t ldc);

// "gemm_bf16" … for the input type.
std::string family_of(DType in);

}  // namespace sol::kernels::api

// The host half of sol::matmul: validation, the workspace layout, the table lookup and the
// decision (kernels/api/matmul_dispatch.hpp).
#include "kernels/api/matmul_dispatch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/api/unmeasured.hpp"
#include "kernels/gemm/gemv/plan.hpp"
#include "kernels/gemm/tc/lt_rules.hpp"
#include "kernels/gemm/tc/lt_workspace.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/gemm_rungs.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/shapes.hpp"

namespace sol::kernels::api {
namespace {

const std::vector<Measured> kTable = {
#include "kernels/api/matmul_table.inc"
};
// The decode rows measured on an H100 (its own dispatch runs), read by the decode rule there.
const std::vector<Measured> kTableH100 = {
#include "kernels/api/matmul_table_h100.inc"
};
// kTableMeasuredSplitK: whether kTable's results measured v08 splitting k.
#include "kernels/api/matmul_table_facts.inc"

using gemm::tc::kLtWorkspaceBytes;
constexpr size_t kAlign = 256;
size_t round_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// The rungs' limits: the Case's (m, n, k ≤ 2^31) and v01/v02's 65535 row-tile grid.
constexpr int64_t kRungMax = int64_t(1) << 31;

std::string type_list() { return "bf16, f16, fp8_e4m3, f32"; }

bool is_16bit(DType t) { return t == DType::bf16 || t == DType::f16; }
bool aligned(const void* p, int64_t bytes) { return reinterpret_cast<uintptr_t>(p) % uintptr_t(bytes) == 0; }

std::string us(double s) { return fixed(s * 1e6, s < 1e-4 ? 1 : 0) + " µs"; }

std::string shape_text(const Measured& e) {
  std::string s = "m=" + std::to_string(e.m) + ",n=" + std::to_string(e.n) + ",k=" + std::to_string(e.k);
  if (e.lda != e.k) s += ",lda=" + std::to_string(e.lda);
  if (e.ldb != e.k) s += ",ldb=" + std::to_string(e.ldb);
  if (e.ldc != e.n) s += ",ldc=" + std::to_string(e.ldc);
  return s;
}

// Why cuBLASLt cannot serve the call, or "" (fp8: kernels/gemm/tc/lt_rules.hpp; the heuristic may
// still refuse).
std::string lt_refusal(const MatmulCall& c) {
  if (c.a_type != DType::fp8_e4m3) return {};
  if (std::string why = gemm::tc::lt_fp8_refusal(c.n, c.k, c.lda, c.ldb, c.ldc, dtype_bytes(c.c_type)); !why.empty())
    return why;
  if (!aligned(c.a, 16) || !aligned(c.b, 16) || !aligned(c.c, 16)) return "cuBLASLt fp8 needs 16-byte aligned pointers";
  return {};
}

// Why a sol tensor-core rung cannot serve the call on this device, or "".
std::string rung_refusal(const MatmulCall& c, int cc) {
  if (!is_16bit(c.a_type) && c.a_type != DType::fp8_e4m3) return "sol's tensor-core rungs take bf16, f16 or fp8 inputs";
  if (c.trans_a || !c.trans_b) return "sol's tensor-core rungs read A m×k and B n×k, k contiguous (trans_a=N, trans_b=T)";
  if (c.c_type != DType::bf16) return "sol's tensor-core rungs write bf16 C";
  // fp8 that cuBLASLt cannot take reads C through a bf16 scratch D and a pass (MatmulPlan::scratch_bytes).
  if (c.beta != 0.f && (c.a_type != DType::fp8_e4m3 || lt_refusal(c).empty()))
    return "sol's tensor-core rungs do not read C (beta = 0 only, but for fp8 calls cuBLASLt cannot serve)";
  if (cc != 90) return "sol's tensor-core rungs are built and measured for sm_90 (this GPU: sm_" + std::to_string(cc) + ")";
  if (c.m > kRungMax || c.n > kRungMax || c.k > kRungMax) return "sol's tensor-core rungs take m, n, k ≤ 2^31";
  return {};
}

// Bytes the rungs' packer (kernels/gemm/tc/pack.cu) reserves for copies of A and/or B where their
// base or pitch is not a multiple of `align` bytes.
size_t pack_bytes(const MatmulCall& c, int align) {
  const int64_t eb = dtype_bytes(c.a_type);
  const bool pack_a = !aligned(c.a, align) || (c.lda * eb) % align != 0;
  const bool pack_b = !aligned(c.b, align) || (c.ldb * eb) % align != 0;
  const int64_t per = align / eb, k_pitch = (c.k + per - 1) / per * per;
  const size_t a = pack_a ? round_up(size_t(c.m * k_pitch * eb)) : 0;
  const size_t b = pack_b ? size_t(c.n * k_pitch * eb) : 0;
  return a + b;
}

double predicted(const MatmulCall& c, int cc) {
  if (cc != 90) return 0;  // the model's row for this GPU is not known here
  model::GemmShape s;
  s.m = c.m, s.n = c.n, s.k = c.k;
  s.dtype = c.a_type;
  s.tile = model::GemmTile{128, 256, 64};
  return model::gemm_estimate(s, hw::find("h200")).predicted_s;
}

bool is_rung(const std::string& name) {
  const auto& r = tc_rungs();
  return std::find(r.begin(), r.end(), name) != r.end();
}

// ---- the decode rule ----------------------------------------------------------------------------
// The decode rungs' target, 90 % of the copy bandwidth `sol probe` measures on an H200 (itself
// ≈ 89 % of the datasheet's HBM rate), is taken as 80 % of the database's HBM figure; each
// kernel launch costs kLaunchS beside the bytes (one launch, two with split k).
constexpr double kDecodeFraction = 0.8;
constexpr double kLaunchS = 2e-6;

bool is_gemv_rung(const std::string& name) {
  const auto& r = gemv_rungs();
  return std::find(r.begin(), r.end(), name) != r.end();
}

gemm::gemv::Rung gemv_rung_of(const std::string& name) {
  for (gemm::gemv::Rung r : gemm::gemv::kRungs)
    if (name == gemm::gemv::rung_name(r)) return r;
  failure("matmul: no decode rung " + name);
}

// The nearest of `gpu`'s decode rows to the call, the call's type first: both 16-bit types
// stream 2 bytes per weight, so a decode time of one stands for the other. nullptr if none.
const Measured* nearest_decode(const MatmulCall& c, TableGpu gpu) {
  struct Entry {
    const Measured* e;
    double lm, ln, lk;
  };
  static const std::array<std::vector<Entry>, 2> decode = [] {  // the logs once: this runs on the hot path
    std::array<std::vector<Entry>, 2> v;
    for (TableGpu g : {TableGpu::h200, TableGpu::h100})
      for (const Measured* e : decode_rows(g))
        v[size_t(g)].push_back({e, std::log(double(e->m)), std::log(double(e->n)), std::log(double(e->k))});
    return v;
  }();
  const Measured* best = nullptr;
  double best_d = 0;
  const double lm = std::log(double(c.m)), ln = std::log(double(c.n)), lk = std::log(double(c.k));
  for (const Entry& x : decode[size_t(gpu)]) {
    const double dm = lm - x.lm, dn = ln - x.ln, dk = lk - x.lk;
    const double d = dm * dm + dn * dn + dk * dk + (x.e->dtype == c.a_type ? 0.0 : 1e6);
    if (!best || d < best_d) best = x.e, best_d = d;
  }
  return best;
}

// Bytes a table entry moved: 16-bit A, B and C.
double entry_bytes(const Measured& e) { return 2.0 * (double(e.m) * double(e.k) + double(e.n) * double(e.k) + double(e.m) * double(e.n)); }

std::string mb(double bytes) { return fixed(bytes / 1e6, bytes < 1e7 ? 2 : 1) + " MB"; }

}  // namespace

size_t rung_pack_bytes(const MatmulCall& c, const std::string& rung) {
  const gemm_rungs::Rung* r = gemm_rungs::find(rung);
  if (!r) failure("matmul: no rung " + rung);
  return r->pack_pitch_bytes > 0 ? pack_bytes(c, r->pack_pitch_bytes) : 0;
}


size_t MatmulPlan::scratch_offset() const { return round_up(pack_bytes) + round_up(lt_bytes); }
size_t MatmulPlan::scalars_offset() const { return scratch_offset() + round_up(scratch_bytes); }
size_t MatmulPlan::workspace_bytes() const {
  return scalars_offset() + scalars_bytes + partial_bytes;  // gemv: partials alone, at 0
}

const std::vector<std::string>& gemv_rungs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (gemm::gemv::Rung r : gemm::gemv::kRungs) v.push_back(gemm::gemv::rung_name(r));
    return v;
  }();
  return names;
}

DecodePrediction decode_prediction(const MatmulCall& c, int cc, const std::string& rung, TableGpu gpu) {
  DecodePrediction d;
  if (!is_16bit(c.a_type)) d.refusal = "the decode rungs take bf16 or f16 inputs";
  else if (c.trans_a) d.refusal = "the decode rungs read A m×k (trans_a=N)";
  else if (c.m > gemm::gemv::kMaxM) d.refusal = "the decode rungs take m ≤ " + std::to_string(gemm::gemv::kMaxM);
  else if (cc != 90) d.refusal = "the decode rungs are measured for sm_90 (this GPU: sm_" + std::to_string(cc) + ")";
  if (!d.refusal.empty()) return d;
  // The layout's rung where the table names none: v11 for W k×n; for W n×k v12, which reads W
  // once for every token with no second launch (the table's measurements pick among v09–v12).
  const gemm::gemv::Rung r = !rung.empty() ? gemv_rung_of(rung)
                             : !c.trans_b  ? gemm::gemv::Rung::v11_n_contiguous
                                           : gemm::gemv::Rung::v12_cluster_split_k;
  d.rung = gemm::gemv::rung_name(r);
  d.refusal = gemm::gemv::refusal(r, c.m, c.n, c.k, c.trans_b);
  if (!d.refusal.empty()) return d;
  const double ob = double(dtype_bytes(c.c_type)), mn = double(c.m) * double(c.n);
  d.bytes = 2.0 * (double(c.m) * double(c.k) + double(c.n) * double(c.k)) + ob * mn * (c.beta != 0.f ? 2.0 : 1.0);
  d.launches = gemm::gemv::launches(r, c.m, c.n, c.k);
  static const std::array<double, 2> hbm = {hw::find("h200").hbm_bytes_per_s, hw::find("h100").hbm_bytes_per_s};
  d.predicted_s = d.launches * kLaunchS + d.bytes / (kDecodeFraction * hbm[size_t(gpu)]);
  return d;
}

const std::vector<std::string>& tc_rungs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const gemm_rungs::Rung& r : gemm_rungs::kRungs) v.emplace_back(r.name);
    return v;
  }();
  return names;
}

std::string family_of(DType in) {
  switch (in) {
    case DType::bf16: return "gemm_bf16";
    case DType::f16: return "gemm_fp16";
    case DType::fp8_e4m3: return "gemm_fp8";
    case DType::f32: return "gemm_fp32";
    default: return "gemm_" + dtype_name(in);
  }
}

MatmulCall validate(const MatmulCall& in) {
  MatmulCall c = in;
  const auto dims = [&] { return "m=" + std::to_string(c.m) + ", n=" + std::to_string(c.n) + ", k=" + std::to_string(c.k); };
  if (c.m < 1 || c.n < 1 || c.k < 1) bad_input("matmul: sizes must be ≥ 1 (" + dims() + ")", "pass m, n, k ≥ 1");
  const int64_t kMaxDim = int64_t(1) << 40;
  if (c.m > kMaxDim || c.n > kMaxDim || c.k > kMaxDim) bad_input("matmul: a size is over 2^40 (" + dims() + ")");
  const auto ok_in = [](DType t) { return is_16bit(t) || t == DType::fp8_e4m3 || t == DType::f32; };
  if (!ok_in(c.a_type) || !ok_in(c.b_type))
    bad_input("matmul: a_type " + dtype_name(c.a_type) + ", b_type " + dtype_name(c.b_type) + " is not served",
              "inputs are one of " + type_list());
  if (c.a_type != c.b_type)
    bad_input("matmul: a_type " + dtype_name(c.a_type) + " and b_type " + dtype_name(c.b_type) + " differ",
              "convert one operand so that both have the same type");
  const bool out_ok = c.a_type == DType::f32 ? c.c_type == DType::f32
                                             : (is_16bit(c.c_type) || c.c_type == DType::f32);
  if (!out_ok)
    bad_input("matmul: " + dtype_name(c.a_type) + " inputs with c_type " + dtype_name(c.c_type) + " are not served",
              c.a_type == DType::f32 ? "f32 inputs give f32 C" : "give c_type bf16, f16 or f32");
  if (!c.a || !c.b || !c.c)
    bad_input(std::string("matmul: ") + (!c.a ? "a" : !c.b ? "b" : "c") + " is a null pointer",
              "pass device pointers to A, B and C");
  if (c.a_type == DType::fp8_e4m3 && (!c.scale_a || !c.scale_b))
    bad_input("matmul: fp8 inputs need scale_a and scale_b (device pointers to one fp32 each)",
              "pass the per-tensor dequantization scales; 1.0f each for unscaled codes");
  if (c.a_type != DType::fp8_e4m3 && (c.scale_a || c.scale_b))
    bad_input("matmul: scale_a and scale_b are for fp8 inputs only", "fold the scale into alpha, or pass nullptr");
  if (!std::isfinite(c.alpha) || !std::isfinite(c.beta))
    bad_input("matmul: alpha and beta must be finite (alpha=" + num(c.alpha) + ", beta=" + num(c.beta) + ")");
  // Row lengths of the stored operands (row-major): A m×k (N) or k×m (T), B k×n (N) or n×k (T).
  const int64_t a_row = c.trans_a ? c.m : c.k, b_row = c.trans_b ? c.k : c.n;
  const int64_t a_rows = c.trans_a ? c.k : c.m, b_rows = c.trans_b ? c.n : c.k;
  if (c.lda == 0) c.lda = a_row;
  if (c.ldb == 0) c.ldb = b_row;
  if (c.ldc == 0) c.ldc = c.n;
  const auto check_ld = [](const char* name, int64_t ld, int64_t row, const char* stored) {
    if (ld < row)
      bad_input(std::string("matmul: ") + name + "=" + std::to_string(ld) + " is below the row length " +
                    std::to_string(row) + " of " + stored,
                std::string("pass ") + name + " ≥ " + std::to_string(row) + ", or 0 for packed rows");
  };
  check_ld("lda", c.lda, a_row, c.trans_a ? "A stored k×m (trans_a=T)" : "A stored m×k (trans_a=N)");
  check_ld("ldb", c.ldb, b_row, c.trans_b ? "B stored n×k (trans_b=T)" : "B stored k×n (trans_b=N)");
  check_ld("ldc", c.ldc, c.n, "C (m×n)");
  if (c.a_type == DType::fp8_e4m3 && (c.trans_a || !c.trans_b))
    bad_input("matmul: fp8 inputs are served as trans_a=N, trans_b=T only (A m×k, B n×k, k contiguous)",
              "store the operands k-contiguous: the only layout Hopper's fp8 tensor cores read");
  // Extents in bytes, and overlap of C with an input when C is read (beta ≠ 0) or written.
  const double in_b = dtype_bytes(c.a_type), out_b = dtype_bytes(c.c_type);
  const double a_bytes = (double(a_rows - 1) * double(c.lda) + double(a_row)) * in_b;
  const double b_bytes = (double(b_rows - 1) * double(c.ldb) + double(b_row)) * in_b;
  const double c_bytes = (double(c.m - 1) * double(c.ldc) + double(c.n)) * out_b;
  if (std::max({a_bytes, b_bytes, c_bytes}) > double(int64_t(1) << 40))
    bad_input("matmul: an operand spans over 1 TiB (" + dims() + ")", "check the sizes and leading dimensions");
  const auto overlaps = [](const void* p, double pb, const void* q, double qb) {
    const double x = double(reinterpret_cast<uintptr_t>(p)), y = double(reinterpret_cast<uintptr_t>(q));
    return x < y + qb && y < x + pb;
  };
  if (overlaps(c.c, c_bytes, c.a, a_bytes) || overlaps(c.c, c_bytes, c.b, b_bytes))
    bad_input(std::string("matmul: C overlaps ") + (overlaps(c.c, c_bytes, c.a, a_bytes) ? "A" : "B") +
                  (c.beta != 0.f ? " while beta ≠ 0 reads C" : "") + ": the result would overwrite its own input",
              "write C to a buffer of its own");
  if (aligned(c.c, int64_t(out_b)) == false || !aligned(c.a, int64_t(in_b)) || !aligned(c.b, int64_t(in_b)))
    bad_input("matmul: a pointer is not aligned to its element size", "pass element-aligned device pointers");
  return c;
}

int alignment_signature(DType in, DType out, int64_t lda, int64_t ldb, int64_t ldc) {
  const int64_t ib = dtype_bytes(in), ob = dtype_bytes(out);
  return ((lda * ib) % 16 == 0 ? 1 : 0) | ((ldb * ib) % 16 == 0 ? 2 : 0) | ((ldc * ob) % 16 == 0 ? 4 : 0);
}

const std::vector<Measured>& table() { return kTable; }

TableGpu table_gpu(const std::string& row) { return row == "h100" ? TableGpu::h100 : TableGpu::h200; }
std::string table_gpu_name(TableGpu gpu) { return gpu == TableGpu::h100 ? "H100" : "H200"; }

namespace {
std::vector<const Measured*> decode_rows_in(const std::vector<Measured>& from) {
  std::vector<const Measured*> v;
  for (const Measured& e : from)
    if (e.m <= gemm::gemv::kMaxM && is_16bit(e.dtype)) v.push_back(&e);
  return v;
}
}  // namespace

TableGpu decode_rows_of(TableGpu gpu) {
  static const bool h100_has_rows = !decode_rows_in(kTableH100).empty();
  return gpu == TableGpu::h100 && h100_has_rows ? TableGpu::h100 : TableGpu::h200;
}

const std::vector<const Measured*>& decode_rows(TableGpu gpu) {
  static const std::array<std::vector<const Measured*>, 2> rows = {decode_rows_in(kTable), decode_rows_in(kTableH100)};
  return rows[size_t(decode_rows_of(gpu))];
}

namespace {

// A table entry with what the lookup compares, computed once per table.
struct Point {
  const Measured* e;
  double lm, ln, lk;
  int signature;
};
std::vector<Point> index_of(const std::vector<Measured>& from) {
  std::vector<Point> out;
  for (const Measured& e : from) {
    // The table measured bf16 C for the 16-bit and fp8 families and f32 C for f32.
    const DType out_type = e.dtype == DType::f32 ? DType::f32 : DType::bf16;
    out.push_back({&e, std::log(double(e.m)), std::log(double(e.n)), std::log(double(e.k)),
                   alignment_signature(e.dtype, out_type, e.lda, e.ldb, e.ldc)});
  }
  return out;
}

const Measured* nearest_in(const std::vector<Point>& from, DType in, DType out, int64_t m, int64_t n, int64_t k,
                           int64_t lda, int64_t ldb, int64_t ldc) {
  const int want = alignment_signature(in, out, lda, ldb, ldc);
  const double lm = std::log(double(m)), ln = std::log(double(n)), lk = std::log(double(k));
  const Measured* best = nullptr;
  double best_d = 0;
  for (const Point& p : from) {
    if (p.e->dtype != in) continue;
    double d = (lm - p.lm) * (lm - p.lm) + (ln - p.ln) * (ln - p.ln) + (lk - p.lk) * (lk - p.lk);
    if (p.signature != want) d += 1e6;  // an entry of the same alignment first
    if (!best || d < best_d) best = p.e, best_d = d;
  }
  return best;
}

}  // namespace

const Measured* nearest(const std::vector<Measured>& from, DType in, DType out, int64_t m, int64_t n, int64_t k,
                        int64_t lda, int64_t ldb, int64_t ldc) {
  return nearest_in(index_of(from), in, out, m, n, k, lda, ldb, ldc);
}

Choices choices_default() { return sol::api::unmeasured_allowed() ? Choices::any : Choices::measured; }

bool table_measured_split_k() { return kTableMeasuredSplitK; }

bool table_measured_decode_rungs(TableGpu gpu) {
  static const std::array<bool, 2> measured = [] {
    std::array<bool, 2> m = {false, false};
    for (TableGpu g : {TableGpu::h200, TableGpu::h100})
      for (const Measured* e : decode_rows(g))
        if (is_gemv_rung(e->best) || (e->other[0] && is_gemv_rung(e->other))) m[size_t(g)] = true;
    return m;
  }();
  return measured[size_t(gpu)];
}


namespace {

// What a decision without explanation depends on: the shape, types, layout, pitches, whether C is
// read, the operands' alignment (A and B to 128 bytes, C to 16: the most any rule asks), the
// device and what may be chosen unmeasured (Choices: decode rungs, v08's split). Padding bytes are
// zeroed so that the key compares as bytes.
struct PlanKey {
  int64_t m, n, k, lda, ldb, ldc;
  int32_t a_type, b_type, c_type, cc;
  uint8_t trans_a, trans_b, beta_zero, a_mod, b_mod, c_mod, choices, gpu;
};

PlanKey key_of(const MatmulCall& c, int cc, Choices choices, TableGpu gpu) {
  PlanKey key;
  std::memset(&key, 0, sizeof key);
  key.m = c.m, key.n = c.n, key.k = c.k, key.lda = c.lda, key.ldb = c.ldb, key.ldc = c.ldc;
  key.a_type = int32_t(c.a_type), key.b_type = int32_t(c.b_type), key.c_type = int32_t(c.c_type), key.cc = cc;
  key.trans_a = c.trans_a, key.trans_b = c.trans_b, key.beta_zero = c.beta == 0.f;
  key.a_mod = uint8_t(reinterpret_cast<uintptr_t>(c.a) % 128);
  key.b_mod = uint8_t(reinterpret_cast<uintptr_t>(c.b) % 128);
  key.c_mod = uint8_t(reinterpret_cast<uintptr_t>(c.c) % 16);
  key.choices = uint8_t(choices);
  key.gpu = uint8_t(gpu);
  return key;
}

MatmulPlan decide(const MatmulCall& c, int cc, bool explain, Choices choices, TableGpu gpu);

}  // namespace

// The hot path (explain = false) answers from a per-thread cache of the last decisions: the table
// lookup and the rules run once per distinct call, with no lock.
MatmulPlan plan(const MatmulCall& c, int cc, bool explain, Choices choices, TableGpu gpu) {
  if (explain) return decide(c, cc, true, choices, gpu);
  struct Entry {
    PlanKey key;
    MatmulPlan plan;
    bool used = false;
  };
  thread_local std::array<Entry, 8> cache;
  thread_local size_t next = 0;
  const PlanKey key = key_of(c, cc, choices, gpu);
  for (const Entry& e : cache)
    if (e.used && std::memcmp(&e.key, &key, sizeof key) == 0) return e.plan;
  MatmulPlan p = decide(c, cc, false, choices, gpu);  // throws for a call nothing serves: nothing cached
  cache[next] = {key, p, true};
  next = (next + 1) % cache.size();
  return p;
}

namespace {

// Where v08 would split k for the call but the split is unmeasured: what runs instead.
std::string split_note(const MatmulCall& c, const std::string& rung, TableGpu gpu) {
  if (rung != "v08_tile_choice") return {};
  static const std::array<int, 2> sms = {hw::find("h200").compute_units, hw::find("h100").compute_units};
  const int64_t k_tiles = gemm_rungs::hopper_k_tiles(c.k, dtype_bytes(c.a_type));
  const int splits = gemm_rungs::decomposition(c.m, c.n, k_tiles, sms[size_t(gpu)]).splits;
  if (splits == 1) return {};
  return "; one CTA a tile: v08's k split over " + std::to_string(splits) +
         " CTAs is not measured on the table's GPU (SOL_DISPATCH_UNMEASURED=1 opts in)";
}

MatmulPlan decide(const MatmulCall& c, int cc, bool explain, Choices choices, TableGpu gpu) {
  MatmulPlan p;
  p.family = family_of(c.a_type);
  const std::string no_rung = rung_refusal(c, cc), no_lt = lt_refusal(c);
  const auto use_lt = [&](std::string reason) {
    p.impl = Impl::cublaslt;
    p.rung.clear();
    p.reason = std::move(reason);
    p.lt_bytes = kLtWorkspaceBytes;
    // 16-bit in, the other 16-bit type out: cuBLASLt may have no such kernel (fp32 D and a pass).
    if (is_16bit(c.a_type) && is_16bit(c.c_type) && c.a_type != c.c_type) p.scratch_bytes = size_t(c.m * c.n) * 4;
    if (c.a_type == DType::fp8_e4m3) p.scalars_bytes = 2 * sizeof(float);
  };
  const auto use_rung = [&](const std::string& rung, std::string reason) {
    p.impl = Impl::tc_rung;
    p.rung = rung;
    p.reason = std::move(reason);
    p.pack_bytes = rung_pack_bytes(c, rung);
    p.max_splits = kTableMeasuredSplitK || choices == Choices::any ? gemm_rungs::kMaxSplitK : 1;
    if (explain && p.max_splits == 1) p.reason += split_note(c, rung, gpu);
    if (c.beta != 0.f) p.scratch_bytes = size_t(c.m * c.n) * 2;  // fp8 reading C: the rung's bf16 D
  };
  std::string decode_note;  // explain: why the decode rule did not pick its rung
  if (DecodePrediction d = decode_prediction(c, cc, "", gpu); d.refusal.empty()) {
    const Measured* e = nearest_decode(c, gpu);
    const bool measured_fastest = e && is_gemv_rung(e->best);
    // The rung measured fastest at the nearest decode shape, where it serves this call's layout.
    if (measured_fastest && e->best != d.rung)
      if (DecodePrediction m = decode_prediction(c, cc, e->best, gpu); m.refusal.empty()) d = std::move(m);
    const bool measured_rung = measured_fastest && d.rung == e->best;
    // Scaled up by the bytes where the call moves more; a smaller call is held at the entry's time
    // (the table's decode times are launch-bound below a few MB).
    const double scaled = e ? e->best_s * std::max(1.0, d.bytes / entry_bytes(*e)) : 0;
    const std::string pred = explain ? "predicted " + us(d.predicted_s) + " (" + mb(d.bytes) + " at " +
                                           fixed(kDecodeFraction * 100, 0) + " % of HBM + " + std::to_string(d.launches) +
                                           (d.launches > 1 ? " launches" : " launch") + ")"
                                     : "";
    std::string vs;
    if (e && explain) {
      vs = std::string(e->best) + " " + us(scaled);
      if (scaled != e->best_s) vs += " (scaled by bytes from " + us(e->best_s) + ")";
      if (e->other[0]) vs += std::string(" vs ") + e->other + " " + us(e->other_s);
      vs += " at nearest measured " + shape_text(*e) + " " + dtype_name(e->dtype) + " on the " +
            table_gpu_name(decode_rows_of(gpu));
    }
    // By default a decode rung runs where it was measured fastest at the nearest decode shape of
    // the table; opted in (Choices::any), also where none is measured or where the prediction
    // beats the table's time.
    const bool chosen = choices == Choices::any ? !e || measured_fastest || d.predicted_s < scaled : measured_rung;
    if (chosen) {
      p.impl = Impl::gemv;
      p.rung = d.rung;
      p.partial_bytes = gemm::gemv::workspace_bytes(gemv_rung_of(d.rung), c.m, c.n, c.k);
      if (explain) {
        p.reason = "decode (m ≤ 64, W streamed once): " + pred +
                   (!e ? ", no decode shape measured" : measured_fastest ? ", measured fastest: " + vs : " vs " + vs);
        p.predicted_s = d.predicted_s;
      }
      return p;
    }
    if (explain) {
      const std::string why = !table_measured_decode_rungs(gpu)
                                  ? "the dispatch table has no decode-rung measurement (SOL_DISPATCH_UNMEASURED=1 opts in)"
                              : measured_fastest ? d.rung + " is unmeasured for this layout (SOL_DISPATCH_UNMEASURED=1 opts in)"
                                                 : "measured slower";
      decode_note = "; decode rung " + d.rung + " " + pred + (vs.empty() ? "" : " vs " + vs) + ", not chosen: " + why;
    }
  }
  if (!no_rung.empty() && !no_lt.empty())
    bad_input("matmul: nothing serves this call: " + no_lt + ", and " + no_rung,
              "pad k to a multiple of 16 and the pitches to 16 bytes, or run on an H200-class GPU (sm_90)");
  if (!no_rung.empty()) {
    use_lt("cuBLASLt: " + no_rung);
  } else {
    static const std::vector<Point> indexed = index_of(table());
    const Measured* e = nearest_in(indexed, c.a_type, c.c_type, c.m, c.n, c.k, c.lda, c.ldb, c.ldc);
    // The whole table is the H200's: on another GPU the reason says so.
    const std::string at = e && explain ? "nearest measured " + shape_text(*e) + " " + dtype_name(c.a_type) +
                                              (gpu == TableGpu::h200 ? "" : " on the H200") + ": "
                                        : "";
    const std::string vs = e && explain ? std::string(e->best) + " " + us(e->best_s) +
                                   (e->other[0] ? std::string(" vs ") + e->other + " " + us(e->other_s) : "")
                             : "";
    // The table's sol rung at that shape (best or other), else v08, which chooses its own tile.
    std::string rung = "v08_tile_choice";
    if (e && is_rung(e->best)) rung = e->best;
    else if (e && is_rung(e->other)) rung = e->other;
    if (!no_lt.empty()) use_rung(rung, rung + ": " + no_lt + (e ? " (" + at + vs + ")" : ""));
    else if (!e) use_lt("cuBLASLt: no " + dtype_name(c.a_type) + " shape measured in the dispatch table");
    else if (is_rung(e->best)) use_rung(rung, at + vs);
    else use_lt(at + vs);
  }
  if (explain) p.predicted_s = predicted(c, cc), p.reason += decode_note;
  else p.reason.clear();
  return p;
}

}  // namespace

}  // namespace sol::kernels::api

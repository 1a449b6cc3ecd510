// sol::attention_forward / attention_backward (include/sol/kernels.hpp): validation, the
// dispatcher's choice among the registry's rungs, and the launches.
//
// Validation comes first and needs no device: every size, dtype, pointer, stride and workspace
// problem throws sol::Error before any CUDA call. The workspace queries check the shape only
// (they are asked before the buffers exist); explain_* checks shape and strides, and the pointers
// only where they are given.
//
// The choice: the rungs the device can run (mma.sync from sm_80; the wgmma/TMA rungs only on
// sm_90, whose sm_90a code runs nowhere else) and the layout allows, ranked by the committed H200
// measurements (kernels/api/attention_table.inc, scripts/api-tables.py) at the nearest measured
// shape — same d and, where measured, the same causal and det. The predicted time is that
// measurement scaled by the query–key pairs the two shapes compute (pairs()).
// Decode (n ≤ 16 query tokens, any nk) goes to the split-KV decode kernel instead: the prefill
// rungs' 64- or 128-row query tiles would hold one to 16 real rows, and its split over the keys
// (kernels/attention/decode_plan.hpp) is what fills the GPU; its prediction is the one byte
// model's floor on the H200 (the K/V cache read once).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/api/choice.hpp"
#include "kernels/api/entry_util.hpp"
#include "kernels/api/unmeasured.hpp"
#include "kernels/attention/decode.cuh"
#include "kernels/attention/forward.cuh"
#include "kernels/common/launch.cuh"
#include "sol/core/attention_window.hpp"
#include "sol/core/format.hpp"
#include "sol/core/shape.hpp"
#include "sol/hw/spec.hpp"
#include "sol/kernels.hpp"
#include "sol/model/cost.hpp"

namespace sol {
namespace {

namespace at = kernels::attention;

// Rung indices as in attention_table.inc.
enum Fwd { kV02, kV03, kV04, kV05, kV06, kFwdRungs };
enum Bwd { kB01, kB02, kB03, kB04, kBwdRungs };
const char* const kFwdNames[kFwdRungs] = {"attention/v02_flash_mma", "attention/v03_flash_mma_128",
                                          "attention/v04_flash_wgmma", "attention/v05_flash_wgmma_overlap",
                                          "attention/v06_split_kv_decode"};
const char* const kDecodeName = kFwdNames[kV06];
const char* const kBwdNames[kBwdRungs] = {"attention_bwd/v01_flash_bwd", "attention_bwd/v02_flash_bwd_8warp",
                                          "attention_bwd/v03_flash_bwd_wgmma", "attention_bwd/v04_flash_bwd_2wg"};

struct Measured {
  bool backward;
  int rung;
  int64_t b, h, hkv, n, nk;
  int d, causal, fp16, det;
  double seconds;
};
constexpr Measured kTable[] = {
#include "kernels/api/attention_table.inc"
};

// True once the table holds a measurement of the split-KV decode kernel.
bool decode_measured() {
  for (const Measured& m : kTable)
    if (!m.backward && m.rung == kV06) return true;
  return false;
}

constexpr int64_t kMaxGrid = 65535;                   // h and b are grid dimensions y and z
constexpr int64_t kMaxRows = int64_t(1) << 31;        // n, nk: tile counts stay 32-bit
constexpr int64_t kMaxElements = int64_t(1) << 40;    // per tensor, as the registry's shapes
constexpr int64_t kMaxTmaStrideBytes = int64_t(1) << 40;  // a tensor map's strides are below 2^40 bytes

// The mask a call asks for, as the kernels take it (sol/core/attention_window.hpp): a window size
// that never binds (left ≥ nk − 1, right ≥ n − 1) is −1; a window of (−1, 0) is the causal mask
// (the causal kernels and their measurements serve it); causal beside a bounded left side is the
// window's right = 0. windowed: the Windowed kernels are needed (a window, or a softcap).
struct Mask {
  bool causal = false;
  int64_t left = -1, right = -1;
  bool windowed = false;
};
Mask mask_of(const AttentionArgs& a) {
  Mask m;
  m.left = a.window_left >= a.nk - 1 ? -1 : a.window_left;
  m.right = a.window_right >= a.n - 1 ? -1 : a.window_right;
  m.causal = a.causal;
  if (m.left < 0 && m.right == 0) m.causal = true, m.right = -1;
  if (m.left >= 0 && m.causal) m.causal = false, m.right = 0;
  m.windowed = m.left >= 0 || m.right >= 0 || a.softcap > 0.f;
  return m;
}

std::string shape_text(const AttentionArgs& a) {
  std::string s = "b=" + std::to_string(a.b) + ",h=" + std::to_string(a.h);
  if (a.h_kv != a.h) s += ",h_kv=" + std::to_string(a.h_kv);
  s += ",n=" + std::to_string(a.n);
  if (a.nk != a.n) s += ",nk=" + std::to_string(a.nk);
  s += ",d=" + std::to_string(a.d);
  const Mask m = mask_of(a);
  if (m.causal) s += ",causal";
  if (m.left >= 0 || m.right >= 0) s += ",window=(" + std::to_string(m.left) + "," + std::to_string(m.right) + ")";
  if (a.softcap > 0.f) s += ",softcap=" + num(a.softcap);
  return s + (a.dtype == DType::f16 ? " f16" : " bf16");
}

// ---- validation ---------------------------------------------------------------------------------

void check_shape(const AttentionArgs& a, const std::string& op) {
  if (a.dtype != DType::bf16 && a.dtype != DType::f16)
    bad_input(op + ": dtype " + dtype_name(a.dtype) + " is not served", "use bf16 or f16");
  const std::pair<const char*, int64_t> sizes[] = {{"b", a.b}, {"h", a.h}, {"h_kv", a.h_kv}, {"n", a.n}, {"nk", a.nk}};
  for (const auto& [name, v] : sizes)
    if (v < 1) bad_input(op + ": " + name + " = " + std::to_string(v) + " is not a size", "give " + std::string(name) + " ≥ 1");
  if (a.d != 64 && a.d != 128)
    bad_input(op + ": head dimension d = " + std::to_string(a.d) + " is not built", "use d = 64 or d = 128");
  if (a.h % a.h_kv != 0)
    bad_input(op + ": h_kv = " + std::to_string(a.h_kv) + " does not divide h = " + std::to_string(a.h),
              "grouped-query attention needs h to be a multiple of h_kv");
  if (a.h > kMaxGrid || a.b > kMaxGrid)
    bad_input(op + ": b = " + std::to_string(a.b) + ", h = " + std::to_string(a.h) + " exceed 65535 (a grid dimension)",
              "split the batch or the heads into several calls");
  if (a.n > kMaxRows || a.nk > kMaxRows)
    bad_input(op + ": n = " + std::to_string(a.n) + ", nk = " + std::to_string(a.nk) + " exceed 2^31",
              "split the sequence");
  const double q = double(a.b) * double(a.n) * double(a.h) * a.d, kv = double(a.b) * double(a.nk) * double(a.h_kv) * a.d;
  if (q > double(kMaxElements) || kv > double(kMaxElements))
    bad_input(op + ": " + shape_text(a) + ": Q, K or V would exceed 2^40 elements", "split the call");
  if (!std::isfinite(a.scale)) bad_input(op + ": scale is not finite", "give a finite scale, or 0 for 1/√d");
  if (a.window_left < -1 || a.window_right < -1)
    bad_input(op + ": window (" + std::to_string(a.window_left) + ", " + std::to_string(a.window_right) +
                  ") has a size below −1",
              "give each side's size ≥ 0 in keys, or −1 for no bound on that side");
  if (a.causal && a.window_right > 0)
    bad_input(op + ": causal with window_right = " + std::to_string(a.window_right) +
                  ": causal means no key right of the diagonal (window_right = 0)",
              "drop causal, or give window_right 0 or −1");
  if (!(a.softcap >= 0.f) || !std::isfinite(a.softcap))
    bad_input(op + ": softcap = " + num(a.softcap) + " is not a cap",
              "give a finite softcap > 0 (Gemma 2 uses 50), or 0 for none");
}

// A tensor's strides, all given or all 0 (packed); each a multiple of 8 elements (the kernels move
// 16-byte chunks of d), and, for an output, no two elements at one address. A dimension of extent 1
// is never stepped over: whatever stride it was given (a framework may leave any there, 0 too), it
// gets its packed one.
at::Bshd check_strides(const BSHDStrides& given_strides, int64_t b, int64_t rows, int64_t heads, int d,
                       const std::string& op, const char* what, bool output) {
  const at::Bshd packed = at::packed_or({}, rows, heads, d);
  BSHDStrides s = given_strides;
  if (s.batch == 0 && s.seq == 0 && s.head == 0) return packed;
  const std::string given = std::string(what) + " strides {batch " + std::to_string(s.batch) + ", seq " +
                            std::to_string(s.seq) + ", head " + std::to_string(s.head) + "}";
  if (b == 1) s.batch = packed.batch;
  if (rows == 1) s.seq = packed.seq;
  if (heads == 1) s.head = packed.head;
  if (s.batch <= 0 || s.seq <= 0 || s.head <= 0)
    bad_input(op + ": " + given + ": give all three > 0, or all 0 for packed BSHD", "strides are in elements");
  if (s.batch % 8 || s.seq % 8 || s.head % 8)
    bad_input(op + ": " + given + " are not multiples of 8 elements",
              "the kernels load and store 16-byte pieces of d: pad the strides to multiples of 8");
  if (output) {  // sorted by stride, each dimension must step past everything the smaller ones span
    std::pair<int64_t, int64_t> dims[] = {{s.head, heads}, {s.seq, rows}, {s.batch, b}};
    std::sort(std::begin(dims), std::end(dims));
    int64_t span = d;
    for (const auto& [stride, extent] : dims) {
      if (extent > 1 && stride < span)
        bad_input(op + ": " + given + " overlap: two elements of the output would share an address",
                  "give strides whose rows and heads do not overlap");
      if (extent > 1) span = std::max(span, stride * (extent - 1) + span);
    }
  }
  return {s.batch, s.seq, s.head};
}

// Packed BSHD, of strides check_strides returned (a dimension of extent 1 has its packed stride: a
// [b, h, 1, d] tensor transposed to [b, 1, h, d] is packed whatever sequence stride it was given).
bool is_packed(const at::Bshd& s, int64_t rows, int64_t heads, int d) {
  const at::Bshd p = at::packed_or({}, rows, heads, d);
  return s.head == p.head && s.seq == p.seq && s.batch == p.batch;
}

void check_pointer(const void* p, const std::string& op, const char* what) {
  if (!p) bad_input(op + ": " + what + " is nullptr", std::string("give the device address of ") + what);
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
    bad_input(op + ": " + what + " is not 16-byte aligned", "the kernels load 16-byte pieces: align the tensor to 16 bytes");
}

void check_workspace(size_t need, const void* workspace, size_t bytes, const std::string& op) {
  if (need == 0) return;
  if (!workspace || bytes < need)
    bad_input(op + ": workspace of " + std::to_string(bytes) + " bytes" + (workspace ? "" : " (nullptr)") + ", " +
                  std::to_string(need) + " needed",
              "pass a device buffer of the size the *_workspace_size query returns");
  if (reinterpret_cast<uintptr_t>(workspace) % 16 != 0)
    bad_input(op + ": workspace is not 16-byte aligned", "pass a buffer from cudaMalloc (256-byte aligned)");
}

// ---- the choice ---------------------------------------------------------------------------------

// Query–key pairs that are computed (causal or windowed: those each row sees), with the query rows
// padded to whole tiles of tile_rows (the tensor cores compute a partial tile whole): the work a
// time scales with.
double pairs(int64_t b, int64_t h, int64_t n, int64_t nk, const Mask& m, int64_t tile_rows) {
  const double per_head = window_pairs(n, nk, m.left, m.causal ? 0 : m.right);
  const double padded = double((n + tile_rows - 1) / tile_rows * tile_rows) / double(n);
  return double(b) * double(h) * per_head * padded;
}

struct Ranked {
  int rung = -1;
  std::string reason;
  double predicted_s = 0;
};

// Query rows per tile of each rung: the forward's v02 64, v03–v05 128; the backward's 64.
int64_t tile_rows(bool backward, int rung) { return backward || rung == kV02 ? 64 : 128; }

// The fastest allowed rung at the nearest measured shape.
Ranked rank(bool backward, const AttentionArgs& a, bool det, const std::vector<bool>& allowed, const char* const* names) {
  const Mask mask = mask_of(a);  // a window's tiles are skipped and masked as causal ones are: nearest to those
  const bool masked = mask.causal || mask.left >= 0 || mask.right >= 0;
  auto distance = [&](const Measured& m) {
    return std::abs(std::log(double(a.n) / double(m.n))) + std::abs(std::log(double(a.nk) / double(m.nk))) +
           std::abs(std::log(double(a.b * a.h) / double(m.b * m.h))) + (m.causal != int(masked) ? 2.0 : 0.0) +
           (m.det != int(det) ? 4.0 : 0.0) + (m.fp16 != int(a.dtype == DType::f16) ? 0.5 : 0.0);
  };
  const Measured* nearest = nullptr;
  for (const Measured& m : kTable)
    if (m.backward == backward && m.d == a.d && allowed[size_t(m.rung)] && (!nearest || distance(m) < distance(*nearest)))
      nearest = &m;
  Ranked r;
  if (!nearest) {  // nothing measured at this d: the highest allowed rung
    for (int i = int(allowed.size()) - 1; i >= 0 && r.rung < 0; --i)
      if (allowed[size_t(i)]) r.rung = i;
    r.reason = "no measurement at d=" + std::to_string(a.d) + ": the highest rung the device and layout allow";
    return r;
  }
  std::vector<const Measured*> at_shape;  // every allowed rung measured at that shape, fastest first
  for (const Measured& m : kTable)
    if (m.backward == backward && allowed[size_t(m.rung)] && m.b == nearest->b && m.h == nearest->h &&
        m.hkv == nearest->hkv && m.n == nearest->n && m.nk == nearest->nk && m.d == nearest->d &&
        m.causal == nearest->causal && m.fp16 == nearest->fp16 && m.det == nearest->det)
      at_shape.push_back(&m);
  std::sort(at_shape.begin(), at_shape.end(), [](const Measured* x, const Measured* y) { return x->seconds < y->seconds; });
  const Measured& best = *at_shape.front();
  r.rung = best.rung;
  const int64_t tile = tile_rows(backward, best.rung);
  r.predicted_s = best.seconds * pairs(a.b, a.h, a.n, a.nk, mask, tile) /
                  pairs(best.b, best.h, best.n, best.nk, Mask{best.causal != 0}, tile);
  const auto us = api::us_text;
  auto rung = [&](const Measured& m) { return std::string(names[m.rung]).substr(std::string(names[m.rung]).find('/') + 1); };
  r.reason = "nearest measured (H200) b=" + std::to_string(best.b) + ",h=" + std::to_string(best.h) +
             ",n=" + std::to_string(best.n) + ",nk=" + std::to_string(best.nk) + ",d=" + std::to_string(best.d) +
             (best.causal ? ",causal" : "") + (best.det ? ",det" : "") + ": " + rung(best) + " " + us(best.seconds);
  if (at_shape.size() > 1) r.reason += " vs " + rung(*at_shape[1]) + " " + us(at_shape[1]->seconds);
  return r;
}

// ---- forward ------------------------------------------------------------------------------------

struct ForwardPlan {
  at::Bshd qs, ks, vs, os;
  Choice choice;
  int rung = kV02;
  bool decode = false;  // the split-KV decode kernel instead of a rung
  int sms = 0;          // decode: the SMs its split fills
};

template <class T>
at::AttnArgs<T> kernel_args(const AttentionArgs& a) {
  at::AttnArgs<T> k;
  k.q = static_cast<const T*>(a.q);
  k.k = static_cast<const T*>(a.k);
  k.v = static_cast<const T*>(a.v);
  k.o = static_cast<T*>(a.o);
  k.lse = a.lse;
  k.b = a.b;
  k.h = a.h;
  k.hkv = a.h_kv;
  k.n = a.n;
  k.nk = a.nk;
  k.d = a.d;
  const Mask m = mask_of(a);
  k.causal = m.causal;
  k.window_left = m.left;
  k.window_right = m.right;
  k.softcap = a.softcap;
  k.scale = a.scale != 0.f ? a.scale : float(1.0 / std::sqrt(double(a.d)));
  return k;
}

// The decode kernel's split shape: the keys its window leaves (at::decode_shape, for the
// kernel's own arguments).
at::DecodeShape decode_shape(const AttentionArgs& a) { return at::decode_shape(kernel_args<__nv_bfloat16>(a)); }

// The decode kernel's floor on the H200 by the one attention byte model: K, V read once (under a
// window, the keys it leaves).
double decode_predicted_s(const AttentionArgs& a) {
  const Mask m = mask_of(a);
  const Shape s = Shape::parse("b=" + std::to_string(a.b) + ",h=" + std::to_string(a.h) + ",hkv=" +
                               std::to_string(a.h_kv) + ",n=" + std::to_string(a.n) + ",nk=" + std::to_string(a.nk) +
                               ",d=" + std::to_string(a.d) + ",causal=" + (m.causal ? "1" : "0") +
                               (m.left >= 0 ? ",wl=" + std::to_string(m.left) : "") +
                               (m.right >= 0 ? ",wr=" + std::to_string(m.right) : "") +
                               (a.softcap > 0.f ? ",softcap=1" : "") + ",fp16=" + (a.dtype == DType::f16 ? "1" : "0"));
  return model::attention_at(s, true, false, at::decode_row_tile(1)).bytes / hw::find("h200").hbm_bytes_per_s;
}

// "n=1 ≤ 16: split-KV decode, 64 CTAs × 4 splits of 8192 keys (132 SMs); predicted: the H200 floor"
std::string decode_reason(const AttentionArgs& a, int sms) {
  const at::DecodeSplit p = at::decode_split(decode_shape(a), sms);
  return "n=" + std::to_string(a.n) + " ≤ " + std::to_string(at::kDecodeMaxQueries) + ": split-KV decode, " +
         std::to_string(a.b * a.h_kv * p.row_blocks) + " CTAs × " + std::to_string(p.splits) + " split" +
         (p.splits > 1 ? "s" : "") + " of " + std::to_string(p.keys_per_split) + " keys (" + std::to_string(sms) +
         " SMs); predicted: the H200 floor";
}

size_t lse_bytes(const AttentionArgs& a) { return size_t(a.b) * size_t(a.h) * size_t(a.n) * sizeof(float); }

// A paged KV cache's table and sizes (sol/kernels.hpp), refused before any launch.
void check_pages(const AttentionArgs& a, bool decode, const std::string& op) {
  if (!a.block_table) return;
  if (!decode)
    bad_input(op + ": block_table (a paged KV cache) is served for n ≤ " + std::to_string(at::kDecodeMaxQueries) +
                  " query tokens only, not n = " + std::to_string(a.n),
              "leave block_table nullptr and pass contiguous K and V");
  if (a.page_size < 16 || a.page_size > 256 || (a.page_size & (a.page_size - 1)) != 0)
    bad_input(op + ": page_size = " + std::to_string(a.page_size) + " is not served",
              "use a power of two from 16 to 256 keys per page");
  if (a.pages_per_seq < 1 || a.pages_per_seq > kMaxRows || a.pages_per_seq * a.page_size < a.nk)
    bad_input(op + ": pages_per_seq = " + std::to_string(a.pages_per_seq) + " pages of " +
                  std::to_string(a.page_size) + " keys do not hold nk = " + std::to_string(a.nk),
              "give pages_per_seq ≥ ⌈nk / page_size⌉ (the block table's row length)");
  if (reinterpret_cast<uintptr_t>(a.block_table) % 4 != 0)
    bad_input(op + ": block_table is not 4-byte aligned", "pass a device array of b · pages_per_seq int32");
}

// Validated strides and the choice. Pointers are checked only where given (explain) or always
// (run, with the workspace); every check precedes the device query.
// cc: the device's compute capability, 0 to ask the current device.
ForwardPlan plan_forward(const AttentionArgs& a, const void* workspace, size_t workspace_bytes, bool run, int cc = 0) {
  const std::string op = "attention_forward";
  check_shape(a, op);
  ForwardPlan p;
  p.qs = check_strides(a.q_stride, a.b, a.n, a.h, a.d, op, "Q", false);
  const int64_t kv_rows = a.block_table ? a.page_size : a.nk;  // paged: a "batch" of K and V is a page
  p.ks = check_strides(a.k_stride, a.b, kv_rows, a.h_kv, a.d, op, "K", false);
  p.vs = check_strides(a.v_stride, a.b, kv_rows, a.h_kv, a.d, op, "V", false);
  p.os = check_strides(a.o_stride, a.b, a.n, a.h, a.d, op, "O", true);
  const std::pair<const void*, const char*> ptrs[] = {{a.q, "q"}, {a.k, "k"}, {a.v, "v"}, {a.o, "o"}};
  for (const auto& [ptr, what] : ptrs)
    if (run || ptr) check_pointer(ptr, op, what);
  // The decode kernel serves n ≤ 16 once the table measured it (sol::api::unmeasured_allowed());
  // until then the prefill rungs serve decode shapes, and the options only it has are refused.
  const bool decode_shape_here = a.n <= at::kDecodeMaxQueries;
  const bool decode = decode_shape_here && (decode_measured() || sol::api::unmeasured_allowed());
  if (decode_shape_here && !decode && (a.seqlens_k || a.block_table))
    bad_input(op + ": per-sequence cache lengths and paged caches run on " + std::string(kDecodeName) +
                  ", which the dispatch table has not measured yet",
              "set SOL_DISPATCH_UNMEASURED=1 to use it unmeasured, or pass a contiguous cache with one nk");
  if (a.seqlens_k && !decode)
    bad_input(op + ": seqlens_k (per-sequence cache lengths) is served for n ≤ " +
                  std::to_string(at::kDecodeMaxQueries) + " query tokens only, not n = " + std::to_string(a.n),
              "leave seqlens_k nullptr, or call once per sequence with its own nk");
  if (a.seqlens_k && reinterpret_cast<uintptr_t>(a.seqlens_k) % 4 != 0)
    bad_input(op + ": seqlens_k is not 4-byte aligned", "pass a device array of b int32");
  check_pages(a, decode, op);
  if (run)
    check_workspace(decode ? at::decode_workspace_bound(decode_shape(a)) : a.lse ? 0 : api::align256(lse_bytes(a)),
                    workspace, workspace_bytes, op);

  const bool on_this_device = cc == 0;
  if (cc == 0) cc = api::current_cc(op.c_str());
  if (cc < 80)
    failure(op + ": " + api::cc_text(cc) + " has no bf16/f16 mma.sync", "attention needs an sm_80 or newer GPU");
  if (decode) {  // another device's choice is told for the H200's SMs
    p.decode = true;
    p.sms = on_this_device ? kernels::sm_count() : hw::find("h200").compute_units;
    p.choice.implementation = kDecodeName;
    p.choice.reason = shape_text(a) + " on " + api::cc_text(cc) + ": " + decode_reason(a, p.sms);
    p.choice.predicted_s = decode_predicted_s(a);
    return p;
  }
  // The TMA rungs read rows and batches at any 16-byte stride, but a row's heads contiguously.
  std::string tma_why;
  if (cc != 90) tma_why = "wgmma/TMA rungs are sm_90a (this device is " + api::cc_text(cc) + ")";
  const std::tuple<at::Bshd, int64_t, int64_t> inputs[] = {{p.qs, a.n, a.h}, {p.ks, a.nk, a.h_kv}, {p.vs, a.nk, a.h_kv}};
  for (const auto& [s, rows, heads] : inputs) {
    const bool mappable = s.head == a.d && s.seq >= heads * a.d && s.batch >= rows * s.seq &&
                          s.batch * 2 < kMaxTmaStrideBytes;
    if (tma_why.empty() && !mappable)
      tma_why = "the TMA rungs need a row's heads contiguous (head stride = d), rows and batches apart";
  }
  std::vector<bool> allowed(kFwdRungs, true);
  allowed[kV04] = allowed[kV05] = tma_why.empty();
  allowed[kV06] = false;  // decode shapes are decided above
  if (mask_of(a).windowed) {  // only the wgmma rungs have a Windowed form
    allowed[kV02] = allowed[kV03] = false;
    if (!tma_why.empty()) {
      const std::string what = op + ": " + shape_text(a) + ": a sliding window or softcap runs on the wgmma rungs (or, for n ≤ " +
                               std::to_string(at::kDecodeMaxQueries) + ", the decode kernel); " + tma_why;
      if (cc != 90) failure(what, "run it on an sm_90 GPU (H100, H200)");
      bad_input(what, "pass Q, K and V with each row's heads contiguous (head stride = d)");
    }
  }
  const Ranked r = rank(false, a, false, allowed, kFwdNames);
  p.rung = r.rung;
  p.choice.implementation = kFwdNames[r.rung];
  p.choice.reason = shape_text(a) + " on " + api::cc_text(cc) + ": " + r.reason + (tma_why.empty() ? "" : "; " + tma_why);
  if (decode_shape_here)
    p.choice.reason += std::string("; ") + kDecodeName + " serves n ≤ " + std::to_string(at::kDecodeMaxQueries) +
                       " once the table measured it (SOL_DISPATCH_UNMEASURED=1 opts in)";
  p.choice.predicted_s = r.predicted_s;
  return p;
}


template <class T>
void run_forward(const ForwardPlan& p, const AttentionArgs& a, void* workspace, cudaStream_t stream) {
  at::AttnArgs<T> k = kernel_args<T>(a);
  k.qs = p.qs;
  k.ks = p.ks;
  k.vs = p.vs;
  k.os = p.os;
  if (p.decode) {
    at::DecodeArgs<T> d = at::decode_args(k, a.seqlens_k, p.sms, workspace);
    d.block_table = a.block_table;
    d.pages_per_seq = a.pages_per_seq;
    while (a.block_table && (1 << d.page_shift) < a.page_size) ++d.page_shift;
    return at::decode_forward(d, stream);
  }
  if (!k.lse) k.lse = static_cast<float*>(workspace);  // the logsumexp the rungs always write
  switch (p.rung) {
    case kV02: return at::flash_forward(k, stream, 1);
    case kV03: return at::flash_forward(k, stream, 2);
    case kV04: return at::flash_wgmma_forward(k, stream, false);
    default: return at::flash_wgmma_forward(k, stream, true);
  }
}

// ---- backward -----------------------------------------------------------------------------------

struct BackwardPlan {
  Choice choice;
  int rung = kB01;
};

void check_packed(const BSHDStrides& s, int64_t b, int64_t rows, int64_t heads, int d, const std::string& op,
                  const char* what) {
  if (!is_packed(check_strides(s, b, rows, heads, d, op, what, false), rows, heads, d))
    bad_input(op + ": " + what + " is strided; the backward serves packed BSHD only",
              "copy it into a packed [b, n, h, d] tensor (strides 0)");
}

size_t dq_accum_bytes(const AttentionArgs& a) {
  return api::align256(size_t(a.b) * size_t(a.n) * size_t(a.h) * size_t(a.d) * sizeof(float));
}
size_t backward_workspace(const AttentionArgs& a) { return dq_accum_bytes(a) + api::align256(lse_bytes(a)); }

BackwardPlan plan_backward(const AttentionBackwardArgs& g, const void* workspace, size_t workspace_bytes, bool run,
                           int cc = 0) {
  const std::string op = "attention_backward";
  const AttentionArgs& a = g.fwd;
  check_shape(a, op);
  if (a.seqlens_k || a.block_table)
    bad_input(op + ": fwd." + (a.seqlens_k ? "seqlens_k" : "block_table") +
                  " is given; per-sequence cache lengths and paged caches are forward (decode) options",
              "leave them nullptr: the backward runs full-length contiguous sequences");
  for (const auto& [s, rows, heads, what] :
       {std::tuple{a.q_stride, a.n, a.h, "Q"}, std::tuple{a.k_stride, a.nk, a.h_kv, "K"},
        std::tuple{a.v_stride, a.nk, a.h_kv, "V"}, std::tuple{a.o_stride, a.n, a.h, "O"},
        std::tuple{g.dout_stride, a.n, a.h, "dO"}, std::tuple{g.dq_stride, a.n, a.h, "dQ"},
        std::tuple{g.dk_stride, a.nk, a.h_kv, "dK"}, std::tuple{g.dv_stride, a.nk, a.h_kv, "dV"}})
    check_packed(s, a.b, rows, heads, a.d, op, what);
  const std::pair<const void*, const char*> ptrs[] = {{a.q, "fwd.q"},   {a.k, "fwd.k"}, {a.v, "fwd.v"},
                                                      {a.o, "fwd.o"},   {g.dout, "dout"}, {g.dq, "dq"},
                                                      {g.dk, "dk"},     {g.dv, "dv"}};
  for (const auto& [ptr, what] : ptrs)
    if (run || ptr) check_pointer(ptr, op, what);
  if (run && !a.lse)
    bad_input(op + ": fwd.lse is nullptr; the backward recomputes P from the forward's logsumexp",
              "give the forward an lse buffer [b, h, n] fp32 and pass it here");
  if (run) check_workspace(backward_workspace(a), workspace, workspace_bytes, op);

  if (cc == 0) cc = api::current_cc(op.c_str());
  if (cc < 80)
    failure(op + ": " + api::cc_text(cc) + " has no bf16/f16 mma.sync", "attention needs an sm_80 or newer GPU");
  std::vector<bool> allowed(kBwdRungs, true);
  allowed[kB02] = cc >= 90;  // float4 atomicAdd
  allowed[kB03] = allowed[kB04] = cc == 90;
  if (mask_of(a).windowed) {  // only v04 has the Windowed and Capped forms
    allowed[kB01] = allowed[kB02] = allowed[kB03] = false;
    if (cc != 90)
      failure(op + ": " + shape_text(a) + ": a sliding window or softcap runs on " + kBwdNames[kB04] +
                  ", which is sm_90a (this device is " + api::cc_text(cc) + ")",
              "run the backward on an sm_90 GPU (H100, H200)");
  }
  const Ranked r = rank(true, a, g.deterministic, allowed, kBwdNames);
  BackwardPlan p;
  p.rung = r.rung;
  p.choice.implementation = kBwdNames[r.rung];
  p.choice.reason = shape_text(a) + (g.deterministic ? " deterministic" : "") + " on " + api::cc_text(cc) + ": " +
                    r.reason + (cc == 90 ? "" : "; the wgmma/TMA rungs are sm_90a");
  p.choice.predicted_s = r.predicted_s;
  return p;
}

template <class T>
void run_backward(const BackwardPlan& p, const AttentionBackwardArgs& g, void* workspace, cudaStream_t stream) {
  at::AttnBwdArgs<T> k;
  k.f = kernel_args<T>(g.fwd);
  k.dout = static_cast<const T*>(g.dout);
  k.dq = static_cast<T*>(g.dq);
  k.dk = static_cast<T*>(g.dk);
  k.dv = static_cast<T*>(g.dv);
  k.dq_accum = static_cast<float*>(workspace);
  k.delta = reinterpret_cast<float*>(static_cast<char*>(workspace) + dq_accum_bytes(g.fwd));
  k.deterministic = g.deterministic;
  switch (p.rung) {
    case kB01: return at::flash_backward(k, stream);
    case kB02: return at::flash_backward_v02(k, stream);
    case kB03: return at::flash_backward_wgmma(k, stream, 1);
    default: return at::flash_backward_wgmma(k, stream, 2);
  }
}

}  // namespace

size_t attention_forward_workspace_size(const AttentionArgs& args) {
  check_shape(args, "attention_forward");
  const size_t prefill = args.lse ? 0 : api::align256(lse_bytes(args));
  // The decode kernel's partials, whether or not this call runs it (that depends on the table and
  // the environment, not on the shape alone).
  if (args.n <= at::kDecodeMaxQueries) return std::max(prefill, at::decode_workspace_bound(decode_shape(args)));
  return prefill;
}

Choice explain_attention_forward(const AttentionArgs& args) { return plan_forward(args, nullptr, 0, false).choice; }

void attention_forward(const AttentionArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  const ForwardPlan p = plan_forward(args, workspace, workspace_bytes, true);
  if (args.dtype == DType::f16) return run_forward<__half>(p, args, workspace, stream);
  run_forward<__nv_bfloat16>(p, args, workspace, stream);
}

size_t attention_backward_workspace_size(const AttentionBackwardArgs& args) {
  check_shape(args.fwd, "attention_backward");
  return backward_workspace(args.fwd);  // dq_accum [b, n, h, d], then delta [b, h, n], fp32
}

Choice explain_attention_backward(const AttentionBackwardArgs& args) {
  return plan_backward(args, nullptr, 0, false).choice;
}

void attention_backward(const AttentionBackwardArgs& args, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream) {
  const BackwardPlan p = plan_backward(args, workspace, workspace_bytes, true);
  if (args.fwd.dtype == DType::f16) return run_backward<__half>(p, args, workspace, stream);
  run_backward<__nv_bfloat16>(p, args, workspace, stream);
}

Choice api::explain_attention_forward_on(const AttentionArgs& args, int cc) {
  return plan_forward(args, nullptr, 0, false, cc).choice;
}
Choice api::explain_attention_backward_on(const AttentionBackwardArgs& args, int cc) {
  return plan_backward(args, nullptr, 0, false, cc).choice;
}

}  // namespace sol

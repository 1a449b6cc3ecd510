// sol._kernels: the public kernel API (include/sol/kernels.hpp) for Python, one function per entry,
// over raw device pointers (integers), sizes, strides and a stream handle (an integer: 0 is the
// legacy default stream). The argument structs are bound field by field with the header's names;
// dtypes are their names ("bf16"), transposes "N"/"T", the MX scale rule "ceil"/"floor". explain_*
// returns a dict (implementation, reason, predicted_s). sol::Error becomes sol.Error (sol._core's)
// with the one-line message. The launches release the GIL. sol.ops builds on this module.
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <string>

#include "sol/core/dtype.hpp"
#include "sol/core/error.hpp"
#include "sol/kernels.hpp"
#include "errors.hpp"

namespace nb = nanobind;

namespace {

using nb::gil_scoped_release;

// A pointer member of an argument struct as an integer property (0: nullptr).
template <class T, class P>
void pointer(nb::class_<T>& c, const char* name, P T::*member) {
  c.def_prop_rw(
      name, [member](const T& t) { return reinterpret_cast<uintptr_t>(t.*member); },
      [member](T& t, uintptr_t v) { t.*member = reinterpret_cast<P>(v); });
}

// A DType member as its name.
template <class T>
void dtype(nb::class_<T>& c, const char* name, sol::DType T::*member) {
  c.def_prop_rw(
      name, [member](const T& t) { return sol::dtype_name(t.*member); },
      [member](T& t, const std::string& s) { t.*member = sol::parse_dtype(s); });
}

// One of two names ("N"/"T", "ceil"/"floor", …) as its enum value.
template <class E>
E one_of_two(const char* name, const std::string& s, E a, const char* a_name, E b, const char* b_name) {
  if (s != a_name && s != b_name)
    sol::bad_input(std::string(name) + " must be '" + a_name + "' or '" + b_name + "', got '" + s + "'");
  return s == a_name ? a : b;
}

// An enum member of two values as one of two names.
template <class T, class E>
void two_names(nb::class_<T>& c, const char* name, E T::*member, E a, const char* a_name, E b, const char* b_name) {
  c.def_prop_rw(
      name, [=](const T& t) { return std::string(t.*member == a ? a_name : b_name); },
      [=](T& t, const std::string& s) { t.*member = one_of_two(name, s, a, a_name, b, b_name); });
}

sol::Transpose parse_transpose(const char* name, const std::string& s) {
  return one_of_two(name, s, sol::Transpose::N, "N", sol::Transpose::T, "T");
}

template <class T>
void transpose(nb::class_<T>& c, const char* name, sol::Transpose T::*member) {
  two_names(c, name, member, sol::Transpose::N, "N", sol::Transpose::T, "T");
}

nb::dict choice(const sol::Choice& c) {
  nb::dict d;
  d["implementation"] = c.implementation;
  d["reason"] = c.reason;
  d["predicted_s"] = c.predicted_s;
  return d;
}

void* ptr(uintptr_t v) { return reinterpret_cast<void*>(v); }
cudaStream_t stream(uintptr_t v) { return reinterpret_cast<cudaStream_t>(v); }

// ---- the direct entries: what sol.ops calls ---------------------------------------------------------
// One call per launch, its arguments positional: the argument struct is filled here (filling it
// field by field from Python costs one call per field), the tensors' device is made current, the
// workspace is checked against the query. A direct entry returns 0 after launching or, launching
// nothing, the workspace bytes the call needs when workspace_bytes is fewer (the caller allocates
// them and calls again). explain_<op>_direct takes the same arguments but the last four.

// The device made current for the launch and restored after it (a no-op when it is current).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (device < 0) return;
    int current = -1;
    cudaError_t e = cudaGetDevice(&current);
    if (e == cudaSuccess && current == device) return;
    if (e == cudaSuccess) e = cudaSetDevice(device);
    if (e != cudaSuccess) {
      cudaGetLastError();  // not sticky: leave no error behind for the next call
      sol::failure("cannot make CUDA device " + std::to_string(device) + " current: " + cudaGetErrorString(e),
                   "pass tensors on a device this process can use");
    }
    previous_ = current;
  }
  ~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

template <class P>
P* as(uintptr_t v) {
  return reinterpret_cast<P*>(v);
}

// An op's direct launch and explain, from the function that fills its struct (fill) and the
// library's workspace query, explain and launch.
template <class Args, class... P>
void direct(nb::module_& m, const char* name, const char* explain_name, Args (*fill)(P...),
            size_t (*size)(const Args&), sol::Choice (*explain)(const Args&),
            void (*run)(const Args&, void*, size_t, cudaStream_t)) {
  m.def(name, [fill, size, run](P... p, uintptr_t ws, size_t ws_bytes, uintptr_t s, int device) -> size_t {
    const Args a = fill(p...);
    DeviceGuard on(device);
    const size_t needed = size(a);
    if (needed > ws_bytes) return needed;
    gil_scoped_release release;
    run(a, ptr(ws), ws_bytes, stream(s));
    return 0;
  });
  m.def(explain_name, [fill, explain](P... p) { return choice(explain(fill(p...))); });
}

sol::MatmulArgs matmul_args(int64_t m, int64_t n, int64_t k, const std::string& a_type, const std::string& b_type,
                            const std::string& c_type, const std::string& trans_a, const std::string& trans_b,
                            uintptr_t a, int64_t lda, uintptr_t b, int64_t ldb, uintptr_t c, int64_t ldc,
                            uintptr_t scale_a, uintptr_t scale_b) {
  sol::MatmulArgs x;
  x.m = m, x.n = n, x.k = k;
  x.a_type = sol::parse_dtype(a_type), x.b_type = sol::parse_dtype(b_type), x.c_type = sol::parse_dtype(c_type);
  x.trans_a = parse_transpose("trans_a", trans_a), x.trans_b = parse_transpose("trans_b", trans_b);
  x.a = as<const void>(a), x.lda = lda, x.b = as<const void>(b), x.ldb = ldb, x.c = as<void>(c), x.ldc = ldc;
  x.scale_a = as<const float>(scale_a), x.scale_b = as<const float>(scale_b);  // fp8: one fp32 each (0: none)
  return x;
}

// BSHD strides from a tensor's four strides; head_dim's must be 1 (the API has no stride for it).
using Strides4 = std::array<int64_t, 4>;
sol::BSHDStrides bshd(const Strides4& s) {
  if (s[3] != 1)
    sol::bad_input("attention: head_dim's stride is " + std::to_string(s[3]) + "; it must be 1",
                   "make the tensor's last dimension contiguous");
  return {s[0], s[1], s[2]};
}

sol::AttentionArgs attention_args(const std::string& dtype, int64_t b, int64_t h, int64_t h_kv, int64_t n,
                                  int64_t nk, int d, bool causal, float scale, int64_t window_left,
                                  int64_t window_right, float softcap, uintptr_t q, uintptr_t k, uintptr_t v,
                                  uintptr_t o, uintptr_t lse, const Strides4& q_stride, const Strides4& k_stride,
                                  const Strides4& v_stride, const Strides4& o_stride) {
  sol::AttentionArgs x;
  x.dtype = sol::parse_dtype(dtype);
  x.b = b, x.h = h, x.h_kv = h_kv, x.n = n, x.nk = nk, x.d = d, x.causal = causal, x.scale = scale;
  x.window_left = window_left, x.window_right = window_right, x.softcap = softcap;
  x.q = as<const void>(q), x.k = as<const void>(k), x.v = as<const void>(v), x.o = as<void>(o), x.lse = as<float>(lse);
  x.q_stride = bshd(q_stride), x.k_stride = bshd(k_stride), x.v_stride = bshd(v_stride), x.o_stride = bshd(o_stride);
  return x;
}

sol::AttentionBackwardArgs attention_backward_args(
    const std::string& dtype, int64_t b, int64_t h, int64_t h_kv, int64_t n, int64_t nk, int d, bool causal,
    float scale, int64_t window_left, int64_t window_right, float softcap, uintptr_t q, uintptr_t k, uintptr_t v,
    uintptr_t o, uintptr_t lse, const Strides4& q_stride,
    const Strides4& k_stride, const Strides4& v_stride, const Strides4& o_stride, uintptr_t dout, uintptr_t dq,
    uintptr_t dk, uintptr_t dv, const Strides4& dout_stride, const Strides4& dq_stride, const Strides4& dk_stride,
    const Strides4& dv_stride, bool deterministic) {
  sol::AttentionBackwardArgs x;
  x.fwd = attention_args(dtype, b, h, h_kv, n, nk, d, causal, scale, window_left, window_right, softcap, q, k, v, o,
                         lse, q_stride, k_stride, v_stride, o_stride);
  x.dout = as<const void>(dout), x.dq = as<void>(dq), x.dk = as<void>(dk), x.dv = as<void>(dv);
  x.dout_stride = bshd(dout_stride), x.dq_stride = bshd(dq_stride), x.dk_stride = bshd(dk_stride);
  x.dv_stride = bshd(dv_stride), x.deterministic = deterministic;
  return x;
}

sol::LayerNormArgs layernorm_args(const std::string& dtype, int64_t rows, int64_t cols, uintptr_t x, int64_t ldx,
                                  uintptr_t y, int64_t ldy, uintptr_t gamma, uintptr_t beta, float eps,
                                  uintptr_t mean, uintptr_t rstd, uintptr_t residual, int64_t ldr, uintptr_t sum,
                                  int64_t lds, uintptr_t y_fp8, int64_t ldy_fp8, uintptr_t fp8_scale) {
  sol::LayerNormArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.cols = cols, a.x = as<const void>(x), a.ldx = ldx;
  a.y = as<void>(y), a.ldy = ldy, a.gamma = as<const void>(gamma), a.beta = as<const void>(beta), a.eps = eps;
  a.mean = as<float>(mean), a.rstd = as<float>(rstd);
  a.residual = as<const void>(residual), a.ldr = ldr, a.sum = as<void>(sum), a.lds = lds;
  a.y_fp8 = as<void>(y_fp8), a.ldy_fp8 = ldy_fp8, a.fp8_scale = as<const float>(fp8_scale);
  return a;
}

sol::RMSNormArgs rmsnorm_args(const std::string& dtype, int64_t rows, int64_t cols, uintptr_t x, int64_t ldx,
                              uintptr_t y, int64_t ldy, uintptr_t gamma, float eps, uintptr_t rstd,
                              uintptr_t residual, int64_t ldr, uintptr_t sum, int64_t lds, uintptr_t y_fp8,
                              int64_t ldy_fp8, uintptr_t fp8_scale) {
  sol::RMSNormArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.cols = cols, a.x = as<const void>(x), a.ldx = ldx;
  a.y = as<void>(y), a.ldy = ldy, a.gamma = as<const void>(gamma), a.eps = eps, a.rstd = as<float>(rstd);
  a.residual = as<const void>(residual), a.ldr = ldr, a.sum = as<void>(sum), a.lds = lds;
  a.y_fp8 = as<void>(y_fp8), a.ldy_fp8 = ldy_fp8, a.fp8_scale = as<const float>(fp8_scale);
  return a;
}

sol::SoftmaxArgs softmax_args(const std::string& dtype, int64_t rows, int64_t cols, uintptr_t x, int64_t ldx,
                              uintptr_t y, int64_t ldy) {
  sol::SoftmaxArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.cols = cols, a.x = as<const void>(x), a.ldx = ldx;
  a.y = as<void>(y), a.ldy = ldy;
  return a;
}

sol::LayerNormBackwardArgs layernorm_backward_args(const std::string& dtype, int64_t rows, int64_t cols, uintptr_t x,
                                                   int64_t ldx, uintptr_t dy, int64_t lddy, uintptr_t dx, int64_t lddx,
                                                   uintptr_t gamma, uintptr_t mean, uintptr_t rstd, uintptr_t dgamma,
                                                   uintptr_t dbeta) {
  sol::LayerNormBackwardArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.cols = cols, a.x = as<const void>(x), a.ldx = ldx;
  a.dy = as<const void>(dy), a.lddy = lddy, a.dx = as<void>(dx), a.lddx = lddx, a.gamma = as<const void>(gamma);
  a.mean = as<const float>(mean), a.rstd = as<const float>(rstd), a.dgamma = as<void>(dgamma);
  a.dbeta = as<void>(dbeta);
  return a;
}

sol::RMSNormBackwardArgs rmsnorm_backward_args(const std::string& dtype, int64_t rows, int64_t cols, uintptr_t x,
                                               int64_t ldx, uintptr_t dy, int64_t lddy, uintptr_t dx, int64_t lddx,
                                               uintptr_t gamma, uintptr_t rstd, uintptr_t dgamma) {
  sol::RMSNormBackwardArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.cols = cols, a.x = as<const void>(x), a.ldx = ldx;
  a.dy = as<const void>(dy), a.lddy = lddy, a.dx = as<void>(dx), a.lddx = lddx, a.gamma = as<const void>(gamma);
  a.rstd = as<const float>(rstd), a.dgamma = as<void>(dgamma);
  return a;
}

sol::SoftmaxBackwardArgs softmax_backward_args(const std::string& dtype, int64_t rows, int64_t cols, uintptr_t y,
                                               int64_t ldy, uintptr_t dy, int64_t lddy, uintptr_t dx, int64_t lddx) {
  sol::SoftmaxBackwardArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.cols = cols, a.y = as<const void>(y), a.ldy = ldy;
  a.dy = as<const void>(dy), a.lddy = lddy, a.dx = as<void>(dx), a.lddx = lddx;
  return a;
}

sol::IndexType parse_label_type(const std::string& s) {
  return one_of_two("label_type", s, sol::IndexType::i32, "int32", sol::IndexType::i64, "int64");
}
sol::Reduction parse_reduction(const std::string& s) {
  return one_of_two("reduction", s, sol::Reduction::Mean, "mean", sol::Reduction::Sum, "sum");
}

sol::LinearCrossEntropyArgs linear_cross_entropy_args(
    const std::string& dtype, int64_t rows, int64_t hidden, int64_t vocab, uintptr_t h, int64_t ldh, uintptr_t w,
    int64_t ldw, uintptr_t labels, const std::string& label_type, int64_t ignore_index, float label_smoothing,
    const std::string& reduction, float grad_scale, uintptr_t loss, uintptr_t loss_reduced, uintptr_t dh, int64_t lddh,
    uintptr_t dw, int64_t lddw, const std::string& dw_type, bool dw_accumulate, int64_t chunk_rows) {
  sol::LinearCrossEntropyArgs a;
  a.dtype = sol::parse_dtype(dtype), a.rows = rows, a.hidden = hidden, a.vocab = vocab;
  a.h = as<const void>(h), a.ldh = ldh, a.w = as<const void>(w), a.ldw = ldw;
  a.labels = as<const void>(labels), a.label_type = parse_label_type(label_type), a.ignore_index = ignore_index;
  a.label_smoothing = label_smoothing, a.reduction = parse_reduction(reduction), a.grad_scale = grad_scale;
  a.loss = as<float>(loss), a.loss_reduced = as<float>(loss_reduced), a.dh = as<void>(dh), a.lddh = lddh;
  a.dw = as<void>(dw), a.lddw = lddw, a.dw_type = sol::parse_dtype(dw_type), a.dw_accumulate = dw_accumulate;
  a.chunk_rows = chunk_rows;
  return a;
}

sol::MxScaleRule parse_rule(const std::string& s) {
  return one_of_two("rule", s, sol::MxScaleRule::Ceil, "ceil", sol::MxScaleRule::Floor, "floor");
}

sol::MxQuantizeArgs mx_quantize_args(int64_t rows, int64_t cols, const std::string& elem, const std::string& rule,
                                     uintptr_t x, uintptr_t row_codes, uintptr_t row_scales, uintptr_t col_codes,
                                     uintptr_t col_scales) {
  sol::MxQuantizeArgs a;
  a.rows = rows, a.cols = cols, a.elem = sol::parse_dtype(elem), a.rule = parse_rule(rule), a.x = as<const void>(x);
  a.row_codes = as<void>(row_codes), a.row_scales = as<void>(row_scales);
  a.col_codes = as<void>(col_codes), a.col_scales = as<void>(col_scales);
  return a;
}

sol::MxDequantizeArgs mx_dequantize_args(int64_t rows, int64_t cols, const std::string& elem, bool columnwise,
                                         uintptr_t codes, uintptr_t scales, uintptr_t out) {
  sol::MxDequantizeArgs a;
  a.rows = rows, a.cols = cols, a.elem = sol::parse_dtype(elem), a.columnwise = columnwise;
  a.codes = as<const void>(codes), a.scales = as<const void>(scales), a.out = as<void>(out);
  return a;
}

sol::CopyArgs copy_args(uintptr_t src, uintptr_t dst, size_t bytes) {
  sol::CopyArgs a;
  a.src = as<const void>(src), a.dst = as<void>(dst), a.bytes = bytes;
  return a;
}

// The ops that take no workspace, in the shape of those that do.
template <class Args>
size_t no_workspace(const Args&) {
  return 0;
}
template <class Args, void (*Run)(const Args&, cudaStream_t)>
void without_workspace(const Args& a, void*, size_t, cudaStream_t s) {
  Run(a, s);
}

// An op's direct entries, named after its launch (sol::run, sol::run_workspace_size, sol::explain_run).
#define SOL_DIRECT(m, run, fill)                                                                             \
  direct(m, #run "_direct", "explain_" #run "_direct", fill, sol::run##_workspace_size, sol::explain_##run, \
         sol::run)

// One op's three functions: its workspace query, its explain and its launch.
#define SOL_OP(m, Args, size_fn, explain_fn, run_fn)                                                           \
  m.def(#size_fn, [](const Args& a) { return sol::size_fn(a); }, nb::arg("args"));                              \
  m.def(#explain_fn, [](const Args& a) { return choice(sol::explain_fn(a)); }, nb::arg("args"));                \
  m.def(                                                                                                        \
      #run_fn,                                                                                                  \
      [](const Args& a, uintptr_t ws, size_t ws_bytes, uintptr_t s) {                                           \
        gil_scoped_release release;                                                                             \
        sol::run_fn(a, ptr(ws), ws_bytes, stream(s));                                                           \
      },                                                                                                        \
      nb::arg("args"), nb::arg("workspace"), nb::arg("workspace_bytes"), nb::arg("stream"))

}  // namespace

NB_MODULE(_kernels, m) {
  m.doc() = "sol's public kernel API over raw device pointers (use sol.ops, not this module)";
  nb::object error = nb::module_::import_("sol._core").attr("Error");
  sol::python::translate_errors(error);
  m.attr("_error") = error;  // keeps the translator's target alive with the module

  m.def("device_count", [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      cudaGetLastError();  // not sticky: leave no error behind for the next call
      sol::failure(std::string("no CUDA device: ") + cudaGetErrorString(e), "run on a machine with an NVIDIA GPU");
    }
    return n;
  }, "CUDA devices the runtime sees; sol.Error with the runtime's reason when it sees none");

  // ---- matmul --------------------------------------------------------------------------------------
  nb::class_<sol::MatmulArgs> mm(m, "MatmulArgs");
  mm.def(nb::init<>())
      .def_rw("m", &sol::MatmulArgs::m)
      .def_rw("n", &sol::MatmulArgs::n)
      .def_rw("k", &sol::MatmulArgs::k)
      .def_rw("lda", &sol::MatmulArgs::lda)
      .def_rw("ldb", &sol::MatmulArgs::ldb)
      .def_rw("ldc", &sol::MatmulArgs::ldc)
      .def_rw("alpha", &sol::MatmulArgs::alpha)
      .def_rw("beta", &sol::MatmulArgs::beta);
  dtype(mm, "a_type", &sol::MatmulArgs::a_type);
  dtype(mm, "b_type", &sol::MatmulArgs::b_type);
  dtype(mm, "c_type", &sol::MatmulArgs::c_type);
  transpose(mm, "trans_a", &sol::MatmulArgs::trans_a);
  transpose(mm, "trans_b", &sol::MatmulArgs::trans_b);
  pointer(mm, "a", &sol::MatmulArgs::a);
  pointer(mm, "b", &sol::MatmulArgs::b);
  pointer(mm, "c", &sol::MatmulArgs::c);
  pointer(mm, "scale_a", &sol::MatmulArgs::scale_a);
  pointer(mm, "scale_b", &sol::MatmulArgs::scale_b);
  SOL_OP(m, sol::MatmulArgs, matmul_workspace_size, explain_matmul, matmul);

  // ---- attention -----------------------------------------------------------------------------------
  nb::class_<sol::BSHDStrides>(m, "BSHDStrides")
      .def(nb::init<>())
      .def("__init__", [](sol::BSHDStrides* s, int64_t b, int64_t n, int64_t h) { new (s) sol::BSHDStrides{b, n, h}; },
           nb::arg("batch"), nb::arg("seq"), nb::arg("head"))
      .def_rw("batch", &sol::BSHDStrides::batch)
      .def_rw("seq", &sol::BSHDStrides::seq)
      .def_rw("head", &sol::BSHDStrides::head);
  nb::class_<sol::AttentionArgs> at(m, "AttentionArgs");
  at.def(nb::init<>())
      .def_rw("b", &sol::AttentionArgs::b)
      .def_rw("h", &sol::AttentionArgs::h)
      .def_rw("h_kv", &sol::AttentionArgs::h_kv)
      .def_rw("n", &sol::AttentionArgs::n)
      .def_rw("nk", &sol::AttentionArgs::nk)
      .def_rw("d", &sol::AttentionArgs::d)
      .def_rw("causal", &sol::AttentionArgs::causal)
      .def_rw("scale", &sol::AttentionArgs::scale)
      .def_rw("window_left", &sol::AttentionArgs::window_left)
      .def_rw("window_right", &sol::AttentionArgs::window_right)
      .def_rw("softcap", &sol::AttentionArgs::softcap)
      .def_rw("q_stride", &sol::AttentionArgs::q_stride)
      .def_rw("k_stride", &sol::AttentionArgs::k_stride)
      .def_rw("v_stride", &sol::AttentionArgs::v_stride)
      .def_rw("o_stride", &sol::AttentionArgs::o_stride);
  dtype(at, "dtype", &sol::AttentionArgs::dtype);
  pointer(at, "q", &sol::AttentionArgs::q);
  pointer(at, "k", &sol::AttentionArgs::k);
  pointer(at, "v", &sol::AttentionArgs::v);
  pointer(at, "o", &sol::AttentionArgs::o);
  pointer(at, "lse", &sol::AttentionArgs::lse);
  SOL_OP(m, sol::AttentionArgs, attention_forward_workspace_size, explain_attention_forward, attention_forward);

  nb::class_<sol::AttentionBackwardArgs> ab(m, "AttentionBackwardArgs");
  ab.def(nb::init<>())
      .def_rw("fwd", &sol::AttentionBackwardArgs::fwd)
      .def_rw("dout_stride", &sol::AttentionBackwardArgs::dout_stride)
      .def_rw("dq_stride", &sol::AttentionBackwardArgs::dq_stride)
      .def_rw("dk_stride", &sol::AttentionBackwardArgs::dk_stride)
      .def_rw("dv_stride", &sol::AttentionBackwardArgs::dv_stride)
      .def_rw("deterministic", &sol::AttentionBackwardArgs::deterministic);
  pointer(ab, "dout", &sol::AttentionBackwardArgs::dout);
  pointer(ab, "dq", &sol::AttentionBackwardArgs::dq);
  pointer(ab, "dk", &sol::AttentionBackwardArgs::dk);
  pointer(ab, "dv", &sol::AttentionBackwardArgs::dv);
  SOL_OP(m, sol::AttentionBackwardArgs, attention_backward_workspace_size, explain_attention_backward,
         attention_backward);

  // ---- rows: LayerNorm, RMSNorm, softmax -------------------------------------------------------------
  nb::class_<sol::LayerNormArgs> ln(m, "LayerNormArgs");
  ln.def(nb::init<>())
      .def_rw("rows", &sol::LayerNormArgs::rows)
      .def_rw("cols", &sol::LayerNormArgs::cols)
      .def_rw("ldx", &sol::LayerNormArgs::ldx)
      .def_rw("ldy", &sol::LayerNormArgs::ldy)
      .def_rw("eps", &sol::LayerNormArgs::eps);
  dtype(ln, "dtype", &sol::LayerNormArgs::dtype);
  pointer(ln, "x", &sol::LayerNormArgs::x);
  pointer(ln, "y", &sol::LayerNormArgs::y);
  pointer(ln, "gamma", &sol::LayerNormArgs::gamma);
  pointer(ln, "beta", &sol::LayerNormArgs::beta);
  pointer(ln, "mean", &sol::LayerNormArgs::mean);
  pointer(ln, "rstd", &sol::LayerNormArgs::rstd);
  pointer(ln, "residual", &sol::LayerNormArgs::residual);
  pointer(ln, "sum", &sol::LayerNormArgs::sum);
  pointer(ln, "y_fp8", &sol::LayerNormArgs::y_fp8);
  pointer(ln, "fp8_scale", &sol::LayerNormArgs::fp8_scale);
  ln.def_rw("ldr", &sol::LayerNormArgs::ldr).def_rw("lds", &sol::LayerNormArgs::lds);
  ln.def_rw("ldy_fp8", &sol::LayerNormArgs::ldy_fp8);
  SOL_OP(m, sol::LayerNormArgs, layernorm_forward_workspace_size, explain_layernorm_forward, layernorm_forward);

  nb::class_<sol::RMSNormArgs> rn(m, "RMSNormArgs");
  rn.def(nb::init<>())
      .def_rw("rows", &sol::RMSNormArgs::rows)
      .def_rw("cols", &sol::RMSNormArgs::cols)
      .def_rw("ldx", &sol::RMSNormArgs::ldx)
      .def_rw("ldy", &sol::RMSNormArgs::ldy)
      .def_rw("eps", &sol::RMSNormArgs::eps);
  dtype(rn, "dtype", &sol::RMSNormArgs::dtype);
  pointer(rn, "x", &sol::RMSNormArgs::x);
  pointer(rn, "y", &sol::RMSNormArgs::y);
  pointer(rn, "gamma", &sol::RMSNormArgs::gamma);
  pointer(rn, "rstd", &sol::RMSNormArgs::rstd);
  pointer(rn, "residual", &sol::RMSNormArgs::residual);
  pointer(rn, "sum", &sol::RMSNormArgs::sum);
  pointer(rn, "y_fp8", &sol::RMSNormArgs::y_fp8);
  pointer(rn, "fp8_scale", &sol::RMSNormArgs::fp8_scale);
  rn.def_rw("ldr", &sol::RMSNormArgs::ldr).def_rw("lds", &sol::RMSNormArgs::lds);
  rn.def_rw("ldy_fp8", &sol::RMSNormArgs::ldy_fp8);
  SOL_OP(m, sol::RMSNormArgs, rmsnorm_forward_workspace_size, explain_rmsnorm_forward, rmsnorm_forward);

  nb::class_<sol::SoftmaxArgs> sm(m, "SoftmaxArgs");
  sm.def(nb::init<>())
      .def_rw("rows", &sol::SoftmaxArgs::rows)
      .def_rw("cols", &sol::SoftmaxArgs::cols)
      .def_rw("ldx", &sol::SoftmaxArgs::ldx)
      .def_rw("ldy", &sol::SoftmaxArgs::ldy);
  dtype(sm, "dtype", &sol::SoftmaxArgs::dtype);
  pointer(sm, "x", &sol::SoftmaxArgs::x);
  pointer(sm, "y", &sol::SoftmaxArgs::y);
  SOL_OP(m, sol::SoftmaxArgs, softmax_forward_workspace_size, explain_softmax_forward, softmax_forward);

  nb::class_<sol::LayerNormBackwardArgs> lnb(m, "LayerNormBackwardArgs");
  lnb.def(nb::init<>())
      .def_rw("rows", &sol::LayerNormBackwardArgs::rows)
      .def_rw("cols", &sol::LayerNormBackwardArgs::cols)
      .def_rw("ldx", &sol::LayerNormBackwardArgs::ldx)
      .def_rw("lddy", &sol::LayerNormBackwardArgs::lddy)
      .def_rw("lddx", &sol::LayerNormBackwardArgs::lddx);
  dtype(lnb, "dtype", &sol::LayerNormBackwardArgs::dtype);
  pointer(lnb, "x", &sol::LayerNormBackwardArgs::x);
  pointer(lnb, "dy", &sol::LayerNormBackwardArgs::dy);
  pointer(lnb, "dx", &sol::LayerNormBackwardArgs::dx);
  pointer(lnb, "gamma", &sol::LayerNormBackwardArgs::gamma);
  pointer(lnb, "mean", &sol::LayerNormBackwardArgs::mean);
  pointer(lnb, "rstd", &sol::LayerNormBackwardArgs::rstd);
  pointer(lnb, "dgamma", &sol::LayerNormBackwardArgs::dgamma);
  pointer(lnb, "dbeta", &sol::LayerNormBackwardArgs::dbeta);
  SOL_OP(m, sol::LayerNormBackwardArgs, layernorm_backward_workspace_size, explain_layernorm_backward,
         layernorm_backward);

  nb::class_<sol::RMSNormBackwardArgs> rnb(m, "RMSNormBackwardArgs");
  rnb.def(nb::init<>())
      .def_rw("rows", &sol::RMSNormBackwardArgs::rows)
      .def_rw("cols", &sol::RMSNormBackwardArgs::cols)
      .def_rw("ldx", &sol::RMSNormBackwardArgs::ldx)
      .def_rw("lddy", &sol::RMSNormBackwardArgs::lddy)
      .def_rw("lddx", &sol::RMSNormBackwardArgs::lddx);
  dtype(rnb, "dtype", &sol::RMSNormBackwardArgs::dtype);
  pointer(rnb, "x", &sol::RMSNormBackwardArgs::x);
  pointer(rnb, "dy", &sol::RMSNormBackwardArgs::dy);
  pointer(rnb, "dx", &sol::RMSNormBackwardArgs::dx);
  pointer(rnb, "gamma", &sol::RMSNormBackwardArgs::gamma);
  pointer(rnb, "rstd", &sol::RMSNormBackwardArgs::rstd);
  pointer(rnb, "dgamma", &sol::RMSNormBackwardArgs::dgamma);
  SOL_OP(m, sol::RMSNormBackwardArgs, rmsnorm_backward_workspace_size, explain_rmsnorm_backward, rmsnorm_backward);

  nb::class_<sol::SoftmaxBackwardArgs> smb(m, "SoftmaxBackwardArgs");
  smb.def(nb::init<>())
      .def_rw("rows", &sol::SoftmaxBackwardArgs::rows)
      .def_rw("cols", &sol::SoftmaxBackwardArgs::cols)
      .def_rw("ldy", &sol::SoftmaxBackwardArgs::ldy)
      .def_rw("lddy", &sol::SoftmaxBackwardArgs::lddy)
      .def_rw("lddx", &sol::SoftmaxBackwardArgs::lddx);
  dtype(smb, "dtype", &sol::SoftmaxBackwardArgs::dtype);
  pointer(smb, "y", &sol::SoftmaxBackwardArgs::y);
  pointer(smb, "dy", &sol::SoftmaxBackwardArgs::dy);
  pointer(smb, "dx", &sol::SoftmaxBackwardArgs::dx);
  SOL_OP(m, sol::SoftmaxBackwardArgs, softmax_backward_workspace_size, explain_softmax_backward, softmax_backward);

  // ---- cross-entropy: loss and dlogits ---------------------------------------------------------------
  nb::class_<sol::CrossEntropyArgs> ce(m, "CrossEntropyArgs");
  ce.def(nb::init<>())
      .def_rw("rows", &sol::CrossEntropyArgs::rows)
      .def_rw("vocab", &sol::CrossEntropyArgs::vocab)
      .def_rw("ldlogits", &sol::CrossEntropyArgs::ldlogits)
      .def_rw("lddlogits", &sol::CrossEntropyArgs::lddlogits)
      .def_rw("ignore_index", &sol::CrossEntropyArgs::ignore_index)
      .def_rw("label_smoothing", &sol::CrossEntropyArgs::label_smoothing)
      .def_rw("grad_scale", &sol::CrossEntropyArgs::grad_scale);
  dtype(ce, "dtype", &sol::CrossEntropyArgs::dtype);
  two_names(ce, "label_type", &sol::CrossEntropyArgs::label_type, sol::IndexType::i32, "int32", sol::IndexType::i64,
            "int64");
  two_names(ce, "reduction", &sol::CrossEntropyArgs::reduction, sol::Reduction::Mean, "mean", sol::Reduction::Sum, "sum");
  pointer(ce, "logits", &sol::CrossEntropyArgs::logits);
  pointer(ce, "labels", &sol::CrossEntropyArgs::labels);
  pointer(ce, "loss", &sol::CrossEntropyArgs::loss);
  pointer(ce, "loss_reduced", &sol::CrossEntropyArgs::loss_reduced);
  pointer(ce, "dlogits", &sol::CrossEntropyArgs::dlogits);
  SOL_OP(m, sol::CrossEntropyArgs, cross_entropy_workspace_size, explain_cross_entropy, cross_entropy);

  nb::class_<sol::LinearCrossEntropyArgs> lce(m, "LinearCrossEntropyArgs");
  lce.def(nb::init<>())
      .def_rw("rows", &sol::LinearCrossEntropyArgs::rows)
      .def_rw("hidden", &sol::LinearCrossEntropyArgs::hidden)
      .def_rw("vocab", &sol::LinearCrossEntropyArgs::vocab)
      .def_rw("ldh", &sol::LinearCrossEntropyArgs::ldh)
      .def_rw("ldw", &sol::LinearCrossEntropyArgs::ldw)
      .def_rw("ignore_index", &sol::LinearCrossEntropyArgs::ignore_index)
      .def_rw("label_smoothing", &sol::LinearCrossEntropyArgs::label_smoothing)
      .def_rw("grad_scale", &sol::LinearCrossEntropyArgs::grad_scale)
      .def_rw("lddh", &sol::LinearCrossEntropyArgs::lddh)
      .def_rw("lddw", &sol::LinearCrossEntropyArgs::lddw)
      .def_rw("dw_accumulate", &sol::LinearCrossEntropyArgs::dw_accumulate)
      .def_rw("chunk_rows", &sol::LinearCrossEntropyArgs::chunk_rows);
  dtype(lce, "dtype", &sol::LinearCrossEntropyArgs::dtype);
  dtype(lce, "dw_type", &sol::LinearCrossEntropyArgs::dw_type);
  two_names(lce, "label_type", &sol::LinearCrossEntropyArgs::label_type, sol::IndexType::i32, "int32",
            sol::IndexType::i64, "int64");
  two_names(lce, "reduction", &sol::LinearCrossEntropyArgs::reduction, sol::Reduction::Mean, "mean",
            sol::Reduction::Sum, "sum");
  pointer(lce, "h", &sol::LinearCrossEntropyArgs::h);
  pointer(lce, "w", &sol::LinearCrossEntropyArgs::w);
  pointer(lce, "labels", &sol::LinearCrossEntropyArgs::labels);
  pointer(lce, "loss", &sol::LinearCrossEntropyArgs::loss);
  pointer(lce, "loss_reduced", &sol::LinearCrossEntropyArgs::loss_reduced);
  pointer(lce, "dh", &sol::LinearCrossEntropyArgs::dh);
  pointer(lce, "dw", &sol::LinearCrossEntropyArgs::dw);
  SOL_OP(m, sol::LinearCrossEntropyArgs, linear_cross_entropy_workspace_size, explain_linear_cross_entropy,
         linear_cross_entropy);

  // ---- MX quantization and copy (no workspace) -------------------------------------------------------
  nb::class_<sol::MxQuantizeArgs> mq(m, "MxQuantizeArgs");
  mq.def(nb::init<>()).def_rw("rows", &sol::MxQuantizeArgs::rows).def_rw("cols", &sol::MxQuantizeArgs::cols);
  dtype(mq, "elem", &sol::MxQuantizeArgs::elem);
  two_names(mq, "rule", &sol::MxQuantizeArgs::rule, sol::MxScaleRule::Ceil, "ceil", sol::MxScaleRule::Floor, "floor");
  pointer(mq, "x", &sol::MxQuantizeArgs::x);
  pointer(mq, "row_codes", &sol::MxQuantizeArgs::row_codes);
  pointer(mq, "row_scales", &sol::MxQuantizeArgs::row_scales);
  pointer(mq, "col_codes", &sol::MxQuantizeArgs::col_codes);
  pointer(mq, "col_scales", &sol::MxQuantizeArgs::col_scales);
  m.def("explain_mx_quantize", [](const sol::MxQuantizeArgs& a) { return choice(sol::explain_mx_quantize(a)); });
  m.def("mx_quantize", [](const sol::MxQuantizeArgs& a, uintptr_t s) {
    gil_scoped_release release;
    sol::mx_quantize(a, stream(s));
  }, nb::arg("args"), nb::arg("stream"));

  nb::class_<sol::MxDequantizeArgs> md(m, "MxDequantizeArgs");
  md.def(nb::init<>())
      .def_rw("rows", &sol::MxDequantizeArgs::rows)
      .def_rw("cols", &sol::MxDequantizeArgs::cols)
      .def_rw("columnwise", &sol::MxDequantizeArgs::columnwise);
  dtype(md, "elem", &sol::MxDequantizeArgs::elem);
  pointer(md, "codes", &sol::MxDequantizeArgs::codes);
  pointer(md, "scales", &sol::MxDequantizeArgs::scales);
  pointer(md, "out", &sol::MxDequantizeArgs::out);
  m.def("explain_mx_dequantize", [](const sol::MxDequantizeArgs& a) { return choice(sol::explain_mx_dequantize(a)); });
  m.def("mx_dequantize", [](const sol::MxDequantizeArgs& a, uintptr_t s) {
    gil_scoped_release release;
    sol::mx_dequantize(a, stream(s));
  }, nb::arg("args"), nb::arg("stream"));

  nb::class_<sol::CopyArgs> cp(m, "CopyArgs");
  cp.def(nb::init<>()).def_rw("bytes", &sol::CopyArgs::bytes);
  pointer(cp, "src", &sol::CopyArgs::src);
  pointer(cp, "dst", &sol::CopyArgs::dst);
  m.def("explain_copy", [](const sol::CopyArgs& a) { return choice(sol::explain_copy(a)); });
  m.def("copy", [](const sol::CopyArgs& a, uintptr_t s) {
    gil_scoped_release release;
    sol::copy(a, stream(s));
  }, nb::arg("args"), nb::arg("stream"));

  // ---- the direct entries (sol.ops's launches) ---------------------------------------------------------
  SOL_DIRECT(m, matmul, matmul_args);
  SOL_DIRECT(m, attention_forward, attention_args);
  SOL_DIRECT(m, attention_backward, attention_backward_args);
  SOL_DIRECT(m, layernorm_forward, layernorm_args);
  SOL_DIRECT(m, rmsnorm_forward, rmsnorm_args);
  SOL_DIRECT(m, softmax_forward, softmax_args);
  SOL_DIRECT(m, layernorm_backward, layernorm_backward_args);
  SOL_DIRECT(m, rmsnorm_backward, rmsnorm_backward_args);
  SOL_DIRECT(m, softmax_backward, softmax_backward_args);
  SOL_DIRECT(m, linear_cross_entropy, linear_cross_entropy_args);
  direct(m, "mx_quantize_direct", "explain_mx_quantize_direct", mx_quantize_args, no_workspace<sol::MxQuantizeArgs>,
         sol::explain_mx_quantize, without_workspace<sol::MxQuantizeArgs, sol::mx_quantize>);
  direct(m, "mx_dequantize_direct", "explain_mx_dequantize_direct", mx_dequantize_args,
         no_workspace<sol::MxDequantizeArgs>, sol::explain_mx_dequantize,
         without_workspace<sol::MxDequantizeArgs, sol::mx_dequantize>);
  direct(m, "copy_direct", "explain_copy_direct", copy_args, no_workspace<sol::CopyArgs>, sol::explain_copy,
         without_workspace<sol::CopyArgs, sol::copy>);
}

// sol._kernels: the public kernel API (include/sol/kernels.hpp) for Python, one function per entry,
// over raw device pointers (integers), sizes, strides and a stream handle (an integer: 0 is the
// legacy default stream). The argument structs are bound field by field with the header's names;
// dtypes are their names ("bf16"), transposes "N"/"T", the MX scale rule "ceil"/"floor". explain_*
// returns a dict (implementation, reason, predicted_s). sol::Error becomes sol.Error (sol._core's)
// with the one-line message. The launches release the GIL. sol.ops builds on this module.
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

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

template <class T>
void transpose(nb::class_<T>& c, const char* name, sol::Transpose T::*member) {
  c.def_prop_rw(
      name, [member](const T& t) { return std::string(t.*member == sol::Transpose::N ? "N" : "T"); },
      [member, name](T& t, const std::string& s) {
        if (s != "N" && s != "T") sol::bad_input(std::string(name) + " must be 'N' or 'T', got '" + s + "'");
        t.*member = s == "N" ? sol::Transpose::N : sol::Transpose::T;
      });
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

  // ---- MX quantization and copy (no workspace) -------------------------------------------------------
  nb::class_<sol::MxQuantizeArgs> mq(m, "MxQuantizeArgs");
  mq.def(nb::init<>()).def_rw("rows", &sol::MxQuantizeArgs::rows).def_rw("cols", &sol::MxQuantizeArgs::cols);
  dtype(mq, "elem", &sol::MxQuantizeArgs::elem);
  mq.def_prop_rw(
      "rule", [](const sol::MxQuantizeArgs& a) { return std::string(a.rule == sol::MxScaleRule::Ceil ? "ceil" : "floor"); },
      [](sol::MxQuantizeArgs& a, const std::string& s) {
        if (s != "ceil" && s != "floor") sol::bad_input("rule must be 'ceil' or 'floor', got '" + s + "'");
        a.rule = s == "ceil" ? sol::MxScaleRule::Ceil : sol::MxScaleRule::Floor;
      });
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
}

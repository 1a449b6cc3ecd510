"""sol's kernels as PyTorch operators (``torch.ops.sol.*``), through the public kernel API.

    >>> import torch, sol.ops
    >>> x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    >>> w = torch.ones(4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    >>> y = sol.ops.rmsnorm(x, w)            # forward: one sol kernel on the current stream
    >>> y.sum().backward()                   # backward: sol's rmsnorm backward
    >>> sol.ops.explain("rmsnorm", x, w)     # what the dispatcher runs and why
    {'implementation': 'rmsnorm/...', 'reason': '...', 'predicted_s': ...}

Every op is a ``torch.library.custom_op`` with a fake (meta) implementation, so that
``torch.compile(fullgraph=True)`` traces through it, and an autograd formula where sol has a
backward (matmul, attention, layernorm, rmsnorm, softmax; linear_cross_entropy computes its
gradients in the forward). Kernels run on the current CUDA stream of the input's device;
workspaces come from PyTorch's caching allocator. The functions also take any DLPack tensor
(CuPy, JAX) and return the same kind. Errors are ``sol.Error`` with one line.
An eager call on CUDA tensors that records no gradient (no torch.compile, tracing, mode or functorch
transform around it) skips the custom op's dispatch and launches at once, with the same checks and
results; ``bench/python/overhead.py`` measures what a call costs over the C++ entry.

Layouts: matmul takes 2-D operands, each row-major or a transposed view of one (``w.t()``);
attention takes BSHD tensors ``[batch, seq, heads, head_dim]`` (any batch, sequence and head
strides, head_dim contiguous); the row ops normalize over the last dimension.
"""
from __future__ import annotations

import math
from typing import Any, Optional

try:
    import torch
except ImportError as e:  # sol itself works without torch; this module needs it
    from ._core import Error

    raise Error("sol.ops needs PyTorch (pip install torch); the rest of sol works without it") from e

from ._core import Error

try:
    from . import _kernels
except ImportError:
    _kernels = None

_NO_KERNELS = ("this sol was built without CUDA, so it has no kernels (pip install . on a machine with "
               "nvcc, without SOL_ENABLE_CUDA=OFF)")

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}
if hasattr(torch, "float8_e4m3fn"):
    _DTYPES[torch.float8_e4m3fn] = "fp8_e4m3"
_FP8 = {"fp8_e4m3", "fp8_e5m2"}


def _fail(msg: str) -> None:
    raise Error(msg)


def _dtype(name: str, t: torch.Tensor, allowed: tuple[str, ...]) -> str:
    d = _DTYPES.get(t.dtype)
    if d not in allowed:
        _fail(f"{name} is {t.dtype}; this op takes {', '.join(allowed)}")
    return d


_HAS_GPU: list[bool] = []  # torch.cuda.is_available(), asked once


def _cuda(*tensors: Optional[torch.Tensor]) -> int:
    """The checks a launch needs: the module, a device, the tensors (but None) on one CUDA device,
    whose index it returns."""
    if _kernels is None:
        _fail(_NO_KERNELS)
    if not _HAS_GPU:
        _HAS_GPU.append(torch.cuda.is_available())
    if not _HAS_GPU[0]:
        _fail("sol.ops runs on a CUDA GPU and torch sees none (torch.cuda.is_available() is False)")
    dev = tensors[0].get_device()
    for t in tensors:
        if t is None:
            continue
        if not t.is_cuda:
            _fail(f"sol.ops runs on CUDA tensors; got one on {t.device}")
        if t.get_device() != dev:
            _fail(f"sol.ops takes tensors on one device; got {tensors[0].device} and {t.device}")
    return dev


# ---- the launch, with or without the custom op -------------------------------------------------------------
# Every op is a torch.library.custom_op, and the public functions call it where torch's dispatcher has
# something to do: tracing or compiling, a mode, a functorch transform, a tensor subclass, a gradient
# to record, a DLPack array. Anywhere else the dispatcher would only call the op's body, at tens of µs
# a call, so the public function runs that body itself (_direct). The body launches through one
# call of a direct entry of sol._kernels, which fills the argument struct, makes the device current
# and checks the workspace in C++.
_PLAIN = (torch.Tensor, torch.nn.Parameter)
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the current stream's handle, by index
_DEVICES: dict[int, torch.device] = {}
_dispatch_modes, _function_modes = torch._C._len_torch_dispatch_stack, torch._C._is_torch_function_mode_enabled
_functorch, _grad = torch._C._are_functorch_transforms_active, torch._C.is_grad_enabled
_forward_ad = torch.autograd.forward_ad


def _device(index: int) -> torch.device:
    d = _DEVICES.get(index)
    if d is None:
        d = _DEVICES[index] = torch.device("cuda", index)
    return d


def _direct(*tensors: Optional[torch.Tensor]) -> int:
    """The tensors' CUDA device where the dispatcher would add nothing to this call, else -1: eager
    (torch.compile's trace reads is_dynamo_compiling() as True), no dispatch or function mode, no
    functorch transform, no forward-mode AD level, plain tensors (but None) on one CUDA device, none
    recording a gradient."""
    if (torch.compiler.is_dynamo_compiling() or _kernels is None or _dispatch_modes() or _function_modes()
            or _functorch() or _forward_ad._current_level >= 0 or type(tensors[0]) not in _PLAIN):
        return -1
    grad, dev = _grad(), tensors[0].get_device()
    for t in tensors:
        if t is not None and (type(t) not in _PLAIN or not t.is_cuda or t.get_device() != dev
                              or (grad and t.requires_grad)):
            return -1
    return dev


def _launch(entry: Any, dev: int, *args: Any) -> None:
    """entry(*args, workspace, workspace_bytes, stream, device): a direct entry on CUDA device dev and
    its current stream, with the workspace it asks for (from the caching allocator, on that stream)."""
    stream = _raw_stream(dev)
    needed = entry(*args, 0, 0, stream, dev)
    if needed:
        ws = torch.empty(needed, dtype=torch.uint8, device=_device(dev))
        entry(*args, ws.data_ptr(), needed, stream, dev)


def _empty(shape: tuple, dtype: torch.dtype, dev: int) -> torch.Tensor:
    """A new contiguous tensor on CUDA device dev. The sizes go to torch.empty one by one: a tuple
    or a torch.Size costs torch's argument parser more than the allocation itself."""
    return torch.empty(*shape, dtype=dtype, device=_device(dev))


def _like(t: torch.Tensor, dev: int) -> torch.Tensor:
    """A new contiguous tensor of t's shape and type on t's device, dev, with the packed strides
    (empty_like keeps a contiguous tensor's strides, odd ones on its size-1 dimensions included;
    the fake implementations and the attention backward expect the packed ones)."""
    return torch.empty_like(t, memory_format=torch.contiguous_format)


def _ptr(t: Optional[torch.Tensor]) -> int:
    return 0 if t is None else t.data_ptr()


# ---- matmul ------------------------------------------------------------------------------------------
def _layout(name: str, t: torch.Tensor, r: int, c: int) -> tuple[str, int]:
    """('N', ld) for a row-major r×c matrix, ('T', ld) for a transposed view of one."""
    s0, s1 = t.stride()
    if s1 == 1 and (s0 >= c or r == 1):
        return "N", max(s0, c)
    if s0 == 1 and (s1 >= r or c == 1):
        return "T", max(s1, r)
    _fail(f"{name} has strides {t.stride()}: neither rows nor columns are contiguous (call .contiguous())")
    raise AssertionError


_OUT_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def _matmul_shapes(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[str]) -> tuple:
    """(m, n, k, the output's type, a's layout, b's layout) after the checks."""
    sa, sb = a.shape, b.shape
    if len(sa) != 2 or len(sb) != 2:
        _fail(f"matmul takes 2-D operands, got {tuple(sa)} and {tuple(sb)}")
    (m, k), (k_b, n) = sa, sb
    if k != k_b:
        _fail(f"matmul: a is {tuple(sa)} and b is {tuple(sb)}: inner sizes differ")
    if a.dtype != b.dtype:
        _fail(f"matmul: a is {a.dtype} and b is {b.dtype}; give both one type")
    at = _dtype("a", a, ("bf16", "fp16", "fp32", "fp8_e4m3"))
    layouts = _layout("a", a, m, k), _layout("b", b, k, n)
    if out_dtype is None:
        out = a.dtype if at not in _FP8 else torch.bfloat16
    else:
        if out_dtype not in _OUT_DTYPES:
            _fail(f"out_dtype must be bf16, fp16 or fp32, got '{out_dtype}'")
        out = _OUT_DTYPES[out_dtype]
    return m, n, k, out, *layouts


def _matmul_scales(a: torch.Tensor, scale_a: Optional[torch.Tensor], scale_b: Optional[torch.Tensor]) -> None:
    """fp8 operands take both per-tensor scales, one fp32 element each on a's device; others none."""
    if _DTYPES[a.dtype] not in _FP8:
        if scale_a is not None or scale_b is not None:
            _fail(f"matmul: scale_a and scale_b apply to fp8 operands; a is {a.dtype}")
        return
    if scale_a is None or scale_b is None:
        _fail("fp8 matmul needs scale_a and scale_b: one-element fp32 tensors (the per-tensor dequantization "
              "scales; the product is scale_a·scale_b·a@b)")
    for name, t in (("scale_a", scale_a), ("scale_b", scale_b)):
        _one_fp32("matmul", name, t, a, "a")


def _one_fp32(op: str, name: str, t: Any, like: Any, like_name: str) -> None:
    """A per-tensor scale: one fp32 element, on like's device (like: a torch tensor, or None)."""
    if not isinstance(t, torch.Tensor) or t.dtype != torch.float32 or t.numel() != 1:
        _fail(f"{op}: {name} must be a one-element fp32 tensor, got {getattr(t, 'dtype', type(t).__name__)} of "
              f"shape {tuple(getattr(t, 'shape', ()))}")
    if isinstance(like, torch.Tensor) and t.device != like.device:
        _fail(f"{op}: {name} is on {t.device} and {like_name} on {like.device}; give them one device")


def _matmul_args(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, shapes: tuple,
                 scale_a: Optional[torch.Tensor] = None, scale_b: Optional[torch.Tensor] = None) -> tuple:
    """matmul_direct's arguments but the last four, from _matmul_shapes(a, b, ...)."""
    m, n, k, _, (ta, lda), (tb, ldb) = shapes
    return (m, n, k, _DTYPES[a.dtype], _DTYPES[b.dtype], _DTYPES[c.dtype], ta, tb, a.data_ptr(), lda, b.data_ptr(), ldb,
            c.data_ptr(), n, _ptr(scale_a), _ptr(scale_b))


def _matmul_run(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[str], dev: int = -1,
                scale_a: Optional[torch.Tensor] = None, scale_b: Optional[torch.Tensor] = None) -> torch.Tensor:
    shapes = _matmul_shapes(a, b, out_dtype)
    _matmul_scales(a, scale_a, scale_b)
    dev = _cuda(a, b, scale_a, scale_b) if dev < 0 else dev
    c = _empty(shapes[:2], shapes[3], dev)
    if 0 in shapes[:3]:  # an empty product (an expert that got no tokens): nothing to launch
        return c.zero_() if c.numel() else c
    _launch(_kernels.matmul_direct, dev, *_matmul_args(a, b, c, shapes, scale_a, scale_b))
    return c


@torch.library.custom_op("sol::matmul", mutates_args=())
def _matmul(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[str] = None, scale_a: Optional[torch.Tensor] = None,
            scale_b: Optional[torch.Tensor] = None) -> torch.Tensor:
    return _matmul_run(a, b, out_dtype, -1, scale_a, scale_b)


@_matmul.register_fake
def _(a, b, out_dtype=None, scale_a=None, scale_b=None):
    m, n, _, out, _, _ = _matmul_shapes(a, b, out_dtype)
    _matmul_scales(a, scale_a, scale_b)
    return a.new_empty(m, n, dtype=out)


def _product(a, b):
    """a @ b in a backward: the op's body where the dispatcher has nothing to do (_direct), else the op."""
    dev = _direct(a, b)
    return _matmul_run(a, b, None, dev) if dev >= 0 else _matmul(a, b)


def _matmul_backward(ctx, dc):
    a, b = ctx.saved_tensors
    if _DTYPES[a.dtype] in _FP8:
        _fail("matmul has no backward for fp8 operands (quantize the gradients' operands and call it again)")
    dc = dc.to(a.dtype).contiguous()  # an upstream gradient may be broadcast (strides 0)
    da = _product(dc, b.t()) if ctx.needs_input_grad[0] else None
    db = _product(a.t(), dc) if ctx.needs_input_grad[1] else None
    return da, db, None, None, None


def _matmul_setup(ctx, inputs, output):
    a, b = inputs[0], inputs[1]
    ctx.save_for_backward(a, b)


_matmul.register_autograd(_matmul_backward, setup_context=_matmul_setup)


# ---- attention -----------------------------------------------------------------------------------------
def _bshd(name: str, t: torch.Tensor, shape: torch.Size) -> None:
    if len(shape) != 4:
        _fail(f"{name} must be BSHD [batch, seq, heads, head_dim], got shape {tuple(shape)}")
    if t.stride(3) != 1:
        _fail(f"{name}'s head_dim must be contiguous (stride 1), got strides {t.stride()}")


def _attention_shapes(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Size, torch.Size]:
    """q's and k's shapes after the checks."""
    qs, ks, vs = q.shape, k.shape, v.shape
    _bshd("q", q, qs)
    _bshd("k", k, ks)
    _bshd("v", v, vs)
    if ks != vs:
        _fail(f"attention: k is {tuple(ks)} and v is {tuple(vs)}; they must match")
    if qs[0] != ks[0] or qs[3] != ks[3]:
        _fail(f"attention: q is {tuple(qs)} and k is {tuple(ks)}: batch or head_dim differ")
    if qs[2] % ks[2]:
        _fail(f"attention: {ks[2]} key/value heads do not divide {qs[2]} query heads")
    if not (q.dtype == k.dtype == v.dtype):
        _fail(f"attention: q, k, v are {q.dtype}, {k.dtype}, {v.dtype}; give them one type")
    _dtype("q", q, ("bf16", "fp16"))
    if qs[3] not in (64, 128):
        _fail(f"attention: head_dim {qs[3]} is not served (64 or 128)")
    return qs, ks


def _attention_scores(causal: bool, window_left: int, window_right: int, softcap: float) -> None:
    """The window's and the softcap's checks, the API's (sol/kernels.hpp), before any launch or trace."""
    if window_left < -1 or window_right < -1:
        _fail(f"attention: window ({window_left}, {window_right}) has a size below -1; give each side's size "
              "≥ 0 in keys, or -1 for no bound on that side")
    if causal and window_right > 0:
        _fail(f"attention: causal with window right = {window_right}: causal means no key right of the diagonal "
              "(right = 0); drop causal, or give right 0 or -1")
    if not softcap >= 0.0 or math.isinf(softcap):
        _fail(f"attention: softcap = {softcap} is not a cap; give a finite softcap > 0 (Gemma 2 uses 50), or 0")


def _window(window: Any) -> tuple[int, int]:
    """attention's window argument as (left, right): None is (-1, -1), no bound on either side."""
    if window is None:
        return -1, -1
    try:
        left, right = window
        return int(left), int(right)
    except (TypeError, ValueError):
        _fail(f"attention: window must be a pair (left, right) of key counts (-1: unbounded), not {window!r}")


def _attention_args(q, k, v, o, lse, causal: bool, scale: float, shapes: tuple, window_left: int = -1,
                    window_right: int = -1, softcap: float = 0.0) -> tuple:
    """attention_forward_direct's arguments but the last four, from _attention_shapes(q, k, v)."""
    (b, n, h, d), (_, nk, h_kv, _) = shapes
    return (_DTYPES[q.dtype], b, h, h_kv, n, nk, d, causal, scale, window_left, window_right, softcap, q.data_ptr(),
            k.data_ptr(), v.data_ptr(), o.data_ptr(), _ptr(lse), q.stride(), k.stride(), v.stride(), o.stride())


def _addressable(t: torch.Tensor) -> torch.Tensor:
    """t, or a packed copy where a batch, sequence or head stride is 0 over more than one index (a
    broadcast: the API's strides of 0 mean "packed")."""
    if any(t.stride(i) == 0 and t.shape[i] > 1 for i in range(3)):
        return t.contiguous()
    return t


def _attention_run(q, k, v, causal: bool, scale: float, save: bool, dev: int = -1, window_left: int = -1,
                   window_right: int = -1, softcap: float = 0.0):
    """(o, lse): lse only where save (the backward reads it), else None."""
    shapes = _attention_shapes(q, k, v)
    _attention_scores(causal, window_left, window_right, softcap)
    q, k, v = _addressable(q), _addressable(k), _addressable(v)  # held until the launch is queued
    dev = _cuda(q, k, v) if dev < 0 else dev
    b, n, h, _ = q.shape
    o = _like(q, dev)
    lse = _empty((b, h, n), torch.float32, dev) if save else None
    _launch(_kernels.attention_forward_direct, dev,
            *_attention_args(q, k, v, o, lse, causal, scale, shapes, window_left, window_right, softcap))
    return o, lse


@torch.library.custom_op("sol::attention", mutates_args=())
def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False, scale: float = 0.0,
               window_left: int = -1, window_right: int = -1,
               softcap: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    return _attention_run(q, k, v, causal, scale, True, -1, window_left, window_right, softcap)


@_attention.register_fake
def _(q, k, v, causal=False, scale=0.0, window_left=-1, window_right=-1, softcap=0.0):
    _attention_shapes(q, k, v)
    _attention_scores(causal, window_left, window_right, softcap)
    b, n, h, _ = q.shape
    return q.new_empty(q.shape), q.new_empty(b, h, n, dtype=torch.float32)


def _attention_backward_run(q, k, v, o, lse, dout, causal: bool, scale: float, deterministic: bool, dev: int = -1,
                            window_left: int = -1, window_right: int = -1, softcap: float = 0.0):
    shapes = _attention_shapes(q, k, v)
    _attention_scores(causal, window_left, window_right, softcap)
    _bshd("dout", dout, dout.shape)
    if dout.shape != q.shape or dout.dtype != q.dtype:
        _fail(f"attention backward: dout is {tuple(dout.shape)} {dout.dtype}, q is {tuple(q.shape)} {q.dtype}")
    dev = _cuda(q, k, v, o, lse, dout) if dev < 0 else dev
    # The backward serves packed BSHD only: strided views (a fused QKV's q, k, v; BHSD transposed)
    # are copied, held until the launch is queued.
    q, k, v, o, dout = q.contiguous(), k.contiguous(), v.contiguous(), o.contiguous(), dout.contiguous()
    lse = lse.contiguous()
    dq, dk, dv = _like(q, dev), _like(k, dev), _like(v, dev)
    _launch(_kernels.attention_backward_direct, dev,
            *_attention_args(q, k, v, o, lse, causal, scale, shapes, window_left, window_right, softcap),
            dout.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), dout.stride(), dq.stride(),
            dk.stride(), dv.stride(), deterministic)
    return dq, dk, dv


@torch.library.custom_op("sol::attention_backward", mutates_args=())
def _attention_backward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, lse: torch.Tensor,
                        dout: torch.Tensor, causal: bool = False, scale: float = 0.0, deterministic: bool = False,
                        window_left: int = -1, window_right: int = -1,
                        softcap: float = 0.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _attention_backward_run(q, k, v, o, lse, dout, causal, scale, deterministic, -1, window_left, window_right,
                                   softcap)


@_attention_backward.register_fake
def _(q, k, v, o, lse, dout, causal=False, scale=0.0, deterministic=False, window_left=-1, window_right=-1,
      softcap=0.0):
    _attention_shapes(q, k, v)
    _attention_scores(causal, window_left, window_right, softcap)
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)


def _attention_setup(ctx, inputs, output):
    q, k, v, causal, scale, window_left, window_right, softcap = inputs
    o, lse = output
    ctx.save_for_backward(q, k, v, o, lse)
    ctx.causal, ctx.scale, ctx.scores = causal, scale, (window_left, window_right, softcap)


def _attention_grad(ctx, do, dlse):
    q, k, v, o, lse = ctx.saved_tensors
    do = do.contiguous()
    dev = _direct(q, k, v, o, lse, do)
    if dev >= 0:
        dq, dk, dv = _attention_backward_run(q, k, v, o, lse, do, ctx.causal, ctx.scale, False, dev, *ctx.scores)
    else:
        dq, dk, dv = _attention_backward(q, k, v, o, lse, do, ctx.causal, ctx.scale, False, *ctx.scores)
    return dq, dk, dv, None, None, None, None, None


_attention.register_autograd(_attention_grad, setup_context=_attention_setup)


# ---- rows: LayerNorm, RMSNorm, softmax over the last dimension -------------------------------------------
_ROW_DTYPES = ("fp32", "bf16", "fp16")


def _rows(name: str, x: torch.Tensor) -> tuple[int, int, str]:
    """(rows, cols, the dtype's name) of a row op's input."""
    shape, n, d = x.shape, x.numel(), _DTYPES.get(x.dtype)
    if not shape or n == 0:
        _fail(f"{name} must have at least one element and one dimension, got shape {tuple(shape)}")
    if d not in _ROW_DTYPES:
        _dtype(name, x, _ROW_DTYPES)
    cols = shape[-1]
    return n // cols, cols, d


def _param(name: str, p: Optional[torch.Tensor], x: torch.Tensor, cols: int) -> None:
    if p is not None and (p.dtype != x.dtype or p.shape != (cols,)):
        _fail(f"{name} must be [{cols}] {x.dtype}, got {tuple(p.shape)} {p.dtype}")


def _as_rows(x: torch.Tensor, cols: int) -> tuple[torch.Tensor, int]:
    """x as rows of cols contiguous elements: (a tensor whose data starts at row 0, the row pitch).
    The tensor may be a copy: the caller keeps it until the launch is queued."""
    if x.is_contiguous():
        return x, cols
    x2 = x.reshape(-1, cols)
    # Rows the API cannot address: elements apart, or rows closer than their length (a broadcast
    # with stride 0, whose pitch 0 the API reads as "packed"; overlapping windows). One row is
    # never here: torch counts it contiguous whatever its row stride.
    if x2.stride(1) != 1 or x2.stride(0) < cols:
        x2 = x2.contiguous()
    return x2, x2.stride(0)


def _residual(residual: Optional[torch.Tensor], x: torch.Tensor) -> None:
    if residual is not None and (residual.shape != x.shape or residual.dtype != x.dtype):
        _fail(f"residual must be {tuple(x.shape)} {x.dtype} as x, got {tuple(residual.shape)} {residual.dtype}")


def _norm_run(kind: str, x, weight, bias, eps: float, save: bool, dev: int = -1, residual=None, fp8_scale=None):
    """(y, mean, rstd, s); the statistics only where save (the backward reads them), else None; with
    a residual, s = x + residual (the row normalized, written by the same kernel), else None. With
    fp8_scale, y is its e4m3 codes (torch.float8_e4m3fn), written in place of y."""
    rows, cols, d = _rows("x", x)
    _param("weight", weight, x, cols)
    _param("bias", bias, x, cols)
    _residual(residual, x)
    dev = _cuda(x, weight, bias, residual) if dev < 0 else dev
    x2, ldx = _as_rows(x, cols)
    codes = None
    if fp8_scale is not None:  # checked by _norm_codes
        codes = torch.empty_like(x, dtype=torch.float8_e4m3fn, memory_format=torch.contiguous_format)
    y = _like(x, dev) if codes is None else None
    mean = _empty((rows,), torch.float32, dev) if save and kind == "layernorm" else None
    rstd = _empty((rows,), torch.float32, dev) if save else None
    w = None if weight is None else weight.contiguous()
    r2, ldr = _as_rows(residual, cols) if residual is not None else (None, 0)
    s = _like(x, dev) if residual is not None else None
    res = (_ptr(r2), ldr, _ptr(s), cols if s is not None else 0)
    fp8 = (_ptr(codes), cols if codes is not None else 0, _ptr(fp8_scale))
    if kind == "layernorm":
        b = None if bias is None else bias.contiguous()
        _launch(_kernels.layernorm_forward_direct, dev, d, rows, cols, x2.data_ptr(), ldx, _ptr(y),
                cols, _ptr(w), _ptr(b), eps, _ptr(mean), _ptr(rstd), *res, *fp8)
    else:
        _launch(_kernels.rmsnorm_forward_direct, dev, d, rows, cols, x2.data_ptr(), ldx, _ptr(y),
                cols, _ptr(w), eps, _ptr(rstd), *res, *fp8)
    return (y if codes is None else codes), mean, rstd, s


def _norm_codes(kind: str, x, weight, bias, eps: float, residual, fp8_scale):
    """The norms' e4m3 output (codes = y·fp8_scale): eager CUDA calls that record no gradient only
    (the codes have none)."""
    _one_fp32(kind, "fp8_scale", fp8_scale, x, "x")
    dev = _direct(x, residual, weight, bias, fp8_scale)
    if dev < 0:
        _fail(f"{kind} with fp8_scale: the e4m3 codes carry no gradient and have no torch.compile op; call it "
              "eagerly on CUDA tensors under torch.no_grad() (inference)")
    codes, _, _, s = _norm_run(kind, x, weight, bias, eps, False, dev, residual, fp8_scale)
    return codes if residual is None else (codes, s)


@torch.library.custom_op("sol::layernorm", mutates_args=())
def _layernorm(x: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor],
               eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _norm_run("layernorm", x, weight, bias, eps, True)[:3]


@_layernorm.register_fake
def _(x, weight, bias, eps):
    rows, cols, _ = _rows("x", x)
    _param("weight", weight, x, cols)
    _param("bias", bias, x, cols)
    return x.new_empty(x.shape), x.new_empty(rows, dtype=torch.float32), x.new_empty(rows, dtype=torch.float32)


@torch.library.custom_op("sol::rmsnorm", mutates_args=())
def _rmsnorm(x: torch.Tensor, weight: Optional[torch.Tensor], eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    y, _, rstd, _ = _norm_run("rmsnorm", x, weight, None, eps, True)
    return y, rstd


@_rmsnorm.register_fake
def _(x, weight, eps):
    rows, cols, _ = _rows("x", x)
    _param("weight", weight, x, cols)
    return x.new_empty(x.shape), x.new_empty(rows, dtype=torch.float32)


def _norm_backward_run(kind: str, x, dy, weight, mean, rstd, want_bias: bool, dev: int = -1):
    rows, cols, d = _rows("x", x)
    if dy.shape != x.shape or dy.dtype != x.dtype:
        _fail(f"{kind} backward: dy is {tuple(dy.shape)} {dy.dtype}, x is {tuple(x.shape)} {x.dtype}")
    dev = _cuda(x, dy, rstd) if dev < 0 else dev
    (x2, ldx), (dy2, lddy) = _as_rows(x, cols), _as_rows(dy, cols)
    dx = _like(x, dev)
    w = None if weight is None else weight.contiguous()
    dw = _empty((cols,), x.dtype, dev) if weight is not None else None
    db = _empty((cols,), x.dtype, dev) if want_bias else None
    if kind == "layernorm":
        _launch(_kernels.layernorm_backward_direct, dev, d, rows, cols, x2.data_ptr(), ldx,
                dy2.data_ptr(), lddy, dx.data_ptr(), cols, _ptr(w), mean.data_ptr(), rstd.data_ptr(), _ptr(dw),
                _ptr(db))
    else:
        _launch(_kernels.rmsnorm_backward_direct, dev, d, rows, cols, x2.data_ptr(), ldx,
                dy2.data_ptr(), lddy, dx.data_ptr(), cols, _ptr(w), rstd.data_ptr(), _ptr(dw))
    # A custom op's outputs may not alias one another: one empty tensor for each gradient not asked.
    return dx, x.new_empty(0) if dw is None else dw, x.new_empty(0) if db is None else db


@torch.library.custom_op("sol::layernorm_backward", mutates_args=())
def _layernorm_backward(x: torch.Tensor, dy: torch.Tensor, weight: Optional[torch.Tensor], mean: torch.Tensor,
                        rstd: torch.Tensor, want_bias: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _norm_backward_run("layernorm", x, dy, weight, mean, rstd, want_bias)


@_layernorm_backward.register_fake
def _(x, dy, weight, mean, rstd, want_bias):
    c = x.shape[-1]
    return x.new_empty(x.shape), x.new_empty(c if weight is not None else 0), x.new_empty(c if want_bias else 0)


@torch.library.custom_op("sol::rmsnorm_backward", mutates_args=())
def _rmsnorm_backward(x: torch.Tensor, dy: torch.Tensor, weight: Optional[torch.Tensor],
                      rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    dx, dw, _ = _norm_backward_run("rmsnorm", x, dy, weight, None, rstd, False)
    return dx, dw


@_rmsnorm_backward.register_fake
def _(x, dy, weight, rstd):
    return x.new_empty(x.shape), x.new_empty(x.shape[-1] if weight is not None else 0)


def _layernorm_setup(ctx, inputs, output):
    x, weight, bias, _ = inputs
    _, mean, rstd = output
    ctx.save_for_backward(x, weight, mean, rstd)
    ctx.has_bias = bias is not None


def _layernorm_grad(ctx, dy, dmean, drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dy = dy.contiguous()
    dev = _direct(x, dy, weight, mean, rstd)
    if dev >= 0:
        dx, dw, db = _norm_backward_run("layernorm", x, dy, weight, mean, rstd, ctx.has_bias, dev)
    else:
        dx, dw, db = _layernorm_backward(x, dy, weight, mean, rstd, ctx.has_bias)
    return dx, (dw if weight is not None else None), (db if ctx.has_bias else None), None


def _rmsnorm_setup(ctx, inputs, output):
    x, weight, _ = inputs
    ctx.save_for_backward(x, weight, output[1])


def _rmsnorm_grad(ctx, dy, drstd):
    x, weight, rstd = ctx.saved_tensors
    dy = dy.contiguous()
    dev = _direct(x, dy, weight, rstd)
    if dev >= 0:
        dx, dw, _ = _norm_backward_run("rmsnorm", x, dy, weight, None, rstd, False, dev)
    else:
        dx, dw = _rmsnorm_backward(x, dy, weight, rstd)
    return dx, (dw if weight is not None else None), None


_layernorm.register_autograd(_layernorm_grad, setup_context=_layernorm_setup)
_rmsnorm.register_autograd(_rmsnorm_grad, setup_context=_rmsnorm_setup)


# The residual add fused into the norm: (y, s) with s = x + residual; the backward is the norm's on
# s, and s's gradient (the norm's dx plus whatever reached s itself) is both x's and residual's.
@torch.library.custom_op("sol::layernorm_residual", mutates_args=())
def _layernorm_residual(x: torch.Tensor, residual: torch.Tensor, weight: Optional[torch.Tensor],
                        bias: Optional[torch.Tensor], eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                                                                           torch.Tensor]:
    y, mean, rstd, s = _norm_run("layernorm", x, weight, bias, eps, True, -1, residual)
    return y, s, mean, rstd


@_layernorm_residual.register_fake
def _(x, residual, weight, bias, eps):
    rows, cols, _ = _rows("x", x)
    _param("weight", weight, x, cols)
    _param("bias", bias, x, cols)
    _residual(residual, x)
    stat = lambda: x.new_empty(rows, dtype=torch.float32)  # noqa: E731
    return x.new_empty(x.shape), x.new_empty(x.shape), stat(), stat()


@torch.library.custom_op("sol::rmsnorm_residual", mutates_args=())
def _rmsnorm_residual(x: torch.Tensor, residual: torch.Tensor, weight: Optional[torch.Tensor],
                      eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    y, _, rstd, s = _norm_run("rmsnorm", x, weight, None, eps, True, -1, residual)
    return y, s, rstd


@_rmsnorm_residual.register_fake
def _(x, residual, weight, eps):
    rows, cols, _ = _rows("x", x)
    _param("weight", weight, x, cols)
    _residual(residual, x)
    return x.new_empty(x.shape), x.new_empty(x.shape), x.new_empty(rows, dtype=torch.float32)


def _layernorm_residual_setup(ctx, inputs, output):
    _, _, weight, bias, _ = inputs
    _, s, mean, rstd = output
    ctx.save_for_backward(s, weight, mean, rstd)
    ctx.has_bias = bias is not None


def _layernorm_residual_grad(ctx, dy, ds, dmean, drstd):
    dx, dw, db, _ = _layernorm_grad(ctx, dy, dmean, drstd)
    if ds is not None:
        dx = dx + ds
    return dx, dx, dw, db, None


def _rmsnorm_residual_setup(ctx, inputs, output):
    _, _, weight, _ = inputs
    _, s, rstd = output
    ctx.save_for_backward(s, weight, rstd)


def _rmsnorm_residual_grad(ctx, dy, ds, drstd):
    dx, dw, _ = _rmsnorm_grad(ctx, dy, drstd)
    if ds is not None:
        dx = dx + ds
    return dx, dx, dw, None


_layernorm_residual.register_autograd(_layernorm_residual_grad, setup_context=_layernorm_residual_setup)
_rmsnorm_residual.register_autograd(_rmsnorm_residual_grad, setup_context=_rmsnorm_residual_setup)


def _softmax_run(x: torch.Tensor, dev: int = -1) -> torch.Tensor:
    rows, cols, d = _rows("x", x)
    dev = _cuda(x) if dev < 0 else dev
    x2, ldx = _as_rows(x, cols)
    y = _like(x, dev)
    _launch(_kernels.softmax_forward_direct, dev, d, rows, cols, x2.data_ptr(), ldx, y.data_ptr(), cols)
    return y


@torch.library.custom_op("sol::softmax", mutates_args=())
def _softmax(x: torch.Tensor) -> torch.Tensor:
    return _softmax_run(x)


@_softmax.register_fake
def _(x):
    _rows("x", x)
    return x.new_empty(x.shape)


def _softmax_backward_run(y: torch.Tensor, dy: torch.Tensor, dev: int = -1) -> torch.Tensor:
    rows, cols, d = _rows("y", y)
    if dy.shape != y.shape or dy.dtype != y.dtype:
        _fail(f"softmax backward: dy is {tuple(dy.shape)} {dy.dtype}, y is {tuple(y.shape)} {y.dtype}")
    dev = _cuda(y, dy) if dev < 0 else dev
    (y2, ldy), (dy2, lddy) = _as_rows(y, cols), _as_rows(dy, cols)
    dx = _like(y, dev)
    _launch(_kernels.softmax_backward_direct, dev, d, rows, cols, y2.data_ptr(), ldy, dy2.data_ptr(),
            lddy, dx.data_ptr(), cols)
    return dx


@torch.library.custom_op("sol::softmax_backward", mutates_args=())
def _softmax_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return _softmax_backward_run(y, dy)


@_softmax_backward.register_fake
def _(y, dy):
    _rows("y", y)
    return y.new_empty(y.shape)


def _softmax_setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _softmax_grad(ctx, dy):
    (y,) = ctx.saved_tensors
    dy = dy.contiguous()
    dev = _direct(y, dy)
    return _softmax_backward_run(y, dy, dev) if dev >= 0 else _softmax_backward(y, dy)


_softmax.register_autograd(_softmax_grad, setup_context=_softmax_setup)


# ---- linear + cross-entropy: the LM head and its loss, chunked ----------------------------------------------
_REDUCTIONS = ("mean", "sum", "none")


def _lce_shapes(h: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, label_smoothing: float,
                reduction: str, chunk_rows: int) -> tuple[int, int, int, str]:
    """(rows, hidden, vocab, dtype name) after the checks."""
    if h.dim() < 1 or weight.dim() != 2:
        _fail(f"linear_cross_entropy takes h [..., hidden] and weight [vocab, hidden], got {tuple(h.shape)} and "
              f"{tuple(weight.shape)}")
    vocab, hidden = weight.shape
    if h.shape[-1] != hidden or hidden == 0 or vocab == 0:
        _fail(f"linear_cross_entropy: h is {tuple(h.shape)} and weight {tuple(weight.shape)}: give h [..., hidden] "
              "and weight [vocab, hidden] with hidden and vocab ≥ 1")
    if h.dtype != weight.dtype:
        _fail(f"linear_cross_entropy: h is {h.dtype} and weight {weight.dtype}; give both one type")
    d = _dtype("h", h, ("bf16", "fp16"))
    if labels.dtype not in (torch.int64, torch.int32) or tuple(labels.shape) != tuple(h.shape[:-1]):
        _fail(f"linear_cross_entropy: labels are {tuple(labels.shape)} {labels.dtype}; h {tuple(h.shape)} needs "
              f"int64 or int32 labels of shape {tuple(h.shape[:-1])}")
    if reduction not in _REDUCTIONS:
        _fail(f"linear_cross_entropy: reduction must be one of {', '.join(_REDUCTIONS)}, got '{reduction}'")
    if not 0.0 <= label_smoothing <= 1.0:
        _fail(f"linear_cross_entropy: label_smoothing = {label_smoothing} is outside [0, 1]")
    if chunk_rows < 0:
        _fail(f"linear_cross_entropy: chunk_rows = {chunk_rows} is negative (0: the rule's)")
    return labels.numel(), hidden, vocab, d


def _lce_args(h2: torch.Tensor, w: torch.Tensor, labels: torch.Tensor, shapes: tuple, ignore_index: int,
              label_smoothing: float, reduction: str, chunk_rows: int, loss: Optional[torch.Tensor],
              dh: Optional[torch.Tensor], dw: Optional[torch.Tensor]) -> tuple:
    """linear_cross_entropy_direct's arguments but the last four: h2 [rows × hidden] with unit column stride,
    w [vocab × hidden] likewise, labels packed; the loss reduced (mean, sum) or per row (none)."""
    rows, hidden, vocab, d = shapes
    per_row = reduction == "none"
    return (d, rows, hidden, vocab, h2.data_ptr(), max(h2.stride(0), hidden), w.data_ptr(), max(w.stride(0), hidden),
            labels.data_ptr(), "int64" if labels.dtype == torch.int64 else "int32", ignore_index, label_smoothing,
            "sum" if per_row else reduction, 1.0, _ptr(loss) if per_row else 0, 0 if per_row else _ptr(loss), _ptr(dh),
            hidden, _ptr(dw), hidden, d, False, chunk_rows)


def _unit_columns(t: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """t as rows × cols with unit column stride: a view where it has one, else a packed copy."""
    t2 = t.reshape(rows, cols)
    unit = (t2.stride(1) == 1 or cols == 1) and (t2.stride(0) >= cols or rows == 1)  # not a broadcast row
    return t2 if unit else t2.contiguous()


def _lce_run(h: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, ignore_index: int, label_smoothing: float,
             reduction: str, chunk_rows: int, want_dh: bool, want_dw: bool, dev: int = -1) -> tuple:
    shapes = _lce_shapes(h, weight, labels, label_smoothing, reduction, chunk_rows)
    dev = _cuda(h, weight, labels) if dev < 0 else dev
    rows, hidden = shapes[:2]
    loss = torch.empty(tuple(labels.shape) if reduction == "none" else (), dtype=torch.float32, device=_device(dev))
    dh = _empty(tuple(h.shape), h.dtype, dev) if want_dh else _empty((0,), h.dtype, dev)
    dw = _empty(tuple(weight.shape), weight.dtype, dev) if want_dw else _empty((0,), weight.dtype, dev)
    if rows == 0:  # no token: PyTorch's mean of nothing is NaN, the sum 0; the gradients are 0
        loss.fill_(float("nan") if reduction == "mean" else 0.0)
        dw.zero_()
        return loss, dh, dw
    h2, w2 = _unit_columns(h, rows, hidden), _unit_columns(weight, *weight.shape)
    _launch(_kernels.linear_cross_entropy_direct, dev,
            *_lce_args(h2, w2, labels.reshape(rows).contiguous(), shapes, ignore_index, label_smoothing, reduction,
                       chunk_rows, loss, dh if want_dh else None, dw if want_dw else None))
    return loss, dh, dw


@torch.library.custom_op("sol::linear_cross_entropy", mutates_args=())
def _linear_cross_entropy(h: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, ignore_index: int,
                          label_smoothing: float, reduction: str, chunk_rows: int, want_dh: bool,
                          want_dw: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _lce_run(h, weight, labels, ignore_index, label_smoothing, reduction, chunk_rows, want_dh, want_dw)


@_linear_cross_entropy.register_fake
def _(h, weight, labels, ignore_index, label_smoothing, reduction, chunk_rows, want_dh, want_dw):
    _lce_shapes(h, weight, labels, label_smoothing, reduction, chunk_rows)
    loss = h.new_empty(tuple(labels.shape) if reduction == "none" else (), dtype=torch.float32)
    return loss, h.new_empty(h.shape if want_dh else (0,)), weight.new_empty(weight.shape if want_dw else (0,))


def _lce_setup(ctx, inputs, output):
    ctx.save_for_backward(output[1], output[2])


def _lce_grad(ctx, dloss, ddh, ddw):
    """The gradients the forward computed, scaled by the reduced loss's upstream gradient."""
    dh, dw = ctx.saved_tensors
    gh = torch.mul(dh, dloss) if ctx.needs_input_grad[0] else None
    gw = torch.mul(dw, dloss) if ctx.needs_input_grad[1] else None
    return gh, gw, None, None, None, None, None, None, None


_linear_cross_entropy.register_autograd(_lce_grad, setup_context=_lce_setup)


# ---- MX quantization and copy (no backward) ---------------------------------------------------------------
def _mx_shapes(x: torch.Tensor, elem: str, columnwise: bool) -> tuple[int, int, tuple[int, int]]:
    if x.dim() != 2 or x.dtype != torch.bfloat16:
        _fail(f"mx_quantize takes a 2-D bf16 tensor, got {tuple(x.shape)} {x.dtype}")
    if elem not in _FP8:
        _fail(f"elem must be fp8_e4m3 or fp8_e5m2, got '{elem}'")
    r, c = x.shape
    return r, c, ((r + 31) // 32, c) if columnwise else (r, (c + 31) // 32)


def _mx_quantize_run(x: torch.Tensor, elem: str, rule: str, columnwise: bool, dev: int = -1):
    r, c, sshape = _mx_shapes(x, elem, columnwise)
    dev = _cuda(x) if dev < 0 else dev
    x = x.contiguous()
    codes = _empty((r, c), torch.uint8, dev)
    scales = _empty(sshape, torch.uint8, dev)
    rowwise = (codes.data_ptr(), scales.data_ptr(), 0, 0)
    _launch(_kernels.mx_quantize_direct, dev, r, c, elem, rule, x.data_ptr(),
            *(rowwise[2:] + rowwise[:2] if columnwise else rowwise))
    return codes, scales


@torch.library.custom_op("sol::mx_quantize", mutates_args=())
def _mx_quantize(x: torch.Tensor, elem: str = "fp8_e4m3", rule: str = "ceil",
                 columnwise: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    return _mx_quantize_run(x, elem, rule, columnwise)


@_mx_quantize.register_fake
def _(x, elem="fp8_e4m3", rule="ceil", columnwise=False):
    r, c, sshape = _mx_shapes(x, elem, columnwise)
    return x.new_empty(r, c, dtype=torch.uint8), x.new_empty(sshape, dtype=torch.uint8)


def _mx_check(codes: torch.Tensor, scales: torch.Tensor, elem: str, columnwise: bool) -> None:
    if codes.dim() != 2 or codes.dtype != torch.uint8 or scales.dtype != torch.uint8:
        _fail("mx_dequantize takes uint8 codes [rows, cols] and uint8 e8m0 scales (as mx_quantize returns)")
    r, c = codes.shape
    want = ((r + 31) // 32, c) if columnwise else (r, (c + 31) // 32)
    if tuple(scales.shape) != want:
        _fail(f"mx_dequantize: scales are {tuple(scales.shape)}, codes {r}×{c} need {want}")
    if elem not in _FP8:
        _fail(f"elem must be fp8_e4m3 or fp8_e5m2, got '{elem}'")


def _mx_dequantize_run(codes: torch.Tensor, scales: torch.Tensor, elem: str, columnwise: bool,
                       dev: int = -1) -> torch.Tensor:
    _mx_check(codes, scales, elem, columnwise)
    dev = _cuda(codes, scales) if dev < 0 else dev
    codes, scales = codes.contiguous(), scales.contiguous()
    out = _empty(codes.shape, torch.bfloat16, dev)
    _launch(_kernels.mx_dequantize_direct, dev, codes.shape[0], codes.shape[1], elem, columnwise, codes.data_ptr(),
            scales.data_ptr(), out.data_ptr())
    return out


@torch.library.custom_op("sol::mx_dequantize", mutates_args=())
def _mx_dequantize(codes: torch.Tensor, scales: torch.Tensor, elem: str = "fp8_e4m3",
                   columnwise: bool = False) -> torch.Tensor:
    return _mx_dequantize_run(codes, scales, elem, columnwise)


@_mx_dequantize.register_fake
def _(codes, scales, elem="fp8_e4m3", columnwise=False):
    _mx_check(codes, scales, elem, columnwise)
    return codes.new_empty(codes.shape, dtype=torch.bfloat16)


def _copy_run(x: torch.Tensor, dev: int = -1) -> torch.Tensor:
    dev = _cuda(x) if dev < 0 else dev
    x = x.contiguous()
    y = torch.empty_like(x)
    _launch(_kernels.copy_direct, dev, x.data_ptr(), y.data_ptr(), x.numel() * x.element_size())
    return y


@torch.library.custom_op("sol::copy", mutates_args=())
def _copy(x: torch.Tensor) -> torch.Tensor:
    return _copy_run(x)


@_copy.register_fake
def _(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


# ---- DLPack: CuPy and JAX arrays in, the same kind out ---------------------------------------------------
def _kind(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return "torch"
    root = type(x).__module__.split(".")[0]
    if root in ("cupy", "jax", "jaxlib") and hasattr(x, "__dlpack__"):
        return "jax" if root.startswith("jax") else "cupy"
    if hasattr(x, "__dlpack__"):
        return "dlpack"
    _fail(f"sol.ops takes torch tensors or DLPack arrays (CuPy, JAX), got {type(x).__name__}")
    raise AssertionError


def _to_torch(x: Any) -> Any:
    if x is None or isinstance(x, torch.Tensor):
        return x
    _kind(x)
    if any(st < 0 for st in getattr(x, "strides", ()) or ()):
        # Negative strides (a flip, x[::-1]): torch's DLPack import aborts the process on them
        # (pytorch/pytorch#188023), so a packed copy from the array's own library goes instead.
        root = type(x).__module__.split(".")[0]
        if root not in ("cupy", "numpy"):
            _fail(f"sol.ops takes no {type(x).__name__} with negative strides {x.strides}: pass a packed copy")
        x = __import__(root).ascontiguousarray(x)
    try:
        return torch.utils.dlpack.from_dlpack(x)
    except (RuntimeError, ValueError, TypeError, BufferError) as e:
        _fail(f"sol.ops could not take the {type(x).__name__} through DLPack: {str(e).splitlines()[0]}")
        raise AssertionError from e


def _back(kind: str, t: torch.Tensor) -> Any:
    if kind == "torch":
        return t
    if kind == "cupy":
        import cupy

        return cupy.from_dlpack(t)
    if kind == "jax":
        import jax.dlpack

        return jax.dlpack.from_dlpack(t)
    return t  # any other DLPack producer: a torch tensor sharing the memory


# ---- the public functions -----------------------------------------------------------------------------------
def matmul(a: Any, b: Any, out_dtype: Optional[str] = None, scale_a: Any = None, scale_b: Any = None) -> Any:
    """``a @ b`` for 2-D ``a`` [m×k] and ``b`` [k×n], each row-major or a transposed view
    (``x @ w.t()`` is nn.Linear's product); bf16, f16 or f32 in, the same type out unless
    ``out_dtype`` says ``"bf16"``, ``"fp16"`` or ``"fp32"``. fp32 accumulation. fp8 e4m3 operands
    (``torch.float8_e4m3fn``) take ``scale_a`` and ``scale_b``, one fp32 element each on the device
    (per-tensor dequantization scales, as ``torch._scaled_mm``): ``scale_a·scale_b·(a @ b)``, bf16
    out by default (fp16 or fp32 out where cuBLASLt's fp8 runs: k and n multiples of 16, 16-byte
    pitches); no backward. An empty product (m, n or k of 0) gives an empty or zero ``[m×n]``
    without a launch."""
    dev = _direct(a, b, scale_a, scale_b)
    if dev >= 0:
        return _matmul_run(a, b, out_dtype, dev, scale_a, scale_b)
    kind = _kind(a)
    return _back(kind, _matmul(_to_torch(a), _to_torch(b), out_dtype, _to_torch(scale_a), _to_torch(scale_b)))


def attention(q: Any, k: Any, v: Any, causal: bool = False, scale: Optional[float] = None,
              window: Optional[tuple[int, int]] = None, softcap: Optional[float] = None) -> Any:
    """softmax(q·kᵀ·scale)·v over BSHD tensors ``[batch, seq, heads, head_dim]`` (bf16 or f16,
    head_dim 64 or 128; k and v may have fewer heads: grouped-query attention). ``scale`` defaults
    to 1/√head_dim; ``causal`` masks bottom-right aligned. ``window=(left, right)``: a sliding
    window in the same frame (FlashAttention's ``window_size``): query i of n sees key j of nk iff
    ``i + nk − n − left ≤ j ≤ i + nk − n + right``, −1 leaving that side unbounded; causal is
    right = 0 (causal with right > 0 is an error). ``softcap`` (Gemma 2): the scaled scores s become
    ``softcap·tanh(s / softcap)`` before the mask; None or 0: off. Windows and softcap run on sm_90
    GPUs (H100, H200), and for up to 16 query tokens on any; elsewhere they are an error."""
    left, right = _window(window)
    cap = float(softcap or 0.0)
    _attention_scores(bool(causal), left, right, cap)
    dev = _direct(q, k, v)
    if dev >= 0:
        return _attention_run(q, k, v, bool(causal), float(scale or 0.0), False, dev, left, right, cap)[0]
    kind = _kind(q)
    o, _ = _attention(_to_torch(q), _to_torch(k), _to_torch(v), bool(causal), float(scale or 0.0), left, right, cap)
    return _back(kind, o)


def layernorm(x: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5, residual: Any = None,
              fp8_scale: Any = None) -> Any:
    """LayerNorm over the last dimension (``torch.nn.functional.layer_norm`` with
    ``normalized_shape = x.shape[-1:]``); fp32 statistics. With ``residual`` (x's shape and type):
    the decoder's residual add in the same kernel, ``s = x + residual`` (rounded to x's type) is
    normalized and returned beside it: ``(layernorm(s), s)``. With ``fp8_scale`` (one fp32 element
    on the device): y's e4m3 codes (``torch.float8_e4m3fn``) are returned in place of y, from the
    same kernel: ``e4m3(y·fp8_scale)``, y rounded to x's type first, saturating at ±448 — an fp8
    GEMM's operand (``matmul(codes, w8, scale_a=1/fp8_scale, …)``). No gradient flows through
    the codes: eager calls under ``torch.no_grad()`` only."""
    if fp8_scale is not None:
        return _norm_codes("layernorm", x, weight, bias, float(eps), residual, fp8_scale)
    if residual is not None:
        dev = _direct(x, residual, weight, bias)
        if dev >= 0:
            y, _, _, s = _norm_run("layernorm", x, weight, bias, float(eps), False, dev, residual)
            return y, s
        kind = _kind(x)
        y, s, _, _ = _layernorm_residual(_to_torch(x), _to_torch(residual), _to_torch(weight), _to_torch(bias),
                                         float(eps))
        return _back(kind, y), _back(kind, s)
    dev = _direct(x, weight, bias)
    if dev >= 0:
        return _norm_run("layernorm", x, weight, bias, float(eps), False, dev)[0]
    kind = _kind(x)
    y, _, _ = _layernorm(_to_torch(x), _to_torch(weight), _to_torch(bias), float(eps))
    return _back(kind, y)


def rmsnorm(x: Any, weight: Any = None, eps: float = 1e-6, residual: Any = None, fp8_scale: Any = None) -> Any:
    """RMSNorm over the last dimension: ``x / sqrt(mean(x²) + eps) · weight``; fp32 statistics.
    With ``residual`` (x's shape and type): the decoder's residual add in the same kernel,
    ``s = x + residual`` (rounded to x's type) is normalized and returned beside it:
    ``(rmsnorm(s), s)``. With ``fp8_scale``: y's e4m3 codes in place of y, as :func:`layernorm`."""
    if fp8_scale is not None:
        return _norm_codes("rmsnorm", x, weight, None, float(eps), residual, fp8_scale)
    if residual is not None:
        dev = _direct(x, residual, weight)
        if dev >= 0:
            y, _, _, s = _norm_run("rmsnorm", x, weight, None, float(eps), False, dev, residual)
            return y, s
        kind = _kind(x)
        y, s, _ = _rmsnorm_residual(_to_torch(x), _to_torch(residual), _to_torch(weight), float(eps))
        return _back(kind, y), _back(kind, s)
    dev = _direct(x, weight)
    if dev >= 0:
        return _norm_run("rmsnorm", x, weight, None, float(eps), False, dev)[0]
    kind = _kind(x)
    y, _ = _rmsnorm(_to_torch(x), _to_torch(weight), float(eps))
    return _back(kind, y)


def softmax(x: Any) -> Any:
    """Softmax over the last dimension."""
    dev = _direct(x)
    if dev >= 0:
        return _softmax_run(x, dev)
    kind = _kind(x)
    return _back(kind, _softmax(_to_torch(x)))


def mx_quantize(x: Any, elem: str = "fp8_e4m3", rule: str = "ceil", columnwise: bool = False) -> tuple[Any, Any]:
    """OCP MX quantization of a 2-D bf16 tensor in blocks of 32 (along rows, or down columns with
    ``columnwise``): (codes uint8 [rows, cols], e8m0 scales uint8), bit for bit sol's reference."""
    dev = _direct(x)
    if dev >= 0:
        return _mx_quantize_run(x, elem, rule, bool(columnwise), dev)
    kind = _kind(x)
    codes, scales = _mx_quantize(_to_torch(x), elem, rule, bool(columnwise))
    return _back(kind, codes), _back(kind, scales)


def mx_dequantize(codes: Any, scales: Any, elem: str = "fp8_e4m3", columnwise: bool = False) -> Any:
    """The bf16 values of MX codes and scales (the inverse of :func:`mx_quantize` up to rounding)."""
    dev = _direct(codes, scales)
    if dev >= 0:
        return _mx_dequantize_run(codes, scales, elem, bool(columnwise), dev)
    kind = _kind(codes)
    return _back(kind, _mx_dequantize(_to_torch(codes), _to_torch(scales), elem, bool(columnwise)))


def copy(x: Any) -> Any:
    """A device-to-device copy of ``x``'s bytes into a new contiguous tensor."""
    dev = _direct(x)
    if dev >= 0:
        return _copy_run(x, dev)
    kind = _kind(x)
    return _back(kind, _copy(_to_torch(x)))


def linear_cross_entropy(h: Any, weight: Any, labels: Any, ignore_index: int = -100, label_smoothing: float = 0.0,
                         reduction: str = "mean", chunk_rows: int = 0) -> Any:
    """``F.cross_entropy(F.linear(h, weight), labels, ...)`` without the logits: h ``[..., hidden]`` and
    weight ``[vocab, hidden]`` (nn.Linear's, bf16 or f16, one type), labels ``h.shape[:-1]`` of int64 or
    int32; ``ignore_index``, ``label_smoothing`` and ``reduction`` (``"mean"``, ``"sum"``, ``"none"``) as
    PyTorch's. The loss is fp32 (a 0-d tensor, or one per label for ``"none"``).

    The rows run in chunks (``chunk_rows``; 0: sol's rule, :func:`explain` says which), so that only one
    chunk's logits exist at a time (at 16384 tokens × 128256 classes, 0.5 GB in place of 4.2 GB of
    bf16 logits and as much again of their gradient). Where a gradient is recorded, the same pass
    computes dh and dW (as Liger-Kernel's fused linear cross-entropy does) and the backward scales them
    by the loss's upstream gradient. The trade: the logits are computed once, not again in the
    backward, but dh and dW (in h's and weight's types; dW is rounded once per chunk as it accumulates)
    are held from the forward to the backward, and computed even if no backward follows — call it
    under ``torch.no_grad()`` for the loss alone. ``reduction="none"`` has no backward (a per-row
    upstream gradient does not exist yet when the gradients are computed)."""
    dev = _direct(h, weight, labels)
    args = (int(ignore_index), float(label_smoothing), reduction, int(chunk_rows))
    if dev >= 0:
        return _lce_run(h, weight, labels, *args, False, False, dev)[0]
    kind = _kind(h)
    ht, wt, lt = _to_torch(h), _to_torch(weight), _to_torch(labels)
    grad = torch.is_grad_enabled()
    want_dh, want_dw = grad and ht.requires_grad, grad and wt.requires_grad
    if reduction == "none" and (want_dh or want_dw):
        _fail("linear_cross_entropy: reduction='none' has no backward (its gradients are computed in the forward, "
              "before a per-row upstream gradient exists): call it under torch.no_grad(), or reduce with "
              "'mean' or 'sum'")
    loss, _, _ = _linear_cross_entropy(ht, wt, lt, *args, want_dh, want_dw)
    return _back(kind, loss)


def _shape_text(**dims: int) -> str:
    """A registry shape ("rows=4096,cols=5120"): the dims a family's variants are measured at."""
    return ",".join(f"{k}={v}" for k, v in dims.items())


def explain(op: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """What the dispatcher would run for ``op`` (``"matmul"``, ``"attention"``, ``"layernorm"``,
    ``"rmsnorm"``, ``"softmax"``, ``"linear_cross_entropy"``: h, weight, labels and its keywords; the
    gradients where h or weight requires one) on these arguments, and why: a dict (implementation, reason,
    predicted_s, and shape: the call in the registry's shape syntax, so that
    ``sol.doctor(e["implementation"], e["shape"], measured=m)`` diagnoses a sol kernel's time).
    Runs nothing; the tensors must be on the GPU (their pointers are part of the question)."""
    ts = [_to_torch(a) for a in args]
    if op == "matmul":
        a, b = ts
        shapes = _matmul_shapes(a, b, kwargs.get("out_dtype"))
        dev = _cuda(a, b)
        r = _kernels.explain_matmul_direct(*_matmul_args(a, b, _empty(shapes[:2], shapes[3], dev), shapes))
        m, n, k = shapes[:3]
        r["shape"] = _shape_text(m=m, n=n, k=k) + (",tb=0" if shapes[5][0] == "N" else "")  # B stored k×n
        return r
    if op == "attention":
        q, k, v = ts
        shapes = _attention_shapes(q, k, v)
        dev = _cuda(q, k, v)
        q, k, v = _addressable(q), _addressable(k), _addressable(v)  # as attention() passes them
        causal = bool(kwargs.get("causal", False))
        left, right = _window(kwargs.get("window"))
        cap = float(kwargs.get("softcap") or 0.0)
        _attention_scores(causal, left, right, cap)
        r = _kernels.explain_attention_forward_direct(*_attention_args(
            q, k, v, _like(q, dev), None, causal, float(kwargs.get("scale") or 0.0), shapes, left, right, cap))
        (b, n, h, d), (_, nk, hkv, _) = shapes
        dims = {"b": b, "h": h, "n": n, "d": d}
        dims |= ({"hkv": hkv} if hkv != h else {}) | ({"nk": nk} if nk != n else {})
        dims |= ({"causal": 1} if causal else {}) | ({"wl": left} if left >= 0 else {})
        dims |= ({"wr": right} if right >= 0 and not (causal and right == 0) else {})
        dims |= ({"softcap": max(1, round(cap))} if cap > 0 else {}) | ({"fp16": 1} if q.dtype == torch.float16 else {})
        r["shape"] = _shape_text(**dims)
        return r
    if op in ("layernorm", "rmsnorm", "softmax"):
        x = ts[0]
        rows, cols, d = _rows("x", x)
        dev = _cuda(x)
        x2, ldx = _as_rows(x, cols)
        y = _empty((rows, cols), x.dtype, dev)
        common = (d, rows, cols, x2.data_ptr(), ldx, y.data_ptr(), cols)
        if op == "softmax":
            r = _kernels.explain_softmax_forward_direct(*common)
        elif op == "rmsnorm":
            r = _kernels.explain_rmsnorm_forward_direct(*common, _ptr(ts[1] if len(ts) > 1 else None), 1e-6, 0,
                                                        0, 0, 0, 0, 0, 0, 0)
        else:
            r = _kernels.explain_layernorm_forward_direct(*common, _ptr(ts[1] if len(ts) > 1 else None), 0, 1e-5, 0, 0,
                                                          0, 0, 0, 0, 0, 0, 0)
        r["shape"] = _shape_text(rows=rows, cols=cols)
        return r
    if op == "linear_cross_entropy":
        h, weight, labels = ts
        reduction = kwargs.get("reduction", "mean")
        smoothing, chunk_rows = float(kwargs.get("label_smoothing", 0.0)), int(kwargs.get("chunk_rows", 0))
        shapes = _lce_shapes(h, weight, labels, smoothing, reduction, chunk_rows)
        dev = _cuda(h, weight, labels)
        rows, hidden, vocab = shapes[:3]
        h2, w2 = _unit_columns(h, rows, hidden), _unit_columns(weight, vocab, hidden)
        grads = [_empty(tuple(t.shape), t.dtype, dev) if t.requires_grad else None for t in (h, weight)]
        loss = _empty(tuple(labels.shape) if reduction == "none" else (1,), torch.float32, dev)
        r = _kernels.explain_linear_cross_entropy_direct(
            *_lce_args(h2, w2, labels.reshape(rows), shapes, int(kwargs.get("ignore_index", -100)), smoothing,
                       reduction, chunk_rows, loss, *grads))
        r["shape"] = _shape_text(rows=rows, hidden=hidden, vocab=vocab)
        return r
    _fail(f"explain knows matmul, attention, layernorm, rmsnorm, softmax and linear_cross_entropy, not '{op}'")
    raise AssertionError


__all__ = ["matmul", "attention", "layernorm", "rmsnorm", "softmax", "linear_cross_entropy", "mx_quantize",
           "mx_dequantize", "copy", "explain"]

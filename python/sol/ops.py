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
backward (matmul, attention, layernorm, rmsnorm, softmax). Kernels run on the current CUDA stream
of the input's device; workspaces come from PyTorch's caching allocator. The functions also take
any DLPack tensor (CuPy, JAX) and return the same kind. Errors are ``sol.Error`` with one line.

Layouts: matmul takes 2-D operands, each row-major or a transposed view of one (``w.t()``);
attention takes BSHD tensors ``[batch, seq, heads, head_dim]`` (any batch, sequence and head
strides, head_dim contiguous); the row ops normalize over the last dimension.
"""
from __future__ import annotations

import contextlib
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


def _cuda(*tensors: torch.Tensor) -> None:
    """The checks a launch needs: the module, a device, the tensors on one CUDA device."""
    if _kernels is None:
        _fail(_NO_KERNELS)
    if not _HAS_GPU:
        _HAS_GPU.append(torch.cuda.is_available())
    if not _HAS_GPU[0]:
        _fail("sol.ops runs on a CUDA GPU and torch sees none (torch.cuda.is_available() is False)")
    dev = tensors[0].device
    for t in tensors:
        if t.device.type != "cuda":
            _fail(f"sol.ops runs on CUDA tensors; got one on {t.device}")
        if t.device != dev:
            _fail(f"sol.ops takes tensors on one device; got {dev} and {t.device}")


def _on(t: torch.Tensor) -> Any:
    """The tensor's device made current for the launch (a no-op when it is already)."""
    if t.device.index is None or t.device.index == torch.cuda.current_device():
        return contextlib.nullcontext()
    return torch.cuda.device(t.device)


def _stream(t: torch.Tensor) -> int:
    return torch.cuda.current_stream(t.device).cuda_stream


def _workspace(nbytes: int, like: torch.Tensor) -> tuple[int, int, Optional[torch.Tensor]]:
    if nbytes == 0:
        return 0, 0, None
    ws = torch.empty(nbytes, dtype=torch.uint8, device=like.device)
    return ws.data_ptr(), nbytes, ws


def _ptr(t: Optional[torch.Tensor]) -> int:
    return 0 if t is None else t.data_ptr()


def _set(args: Any, **fields: Any) -> Any:
    for k, v in fields.items():
        setattr(args, k, v)
    return args


# ---- matmul ------------------------------------------------------------------------------------------
def _layout(name: str, t: torch.Tensor) -> tuple[str, int]:
    """('N', ld) for a row-major matrix, ('T', ld) for a transposed view of one."""
    if t.dim() != 2:
        _fail(f"{name} must be 2-D, got shape {tuple(t.shape)}")
    r, c = t.shape
    if t.stride(1) == 1 and (t.stride(0) >= c or r == 1):
        return "N", max(t.stride(0), c)
    if t.stride(0) == 1 and (t.stride(1) >= r or c == 1):
        return "T", max(t.stride(1), r)
    _fail(f"{name} has strides {t.stride()}: neither rows nor columns are contiguous (call .contiguous())")
    raise AssertionError


def _matmul_shapes(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[str]) -> tuple[int, int, int, torch.dtype]:
    if a.dim() != 2 or b.dim() != 2:
        _fail(f"matmul takes 2-D operands, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[0]:
        _fail(f"matmul: a is {tuple(a.shape)} and b is {tuple(b.shape)}: inner sizes differ")
    if a.dtype != b.dtype:
        _fail(f"matmul: a is {a.dtype} and b is {b.dtype}; give both one type")
    at = _dtype("a", a, ("bf16", "fp16", "fp32", "fp8_e4m3"))
    _layout("a", a)
    _layout("b", b)
    if out_dtype is None:
        out = a.dtype if at not in _FP8 else torch.bfloat16
    else:
        inv = {v: k for k, v in _DTYPES.items()}
        if out_dtype not in ("bf16", "fp16", "fp32"):
            _fail(f"out_dtype must be bf16, fp16 or fp32, got '{out_dtype}'")
        out = inv[out_dtype]
    return a.shape[0], b.shape[1], a.shape[1], out


def _matmul_args(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> Any:
    ta, lda = _layout("a", a)
    tb, ldb = _layout("b", b)
    return _set(_kernels.MatmulArgs(), m=a.shape[0], n=b.shape[1], k=a.shape[1], a_type=_DTYPES[a.dtype],
                b_type=_DTYPES[b.dtype], c_type=_DTYPES[c.dtype], trans_a=ta, trans_b=tb, a=a.data_ptr(),
                b=b.data_ptr(), c=c.data_ptr(), lda=lda, ldb=ldb, ldc=c.shape[1])


@torch.library.custom_op("sol::matmul", mutates_args=())
def _matmul(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[str] = None) -> torch.Tensor:
    m, n, _, out = _matmul_shapes(a, b, out_dtype)
    _cuda(a, b)
    if _DTYPES[a.dtype] in _FP8:
        _fail("fp8 matmul needs per-tensor scales, which sol.ops.matmul does not take yet (use bf16 or f16)")
    c = torch.empty(m, n, dtype=out, device=a.device)
    with _on(a):
        args = _matmul_args(a, b, c)
        ws, nbytes, keep = _workspace(_kernels.matmul_workspace_size(args), a)
        _kernels.matmul(args, ws, nbytes, _stream(a))
    return c


@_matmul.register_fake
def _(a, b, out_dtype=None):
    m, n, _, out = _matmul_shapes(a, b, out_dtype)
    return a.new_empty(m, n, dtype=out)


def _matmul_backward(ctx, dc):
    a, b = ctx.saved_tensors
    dc = dc.to(a.dtype).contiguous()  # an upstream gradient may be broadcast (strides 0)
    da = _matmul(dc, b.t()) if ctx.needs_input_grad[0] else None
    db = _matmul(a.t(), dc) if ctx.needs_input_grad[1] else None
    return da, db, None


def _matmul_setup(ctx, inputs, output):
    a, b, _ = inputs
    ctx.save_for_backward(a, b)


_matmul.register_autograd(_matmul_backward, setup_context=_matmul_setup)


# ---- attention -----------------------------------------------------------------------------------------
def _bshd(name: str, t: torch.Tensor) -> None:
    if t.dim() != 4:
        _fail(f"{name} must be BSHD [batch, seq, heads, head_dim], got shape {tuple(t.shape)}")
    if t.stride(3) != 1:
        _fail(f"{name}'s head_dim must be contiguous (stride 1), got strides {t.stride()}")


def _attention_shapes(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        _bshd(name, t)
    if k.shape != v.shape:
        _fail(f"attention: k is {tuple(k.shape)} and v is {tuple(v.shape)}; they must match")
    if q.shape[0] != k.shape[0] or q.shape[3] != k.shape[3]:
        _fail(f"attention: q is {tuple(q.shape)} and k is {tuple(k.shape)}: batch or head_dim differ")
    if q.shape[2] % k.shape[2]:
        _fail(f"attention: {k.shape[2]} key/value heads do not divide {q.shape[2]} query heads")
    if not (q.dtype == k.dtype == v.dtype):
        _fail(f"attention: q, k, v are {q.dtype}, {k.dtype}, {v.dtype}; give them one type")
    _dtype("q", q, ("bf16", "fp16"))
    if q.shape[3] not in (64, 128):
        _fail(f"attention: head_dim {q.shape[3]} is not served (64 or 128)")


def _strides(t: torch.Tensor) -> Any:
    return _kernels.BSHDStrides(t.stride(0), t.stride(1), t.stride(2))


def _attention_args(q, k, v, o, lse, causal: bool, scale: float) -> Any:
    b, n, h, d = q.shape
    return _set(_kernels.AttentionArgs(), dtype=_DTYPES[q.dtype], b=b, h=h, h_kv=k.shape[2], n=n, nk=k.shape[1], d=d,
                causal=causal, scale=scale, q=q.data_ptr(), k=k.data_ptr(), v=v.data_ptr(), o=o.data_ptr(),
                lse=_ptr(lse), q_stride=_strides(q), k_stride=_strides(k), v_stride=_strides(v),
                o_stride=_strides(o))


@torch.library.custom_op("sol::attention", mutates_args=())
def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
               scale: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    _attention_shapes(q, k, v)
    _cuda(q, k, v)
    b, n, h, _ = q.shape
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse = torch.empty(b, h, n, dtype=torch.float32, device=q.device)
    with _on(q):
        args = _attention_args(q, k, v, o, lse, causal, scale)
        ws, nbytes, keep = _workspace(_kernels.attention_forward_workspace_size(args), q)
        _kernels.attention_forward(args, ws, nbytes, _stream(q))
    return o, lse


@_attention.register_fake
def _(q, k, v, causal=False, scale=0.0):
    _attention_shapes(q, k, v)
    b, n, h, _ = q.shape
    return q.new_empty(q.shape), q.new_empty(b, h, n, dtype=torch.float32)


@torch.library.custom_op("sol::attention_backward", mutates_args=())
def _attention_backward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, lse: torch.Tensor,
                        dout: torch.Tensor, causal: bool = False, scale: float = 0.0,
                        deterministic: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _attention_shapes(q, k, v)
    _bshd("dout", dout)
    if dout.shape != q.shape or dout.dtype != q.dtype:
        _fail(f"attention backward: dout is {tuple(dout.shape)} {dout.dtype}, q is {tuple(q.shape)} {q.dtype}")
    _cuda(q, k, v, o, lse, dout)
    dq, dk, dv = (torch.empty(t.shape, dtype=t.dtype, device=t.device) for t in (q, k, v))
    with _on(q):
        args = _set(_kernels.AttentionBackwardArgs(), fwd=_attention_args(q, k, v, o, lse.contiguous(), causal, scale),
                    dout=dout.data_ptr(), dq=dq.data_ptr(), dk=dk.data_ptr(), dv=dv.data_ptr(),
                    dout_stride=_strides(dout), dq_stride=_strides(dq), dk_stride=_strides(dk),
                    dv_stride=_strides(dv), deterministic=deterministic)
        ws, nbytes, keep = _workspace(_kernels.attention_backward_workspace_size(args), q)
        _kernels.attention_backward(args, ws, nbytes, _stream(q))
    return dq, dk, dv


@_attention_backward.register_fake
def _(q, k, v, o, lse, dout, causal=False, scale=0.0, deterministic=False):
    _attention_shapes(q, k, v)
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)


def _attention_setup(ctx, inputs, output):
    q, k, v, causal, scale = inputs
    o, lse = output
    ctx.save_for_backward(q, k, v, o, lse)
    ctx.causal, ctx.scale = causal, scale


def _attention_grad(ctx, do, dlse):
    q, k, v, o, lse = ctx.saved_tensors
    dq, dk, dv = _attention_backward(q, k, v, o, lse, do.contiguous(), ctx.causal, ctx.scale)
    return dq, dk, dv, None, None


_attention.register_autograd(_attention_grad, setup_context=_attention_setup)


# ---- rows: LayerNorm, RMSNorm, softmax over the last dimension -------------------------------------------
def _rows(name: str, x: torch.Tensor) -> tuple[int, int]:
    if x.dim() < 1 or x.numel() == 0:
        _fail(f"{name} must have at least one element and one dimension, got shape {tuple(x.shape)}")
    _dtype(name, x, ("fp32", "bf16", "fp16"))
    cols = x.shape[-1]
    return x.numel() // cols, cols


def _param(name: str, p: Optional[torch.Tensor], x: torch.Tensor) -> None:
    if p is not None and (p.shape != (x.shape[-1],) or p.dtype != x.dtype):
        _fail(f"{name} must be [{x.shape[-1]}] {x.dtype}, got {tuple(p.shape)} {p.dtype}")


def _as_rows(x: torch.Tensor, cols: int) -> torch.Tensor:
    x2 = x.reshape(-1, cols)
    return x2 if x2.stride(1) == 1 else x2.contiguous()


def _norm_launch(kind: str, x, weight, bias, eps: float):
    rows, cols = _rows("x", x)
    _param("weight", weight, x)
    _param("bias", bias, x)
    _cuda(*(t for t in (x, weight, bias) if t is not None))
    x2 = _as_rows(x, cols)
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    mean = torch.empty(rows, dtype=torch.float32, device=x.device) if kind == "layernorm" else None
    rstd = torch.empty(rows, dtype=torch.float32, device=x.device)
    w, b = (None if t is None else t.contiguous() for t in (weight, bias))
    with _on(x):
        if kind == "layernorm":
            args = _set(_kernels.LayerNormArgs(), dtype=_DTYPES[x.dtype], rows=rows, cols=cols, x=x2.data_ptr(),
                        y=y.data_ptr(), ldx=x2.stride(0), ldy=cols, gamma=_ptr(w), beta=_ptr(b), eps=eps,
                        mean=mean.data_ptr(), rstd=rstd.data_ptr())
            ws, nbytes, keep = _workspace(_kernels.layernorm_forward_workspace_size(args), x)
            _kernels.layernorm_forward(args, ws, nbytes, _stream(x))
        else:
            args = _set(_kernels.RMSNormArgs(), dtype=_DTYPES[x.dtype], rows=rows, cols=cols, x=x2.data_ptr(),
                        y=y.data_ptr(), ldx=x2.stride(0), ldy=cols, gamma=_ptr(w), eps=eps, rstd=rstd.data_ptr())
            ws, nbytes, keep = _workspace(_kernels.rmsnorm_forward_workspace_size(args), x)
            _kernels.rmsnorm_forward(args, ws, nbytes, _stream(x))
    return y, mean, rstd


@torch.library.custom_op("sol::layernorm", mutates_args=())
def _layernorm(x: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor],
               eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _norm_launch("layernorm", x, weight, bias, eps)


@_layernorm.register_fake
def _(x, weight, bias, eps):
    rows, _ = _rows("x", x)
    _param("weight", weight, x)
    _param("bias", bias, x)
    return x.new_empty(x.shape), x.new_empty(rows, dtype=torch.float32), x.new_empty(rows, dtype=torch.float32)


@torch.library.custom_op("sol::rmsnorm", mutates_args=())
def _rmsnorm(x: torch.Tensor, weight: Optional[torch.Tensor], eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    y, _, rstd = _norm_launch("rmsnorm", x, weight, None, eps)
    return y, rstd


@_rmsnorm.register_fake
def _(x, weight, eps):
    rows, _ = _rows("x", x)
    _param("weight", weight, x)
    return x.new_empty(x.shape), x.new_empty(rows, dtype=torch.float32)


def _norm_backward_launch(kind: str, x, dy, weight, mean, rstd, want_bias: bool):
    rows, cols = _rows("x", x)
    if dy.shape != x.shape or dy.dtype != x.dtype:
        _fail(f"{kind} backward: dy is {tuple(dy.shape)} {dy.dtype}, x is {tuple(x.shape)} {x.dtype}")
    _cuda(x, dy, rstd)
    x2, dy2 = _as_rows(x, cols), _as_rows(dy, cols)
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    w = None if weight is None else weight.contiguous()
    dw = torch.empty(cols, dtype=x.dtype, device=x.device) if weight is not None else None
    db = torch.empty(cols, dtype=x.dtype, device=x.device) if want_bias else None
    with _on(x):
        if kind == "layernorm":
            args = _set(_kernels.LayerNormBackwardArgs(), dtype=_DTYPES[x.dtype], rows=rows, cols=cols,
                        x=x2.data_ptr(), dy=dy2.data_ptr(), dx=dx.data_ptr(), ldx=x2.stride(0), lddy=dy2.stride(0),
                        lddx=cols, gamma=_ptr(w), mean=mean.data_ptr(), rstd=rstd.data_ptr(), dgamma=_ptr(dw),
                        dbeta=_ptr(db))
            ws, nbytes, keep = _workspace(_kernels.layernorm_backward_workspace_size(args), x)
            _kernels.layernorm_backward(args, ws, nbytes, _stream(x))
        else:
            args = _set(_kernels.RMSNormBackwardArgs(), dtype=_DTYPES[x.dtype], rows=rows, cols=cols,
                        x=x2.data_ptr(), dy=dy2.data_ptr(), dx=dx.data_ptr(), ldx=x2.stride(0), lddy=dy2.stride(0),
                        lddx=cols, gamma=_ptr(w), rstd=rstd.data_ptr(), dgamma=_ptr(dw))
            ws, nbytes, keep = _workspace(_kernels.rmsnorm_backward_workspace_size(args), x)
            _kernels.rmsnorm_backward(args, ws, nbytes, _stream(x))
    empty = x.new_empty(0)
    return dx, empty if dw is None else dw, empty if db is None else db


@torch.library.custom_op("sol::layernorm_backward", mutates_args=())
def _layernorm_backward(x: torch.Tensor, dy: torch.Tensor, weight: Optional[torch.Tensor], mean: torch.Tensor,
                        rstd: torch.Tensor, want_bias: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _norm_backward_launch("layernorm", x, dy, weight, mean, rstd, want_bias)


@_layernorm_backward.register_fake
def _(x, dy, weight, mean, rstd, want_bias):
    c = x.shape[-1]
    return x.new_empty(x.shape), x.new_empty(c if weight is not None else 0), x.new_empty(c if want_bias else 0)


@torch.library.custom_op("sol::rmsnorm_backward", mutates_args=())
def _rmsnorm_backward(x: torch.Tensor, dy: torch.Tensor, weight: Optional[torch.Tensor],
                      rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    dx, dw, _ = _norm_backward_launch("rmsnorm", x, dy, weight, None, rstd, False)
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
    dx, dw, db = _layernorm_backward(x, dy.contiguous(), weight, mean, rstd, ctx.has_bias)
    return dx, (dw if weight is not None else None), (db if ctx.has_bias else None), None


def _rmsnorm_setup(ctx, inputs, output):
    x, weight, _ = inputs
    ctx.save_for_backward(x, weight, output[1])


def _rmsnorm_grad(ctx, dy, drstd):
    x, weight, rstd = ctx.saved_tensors
    dx, dw = _rmsnorm_backward(x, dy.contiguous(), weight, rstd)
    return dx, (dw if weight is not None else None), None


_layernorm.register_autograd(_layernorm_grad, setup_context=_layernorm_setup)
_rmsnorm.register_autograd(_rmsnorm_grad, setup_context=_rmsnorm_setup)


@torch.library.custom_op("sol::softmax", mutates_args=())
def _softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = _rows("x", x)
    _cuda(x)
    x2 = _as_rows(x, cols)
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    with _on(x):
        args = _set(_kernels.SoftmaxArgs(), dtype=_DTYPES[x.dtype], rows=rows, cols=cols, x=x2.data_ptr(),
                    y=y.data_ptr(), ldx=x2.stride(0), ldy=cols)
        ws, nbytes, keep = _workspace(_kernels.softmax_forward_workspace_size(args), x)
        _kernels.softmax_forward(args, ws, nbytes, _stream(x))
    return y


@_softmax.register_fake
def _(x):
    _rows("x", x)
    return x.new_empty(x.shape)


@torch.library.custom_op("sol::softmax_backward", mutates_args=())
def _softmax_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    rows, cols = _rows("y", y)
    if dy.shape != y.shape or dy.dtype != y.dtype:
        _fail(f"softmax backward: dy is {tuple(dy.shape)} {dy.dtype}, y is {tuple(y.shape)} {y.dtype}")
    _cuda(y, dy)
    y2, dy2 = _as_rows(y, cols), _as_rows(dy, cols)
    dx = torch.empty(y.shape, dtype=y.dtype, device=y.device)
    with _on(y):
        args = _set(_kernels.SoftmaxBackwardArgs(), dtype=_DTYPES[y.dtype], rows=rows, cols=cols, y=y2.data_ptr(),
                    dy=dy2.data_ptr(), dx=dx.data_ptr(), ldy=y2.stride(0), lddy=dy2.stride(0), lddx=cols)
        ws, nbytes, keep = _workspace(_kernels.softmax_backward_workspace_size(args), y)
        _kernels.softmax_backward(args, ws, nbytes, _stream(y))
    return dx


@_softmax_backward.register_fake
def _(y, dy):
    _rows("y", y)
    return y.new_empty(y.shape)


def _softmax_setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _softmax_grad(ctx, dy):
    (y,) = ctx.saved_tensors
    return _softmax_backward(y, dy.contiguous())


_softmax.register_autograd(_softmax_grad, setup_context=_softmax_setup)


# ---- MX quantization and copy (no backward) ---------------------------------------------------------------
def _mx_shapes(x: torch.Tensor, elem: str, columnwise: bool) -> tuple[int, int, tuple[int, int]]:
    if x.dim() != 2 or x.dtype != torch.bfloat16:
        _fail(f"mx_quantize takes a 2-D bf16 tensor, got {tuple(x.shape)} {x.dtype}")
    if elem not in _FP8:
        _fail(f"elem must be fp8_e4m3 or fp8_e5m2, got '{elem}'")
    r, c = x.shape
    return r, c, ((r + 31) // 32, c) if columnwise else (r, (c + 31) // 32)


@torch.library.custom_op("sol::mx_quantize", mutates_args=())
def _mx_quantize(x: torch.Tensor, elem: str = "fp8_e4m3", rule: str = "ceil",
                 columnwise: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    r, c, sshape = _mx_shapes(x, elem, columnwise)
    _cuda(x)
    x = x.contiguous()
    codes = torch.empty(r, c, dtype=torch.uint8, device=x.device)
    scales = torch.empty(sshape, dtype=torch.uint8, device=x.device)
    with _on(x):
        args = _set(_kernels.MxQuantizeArgs(), rows=r, cols=c, elem=elem, rule=rule, x=x.data_ptr())
        if columnwise:
            _set(args, col_codes=codes.data_ptr(), col_scales=scales.data_ptr())
        else:
            _set(args, row_codes=codes.data_ptr(), row_scales=scales.data_ptr())
        _kernels.mx_quantize(args, _stream(x))
    return codes, scales


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


@torch.library.custom_op("sol::mx_dequantize", mutates_args=())
def _mx_dequantize(codes: torch.Tensor, scales: torch.Tensor, elem: str = "fp8_e4m3",
                   columnwise: bool = False) -> torch.Tensor:
    _mx_check(codes, scales, elem, columnwise)
    _cuda(codes, scales)
    codes, scales = codes.contiguous(), scales.contiguous()
    out = torch.empty(codes.shape, dtype=torch.bfloat16, device=codes.device)
    with _on(codes):
        args = _set(_kernels.MxDequantizeArgs(), rows=codes.shape[0], cols=codes.shape[1], elem=elem,
                    columnwise=columnwise, codes=codes.data_ptr(), scales=scales.data_ptr(), out=out.data_ptr())
        _kernels.mx_dequantize(args, _stream(codes))
    return out


@_mx_dequantize.register_fake
def _(codes, scales, elem="fp8_e4m3", columnwise=False):
    _mx_check(codes, scales, elem, columnwise)
    return codes.new_empty(codes.shape, dtype=torch.bfloat16)


@torch.library.custom_op("sol::copy", mutates_args=())
def _copy(x: torch.Tensor) -> torch.Tensor:
    _cuda(x)
    x = x.contiguous()
    y = torch.empty_like(x)
    with _on(x):
        _kernels.copy(_set(_kernels.CopyArgs(), src=x.data_ptr(), dst=y.data_ptr(), bytes=x.numel() * x.element_size()),
                      _stream(x))
    return y


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
    return torch.utils.dlpack.from_dlpack(x)


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
def matmul(a: Any, b: Any, out_dtype: Optional[str] = None) -> Any:
    """``a @ b`` for 2-D ``a`` [m×k] and ``b`` [k×n], each row-major or a transposed view
    (``x @ w.t()`` is nn.Linear's product); bf16, f16 or f32 in, the same type out unless
    ``out_dtype`` says ``"bf16"``, ``"fp16"`` or ``"fp32"``. fp32 accumulation."""
    kind = _kind(a)
    return _back(kind, _matmul(_to_torch(a), _to_torch(b), out_dtype))


def attention(q: Any, k: Any, v: Any, causal: bool = False, scale: Optional[float] = None) -> Any:
    """softmax(q·kᵀ·scale)·v over BSHD tensors ``[batch, seq, heads, head_dim]`` (bf16 or f16,
    head_dim 64 or 128; k and v may have fewer heads: grouped-query attention). ``scale`` defaults
    to 1/√head_dim; ``causal`` masks bottom-right aligned."""
    kind = _kind(q)
    o, _ = _attention(_to_torch(q), _to_torch(k), _to_torch(v), bool(causal), float(scale or 0.0))
    return _back(kind, o)


def layernorm(x: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5) -> Any:
    """LayerNorm over the last dimension (``torch.nn.functional.layer_norm`` with
    ``normalized_shape = x.shape[-1:]``); fp32 statistics."""
    kind = _kind(x)
    y, _, _ = _layernorm(_to_torch(x), _to_torch(weight), _to_torch(bias), float(eps))
    return _back(kind, y)


def rmsnorm(x: Any, weight: Any = None, eps: float = 1e-6) -> Any:
    """RMSNorm over the last dimension: ``x / sqrt(mean(x²) + eps) · weight``; fp32 statistics."""
    kind = _kind(x)
    y, _ = _rmsnorm(_to_torch(x), _to_torch(weight), float(eps))
    return _back(kind, y)


def softmax(x: Any) -> Any:
    """Softmax over the last dimension."""
    kind = _kind(x)
    return _back(kind, _softmax(_to_torch(x)))


def mx_quantize(x: Any, elem: str = "fp8_e4m3", rule: str = "ceil", columnwise: bool = False) -> tuple[Any, Any]:
    """OCP MX quantization of a 2-D bf16 tensor in blocks of 32 (along rows, or down columns with
    ``columnwise``): (codes uint8 [rows, cols], e8m0 scales uint8), bit for bit sol's reference."""
    kind = _kind(x)
    codes, scales = _mx_quantize(_to_torch(x), elem, rule, bool(columnwise))
    return _back(kind, codes), _back(kind, scales)


def mx_dequantize(codes: Any, scales: Any, elem: str = "fp8_e4m3", columnwise: bool = False) -> Any:
    """The bf16 values of MX codes and scales (the inverse of :func:`mx_quantize` up to rounding)."""
    kind = _kind(codes)
    return _back(kind, _mx_dequantize(_to_torch(codes), _to_torch(scales), elem, bool(columnwise)))


def copy(x: Any) -> Any:
    """A device-to-device copy of ``x``'s bytes into a new contiguous tensor."""
    kind = _kind(x)
    return _back(kind, _copy(_to_torch(x)))


def explain(op: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """What the dispatcher would run for ``op`` (``"matmul"``, ``"attention"``, ``"layernorm"``,
    ``"rmsnorm"``, ``"softmax"``) on these arguments, and why: a dict (implementation, reason,
    predicted_s). Runs nothing; the tensors must be on the GPU (their pointers are part of the
    question)."""
    ts = [_to_torch(a) for a in args]
    if op == "matmul":
        a, b = ts
        m, n, _, out = _matmul_shapes(a, b, kwargs.get("out_dtype"))
        _cuda(a, b)
        return _kernels.explain_matmul(_matmul_args(a, b, torch.empty(m, n, dtype=out, device=a.device)))
    if op == "attention":
        q, k, v = ts
        _attention_shapes(q, k, v)
        _cuda(q, k, v)
        return _kernels.explain_attention_forward(
            _attention_args(q, k, v, torch.empty_like(q), None, bool(kwargs.get("causal", False)),
                            float(kwargs.get("scale") or 0.0)))
    if op in ("layernorm", "rmsnorm", "softmax"):
        x = ts[0]
        rows, cols = _rows("x", x)
        _cuda(x)
        x2 = _as_rows(x, cols)
        y = torch.empty(rows, cols, dtype=x.dtype, device=x.device)
        common = dict(dtype=_DTYPES[x.dtype], rows=rows, cols=cols, x=x2.data_ptr(), y=y.data_ptr(),
                      ldx=x2.stride(0), ldy=cols)
        if op == "softmax":
            return _kernels.explain_softmax_forward(_set(_kernels.SoftmaxArgs(), **common))
        w = ts[1] if len(ts) > 1 else None
        if op == "rmsnorm":
            return _kernels.explain_rmsnorm_forward(_set(_kernels.RMSNormArgs(), gamma=_ptr(w), **common))
        return _kernels.explain_layernorm_forward(_set(_kernels.LayerNormArgs(), gamma=_ptr(w), **common))
    _fail(f"explain knows matmul, attention, layernorm, rmsnorm and softmax, not '{op}'")
    raise AssertionError


__all__ = ["matmul", "attention", "layernorm", "rmsnorm", "softmax", "mx_quantize", "mx_dequantize", "copy",
           "explain"]

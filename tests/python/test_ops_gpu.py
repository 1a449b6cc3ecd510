"""sol.ops on a GPU: every op against a PyTorch reference at odd shapes, forward and gradients;
torch.library.opcheck; the current stream (and CUDA-graph capture) honoured; torch.compile of a
Llama-style block; DLPack round trips with CuPy and JAX; sol.measure. Skipped, with the reason,
where there is no torch, no sol._kernels or no GPU; SOL_REQUIRE_GPU=1 turns the skip into a failure."""
import os
import pathlib
import sys

import pytest

import sol


def _why_not() -> str:
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    try:
        from sol import _kernels  # noqa: F401
    except ImportError:
        return "this sol has no sol._kernels (built without CUDA)"
    if not torch.cuda.is_available():
        return "no CUDA GPU (torch.cuda.is_available() is False)"
    return ""


_reason = _why_not()
if _reason:
    if os.environ.get("SOL_REQUIRE_GPU") == "1":
        pytest.fail(f"SOL_REQUIRE_GPU=1 but {_reason}", pytrace=False)
    pytest.skip(_reason, allow_module_level=True)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import sol.ops as ops  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "python"))
import llama  # noqa: E402

DEV = "cuda"
TOL = {torch.float32: 2e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3}


def rel_l2(out, ref):
    out, ref = out.double(), ref.double()
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def close(out, ref, dtype, factor=1.0):
    assert out.shape == ref.shape and out.dtype == ref.dtype
    assert torch.isfinite(out).all()
    assert rel_l2(out, ref) <= factor * TOL[dtype], f"rel L2 {rel_l2(out, ref):.3g}"


def rand(*shape, dtype=torch.bfloat16, grad=False, seed=0):
    g = torch.Generator(device=DEV).manual_seed(seed + sum(shape))
    return torch.randn(*shape, device=DEV, dtype=torch.float32, generator=g).to(dtype).requires_grad_(grad)


def grads(fn, *inputs, seed=7):
    """(output, gradients of every input that requires one) for a random upstream gradient."""
    inputs = [t.detach().clone().requires_grad_(True) if t is not None else None for t in inputs]
    out = fn(*inputs)
    dout = rand(*out.shape, dtype=out.dtype, seed=seed)
    out.backward(dout)
    return out, [t.grad for t in inputs if t is not None]


# ---- matmul --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (17, 33, 65), (127, 255, 129), (1000, 3, 517), (8, 50257, 64)])
@pytest.mark.parametrize("layout", ["NN", "NT", "TN"])
def test_matmul(dtype, m, n, k, layout):
    a = rand(m, k, dtype=dtype) if layout[0] == "N" else rand(k, m, dtype=dtype).t()
    b = rand(k, n, dtype=dtype) if layout[1] == "N" else rand(n, k, dtype=dtype).t()
    ref = (a.float() @ b.float()).to(dtype)
    close(ops.matmul(a, b), ref, dtype)
    close(ops.matmul(a, b, out_dtype="fp32"), a.float() @ b.float(), torch.float32, factor=1e3)


@pytest.mark.parametrize("m,n,k", [(5, 7, 3), (129, 65, 33)])
def test_matmul_gradients(m, n, k):
    a, b = rand(m, k, dtype=torch.float32), rand(k, n, dtype=torch.float32)
    out, (da, db) = grads(ops.matmul, a, b)
    ref, (ra, rb) = grads(torch.matmul, a, b)
    close(out, ref, torch.float32, factor=10)
    close(da, ra, torch.float32, factor=10)
    close(db, rb, torch.float32, factor=10)


@pytest.mark.parametrize("m,n,k", [(64, 128, 256), (33, 65, 128), (1, 4096, 4096)])
def test_fp8_matmul_with_per_tensor_scales(m, n, k):
    """e4m3 operands (B n×k, k-contiguous: the TN layout fp8 GEMMs take) against the product of the
    same codes in fp32, scaled by scale_a·scale_b; bf16 out."""
    e4m3 = torch.float8_e4m3fn
    a, b = rand(m, k).to(e4m3), rand(n, k).to(e4m3).t()
    sa, sb = torch.tensor(0.5, device=DEV), torch.tensor(3.0, device=DEV)
    ref = (a.float() @ b.float()) * 1.5
    out = ops.matmul(a, b, scale_a=sa, scale_b=sb)
    assert out.dtype == torch.bfloat16
    close(out, ref.to(torch.bfloat16), torch.bfloat16)
    # fp32 C only through cuBLASLt's fp8, whose pitches are multiples of 16 bytes: n % 4 == 0.
    if n % 4 == 0:
        close(ops.matmul(a, b, out_dtype="fp32", scale_a=sa, scale_b=sb), ref, torch.float32, factor=1e3)
    else:
        with pytest.raises(sol.Error, match="16 bytes"):
            ops.matmul(a, b, out_dtype="fp32", scale_a=sa, scale_b=sb)
    with pytest.raises(sol.Error, match="scale_a and scale_b"):
        ops.matmul(a, b)


# ---- attention -----------------------------------------------------------------------------------
def attention_ref(q, k, v, causal, window=None, softcap=None):
    """fp32 reference over BSHD with grouped K/V, a bottom-right causal mask, a sliding window
    (left, right; -1: unbounded) in the same frame and Gemma 2's softcap, the mask written out."""
    b, n, h, d = q.shape
    nk, hkv = k.shape[1], k.shape[2]
    qf, kf, vf = (t.float().transpose(1, 2) for t in (q, k, v))
    kf, vf = kf.repeat_interleave(h // hkv, dim=1), vf.repeat_interleave(h // hkv, dim=1)
    s = qf @ kf.transpose(-1, -2) / d**0.5
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    left, right = window or (-1, -1)
    if causal:
        right = 0
    if left < 0 and right < 0:
        return (torch.softmax(s, dim=-1) @ vf).transpose(1, 2).to(q.dtype)
    i = torch.arange(n, device=DEV)[:, None]
    j = torch.arange(nk, device=DEV)[None, :]
    diagonal = i + nk - n  # row i's diagonal key: bottom-right aligned
    masked = torch.zeros(n, nk, dtype=torch.bool, device=DEV)
    if right >= 0:
        masked |= j > diagonal + right
    if left >= 0:
        masked |= j < diagonal - left
    # A finite fill keeps the gradient finite; a row that sees no key gets O = 0 (and no gradient).
    sees_a_key = (~masked).any(dim=-1, keepdim=True).float()
    p = torch.softmax(s.masked_fill(masked, -1e30), dim=-1) * sees_a_key
    return (p @ vf).transpose(1, 2).to(q.dtype)


ATTN = [(1, 1, 1, 1, 1, 64), (2, 37, 37, 4, 2, 128), (1, 129, 77, 8, 8, 64), (3, 65, 200, 6, 1, 128)]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("b,n,nk,h,hkv,d", ATTN)
@pytest.mark.parametrize("causal", [False, True])
def test_attention(dtype, b, n, nk, h, hkv, d, causal):
    q, k, v = rand(b, n, h, d, dtype=dtype), rand(b, nk, hkv, d, dtype=dtype, seed=1), rand(b, nk, hkv, d, dtype=dtype, seed=2)
    close(ops.attention(q, k, v, causal=causal), attention_ref(q, k, v, causal), dtype)


@pytest.mark.parametrize("b,n,nk,h,hkv,d", ATTN[1:])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_gradients(b, n, nk, h, hkv, d, causal):
    dtype = torch.bfloat16
    q, k, v = rand(b, n, h, d, dtype=dtype), rand(b, nk, hkv, d, dtype=dtype, seed=1), rand(b, nk, hkv, d, dtype=dtype, seed=2)
    out, g = grads(lambda q, k, v: ops.attention(q, k, v, causal=causal), q, k, v)
    ref, rg = grads(lambda q, k, v: attention_ref(q, k, v, causal), q, k, v)
    close(out, ref, dtype)
    for x, r in zip(g, rg):
        close(x, r, dtype, factor=2)


# Windows and softcap: Mistral's causal window at GQA 4, a two-sided one at GQA 8 with n > nk (rows
# that see no key) and softcap 30, width one, softcap 50 alone, and decode (n = 7 against 1000 keys).
# Prefill windows run on sm_90 (the wgmma rungs) and are refused elsewhere; decode runs anywhere.
WINDOWS = [(1, 300, 300, 4, 1, 64, True, (64, 0), None), (2, 129, 77, 8, 1, 128, False, (17, 5), 30.0),
           (1, 200, 200, 2, 2, 128, False, (0, 0), None), (1, 257, 257, 4, 4, 64, True, None, 50.0),
           (2, 7, 1000, 8, 2, 128, True, (100, 0), 30.0)]


def hopper():
    return torch.cuda.get_device_capability() == (9, 0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("b,n,nk,h,hkv,d,causal,window,softcap", WINDOWS)
def test_attention_window_and_softcap(dtype, b, n, nk, h, hkv, d, causal, window, softcap):
    q, k, v = rand(b, n, h, d, dtype=dtype), rand(b, nk, hkv, d, dtype=dtype, seed=1), rand(b, nk, hkv, d, dtype=dtype, seed=2)
    call = lambda: ops.attention(q, k, v, causal=causal, window=window, softcap=softcap)  # noqa: E731
    if n > 16 and not hopper():
        with pytest.raises(sol.Error, match="sliding window or softcap"):
            call()
        return
    # factor 2: the softcap's tanh is MUFU.TANH (relative error about 2^-11)
    close(call(), attention_ref(q, k, v, causal, window, softcap), dtype, factor=2)


@pytest.mark.parametrize("b,n,nk,h,hkv,d,causal,window,softcap", WINDOWS)
def test_attention_window_and_softcap_gradients(b, n, nk, h, hkv, d, causal, window, softcap):
    if not hopper():
        pytest.skip("a window's or softcap's backward runs on sm_90 (H100, H200)")
    dtype = torch.bfloat16
    q, k, v = rand(b, n, h, d, dtype=dtype), rand(b, nk, hkv, d, dtype=dtype, seed=1), rand(b, nk, hkv, d, dtype=dtype, seed=2)
    out, g = grads(lambda q, k, v: ops.attention(q, k, v, causal=causal, window=window, softcap=softcap), q, k, v)
    ref, rg = grads(lambda q, k, v: attention_ref(q, k, v, causal, window, softcap), q, k, v)
    close(out, ref, dtype, factor=2)
    for x, r in zip(g, rg):
        close(x, r, dtype, factor=2)


def test_attention_window_and_softcap_compile():
    if not hopper():
        pytest.skip("a window's prefill runs on sm_90 (H100, H200)")
    q, k, v = (rand(1, 300, 4, 128, seed=i, grad=True) for i in range(3))
    fn = lambda q, k, v: ops.attention(q, k, v, causal=True, window=(64, 0), softcap=30.0)  # noqa: E731
    compiled = torch.compile(fn, fullgraph=True)
    out, g = grads(compiled, q, k, v)
    ref, rg = grads(fn, q, k, v)
    assert torch.equal(out, ref)
    for x, r in zip(g, rg):
        close(x, r, torch.bfloat16)


def test_attention_strided_inputs():
    # q, k, v as views of one packed QKV projection: sequence strides of 3·h·d.
    qkv = rand(2, 33, 3, 4, 64)
    q, k, v = qkv.unbind(2)
    close(ops.attention(q, k, v), attention_ref(q, k, v, False), torch.bfloat16)
    # Its gradient flows back into the projection through the (packed-only) backward.
    out, (g,) = grads(lambda t: ops.attention(*t.unbind(2), causal=True), qkv)
    ref, (rg,) = grads(lambda t: attention_ref(*t.unbind(2), True), qkv)
    close(out, ref, torch.bfloat16)
    close(g, rg, torch.bfloat16, factor=2)
    # K and V broadcast over batch and heads (strides 0) and a BHSD decode query transposed to BSHD
    # (its seq stride d). The keys differ along the sequence: with every key equal the softmax is
    # uniform, dq and dk are exactly zero, and comparing them compares rounding noise.
    kv = rand(1, 40, 1, 64, seed=5).expand(2, 40, 4, 64)
    qd = rand(2, 4, 1, 64, seed=6).transpose(1, 2)
    close(ops.attention(qd, kv, kv), attention_ref(qd, kv, kv, False), torch.bfloat16)
    out, gd = grads(lambda q, k, v: ops.attention(q, k, v), qd, kv.contiguous(), kv.contiguous())
    ref, rgd = grads(lambda q, k, v: attention_ref(q, k, v, False), qd, kv.contiguous(), kv.contiguous())
    for x, r in zip(gd, rgd):
        close(x, r, torch.bfloat16, factor=2)


def test_broadcast_and_sliced_rows():
    # A bias broadcast over the rows (row stride 0) and a column slice (an offset pointer).
    x = rand(64, seed=3).expand(33, 64)
    close(ops.softmax(x), torch.softmax(x.float(), -1).to(torch.bfloat16), torch.bfloat16)
    wide = rand(33, 100, seed=4)
    sl = wide[:, 3:67]
    close(ops.rmsnorm(sl), F.rms_norm(sl.float(), (64,), eps=1e-6).to(torch.bfloat16), torch.bfloat16)
    h = rand(64, seed=5).expand(33, 64)
    y, s = ops.rmsnorm(sl, residual=h)
    close(s, (sl.float() + h.float()).to(torch.bfloat16), torch.bfloat16)


# ---- rows ----------------------------------------------------------------------------------------
ROWS = [(1, 1), (3, 1031), (257, 4097), (2, 3, 96)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", ROWS)
def test_norms_and_softmax(dtype, shape):
    x = rand(*shape, dtype=dtype)
    c = shape[-1]
    w, bias = rand(c, dtype=dtype, seed=3), rand(c, dtype=dtype, seed=4)
    close(ops.layernorm(x, w, bias), F.layer_norm(x.float(), (c,), w.float(), bias.float(), 1e-5).to(dtype), dtype)
    close(ops.layernorm(x), F.layer_norm(x.float(), (c,)).to(dtype), dtype)
    close(ops.rmsnorm(x, w), F.rms_norm(x.float(), (c,), w.float(), 1e-6).to(dtype), dtype)
    close(ops.softmax(x), torch.softmax(x.float(), -1).to(dtype), dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("shape", [(37, 128), (19, 5120), (3, 4099), (2, 3, 96)])
def test_norms_with_the_residual_add(dtype, shape):
    """(norm(x + h), x + h) from one kernel: the sum rounded as torch's add rounds it, then normalized;
    the gradients (the norm's on s, plus what reaches s itself) against torch's autograd."""
    c = shape[-1]
    x, h = rand(*shape, dtype=dtype), rand(*shape, dtype=dtype, seed=5)
    w, bias = rand(c, dtype=dtype, seed=3), rand(c, dtype=dtype, seed=4)
    y, s = ops.rmsnorm(x, w, residual=h)
    assert torch.equal(s, x + h)
    close(y, F.rms_norm((x + h).float(), (c,), w.float(), 1e-6).to(dtype), dtype)
    y, s = ops.layernorm(x, w, bias, residual=h)
    assert torch.equal(s, x + h)
    close(y, F.layer_norm((x + h).float(), (c,), w.float(), bias.float(), 1e-5).to(dtype), dtype)
    if dtype != torch.float32:
        return
    for mine, ref in [
        (lambda x, h, w: ops.rmsnorm(x, w, residual=h), lambda x, h, w: (F.rms_norm(x + h, (c,), w, 1e-6), x + h)),
        (lambda x, h, w: ops.layernorm(x, w, None, residual=h),
         lambda x, h, w: (F.layer_norm(x + h, (c,), w, None, 1e-5), x + h)),
    ]:
        got, want = [], []
        for fn, into in ((mine, got), (ref, want)):
            ins = [t.detach().clone().requires_grad_(True) for t in (x, h, w)]
            out_y, out_s = fn(*ins)
            # s is used downstream as well (the residual stream): both outputs carry a gradient.
            (out_y * rand(*shape, dtype=dtype, seed=8)).sum().add_((out_s * rand(*shape, dtype=dtype, seed=9)).sum()).backward()
            into.extend([out_y, out_s] + [t.grad for t in ins])
        for a, b in zip(got, want):
            close(a, b, dtype, factor=50)
    with pytest.raises(sol.Error, match="residual must be"):
        ops.rmsnorm(x, w, residual=h[..., :-1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", [(37, 128), (19, 5120), (3, 4099), (2, 3, 96)])
def test_norms_write_e4m3_codes(dtype, shape):
    """y's e4m3 codes in place of y (fp8_scale): torch's saturating cast (y·scale clamped to ±448,
    rounded to nearest even) of the y a call without fp8_scale writes, with and without the
    residual add; none under autograd. That y comes from another kernel (the codes' kernels are
    instantiations of their own), whose fp32 arithmetic may round a y the other way: a code may
    then be one e4m3 step off, and few are (the C++ tests check the codes bit for bit against the
    y the same kernel writes)."""
    c = shape[-1]
    x, h = rand(*shape, dtype=dtype), rand(*shape, dtype=dtype, seed=5)
    w, bias = rand(c, dtype=dtype, seed=3), rand(c, dtype=dtype, seed=4)
    scale = torch.tensor([100.0], device="cuda")

    def same_codes(got, y):
        want = (y.float() * scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        assert got.dtype == torch.float8_e4m3fn and got.shape == want.shape
        torch.testing.assert_close(got.float(), want.float(), rtol=0.125, atol=2.0**-9)  # one e4m3 step
        assert (got.view(torch.uint8) != want.view(torch.uint8)).float().mean().item() <= 0.01

    with torch.no_grad():
        same_codes(ops.rmsnorm(x, w, fp8_scale=scale), ops.rmsnorm(x, w))
        got, s = ops.layernorm(x, w, bias, residual=h, fp8_scale=scale)
        y, s2 = ops.layernorm(x, w, bias, residual=h)
        assert torch.equal(s, s2)
        same_codes(got, y)
    with pytest.raises(sol.Error, match="no gradient"):
        ops.rmsnorm(x.requires_grad_(), w, fp8_scale=scale)


def test_softmax_vocabulary_row():
    x = rand(2, 151937, dtype=torch.float32)
    close(ops.softmax(x), torch.softmax(x, -1), torch.float32)


@pytest.mark.parametrize("shape", [(3, 1031), (65, 4096)])
def test_row_gradients(shape):
    dtype = torch.float32
    c = shape[-1]
    x, w, bias = rand(*shape, dtype=dtype), rand(c, dtype=dtype, seed=3), rand(c, dtype=dtype, seed=4)
    for mine, ref, ins in [
        (lambda x, w, b: ops.layernorm(x, w, b), lambda x, w, b: F.layer_norm(x, (c,), w, b, 1e-5), (x, w, bias)),
        (lambda x, w: ops.rmsnorm(x, w), lambda x, w: F.rms_norm(x, (c,), w, 1e-6), (x, w)),
        (ops.softmax, lambda x: torch.softmax(x, -1), (x,)),
    ]:
        out, g = grads(mine, *ins)
        r, rg = grads(ref, *ins)
        close(out, r, dtype, factor=10)
        for a, b in zip(g, rg):
            close(a, b, dtype, factor=50)


# ---- MX and copy -----------------------------------------------------------------------------------
@pytest.mark.parametrize("columnwise", [False, True])
@pytest.mark.parametrize("elem", ["fp8_e4m3", "fp8_e5m2"])
def test_mx_round_trip(columnwise, elem):
    x = rand(67, 129)
    codes, scales = ops.mx_quantize(x, elem=elem, columnwise=columnwise)
    back = ops.mx_dequantize(codes, scales, elem=elem, columnwise=columnwise)
    assert rel_l2(back, x) < (0.07 if elem == "fp8_e4m3" else 0.15)


def test_copy():
    x = rand(33, 17).t()
    assert torch.equal(ops.copy(x), x.contiguous())


# ---- linear + cross-entropy --------------------------------------------------------------------------
def lce_inputs(rows, hidden, vocab, dtype, ignore_every=0, seed=0):
    """h [rows, hidden], W [vocab, hidden] scaled so that the logits spread about ±2, labels (every
    ignore_every-th -100)."""
    h = rand(rows, hidden, dtype=dtype, seed=seed)
    w = (rand(vocab, hidden, dtype=torch.float32, seed=seed + 1) * (2.0 / hidden**0.5)).to(dtype)
    g = torch.Generator(device=DEV).manual_seed(seed + 2)
    labels = torch.randint(0, vocab, (rows,), device=DEV, generator=g)
    if ignore_every:
        labels[ignore_every - 1::ignore_every] = -100
    return h, w, labels


def lce_float64(h, w, labels, smoothing, reduction):
    """F.linear + F.cross_entropy in float64, and the reduced loss's gradients."""
    hd, wd = h.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    loss = F.cross_entropy(F.linear(hd, wd), labels, ignore_index=-100, label_smoothing=smoothing, reduction=reduction)
    if reduction == "none":
        return loss, None, None
    return (loss, *torch.autograd.grad(loss, [hd, wd]))


# The logits and dlogits are stored in the dtype (one rounding each), as F.linear's output would be: a
# logit of about 2 is off by up to 2^-8 (bf16), which moves a row's loss of about log(vocab) by as much.
LCE_TOL = {torch.bfloat16: 3e-2, torch.float16: 1e-2}
LCE_LOSS_TOL = {torch.bfloat16: 1e-2, torch.float16: 3e-3}


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("rows,hidden,vocab", [(1, 64, 7), (17, 520, 32000), (1000, 64, 50257), (258, 4096, 32000)])
@pytest.mark.parametrize("reduction,smoothing,ignore_every", [("mean", 0.0, 0), ("mean", 0.1, 3), ("sum", 0.0, 5)])
def test_linear_cross_entropy_matches_float64(dtype, rows, hidden, vocab, reduction, smoothing, ignore_every):
    h, w, labels = lce_inputs(rows, hidden, vocab, dtype, ignore_every)
    want, want_dh, want_dw = lce_float64(h, w, labels, smoothing, reduction)
    hg, wg = h.clone().requires_grad_(), w.clone().requires_grad_()
    loss = ops.linear_cross_entropy(hg, wg, labels, label_smoothing=smoothing, reduction=reduction)
    assert loss.shape == () and loss.dtype == torch.float32
    assert abs(loss.item() - want.item()) <= LCE_LOSS_TOL[dtype] * abs(want.item())
    loss.backward(torch.tensor(0.75, device=DEV))  # the saved gradients scaled by the upstream one
    for got, ref in ((hg.grad, want_dh), (wg.grad, want_dw)):
        assert got.dtype == dtype and torch.isfinite(got).all()
        assert rel_l2(got, 0.75 * ref) <= LCE_TOL[dtype], f"rel L2 {rel_l2(got, 0.75 * ref):.3g}"


def test_linear_cross_entropy_chunks_agree():
    """Chunks of one row, of a few, of more than the rows and the rule's: the same loss, and gradients
    within the dtype's rounding (dW is rounded once per chunk as it accumulates)."""
    h, w, labels = lce_inputs(64, 128, 1000, torch.bfloat16, ignore_every=4)
    results = []
    for chunk in (0, 1, 7, 64, 10**6):
        hg, wg = h.clone().requires_grad_(), w.clone().requires_grad_()
        loss = ops.linear_cross_entropy(hg, wg, labels, label_smoothing=0.05, chunk_rows=chunk)
        loss.backward()
        results.append((loss.detach(), hg.grad, wg.grad))
    base = results[0]
    for loss, dh, dw in results[1:]:
        assert abs((loss - base[0]).item()) <= 1e-3 * abs(base[0].item())
        close(dh, base[1], torch.bfloat16)
        close(dw, base[2], torch.bfloat16, factor=2)


def test_linear_cross_entropy_per_row_and_no_grad():
    h, w, labels = lce_inputs(17, 520, 32000, torch.bfloat16, ignore_every=3)
    want, _, _ = lce_float64(h, w, labels, 0.0, "none")
    got = ops.linear_cross_entropy(h.view(1, 17, 520), w, labels.view(1, 17), reduction="none")
    assert got.shape == (1, 17) and got.dtype == torch.float32
    assert rel_l2(got.view(17), want) <= LCE_LOSS_TOL[torch.bfloat16]
    with pytest.raises(sol.Error, match="no backward"):
        ops.linear_cross_entropy(h.requires_grad_(), w, labels, reduction="none")
    with torch.no_grad():  # the loss alone: nothing saved, no gradient computed
        assert ops.linear_cross_entropy(h, w, labels, reduction="none").shape == (17,)


def test_linear_cross_entropy_compiles():
    h, w, labels = lce_inputs(129, 256, 5000, torch.bfloat16, ignore_every=7)

    def step(h, w):
        return ops.linear_cross_entropy(h, w, labels, label_smoothing=0.1) * 2

    grads = []
    for fn in (step, torch.compile(step, fullgraph=True)):
        hg, wg = h.clone().requires_grad_(), w.clone().requires_grad_()
        loss = fn(hg, wg)
        loss.backward()
        grads.append((loss.detach(), hg.grad, wg.grad))
    (l0, dh0, dw0), (l1, dh1, dw1) = grads
    assert abs((l0 - l1).item()) <= 1e-6 * abs(l0.item())
    close(dh1, dh0, torch.bfloat16, factor=0.1)
    close(dw1, dw0, torch.bfloat16, factor=0.1)
    assert ops.explain("linear_cross_entropy", h, w.requires_grad_(), labels)["shape"] == "rows=129,hidden=256,vocab=5000"


# ---- opcheck: schema, fake, autograd registration, and dispatch consistency -----------------------
def opcheck_cases():
    x, w = rand(5, 96, dtype=torch.float32), rand(96, dtype=torch.float32, seed=1)
    q, k = rand(1, 9, 2, 64), rand(1, 11, 1, 64, seed=1)
    return [
        (torch.ops.sol.matmul.default, (rand(5, 7, dtype=torch.float32), rand(7, 3, dtype=torch.float32), None)),
        (torch.ops.sol.attention.default, (q, k, k, True, 0.0)),
        (torch.ops.sol.layernorm.default, (x, w, w, 1e-5)),
        (torch.ops.sol.rmsnorm.default, (x, w, 1e-6)),
        (torch.ops.sol.softmax.default, (x,)),
        (torch.ops.sol.mx_quantize.default, (rand(33, 64), "fp8_e4m3", "ceil", False)),
        (torch.ops.sol.copy.default, (x,)),
        (torch.ops.sol.linear_cross_entropy.default, (*lce_inputs(17, 96, 333, torch.bfloat16, 4), -100, 0.1, "mean", 0,
                                                      True, True)),
    ]


@pytest.mark.parametrize("i", range(8))
def test_opcheck(i):
    op, args = opcheck_cases()[i]
    differentiable = i < 5 or i == 7  # all but mx_quantize and copy have a backward
    args = tuple(a.detach().requires_grad_(differentiable and a.is_floating_point()) if isinstance(a, torch.Tensor)
                 else a for a in args)
    torch.library.opcheck(op, args)


# ---- the eager path: the op's body without the dispatcher --------------------------------------------
def test_the_eager_path_matches_the_op_and_skips_it(monkeypatch):
    x, w, b = rand(33, 1031), rand(1031, seed=1), rand(1031, seed=2)
    q, k = rand(2, 5, 4, 64), rand(2, 37, 2, 64, seed=3)
    m, n = rand(17, 65), rand(33, 65, seed=4).t()
    pairs = [
        (ops.rmsnorm(x, w), torch.ops.sol.rmsnorm(x, w, 1e-6)[0]),
        (ops.layernorm(x, w, b), torch.ops.sol.layernorm(x, w, b, 1e-5)[0]),
        (ops.softmax(x), torch.ops.sol.softmax(x)),
        (ops.matmul(m, n), torch.ops.sol.matmul(m, n, None)),
        (ops.attention(q, k, k, causal=True), torch.ops.sol.attention(q, k, k, True, 0.0)[0]),
        (ops.copy(x.t()), torch.ops.sol.copy(x.t())),
    ]
    for eager, op in pairs:
        close(eager, op, eager.dtype, factor=0.1)
    calls = []
    for name in ("_rmsnorm", "_matmul", "_attention"):
        op = getattr(ops, name)
        monkeypatch.setattr(ops, name, lambda *a, op=op: calls.append(op) or op(*a))
    ops.rmsnorm(x, w), ops.matmul(m, n), ops.attention(q, k, k)
    assert calls == []  # no gradient to record: the custom ops were not called
    ops.rmsnorm(x.requires_grad_(), w)
    assert len(calls) == 1


def test_the_eager_path_on_another_device():
    if torch.cuda.device_count() < 2:
        pytest.skip("one GPU: the device guard of a launch on another device is not exercised")
    x = rand(64, 4096).to("cuda:1")
    with torch.cuda.device(0):
        y = ops.rmsnorm(x)
        assert torch.cuda.current_device() == 0 and y.device == x.device
    close(y, F.rms_norm(x.float(), (4096,), eps=1e-6).to(x.dtype), x.dtype)


# ---- the current stream ---------------------------------------------------------------------------
def test_current_stream_and_graph_capture():
    x, w = rand(1024, 4096), rand(4096, seed=1)
    ref = ops.rmsnorm(x, w)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = ops.rmsnorm(x, w)
    side.synchronize()
    assert torch.equal(y, ref)
    # Capture fails for a kernel launched on any other stream than the capturing one.
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        yg = ops.rmsnorm(x, w)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(yg, ref)


# ---- torch.compile of a Llama-style block ------------------------------------------------------------
def test_compiled_llama_block_matches_eager():
    s = llama.Shape(batch=2, seq=129, d_model=512, heads=8, kv_heads=2, ffn=1408)
    x = rand(s.batch, s.seq, s.d_model, grad=True)
    w = llama.weights(s, generator=torch.Generator(device=DEV).manual_seed(0))
    eager = llama.sol_block(s, x, w)
    compiled = torch.compile(lambda x, *w: llama.sol_block(s, x, list(w)), fullgraph=True)(x, *w)
    close(compiled, eager, torch.bfloat16, factor=0.5)  # inductor fuses the SwiGLU product
    ref = llama.torch_block(s, x, w)
    close(eager, ref, torch.bfloat16, factor=2)
    dout = rand(*eager.shape, seed=5)
    g_sol = torch.autograd.grad(eager, [x, *w], dout)
    g_ref = torch.autograd.grad(ref, [x, *w], dout)
    for a, b in zip(g_sol, g_ref):
        close(a, b, torch.bfloat16, factor=4)


# ---- DLPack ------------------------------------------------------------------------------------------
def test_cupy_round_trip():
    cp = pytest.importorskip("cupy")
    x = cp.random.standard_normal((33, 1031), dtype=cp.float32)
    y = ops.softmax(x)
    assert isinstance(y, cp.ndarray)
    ref = torch.softmax(torch.from_dlpack(x), -1)
    close(torch.from_dlpack(y), ref, torch.float32)


# ---- explain and measure --------------------------------------------------------------------------------
def test_explain_names_an_implementation():
    x, w = rand(64, 4096), rand(4096, seed=1)
    c = ops.explain("rmsnorm", x, w)
    assert c["implementation"] and c["reason"] and c["shape"] == "rows=64,cols=4096"
    assert ops.explain("matmul", rand(256, 512), rand(1024, 512).t())["implementation"]
    # What explain names, the doctor diagnoses: a time of one's own beside the kernel's prediction.
    m = sol.measure(ops.rmsnorm, x, w, bytes=2 * x.numel() * 2, quiet=True)
    d = sol.doctor(c["implementation"], c["shape"], measured=m)
    assert d.family + "/" + d.variant == c["implementation"] and d.measured_s == m.time_s and d.predicted_s > 0


def test_measure_a_matmul():
    n = 4096
    a = rand(n, n)
    m = sol.measure(torch.mm, a, a, flops=2 * n**3, bytes=3 * 2 * n**2, quiet=True)
    assert m.gpu == sol.harness.row_for_device(torch.cuda.get_device_name())
    assert 0 < m.min_s <= m.time_s <= m.max_s and m.samples == 100
    assert 0.05 < m.compute_fraction < 1.2 and m.verdict in ("compute", "neither")
    g = sol.measure(torch.mm, a, a, flops=2 * n**3, bytes=3 * 2 * n**2, graph=True, quiet=True)
    assert g.graph and 0.5 < g.time_s / m.time_s < 2
    r = sol.measure(lambda x: x.mul_(1.0001), inputs=lambda: (rand(1 << 24, dtype=torch.float32),),
                    bytes=2 * 4 * (1 << 24), quiet=True)
    assert r.input_sets * 4 * (1 << 24) > 2 * sol.hw.get(r.gpu).l2_bytes and r.verdict != "unknown"


# JAX last: it takes its GPU memory pool when first used.
def test_jax_round_trip():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave torch its memory
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("jax sees no GPU (jax[cuda] is not installed)")
    x = jax.random.normal(jax.random.PRNGKey(0), (17, 4097), dtype=jnp.float32)
    y = ops.rmsnorm(x)
    assert isinstance(y, jax.Array)
    ref = F.rms_norm(torch.from_dlpack(x), (4097,), eps=1e-6)
    close(torch.from_dlpack(y), ref, torch.float32)

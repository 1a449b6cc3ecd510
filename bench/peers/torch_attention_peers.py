"""PyTorch peers of the attention families, called by torch_peers.py (--family attention or
attention_bwd) with its helpers.

Shapes are those of kernels/attention/case.hpp: b, h, n, d[, hkv, nk, causal, wl, wr, softcap, fp16].
A sliding window (wl, wr) or a softcap gets no peer: SDPA's FlashAttention and cuDNN backends have
neither (a mask or score_mod would run another kernel, not like for like). Layout BSHD as
the Cases: Q, O [b, n, h, d], K, V [b, nk, hkv, d]; SDPA gets q.transpose(1, 2) (a view, no copy).
Peers: torch.nn.functional.scaled_dot_product_attention under sdpa_kernel(SDPBackend.FLASH_ATTENTION)
(FlashAttention-2) and sdpa_kernel(SDPBackend.CUDNN_ATTENTION). Backward (attention_bwd): forward run
once per input set when it is made (untimed), then torch.autograd.grad(out, (q, k, v), dO, retain_graph=True) timed.
Causal: PyTorch's is_causal is top-left aligned, sol's bottom-right; they agree when n == nk. One query
row (decode, n = 1) sees every key bottom-right: no mask. Other forwards with n ≠ nk (speculative decode,
a few tokens against a cache) pass attn_mask=torch.nn.attention.bias.causal_lower_right(n, nk), which
torch serves through its FlashAttention or memory-efficient kernels where it can (a backend that refuses
it is recorded as not run, with torch's reason); the backward of such a shape gets no peer. GQA shapes
pass enable_gqa (K and V are not expanded). FLOPs and bytes: the family's floor at the shape (the least
traffic of sol's variants of the dtype, from the harness's request). Inputs: ±[0.25, 4) like
kernels/common/random.cuh, so the softmax is peaked.
"""


class Tensors(tuple):
    """Several tensors as one peer input: run_peer sizes its rotation by numel() · element_size()."""

    def numel(self):
        return sum(t.numel() * t.element_size() for t in self)

    def element_size(self):
        return 1


def _dims(dims, family, fail):
    d = dict(dims)
    allowed = {"b", "h", "n", "d", "hkv", "nk", "causal", "wl", "wr", "softcap", "fp16", "det"}
    if any(k not in d for k in ("b", "h", "n", "d")) or any(k not in allowed for k in d):
        fail(2, f"shape does not fit {family}: give b, h, n, d [hkv, nk, causal, wl, wr, softcap, fp16, det]")
    d.setdefault("hkv", d["h"])
    d.setdefault("nk", d["n"])
    d.setdefault("causal", 0)
    d.setdefault("fp16", 0)
    return d


def _signed(torch, shape, device, dtype):
    x = torch.rand(shape, device=device).mul_(3.75).add_(0.25)
    return x.mul_(torch.randint(0, 2, shape, device=device, dtype=torch.int8).mul_(2).sub_(1)).to(dtype)


def _reference(torch, q, k, v, causal, scale):
    """O in float64 per (batch, head): [b, n, h, d]; causal bottom-right (== top-left when n == nk)."""
    b, n, h, d = q.shape
    nk, hkv = k.shape[1], k.shape[2]
    out = torch.empty(q.shape, dtype=torch.float64, device=q.device)
    for bi in range(b):
        for hi in range(h):
            qh = q[bi, :, hi].double()
            kh, vh = k[bi, :, hi // (h // hkv)].double(), v[bi, :, hi // (h // hkv)].double()
            s = qh @ kh.T * scale
            if causal:
                i = torch.arange(n, device=q.device)[:, None]
                j = torch.arange(nk, device=q.device)[None, :]
                s = s.masked_fill(j > i + nk - n, float("-inf"))
            out[bi, :, hi] = torch.nan_to_num(torch.softmax(s, dim=-1)) @ vh
    return out


def peers(torch, timer, device, dims, costs, run_peer, fail, backward=False):
    family = "attention_bwd" if backward else "attention"
    x = _dims(dims, family, fail)
    if any(k in x for k in ("wl", "wr", "softcap")):
        return  # a window or softcap: no like-for-like peer (the module's note)
    b, h, hkv, n, nk, d, causal = x["b"], x["h"], x["hkv"], x["n"], x["nk"], x["d"], bool(x["causal"])
    if causal and n == 1:
        causal = False  # bottom-right, the one query row sees every key
    lower_right = causal and n != nk
    if lower_right and backward:
        return  # torch's is_causal is top-left aligned: no like-for-like peer
    if x.get("det"):
        return  # det=1 is sol's deterministic dQ; the peers are measured once, at det=0
    F = torch.nn.functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dtype = torch.float16 if x["fp16"] else torch.bfloat16
    dtype_name = "fp16" if x["fp16"] else "bf16"
    scale = d ** -0.5
    cost = costs.floor(dtype_name)
    tol = 1e-2

    gqa = {"enable_gqa": True} if hkv != h else {}  # torch ≥ 2.5; older torch fails inside run_peer

    mask = {"is_causal": causal}
    if lower_right:
        try:
            from torch.nn.attention.bias import causal_lower_right  # torch ≥ 2.3
        except ImportError:
            return  # no lower-right mask in this torch: no like-for-like peer
        mask = {"attn_mask": causal_lower_right(n, nk)}
    mask_text = ", attn_mask=causal_lower_right(n, nk)" if lower_right else ""

    def sdpa(q, k, v):
        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), scale=scale,
                                              **mask, **gqa).transpose(1, 2)

    def make():
        grad = backward
        q = _signed(torch, (b, n, h, d), device, dtype).requires_grad_(grad)
        k = _signed(torch, (b, nk, hkv, d), device, dtype).requires_grad_(grad)
        v = _signed(torch, (b, nk, hkv, d), device, dtype).requires_grad_(grad)
        if not backward:
            return Tensors((q, k, v))
        do = _signed(torch, (b, n, h, d), device, dtype)
        return Tensors((q, k, v, do))

    backends = [("flash", SDPBackend.FLASH_ATTENTION)]
    if hasattr(SDPBackend, "CUDNN_ATTENTION"):  # torch ≥ 2.3
        backends.append(("cudnn", SDPBackend.CUDNN_ATTENTION))
    for name, backend in backends:
        if not backward:
            def fn(t, be=backend):
                with sdpa_kernel(be):
                    return sdpa(*t)

            yield run_peer(torch, timer, family, f"peer:torch.sdpa_{name}",
                           f"F.scaled_dot_product_attention, SDPBackend.{backend.name}{mask_text}", dims, make, fn,
                           lambda t: _reference(torch, t[0], t[1], t[2], causal, scale), cost, tol,
                           dtype=dtype_name, unit="matrix")
            continue

        def make_bwd(be=backend):
            t = make()  # the forward runs here, once per input set, outside the timed call
            with sdpa_kernel(be):
                return Tensors(tuple(t) + (sdpa(t[0], t[1], t[2]),))

        def fn(t, be=backend):
            with sdpa_kernel(be):
                dq, dk, dv = torch.autograd.grad(t[4], (t[0], t[1], t[2]), t[3], retain_graph=True)
            return dq[:, :, :1]  # head 0 is checked (a view: nothing copied in the timed call)

        def ref(t):
            q = t[0].detach()[:, :, :1].double().requires_grad_(True)
            o = _reference(torch, q, t[1].detach()[:, :, :1], t[2].detach()[:, :, :1], causal, scale)
            (dq,) = torch.autograd.grad(o, (q,), t[3][:, :, :1].double())
            return dq

        yield run_peer(torch, timer, family, f"peer:torch.sdpa_{name}_backward",
                       f"autograd.grad of F.scaled_dot_product_attention, SDPBackend.{backend.name}", dims, make_bwd, fn,
                       ref, cost, 2e-2,
                       "dQ of head 0 checked; the forward of each input set runs when the set is made, untimed",
                       dtype=dtype_name, unit="matrix")

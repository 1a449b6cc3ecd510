"""PyTorch peers of the mx family, called by torch_peers.py (family mx) with its helpers.

Shapes are those of kernels/mx/case.hpp: rows,cols[,e5m2,ocp] (quantize), rows,cols[,e5m2,colwise]
(dequantize) and m,n,k[,e5m2,ocp] (GEMM); special=1 shapes are for tests and get no peer. FLOPs
and bytes of the quantizers and the dequantizer are those of sol's v02_rowwise and v05_dequantize
at the shape (from the harness's request); the cast and the GEMM, operations no sol variant runs,
count their own. Peers:
  quantize   x.to(torch.float8_e4m3fn) — a plain cast, no scales (about 3.27 TB/s on H200); an
             eager PyTorch MXFP8 rowwise quantizer (amax per 32, e8m0 scale by the same rule,
             divide, cast) and, with torch.compile peers on, the same function compiled;
             torchao's MXTensor.to_mx when torchao is installed
  dequantize the eager inverse: codes.float() · 2^(scale − 127) → bf16
  GEMM       torch.matmul on bf16 (the accuracy and speed MXFP8 is compared with)
Inputs: N(0, 1) in bf16, rotated like the Cases' sets. Every peer states dtype "bf16", as the
Cases' costs do (the quantizers read bf16; the dequantizer writes it).
"""
BLOCK = 32
MAX_ELEM = {"e4m3": 448.0, "e5m2": 57344.0}
EMAX = {"e4m3": 8, "e5m2": 15}
# rel-L2 error of an MXFP8 round trip on N(0, 1): ≈ 2.7 % (e4m3), ≈ 5.4 % (e5m2); twice that allowed.
QUANT_TOL = {"e4m3": 0.06, "e5m2": 0.12}


def _dims(dims):
    return dict(dims)


class Tensors(tuple):
    """Several tensors as one peer input: run_peer sizes its rotation by numel() · element_size()."""

    def numel(self):
        return sum(t.numel() * t.element_size() for t in self)

    def element_size(self):
        return 1


class Rowwise(Tensors):
    """(codes, scales) of a rowwise quantization; double() dequantizes, for run_peer's check only,
    so the timed call is the quantizer alone."""

    def double(self):
        codes, scales = self
        rows, cols = codes.shape
        x = codes.double().reshape(rows, cols // BLOCK, BLOCK) * (2.0 ** (scales.double() - 127)).unsqueeze(-1)
        return x.reshape(rows, cols)


def _fp8(torch, elem):
    return getattr(torch, "float8_e4m3fn" if elem == "e4m3" else "float8_e5m2", None)


def _scale_exponent(torch, amax, elem, ocp):
    """k of X = 2^k per block from amax (fp32), by the rule of formats/mx_block.hpp."""
    amax = amax.float()
    if ocp:
        k = torch.floor(torch.log2(amax)) - EMAX[elem]
    else:
        k = torch.ceil(torch.log2(amax / MAX_ELEM[elem]))
    k = torch.where(amax == 0, torch.full_like(k, -127.0), k)
    return torch.clamp(k, -127.0, 127.0)


def _mx_rowwise(torch, elem, ocp):
    fp8 = _fp8(torch, elem)

    def quantize(x):
        rows, cols = x.shape
        xb = x.view(rows, cols // BLOCK, BLOCK)
        k = _scale_exponent(torch, xb.abs().amax(dim=-1, keepdim=True), elem, ocp)
        codes = (xb.float() * torch.exp2(-k)).clamp(-MAX_ELEM[elem], MAX_ELEM[elem]).to(fp8)
        return codes.view(rows, cols), (k + 127).to(torch.uint8).view(rows, cols // BLOCK)

    return quantize


def _dequantize_rowwise(torch, codes, scales):
    rows, cols = codes.shape
    x = codes.float().reshape(rows, cols // BLOCK, BLOCK) * torch.exp2(scales.float() - 127).unsqueeze(-1)
    return x.reshape(rows, cols)


def peers(torch, timer, device, dims, costs, run_peer, compile_peers=True):
    d = _dims(dims)
    if d.get("special", 0):
        return
    elem = "e5m2" if d.get("e5m2", 0) else "e4m3"
    fp8 = _fp8(torch, elem)
    if "m" in d:
        yield from _gemm(torch, timer, device, dims, d, costs, run_peer)
        return
    rows, cols = d["rows"], d["cols"]
    n = rows * cols
    normal = lambda: torch.randn(rows, cols, device=device).to(torch.bfloat16)  # noqa: E731
    if fp8 is None:
        return
    if cols % BLOCK or rows % BLOCK:
        yield from _cast(torch, timer, dims, normal, fp8, elem, n, costs, run_peer)
        return  # the eager MX helpers below take whole blocks
    if "colwise" in d:
        colwise = bool(d["colwise"])
        quantize = _mx_rowwise(torch, elem, False)
        if colwise:
            make = lambda: Tensors(t.t().contiguous() for t in quantize(normal().t().contiguous()))  # noqa: E731
            deq = lambda q: _dequantize_rowwise(torch, q[0].t(), q[1].t()).t()  # noqa: E731
        else:
            make = lambda: Tensors(quantize(normal()))  # noqa: E731
            deq = lambda q: _dequantize_rowwise(torch, q[0], q[1])  # noqa: E731
        yield run_peer(torch, timer, "mx", f"peer:torch.mx_dequantize_{elem}",
                       f"eager codes.float() · 2^(scale − 127) → bf16 ({'columnwise' if colwise else 'rowwise'} scales)",
                       dims, make, lambda q: deq(q).to(torch.bfloat16), lambda q: deq(q).double(),
                       costs.of("v05_dequantize"), 0.0, dtype="bf16")
        return
    yield from _cast(torch, timer, dims, normal, fp8, elem, n, costs, run_peer)
    ocp = bool(d.get("ocp", 0))
    rowwise = costs.of("v02_rowwise")
    quantize = _mx_rowwise(torch, elem, ocp)
    reference = lambda x: x.double()  # noqa: E731
    quantizers = [(f"peer:torch.mx_rowwise_{elem}",
                   "eager PyTorch MXFP8 rowwise quantizer (amax, e8m0 scale, scale, cast)", quantize)]
    if compile_peers:
        quantizers.append((f"peer:torch.compile_mx_rowwise_{elem}", "the same quantizer through torch.compile",
                           torch.compile(quantize)))
    for variant, technique, fn in quantizers:
        yield run_peer(torch, timer, "mx", variant, technique, dims, normal, lambda x, f=fn: Rowwise(f(x)), reference,
                       rowwise, QUANT_TOL[elem], dtype="bf16")
    try:
        from torchao.prototype.mx_formats.mx_tensor import MXTensor  # optional
    except Exception:  # noqa: BLE001 — any import failure means "not installed here"
        return
    yield run_peer(torch, timer, "mx", f"peer:torchao.to_mx_{elem}", "torchao MXTensor.to_mx (its default scale rule)",
                   dims, normal, lambda x: MXTensor.to_mx(x, fp8, BLOCK).to_dtype(torch.bfloat16), reference,
                   rowwise, QUANT_TOL[elem], "torchao prototype API; time includes the dequantization",
                   dtype="bf16")


def _cast(torch, timer, dims, normal, fp8, elem, n, costs, run_peer):
    kind = "float8_e4m3fn" if elem == "e4m3" else "float8_e5m2"
    yield run_peer(torch, timer, "mx", f"peer:torch.to_{elem}", f"x.to(torch.{kind}): a plain cast, no block scales",
                   dims, normal, lambda x: x.to(fp8), lambda x: x.double(), costs.own(0, 3 * n), QUANT_TOL[elem],
                   "flops = 0; bytes = n × (2 read + 1 written); out-of-range values would become NaN (e4m3) or "
                   "inf (e5m2)",
                   dtype="bf16")


def _gemm(torch, timer, device, dims, d, costs, run_peer):
    m, n, k = d["m"], d["n"], d["k"]
    if d.get("e5m2", 0) or d.get("ocp", 0):
        return
    make = lambda: Tensors((torch.randn(m, k, device=device).to(torch.bfloat16),  # noqa: E731
                            torch.randn(k, n, device=device).to(torch.bfloat16)))
    yield run_peer(torch, timer, "mx", "peer:torch.matmul_bf16", "torch.matmul on bf16 (cuBLAS; bf16 output)", dims,
                   make, lambda ab: torch.matmul(ab[0], ab[1]), lambda ab: ab[0].double() @ ab[1].double(),
                   costs.own(2 * m * n * k, 2 * (m * k + k * n + m * n)), 1e-2,
                   "flops = 2·m·n·k; bytes = 2(mk + kn + mn); bf16 output rounds to 8 bits", dtype="bf16",
                   unit="matrix")

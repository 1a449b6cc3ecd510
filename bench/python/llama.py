"""A Llama-style decoder block (RMSNorm → grouped-query attention → residual → RMSNorm → SwiGLU MLP
→ residual), written twice over one set of weights: with sol.ops, and with PyTorch's own operators
(the eager and torch.compile peers). Shared by tests/python/test_ops*.py and bench/python/."""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

import sol.ops as ops


@dataclass(frozen=True)
class Shape:
    batch: int
    seq: int
    d_model: int
    heads: int
    kv_heads: int
    ffn: int
    eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.d_model // self.heads


LLAMA3_8B = Shape(batch=4, seq=2048, d_model=4096, heads=32, kv_heads=8, ffn=14336)


def weights(s: Shape, device: str = "cuda", dtype: torch.dtype = torch.bfloat16, grad: bool = True,
            generator: torch.Generator | None = None) -> list[torch.Tensor]:
    """[norm1, wq, wk, wv, wo, norm2, w_gate, w_up, w_down], nn.Linear layout (out × in), scaled 1/√in."""
    kv = s.kv_heads * s.head_dim

    def lin(o: int, i: int) -> torch.Tensor:
        w = torch.randn(o, i, device=device, dtype=torch.float32, generator=generator) / i**0.5
        return w.to(dtype).requires_grad_(grad)

    def norm() -> torch.Tensor:
        return (1 + 0.1 * torch.randn(s.d_model, device=device, generator=generator)).to(dtype).requires_grad_(grad)

    return [norm(), lin(s.d_model, s.d_model), lin(kv, s.d_model), lin(kv, s.d_model), lin(s.d_model, s.d_model),
            norm(), lin(s.ffn, s.d_model), lin(s.ffn, s.d_model), lin(s.d_model, s.ffn)]


def sol_block(s: Shape, x: torch.Tensor, w: list[torch.Tensor]) -> torch.Tensor:
    """The block from sol.ops; x is [batch, seq, d_model]."""
    n1, wq, wk, wv, wo, n2, wg, wu, wd = w
    b, n, d = x.shape
    hd = s.head_dim
    h = ops.rmsnorm(x, n1, s.eps).reshape(b * n, d)
    q = ops.matmul(h, wq.t()).view(b, n, s.heads, hd)
    k = ops.matmul(h, wk.t()).view(b, n, s.kv_heads, hd)
    v = ops.matmul(h, wv.t()).view(b, n, s.kv_heads, hd)
    a = ops.attention(q, k, v, causal=True).reshape(b * n, d)
    x = x + ops.matmul(a, wo.t()).view(b, n, d)
    h = ops.rmsnorm(x, n2, s.eps).reshape(b * n, d)
    m = F.silu(ops.matmul(h, wg.t())) * ops.matmul(h, wu.t())
    return x + ops.matmul(m, wd.t()).view(b, n, d)


def torch_block(s: Shape, x: torch.Tensor, w: list[torch.Tensor]) -> torch.Tensor:
    """The same block from PyTorch's operators (SDPA with enable_gqa, F.rms_norm, F.linear)."""
    n1, wq, wk, wv, wo, n2, wg, wu, wd = w
    b, n, d = x.shape
    hd = s.head_dim
    h = F.rms_norm(x, (d,), n1, s.eps)
    q = F.linear(h, wq).view(b, n, s.heads, hd).transpose(1, 2)
    k = F.linear(h, wk).view(b, n, s.kv_heads, hd).transpose(1, 2)
    v = F.linear(h, wv).view(b, n, s.kv_heads, hd).transpose(1, 2)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    x = x + F.linear(a.transpose(1, 2).reshape(b, n, d), wo)
    h = F.rms_norm(x, (d,), n2, s.eps)
    return x + F.linear(F.silu(F.linear(h, wg)) * F.linear(h, wu), wd)

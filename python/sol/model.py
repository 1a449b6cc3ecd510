"""Op models: FLOPs and bytes of an operation, placed on a chip's roofline (lecture §6).

    >>> op = sol.model.matmul(4096, 4096, 4096, dtype="bf16")
    >>> op.roofline(gpu="h200").bound
    'compute'
    >>> sol.model.layernorm(32768, 4096, impl="fused").roofline(gpu="h200").floor_s

Each constructor returns an :class:`Op`; ``Op.roofline`` returns a :class:`Roofline` whose fields
are those of ``sol roofline --json``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Optional

from . import _core


@dataclass(frozen=True)
class Level:
    level: str
    bytes: float
    bytes_per_s: float
    intensity_flops_per_byte: float
    ridge_flops_per_byte: float
    time_s: float
    binding: bool


@dataclass(frozen=True)
class Roofline:
    """The answer to one roofline question; the fields of ``sol roofline --json``."""

    op: str
    kind: str
    gpu: str
    gpu_full_name: str
    dtype: str
    unit: str
    flops: float
    bytes: float
    intensity_flops_per_byte: float
    ridge_flops_per_byte: float
    bound: str
    compute_s: float
    memory_s: float
    floor_s: float
    attainable_flops_per_s: float
    fraction_of_peak: float
    peak_flops_per_s: float
    peak_label: str
    peak_derivation: str
    bandwidth_bytes_per_s: float
    bandwidth_label: str
    measured: bool
    levels: list[Level]
    notes: list[str]
    math_dtype: Optional[str] = None  # when the arithmetic runs in another type than the storage
    saved_bytes: Optional[float] = None  # attention: kept for the backward
    mxu: Optional[dict[str, Any]] = None  # a TPU matmul: the systolic simulator's view

    @classmethod
    def from_json(cls, text: str) -> "Roofline":
        d = json.loads(text)
        d["levels"] = [Level(**lv) for lv in d["levels"]]
        return cls(**d)

    def line(self, name: str = "") -> str:
        """The lecture's two-line summary."""
        label = name or self.op
        bound = f"{self.bound}-bound"
        return (
            f"{label:24s} I={self.intensity_flops_per_byte:9.2f}  ridge={self.ridge_flops_per_byte:6.1f}  {bound}\n"
            f"{'':24s} floor {self.floor_s * 1e3:8.4f} ms   attainable {self.attainable_flops_per_s / 1e12:7.1f} TFLOP/s "
            f"({100 * self.fraction_of_peak:5.2f}% of peak)"
        )


def _ask(op: str, gpu: str, dtype: str, unit: str = "", impl: str = "", sizes: Optional[dict[str, int]] = None,
         flops_per_op: float = 1.0, causal: bool = False, backward: bool = False, l2_reuse: bool = False,
         flops: float = 0.0, bytes: float = 0.0, name: str = "") -> Roofline:
    return Roofline.from_json(_core.roofline_json(op, gpu, dtype, unit, impl, sizes or {}, flops_per_op, causal,
                                                  backward, l2_reuse, flops, bytes, name))


def roofline(flops: float, bytes: float, gpu: str = "h100", dtype: str = "bf16", unit: str = "",
             name: str = "", quiet: bool = False) -> Roofline:
    """The lecture's §6 calculator on sol's database: prints the two-line summary (unless ``quiet``)
    and returns the :class:`Roofline`. The peak is the matrix unit's for ``dtype`` unless ``unit``
    says ``"vector"``; the bandwidth is the chip's HBM."""
    r = _ask("custom", gpu, dtype, unit=unit, flops=float(flops), bytes=float(bytes), name=name)
    if not quiet:
        print(r.line(name))
    return r


@dataclass(frozen=True)
class Op:
    """An operation and its sizes, as ``sol roofline OP`` takes them."""

    kind: str
    dtype: str = "bf16"
    impl: str = ""
    sizes: dict[str, int] = field(default_factory=dict)
    flops_per_op: float = 1.0
    causal: bool = False
    backward: bool = False
    l2_reuse: bool = False

    def roofline(self, gpu: str = "h100", unit: str = "") -> Roofline:
        return _ask(self.kind, gpu, self.dtype, unit=unit, impl=self.impl, sizes=self.sizes,
                    flops_per_op=self.flops_per_op, causal=self.causal, backward=self.backward,
                    l2_reuse=self.l2_reuse)


def _sizes(**kw: Optional[int]) -> dict[str, int]:
    return {k: int(v) for k, v in kw.items() if v is not None}


def matmul(m: int, n: int, k: int, dtype: str = "bf16", impl: str = "minimal", tile: Optional[int] = None) -> Op:
    """C[m×n] = A[m×k]·B[k×n]; impl minimal (each operand once), naive or tiled (square ``tile``)."""
    return Op("matmul", dtype, impl, _sizes(m=m, n=n, k=k, tile=tile))


def elementwise(n: int, ops: int = 1, dtype: str = "bf16", impl: str = "naive", flops_per_op: float = 1.0,
                extra_reads: Optional[int] = None) -> Op:
    """A chain of ``ops`` elementwise ops over ``n`` elements, fused or naive (one pass per op)."""
    return Op("elementwise", dtype, impl, _sizes(n=n, ops=ops, extra_reads=extra_reads), flops_per_op=flops_per_op)


def layernorm(rows: int, cols: int, dtype: str = "bf16", impl: str = "naive") -> Op:
    return Op("layernorm", dtype, impl, _sizes(rows=rows, cols=cols))


def rmsnorm(rows: int, cols: int, dtype: str = "bf16", impl: str = "naive") -> Op:
    return Op("rmsnorm", dtype, impl, _sizes(rows=rows, cols=cols))


def softmax(rows: int, cols: int, dtype: str = "bf16", impl: str = "naive") -> Op:
    return Op("softmax", dtype, impl, _sizes(rows=rows, cols=cols))


def attention(seq: int, head_dim: int, batch: int = 1, heads: int = 1, dtype: str = "bf16", impl: str = "naive",
              causal: bool = False, backward: bool = False, block_q: Optional[int] = None,
              l2_reuse: bool = False) -> Op:
    """softmax(QKᵀ/√d)·V per (batch, head); impl naive (S and P in HBM) or flash."""
    return Op("attention", dtype, impl, _sizes(batch=batch, heads=heads, seq=seq, head_dim=head_dim, block_q=block_q),
              causal=causal, backward=backward, l2_reuse=l2_reuse)


def roofline_fields() -> list[str]:
    """The field names of :class:`Roofline` (those of ``sol roofline --json``)."""
    return [f.name for f in fields(Roofline)]

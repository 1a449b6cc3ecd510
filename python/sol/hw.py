"""The hardware database: every chip sol models, with each peak's derivation and source.

    >>> sol.hw.list()[:4]
    ['a100', 'a100-80gb', 'h100', 'h200']
    >>> h = sol.hw.get("h200")
    >>> h.peak("bf16").derivation
    '528 tensor cores × 1024 FLOP/clk × 1.830 GHz = 989.4 TFLOP/s'
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import _core
from ._args import text as _str


@dataclass(frozen=True)
class Peak:
    flops_per_s: float
    derivation: str
    source: str


@dataclass(frozen=True)
class Hardware:
    """One database row. ``spec`` is the row in the ``--hw-file`` JSON format (every field)."""

    name: str
    full_name: str
    vendor: str
    hbm_bytes_per_s: float
    l2_bytes: float
    spec: dict[str, Any]

    def peak(self, dtype: str = "bf16", unit: str = "matrix") -> Peak:
        """The peak for ``dtype`` on the ``matrix`` (tensor cores, MXU) or ``vector`` unit."""
        return Peak(*_core.hw_peak(self.name, _str("dtype", dtype), _str("unit", unit)))


def list() -> list[str]:  # noqa: A001 - the database's own verb
    """Names of the database's rows (built-ins, then rows loaded with :func:`load`)."""
    return _core.hw_names()


def get(name: str) -> Hardware:
    """One row by name (case-insensitive); ``"measured"`` is the profile ``sol probe`` saved."""
    spec = json.loads(_core.hw_json(_str("name", name)))
    return Hardware(
        name=spec["name"],
        full_name=spec.get("full_name", ""),
        vendor=spec.get("vendor", ""),
        hbm_bytes_per_s=float(spec.get("hbm_bytes_per_s", 0.0)),
        l2_bytes=float(spec.get("l2_bytes", 0.0)),
        spec=spec,
    )


def load(path: str) -> list[str]:
    """Adds the rows of a ``--hw-file`` JSON file to the database; returns their names."""
    return _core.load_hw_file(_str("path", path))

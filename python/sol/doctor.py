"""The doctor (lecture §12): what holds a kernel back at a shape, with a prescription per finding.

    >>> d = sol.doctor("rmsnorm/v03_one_read_bf16", "rows=32768,cols=4096", results="bench/results/h200")
    >>> d.cause, d.measured_s / d.predicted_s

The kernel is named as ``sol list`` names it (``FAMILY/VARIANT``; ``sol.ops.explain(...)`` gives
the one a sol op runs). The prediction is the model's from the variant's declarations; the time
beside it is a committed record's (``results``: a folder of results files, as ``sol doctor
--results``) or the caller's own (``measured``: seconds, or a :class:`sol.Measurement` from
:func:`sol.measure`). Without either, the findings are the model's alone. The same library code as
the CLI, so the fields are those of ``sol doctor --json``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Optional

from . import _core
from ._args import text as _str


@dataclass(frozen=True)
class Finding:
    topic: str          # "waves", "alignment", "rows", "launch", ...
    observation: str
    prescription: str
    problem: bool       # False: checked and fine


@dataclass(frozen=True)
class Diagnosis:
    family: str
    variant: str
    shape: str
    measured_s: Optional[float]   # None: no time at the shape
    predicted_s: float
    bound: str                    # the prediction's largest term: "memory", "compute", "launch", ...
    cause: str                    # the first problem's topic; "" when the model sees none
    origin: str                   # where the time comes from
    findings: tuple[Finding, ...]
    text: str                     # what `sol doctor` prints

    def __str__(self) -> str:
        return self.text


def doctor(variant: str, shape: Optional[str] = None, *, results: Optional[str] = None, measured: Any = None,
           gpu: Optional[str] = None) -> Diagnosis:
    """The diagnosis of ``variant`` (``"FAMILY/VARIANT"``) at ``shape`` (``"rows=4096,cols=5120"``;
    default: the first committed record's, else the variant's headline shape). ``measured``:
    seconds or a :class:`sol.Measurement` (its median, and its database row unless ``gpu`` says
    one). Raises :class:`sol.Error` with the CLI's one-line message."""
    seconds = 0.0
    if measured is not None:
        t = getattr(measured, "time_s", measured)
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
            raise _core.Error(f"measured must be seconds > 0 or a sol.Measurement, got {measured!r}")
        seconds = float(t)
        if gpu is None and hasattr(measured, "gpu"):
            gpu = measured.gpu
    d = json.loads(_core.doctor_json(_str("variant", variant), _str("shape", shape or ""),
                                     _str("results", results or ""), _str("gpu", gpu or ""), seconds))
    findings = tuple(Finding(f["topic"], f["observation"], f["prescription"], f["problem"]) for f in d["findings"])
    return Diagnosis(d["family"], d["variant"], d["shape"], d["measured_s"] or None, d["predicted_s"], d["bound"],
                     d["cause"], d["origin"], findings, d["text"])

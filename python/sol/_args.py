"""Argument checks at the boundary to the C++ core: a bad argument is a sol.Error with one line, as
the library's own are, never a truncated number or a binding's multi-line TypeError."""
from __future__ import annotations

import numbers
from typing import Any

from . import _core


INT32_END = 1 << 31  # hi for an argument the core takes as a C++ int


def integer(name: str, value: Any, lo: int = -(1 << 63), hi: int = 1 << 63) -> int:
    """An integer in [lo, hi): hi is INT32_END where the core takes a C++ int."""
    if isinstance(value, bool) or not isinstance(value, int) and not (hasattr(value, "__index__")):
        raise _core.Error(f"{name} must be an integer, got {value!r}")
    v = int(value.__index__())
    if not lo <= v < hi:
        raise _core.Error(f"{name} = {v} is out of range (give a value " + (f"≥ {lo})" if v < lo else f"< {hi})"))
    return v


def integers(name: str, values: Any) -> list[int]:
    if values is None:
        return []
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise _core.Error(f"{name} must be a sequence of integers, got {values!r}")
    return [integer(name, v) for v in values]


def number(name: str, value: Any) -> float:
    """A real number (an int, a float, a NumPy scalar), not a bool or a string; its range is the
    library's to check."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _core.Error(f"{name} must be a number, got {value!r}")
    return float(value)


def text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _core.Error(f"{name} must be a string, got {value!r}")
    return value


def flag(name: str, value: Any) -> bool:
    """True or False (or the integers 1 and 0); anything else is refused rather than read as truthy."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(value)
    raise _core.Error(f"{name} must be True or False, got {value!r}")

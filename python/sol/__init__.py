"""sol — speed of light for GPU and TPU kernels, from Python.

    >>> import sol
    >>> N = 4096
    >>> r = sol.roofline(flops=2 * N**3, bytes=2 * 3 * N**2, gpu="h100", name="matmul 4096^3")
    matmul 4096^3            I=  1365.33  ridge= 295.4  compute-bound
                             floor   0.1389 ms   attainable   989.4 TFLOP/s (100.00% of peak)
    >>> r.floor_s
    0.000138...

``sol.hw`` is the hardware database, ``sol.model`` the op models (``sol.model.matmul(m, n, k)``
and friends, each with ``.roofline(gpu=...)``). Every result is a dataclass whose fields carry
the names of the CLI's ``--json`` documents (``sol roofline --json``): one schema for both.
Errors are ``sol.Error`` with the CLI's one-line message.
"""
from ._core import Error
from . import hw, model
from .model import Roofline, roofline

__all__ = ["Error", "hw", "model", "roofline", "Roofline"]
__version__ = "0.1.0"

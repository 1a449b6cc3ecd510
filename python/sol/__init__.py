"""sol — speed of light for GPU and TPU kernels, from Python.

    >>> import sol
    >>> N = 4096
    >>> r = sol.roofline(flops=2 * N**3, bytes=2 * 3 * N**2, gpu="h100", name="matmul 4096^3")
    matmul 4096^3            I=  1365.33  ridge= 295.4  compute-bound
                             floor   0.1389 ms   attainable   989.4 TFLOP/s (100.00% of peak)
    >>> r.floor_s
    0.000138...

``sol.hw`` is the hardware database, ``sol.model`` the models (ops as constructors with
``.roofline(gpu=...)``, shapes, occupancy, access, the checkpoint planner, the systolic simulator),
``sol.measure`` times a callable on the GPU and places it on the roofline, ``sol.doctor`` says what
holds a kernel back at a shape (from committed results or a time of your own), ``sol.ops`` holds the
kernels as PyTorch custom ops (imported on first use: it needs torch). Every result is a dataclass
whose fields carry the names of the CLI's ``--json`` documents: one schema for both. Errors are
``sol.Error`` with the CLI's one-line message.
"""
from ._core import Error
from . import hw, model
from .doctor import Diagnosis, doctor
from .harness import Measurement, measure
from .model import Roofline, roofline

__all__ = ["Error", "hw", "model", "roofline", "Roofline", "measure", "Measurement", "doctor", "Diagnosis", "ops"]
__version__ = "0.1.0"


def __getattr__(name: str):  # sol.ops on first use: importing it imports torch
    if name == "ops":
        import importlib

        return importlib.import_module(".ops", __name__)
    raise AttributeError(f"module 'sol' has no attribute {name!r}")

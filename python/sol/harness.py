"""The harness's method applied to a Python callable (lecture §12, step 0: compute, then measure).

    >>> a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    >>> m = sol.measure(torch.mm, a, a, flops=2 * 8192**3, bytes=3 * 2 * 8192**2)
    torch.mm on h100: median 1.234 ms over 200 samples ...
    >>> m.fraction_of_floor, m.verdict

CUDA events around each call on the inputs' stream, warm-up first, the median of many samples;
an ``inputs`` factory gives fresh input sets, rotated so that their total exceeds twice the L2
(the harness's cold-L2 rule); ``graph=True`` captures one call in a CUDA graph and times its
replays, so host dispatch is excluded. Tensors come from PyTorch, or CuPy when the arguments are
CuPy arrays. The floor is sol.model's roofline on the chosen database row; the verdict applies the
doctor's rule: near a roof is at least 60 % of its ceiling.
"""
from __future__ import annotations

import math
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from . import _core, hw
from .model import Roofline, roofline

NEAR_ROOF = 0.60  # the doctor's threshold: at least this fraction of a ceiling is "near" it
SATURATED = 0.85  # and at least this much leaves no headroom on that roof


@dataclass(frozen=True)
class Measurement:
    """One callable measured. Times are seconds; fractions are of the datasheet peak of ``gpu``'s
    row (``floor_s`` / ``time_s`` is how close the call came to the roofline floor)."""

    name: str
    gpu: str
    device: str                       # the device's own name
    backend: str                      # "torch" | "cupy"
    time_s: float                     # the median sample
    min_s: float
    max_s: float
    samples: int
    warmup: int
    graph: bool                       # timed as CUDA-graph replays (host dispatch excluded)
    input_sets: int                   # 1, or the rotation's size
    flops: Optional[float]
    bytes: Optional[float]
    achieved_flops_per_s: Optional[float]
    achieved_bytes_per_s: Optional[float]
    compute_fraction: Optional[float]  # achieved FLOP/s ÷ the peak
    memory_fraction: Optional[float]   # achieved bytes/s ÷ the HBM bandwidth
    floor_s: Optional[float]          # sol.model's floor for (flops, bytes) on the row
    fraction_of_floor: Optional[float]  # floor_s ÷ time_s
    verdict: str                      # "compute" | "memory" | "neither" | "unknown"
    verdict_line: str
    sm_clock_mhz: Optional[float]
    memory_clock_mhz: Optional[float]
    throttle_reasons: str             # what the driver reports, or "unknown"
    roofline: Optional[Roofline] = field(default=None, repr=False)

    def summary(self) -> str:
        """The result in three lines (what :func:`measure` prints)."""
        head = (f"{self.name} on {self.gpu}: median {self.time_s * 1e3:.4f} ms over {self.samples} samples"
                f"{' (CUDA graph)' if self.graph else ''}"
                f"{f', {self.input_sets} input sets rotated' if self.input_sets > 1 else ''}")
        lines = [head]
        if self.achieved_flops_per_s is not None:
            lines.append(f"  achieved {self.achieved_flops_per_s / 1e12:8.1f} TFLOP/s "
                         f"({100 * self.compute_fraction:5.1f}% of peak)")
        if self.achieved_bytes_per_s is not None:
            lines.append(f"  achieved {self.achieved_bytes_per_s / 1e9:8.1f} GB/s    "
                         f"({100 * self.memory_fraction:5.1f}% of HBM)")
        if self.floor_s is not None:
            lines.append(f"  floor {self.floor_s * 1e3:.4f} ms ({100 * self.fraction_of_floor:.1f}% of the floor); "
                         f"clocks SM {_mhz(self.sm_clock_mhz)} / memory {_mhz(self.memory_clock_mhz)}, "
                         f"throttle: {self.throttle_reasons}")
        lines.append(f"  verdict: {self.verdict_line}")
        return "\n".join(lines)


def _mhz(v: Optional[float]) -> str:
    return "unknown" if v is None else f"{v:.0f} MHz"


def verdict(compute_fraction: Optional[float], memory_fraction: Optional[float]) -> tuple[str, str]:
    """The §12 verdict on the two fractions: (``"compute"``, ``"memory"``, ``"neither"`` or
    ``"unknown"``, and the sentence)."""
    if compute_fraction is None and memory_fraction is None:
        return "unknown", "no flops or bytes given: nothing to place on the roofline"
    c, b = compute_fraction or 0.0, memory_fraction or 0.0
    parts = []
    parts.append(f"{100 * c:.1f}% of compute" if compute_fraction is not None else "no arithmetic given")
    parts.append(f"{100 * b:.1f}% of HBM" if memory_fraction is not None else "no bytes given")
    both = ", ".join(parts)
    if c >= NEAR_ROOF and c >= b:
        return "compute", (f"near the compute roof ({both}): beyond it only less arithmetic helps — a lower "
                           "precision, fewer FLOPs — not better scheduling")
    if b >= NEAR_ROOF:
        rest = "; there is headroom left on it" if b < SATURATED else ""
        return "memory", (f"near the memory roof ({both}){rest}: beyond the roof only fewer bytes help — "
                          "fusion, a lower precision, recomputing instead of storing")
    return "neither", (f"neither roof ({both}): latency- or overhead-bound — look at launches (graph=True), "
                       "occupancy, coalescing, bank conflicts and shapes (sol.model)")


def _error(msg: str) -> _core.Error:
    return _core.Error(msg)


# ---- backends: where events, streams and graphs come from -----------------------------------------
class _Torch:
    name = "torch"

    def __init__(self) -> None:
        try:
            import torch
        except ImportError as e:
            raise _error("sol.measure times CUDA work through PyTorch or CuPy, and neither is installed "
                         "(pip install torch, or pass CuPy arrays)") from e
        if not torch.cuda.is_available():
            raise _error("sol.measure needs a CUDA GPU: torch.cuda.is_available() is False "
                         f"(torch {torch.__version__}, built for CUDA {torch.version.cuda or 'none'})")
        self.t = torch

    def device_name(self) -> str:
        return self.t.cuda.get_device_name()

    def event(self) -> Any:
        return self.t.cuda.Event(enable_timing=True)

    def stream(self) -> Any:
        return self.t.cuda.current_stream()

    def synchronize(self) -> None:
        self.t.cuda.synchronize()

    def elapsed_s(self, a: Any, b: Any) -> float:
        return a.elapsed_time(b) / 1e3

    def capture(self, call: Callable[[], Any]) -> Callable[[], None]:
        g = self.t.cuda.CUDAGraph()
        side = self.t.cuda.Stream()
        side.wait_stream(self.t.cuda.current_stream())
        with self.t.cuda.stream(side):
            call()  # the first call outside the graph: lazy initialisation, allocator warm-up
        self.t.cuda.current_stream().wait_stream(side)
        with self.t.cuda.graph(g):
            call()
        return g.replay


class _CuPy:
    name = "cupy"

    def __init__(self) -> None:
        import cupy

        try:
            n = cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError as e:
            raise _error(f"sol.measure needs a CUDA GPU: CuPy finds none ({e})") from e
        if n < 1:
            raise _error("sol.measure needs a CUDA GPU: CuPy finds none")
        self.cp = cupy

    def device_name(self) -> str:
        props = self.cp.cuda.runtime.getDeviceProperties(self.cp.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def event(self) -> Any:
        return self.cp.cuda.Event()

    def stream(self) -> Any:
        return self.cp.cuda.get_current_stream()

    def synchronize(self) -> None:
        self.cp.cuda.Device().synchronize()

    def elapsed_s(self, a: Any, b: Any) -> float:
        return self.cp.cuda.get_elapsed_time(a, b) / 1e3

    def capture(self, call: Callable[[], Any]) -> Callable[[], None]:
        call()
        s = self.cp.cuda.Stream(non_blocking=True)
        with s:
            s.begin_capture()
            call()
            g = s.end_capture()
        return lambda: g.launch(self.cp.cuda.get_current_stream())


def _is_cupy(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "cupy"


def _backend(args: tuple[Any, ...]) -> Any:
    return _CuPy() if any(_is_cupy(a) for a in args) else _Torch()


# ---- the database row and the card's state ---------------------------------------------------------
def row_for_device(device_name: str) -> str:
    """The database row whose name's parts all begin words of the device's name, the longest such
    row: "NVIDIA H200" → ``"h200"``, "NVIDIA A100-SXM4-80GB" → ``"a100-80gb"``. Raises
    :class:`sol.Error` when no row matches."""
    tokens = device_name.lower().replace("-", " ").split()
    best = ""
    for name in hw.list():
        parts = name.lower().split("-")
        if all(any(tok.startswith(p) for tok in tokens) for p in parts) and len(name) > len(best):
            best = name
    if not best:
        raise _error(f"no database row matches the device '{device_name}' (pass gpu= with one of "
                     f"{', '.join(hw.list())}, or load a row with sol.hw.load)")
    return best


def clocks() -> tuple[Optional[float], Optional[float], str]:
    """(SM MHz, memory MHz, throttle reasons) of device 0 from pynvml, else nvidia-smi; None and
    ``"unknown"`` where neither answers."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            h = pynvml.nvmlDeviceGetHandleByIndex(0)
            sm = float(pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM))
            mem = float(pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM))
            mask = pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(h)
            names = [n[len("nvmlClocksThrottleReason"):] for n in dir(pynvml)
                     if n.startswith("nvmlClocksThrottleReason") and n != "nvmlClocksThrottleReasonAll"
                     and isinstance(getattr(pynvml, n), int) and getattr(pynvml, n) and mask & getattr(pynvml, n)]
            return sm, mem, ", ".join(sorted(set(names))) or "none"
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - pynvml absent or failing: try nvidia-smi
        pass
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "--id=0", "--query-gpu=clocks.sm,clocks.mem,clocks_throttle_reasons.active",
                                  "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10)
            sm, mem, mask = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
            return float(sm), float(mem), ("none" if int(mask, 16) == 0 else f"mask {mask}")
        except Exception:  # noqa: BLE001 - an old driver's field names, or no answer
            pass
    return None, None, "unknown"


# ---- measure --------------------------------------------------------------------------------------
def _positive(name: str, v: Any, integer: bool = False, zero: bool = False) -> Any:
    ok_type = isinstance(v, int) if integer else isinstance(v, (int, float))
    if isinstance(v, bool) or not ok_type or not math.isfinite(v) or v < 0 or (v == 0 and not zero):
        kind = "an integer" if integer else "a number"
        raise _error(f"{name} must be {kind} {'≥ 0' if zero else '> 0'}, got {v!r}")
    return v


def _nbytes(x: Any) -> int:
    n = getattr(x, "nbytes", None)
    if isinstance(n, int):
        return n
    if hasattr(x, "element_size") and hasattr(x, "numel"):
        return int(x.element_size() * x.numel())
    if isinstance(x, (tuple, list)):
        return sum(_nbytes(y) for y in x)
    return 0


def measure(fn: Callable[..., Any], *args: Any, flops: Optional[float] = None, bytes: Optional[float] = None,
            gpu: Optional[str] = None, dtype: str = "bf16", unit: str = "", warmup: int = 10,
            samples: int = 100, inputs: Optional[Callable[[], tuple[Any, ...]]] = None, graph: bool = False,
            name: str = "", quiet: bool = False) -> Measurement:
    """Times ``fn(*args)`` on the GPU and places it on the roofline of ``gpu`` (default: the row of the
    device the call runs on). ``flops`` and ``bytes`` (read + written) are the call's work;
    ``dtype``/``unit`` choose the peak (``sol.roofline``'s meaning). ``inputs``: a factory returning a
    fresh argument tuple; sets are made until they hold more than twice the L2, and the samples
    rotate through them (``args`` are then ignored). ``graph``: time CUDA-graph replays of one call.
    Prints :meth:`Measurement.summary` unless ``quiet``. Raises :class:`sol.Error` for bad arguments
    and on a machine without a GPU."""
    if not callable(fn):
        raise _error(f"sol.measure takes a callable first, got {type(fn).__name__}")
    if flops is not None:
        _positive("flops", flops, zero=True)
    if bytes is not None:
        _positive("bytes", bytes)
    _positive("warmup", warmup, integer=True, zero=True)
    _positive("samples", samples, integer=True)
    if inputs is not None and not callable(inputs):
        raise _error(f"inputs must be a factory returning an argument tuple, got {type(inputs).__name__}")
    if inputs is not None and args:
        raise _error("give either args or an inputs factory, not both")
    if inputs is not None and graph:
        raise _error("graph=True captures one call on fixed inputs; drop inputs= or graph=")
    row = hw.get(gpu) if gpu is not None else None  # a bad name fails before any device work
    label = name or getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "fn")
    if flops is not None and bytes is not None:
        floor: Optional[Roofline] = roofline(flops=flops, bytes=bytes, gpu=(row.name if row else "h100"),
                                             dtype=dtype, unit=unit, quiet=True)  # validates dtype/unit early
    else:
        floor = None

    probe_args = args if inputs is None else inputs()
    if not isinstance(probe_args, tuple):
        raise _error(f"inputs() must return a tuple of arguments, got {type(probe_args).__name__}")
    be = _backend(probe_args)
    device = be.device_name()
    if row is None:
        row = hw.get(row_for_device(device))
        if flops is not None and bytes is not None:
            floor = roofline(flops=flops, bytes=bytes, gpu=row.name, dtype=dtype, unit=unit, quiet=True)

    sets = [probe_args]
    if inputs is not None:
        want = 2 * row.l2_bytes
        while sum(_nbytes(s) for s in sets) <= want and len(sets) < 4096:
            s = inputs()
            if not isinstance(s, tuple):
                raise _error(f"inputs() must return a tuple of arguments, got {type(s).__name__}")
            sets.append(s)

    if graph:
        run = be.capture(lambda: fn(*sets[0]))
        calls = [run]
    else:
        calls = [(lambda s=s: fn(*s)) for s in sets]
    for i in range(warmup):
        calls[i % len(calls)]()
    be.synchronize()
    starts = [be.event() for _ in range(samples)]
    ends = [be.event() for _ in range(samples)]
    stream = be.stream()
    for i in range(samples):
        starts[i].record(stream)
        calls[i % len(calls)]()
        ends[i].record(stream)
    be.synchronize()
    times = [be.elapsed_s(a, b) for a, b in zip(starts, ends)]
    t = statistics.median(times)
    if not t > 0:
        raise _core.Error("the measured time is not positive: the events recorded nothing (does fn queue "
                          "its work on the current stream?)")

    if floor is not None:
        peak = floor.peak_flops_per_s
    else:
        peak = row.peak(dtype, unit or "matrix").flops_per_s if flops is not None else None
    af = flops / t if flops is not None else None
    ab = bytes / t if bytes is not None else None
    cf = af / peak if af is not None and peak else None
    mf = ab / row.hbm_bytes_per_s if ab is not None and row.hbm_bytes_per_s > 0 else None
    v, line = verdict(cf, mf)
    sm, mem, throttle = clocks()
    m = Measurement(name=label, gpu=row.name, device=device, backend=be.name, time_s=t, min_s=min(times),
                    max_s=max(times), samples=samples, warmup=warmup, graph=graph, input_sets=len(sets), flops=flops,
                    bytes=bytes, achieved_flops_per_s=af, achieved_bytes_per_s=ab, compute_fraction=cf,
                    memory_fraction=mf, floor_s=floor.floor_s if floor else None,
                    fraction_of_floor=floor.floor_s / t if floor else None, verdict=v, verdict_line=line,
                    sm_clock_mhz=sm, memory_clock_mhz=mem, throttle_reasons=throttle, roofline=floor)
    if not quiet:
        print(m.summary())
    return m

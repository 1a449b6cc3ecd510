"""What the Python benchmarks share: the refusal without a GPU, the run's context, and writing
bench/results/<gpu>/python/<name>.json (a subfolder: `sol docs` reads the folder above as kernel
families' results files, which these are not)."""
from __future__ import annotations

import datetime
import json
import pathlib
import platform
import sys

import torch

import sol

ROOT = pathlib.Path(__file__).resolve().parents[2]


def require_gpu() -> str:
    """The database row of device 0; exits with status 2 and the reason where there is no GPU."""
    try:
        from sol import _kernels  # noqa: F401
        why = "" if torch.cuda.is_available() else "no CUDA GPU: torch.cuda.is_available() is False"
    except ImportError:
        why = "sol has no kernels (sol._kernels): pip install . on a machine with nvcc"
    if why:
        print(why, file=sys.stderr)
        sys.exit(2)
    return sol.harness.row_for_device(torch.cuda.get_device_name())


def context(gpu: str) -> dict:
    sm, mem, throttle = sol.harness.clocks()
    return {"created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "gpu_row": gpu, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "python": platform.python_version(), "sol": sol.__version__,
            "sm_clock_mhz": sm, "memory_clock_mhz": mem, "throttle_reasons": throttle}


def write(gpu: str, name: str, doc: dict, out: str | None) -> pathlib.Path:
    path = pathlib.Path(out) if out else ROOT / "bench" / "results" / gpu / "python" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path

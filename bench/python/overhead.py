"""Host overhead of one sol.ops call, beside the same kernel launched through sol._kernels (the
C++ entry behind a nanobind call, arguments built once), beside PyTorch's own custom-op dispatch (an
op that does nothing, and one that only allocates its output) and its native RMSNorm.

sol.ops.rmsnorm on tensors that record no gradient takes the eager path (the custom op's body,
without the dispatcher); the custom op itself (torch.ops.sol.rmsnorm) and a call that records a
gradient are timed beside it. A tiny shape (8 × 64 bf16 RMSNorm) keeps the GPU idle, so the loop's
wall time per call is the host's cost of issuing it: the median over rounds of `calls` back-to-back
calls each, after warm-up, the GPU synchronised between rounds, never inside one.
Writes bench/results/<gpu>/python/overhead.json.

    python bench/python/overhead.py [--calls 2000] [--rounds 25] [--out FILE]
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import common
import sol.ops as ops


TARGET_S = 5e-6  # the bound sol.ops keeps over the kernel entry: at most 5 µs of host time a call


@torch.library.custom_op("sol_bench::nothing", mutates_args=())
def _nothing(x: torch.Tensor) -> None:
    return None


@_nothing.register_fake
def _(x):
    return None


@torch.library.custom_op("sol_bench::empty_like", mutates_args=())
def _empty_like(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


@_empty_like.register_fake
def _(x):
    return torch.empty_like(x)


def per_call(fn, calls: int, rounds: int) -> dict:
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls)
        torch.cuda.synchronize()  # the queue drains between rounds, not inside one
    return {"median_s": statistics.median(samples), "min_s": min(samples), "rounds": rounds, "calls": calls}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=25)
    p.add_argument("--out")
    a = p.parse_args()
    gpu = common.require_gpu()
    from sol import _kernels  # present: require_gpu says so

    x = torch.randn(8, 64, device="cuda", dtype=torch.bfloat16)
    w = torch.ones(64, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    rstd = torch.empty(8, device="cuda", dtype=torch.float32)
    args = _kernels.RMSNormArgs()
    for k, v in dict(dtype="bf16", rows=8, cols=64, x=x.data_ptr(), y=y.data_ptr(), gamma=w.data_ptr(),
                     rstd=rstd.data_ptr(), eps=1e-6).items():
        setattr(args, k, v)
    assert _kernels.rmsnorm_forward_workspace_size(args) == 0
    stream = torch.cuda.current_stream().cuda_stream
    device = x.get_device()
    xg, wg = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    # The eager path and the custom op compute the same thing.
    assert torch.equal(ops.rmsnorm(x, w), torch.ops.sol.rmsnorm(x, w, 1e-6)[0])

    cases = {
        "kernels_entry": lambda: _kernels.rmsnorm_forward(args, 0, 0, stream),
        "kernels_direct_entry": lambda: _kernels.rmsnorm_forward_direct(
            "bf16", 8, 64, x.data_ptr(), 64, y.data_ptr(), 64, w.data_ptr(), 1e-6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            stream, device),
        "sol_ops_rmsnorm": lambda: ops.rmsnorm(x, w),
        "sol_custom_op_rmsnorm": lambda: torch.ops.sol.rmsnorm(x, w, 1e-6),
        "sol_ops_rmsnorm_recording_grad": lambda: ops.rmsnorm(xg, wg),
        "torch_custom_op_nothing": lambda: torch.ops.sol_bench.nothing(x),
        "torch_custom_op_empty_like": lambda: torch.ops.sol_bench.empty_like(x),
        "torch_empty_like": lambda: torch.empty_like(x),
        "torch_rms_norm": lambda: F.rms_norm(x, (64,), w, 1e-6),
        # The eager path's pieces, each alone, in the order sol.ops.rmsnorm runs them: where the
        # time over the kernel entry goes.
        "path_dispatcher_checks": lambda: ops._direct(x, w),
        "path_shape_checks": lambda: (ops._rows("x", x), ops._param("weight", w, x, 64), ops._as_rows(x, 64)),
        "path_output_alloc": lambda: ops._like(x, device),
        "path_stream_lookup": lambda: ops._raw_stream(device),
    }
    results = {name: per_call(fn, a.calls, a.rounds) for name, fn in cases.items()}
    base = results["kernels_entry"]["median_s"]
    over = results["sol_ops_rmsnorm"]["median_s"] - base
    doc = {"benchmark": "python_overhead", **common.context(gpu),
           "shape": {"op": "rmsnorm", "rows": 8, "cols": 64, "dtype": "bf16"},
           "method": "host wall time per call, median over rounds of back-to-back calls (GPU idle)",
           "cases": results,
           "sol_ops_over_kernels_entry_s": over,
           "sol_custom_op_over_kernels_entry_s": results["sol_custom_op_rmsnorm"]["median_s"] - base,
           "torch_custom_op_dispatch_s": results["torch_custom_op_nothing"]["median_s"],
           "path_s": {k[len("path_"):]: r["median_s"] for k, r in results.items() if k.startswith("path_")},
           "target_over_kernels_entry_s": TARGET_S, "meets_target": over <= TARGET_S}
    path = common.write(gpu, "overhead", doc, a.out)
    for name, r in results.items():
        print(f"{name:28s} {r['median_s'] * 1e6:8.2f} µs/call")
    print(f"sol.ops over the kernel entry: {over * 1e6:.2f} µs (target ≤ {TARGET_S * 1e6:.0f} µs: "
          f"{'met' if over <= TARGET_S else 'not met'}); torch's custom-op dispatch alone: "
          f"{doc['torch_custom_op_dispatch_s'] * 1e6:.2f} µs  → {path}")


if __name__ == "__main__":
    main()

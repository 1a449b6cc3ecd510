#!/usr/bin/env python3
"""PyTorch peers of sol's families, timed the way the registry's Cases are.

    python3 bench/peers/torch_peers.py --request REQUEST.json --out ANSWER.json [--cpu] [--dry-run]
    python3 bench/peers/torch_peers.py --request - --out ANSWER.json     (the request on stdin)

The harness (bench/peers.cpp) writes the request: the sampling budget, whether to run the
torch.compile peers, and per family the shapes sol measured with, at each shape, the registry's
cost (variant, dtype, FLOPs, bytes) of every variant that runs there. A peer takes its FLOPs and
bytes from those costs (the floor of its dtype, or a named variant), so every count is stated once,
in kernels/. Every family runs in this one process (one import of torch). The answer: {"torch":
version, "import_s": seconds, "families": {family: {"records": [...], "seconds": s} or {"missing":
why}}}. A record: family, variant, technique, dtype, unit, math, shape, median_s, min_s, max_s,
spread, samples, timing, eager_median_s, sm_clock_hz, flops, bytes, verified, rel_l2, tolerance,
note; dtype, unit ("matrix" or "vector") and math (the type the arithmetic runs in, where it is not
dtype) place the peer on its own roofline. --dry-run (or "dry_run" in the request) checks the
request and answers without importing torch, measuring nothing. With `--request -` the script
imports torch first and then reads the request from stdin, so that the harness can start it ahead
of time (python3's start and torch's import overlap sol's own measurements); an empty stdin means
no request: it exits 0 having written nothing.

Timing, two ways. Device time (median_s, min_s, max_s, spread, the comparison with sol's kernels):
for calls shorter than the request's graph_below_s (the harness's own threshold, which times sol's
short runs the same way), the calls over all rotated input sets captured in one CUDA graph,
replayed back to back, CUDA events around each sample of replays, per-call time = sample / calls
(timing "graph"); for longer calls, autograd backwards and where capture fails, many eager calls
between one event pair (timing "events_batched"), which the host queues ahead of the GPU. Eager time
(eager_median_s, what a user's Python loop sees, host dispatch included): host clock around a
batch of eager calls, synchronised before and after, per call. Warm-up first; inputs are fresh
random values (never zero) rotated over enough sets to exceed 256 MiB, as the Cases do; the SM
clock is read while the replays run. Each result is checked against a float64 reference. Exits 3
with one line on stderr when torch or CUDA is missing, 2 on a bad request. Depends on torch only.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

ROTATE_BYTES = 256 * 2**20  # all sets together exceed this (5× H200's 50 MB L2)
MAX_SETS = 16
SECONDS = {"device": 0.5, "eager": 0.5}  # measuring time per (variant, shape) each way, after warm-up (budget_s)
# The request's "compile" (the torch.compile peers, seconds of compilation each) and "graph_below_s":
# calls at least this long are device-timed as eager calls between one event pair, for the host queues
# them far ahead of the GPU, so a graph would remove no gap (and holds its outputs in its own pool).
OPTIONS = {"compile": True, "graph_below_s": None}
SAMPLE_SECONDS = 1e-3  # one sample spans at least this long (many calls when a call is short)
GRAPH_CALLS_MAX = 256  # calls captured in one graph, at most
MIN_SAMPLES, MAX_SAMPLES, WARMUP = 10, 200, 3

class PeerError(Exception):
    """A request the script cannot serve: one line, and the exit code it means for the whole run."""

    def __init__(self, code, line):
        super().__init__(line)
        self.code = code


def fail(code, line):
    raise PeerError(code, line)


class Cost:
    """FLOPs and bytes of one sol variant at one shape, from the request."""

    def __init__(self, variant, flops, nbytes):
        self.variant, self.flops, self.bytes = variant, float(flops), float(nbytes)


class Costs:
    """The registry's costs at one shape, as the harness sends them."""

    def __init__(self, family, shape, entries):
        self.family, self.shape = family, shape
        self.entries = entries

    def of(self, variant):
        for e in self.entries:
            if e["variant"] == variant:
                return Cost(variant, e["flops"], e["bytes"])
        fail(2, f"{self.family} at {self.shape}: the request has no cost of {variant}")

    def floor(self, dtype):
        """The least traffic of the family's variants on `dtype` data here: the floor a peer of that
        dtype is measured against (the fused rung, the minimal GEMM traffic)."""
        mine = [e for e in self.entries if e["dtype"] == dtype]
        if not mine:
            fail(2, f"{self.family} at {self.shape}: the request has no {dtype} variant")
        e = min(mine, key=lambda e: e["bytes"])
        return Cost(e["variant"], e["flops"], e["bytes"])

    def own(self, flops, nbytes):
        """A peer's operation that no sol variant runs (a plain cast, a GEMM with another output type)."""
        return Cost("", flops, nbytes)


# ---- shapes: the syntax of sol::Shape::parse, the text of Shape::str ----------------------------
def parse_value(key, text):
    if "^" in text:
        base, exp = text.split("^", 1)
        return parse_value(key, base) ** parse_value(key, exp)
    mult = {"k": 2**10, "K": 2**10, "m": 2**20, "M": 2**20, "g": 2**30, "G": 2**30}.get(text[-1:], 1)
    digits = text[:-1] if mult != 1 else text
    try:
        return int(digits) * mult
    except ValueError:
        fail(2, f"bad value '{text}' for {key}: use an integer, optionally with k/M/G (x1024) or as 2^N")


def parse_shape(text):
    dims = []
    for item in text.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key:
            fail(2, f"bad shape item '{item}' in '{text}': write NAME=VALUE[,NAME=VALUE...]")
        if any(k == key for k, _ in dims):
            fail(2, f"dimension '{key}' given twice in '{text}'")
        dims.append((key, parse_value(key, value)))
    return dims


def shape_str(dims):
    return ",".join(f"{k}={v}" for k, v in dims)


def dims_of(dims, family, *names):
    d = dict(dims)
    missing = [n for n in names if n not in d]
    extra = [k for k in d if k not in names]
    if missing or extra or any(d[n] <= 0 for n in names):
        fail(2, f"shape '{shape_str(dims)}' does not fit {family}: give {', '.join(n + '=N' for n in names)} (N ≥ 1)")
    return [d[n] for n in names]


def rotating_sets(bytes_per_set):
    return min(MAX_SETS, ROTATE_BYTES // max(1, int(bytes_per_set)) + 1)


# ---- inputs like kernels/common/random.cuh: never zero -----------------------------------------
def random_signed(torch, n, device):  # ±[0.25, 4); in place, so that 2^32 elements fit twice over
    x = torch.rand(n, device=device).mul_(3.75).add_(0.25)
    return x.mul_(torch.randint(0, 2, (n,), device=device, dtype=torch.int8).mul_(2).sub_(1))


def random_positive(torch, shape, device):  # [0.5, 2)
    return torch.rand(shape, device=device).mul_(1.5).add_(0.5)


# ---- timing --------------------------------------------------------------------------------------
def quantile(sorted_times, q):  # linear between order statistics, as bench/stats.cpp
    pos = q * (len(sorted_times) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_times) - 1)
    return sorted_times[lo] + (pos - lo) * (sorted_times[hi] - sorted_times[lo])


def summary(times):
    t = sorted(times)
    median = quantile(t, 0.5)
    return dict(median_s=median, min_s=t[0], max_s=t[-1], samples=len(t),
                spread=(quantile(t, 0.9) - quantile(t, 0.1)) / median if median > 0 else 0.0)


def sample_plan(per_call_s, seconds):
    """Calls per sample and samples, so that a sample spans SAMPLE_SECONDS and all span `seconds`."""
    calls = max(1, math.ceil(SAMPLE_SECONDS / max(per_call_s, 1e-7)))
    samples = int(min(MAX_SAMPLES, max(MIN_SAMPLES, seconds / max(per_call_s * calls, 1e-7))))
    return calls, samples


class Timer:
    def __init__(self, torch, cpu):
        self.torch, self.cpu = torch, cpu
        self.clock_reader = None  # the first way of reading the SM clock that works

    def sync(self):
        if not self.cpu:
            self.torch.cuda.synchronize()

    def eager(self, fn, inputs, seconds):
        """Per-call host time of batches of eager calls, synchronised before and after each batch."""
        self.sync()
        t0 = time.perf_counter()
        fn(inputs[0])
        self.sync()
        calls, count = sample_plan(time.perf_counter() - t0, seconds)
        times = []
        for i in range(count):
            self.sync()
            t0 = time.perf_counter()
            for j in range(calls):
                fn(inputs[(i * calls + j) % len(inputs)])
            self.sync()
            times.append((time.perf_counter() - t0) / calls)
        return times

    def events(self, run, calls_per_run, runs, count):
        """Per-call device time: CUDA events around `runs` × run() per sample; the SM clock read
        while the queued samples execute."""
        torch = self.torch
        pairs = []
        for _ in range(count):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(runs):
                run()
            end.record()
            pairs.append((start, end))
        clock = self.sm_clock_hz()
        torch.cuda.synchronize()
        return [a.elapsed_time(b) / 1e3 / (runs * calls_per_run) for a, b in pairs], clock

    def graph(self, fn, inputs, per_call_s):
        """Device time from one CUDA graph over the input sets (repeated to GRAPH_CALLS_MAX calls at
        most when calls are short), replayed."""
        torch = self.torch
        repeat = max(1, min(GRAPH_CALLS_MAX // len(inputs), math.ceil(SAMPLE_SECONDS / max(per_call_s, 1e-7) / len(inputs))))
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up on a side stream before capture, as torch.cuda.graphs asks
            for x in inputs:
                fn(x)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            outs = [fn(x) for _ in range(repeat) for x in inputs]
        calls = repeat * len(inputs)
        g.replay()
        torch.cuda.synchronize()
        (per_call,), _ = self.events(g.replay, calls, 1, 1)
        replays, count = sample_plan(per_call * calls, SECONDS["device"])
        times, clock = self.events(g.replay, calls, replays, count)
        del outs, g
        return times, clock, f"graph of {calls} calls over {len(inputs)} input sets, {replays} replays per sample"

    def batched(self, fn, inputs, per_call_s):
        """Device time of many eager calls between one event pair: for calls a graph cannot capture."""
        calls, count = sample_plan(per_call_s, SECONDS["device"])
        state = {"i": 0}

        def run():
            fn(inputs[state["i"] % len(inputs)])
            state["i"] += 1

        times, clock = self.events(run, 1, calls, count)
        return times, clock, f"{calls} eager calls between one event pair"

    def sm_clock_hz(self):
        """The SM clock now (torch.cuda.clock_rate through pynvml, else nvidia-smi), or 0."""
        readers = [self.clock_reader] if self.clock_reader else [self.clock_from_torch, self.clock_from_smi]
        for read in readers:
            try:
                hz = read()
            except Exception:  # noqa: BLE001 — no pynvml, no nvidia-smi: the clock is unknown
                continue
            if hz > 0:
                self.clock_reader = read
                return hz
        return 0.0

    def clock_from_torch(self):
        return float(self.torch.cuda.clock_rate()) * 1e6  # MHz

    def clock_from_smi(self):
        import subprocess
        props = self.torch.cuda.get_device_properties(self.torch.cuda.current_device())
        bus = getattr(props, "pci_bus_id", None)
        target = (f"{int(getattr(props, 'pci_domain_id', 0)):08x}:{int(bus):02x}:{int(getattr(props, 'pci_device_id', 0)):02x}.0"
                  if bus is not None else str(self.torch.cuda.current_device()))
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", target],
                             capture_output=True, text=True, timeout=10, check=True).stdout
        return float(out.strip().splitlines()[0]) * 1e6

    def measure(self, fn, inputs, capturable=True):
        """The record's timing fields and a note; set i % len(inputs) feeds call i. capturable:
        False for calls a graph cannot hold (autograd's backward), whose failed capture would
        leave torch's generator unusable for the inputs of the next peer."""
        for i in range(WARMUP):
            fn(inputs[i % len(inputs)])
        self.sync()
        eager = summary(self.eager(fn, inputs, SECONDS["eager"]))
        if self.cpu:  # no device: the host clock is the only clock
            return dict(eager, timing="host_clock", eager_median_s=eager["median_s"], sm_clock_hz=0.0), "none (--cpu)"
        graph_below_s = OPTIONS["graph_below_s"]
        if not capturable or eager["median_s"] >= graph_below_s:
            times, clock, how = self.batched(fn, inputs, eager["median_s"])
            why = "autograd backward" if not capturable else f"calls of ≥ {graph_below_s * 1e6:.0f} µs"
            return dict(summary(times), timing="events_batched", eager_median_s=eager["median_s"],
                        sm_clock_hz=clock), how + f" ({why}: no graph)"
        try:
            times, clock, how = self.graph(fn, inputs, eager["median_s"])
            timing = "graph"
        except Exception as e:  # noqa: BLE001 — an op or a compiled mode that cannot be captured
            self.torch.cuda.synchronize()
            times, clock, how = self.batched(fn, inputs, eager["median_s"])
            timing = "events_batched"
            how += f" (graph capture failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"[:200]
        return dict(summary(times), timing=timing, eager_median_s=eager["median_s"], sm_clock_hz=clock), how


def rel_l2(torch, out, ref):
    """‖out − ref‖ / ‖ref‖; of a tuple of outputs (an op that writes two tensors), the worst."""
    if isinstance(out, tuple):
        return max(rel_l2(torch, o, r) for o, r in zip(out, ref))
    out, ref = out.double(), ref.double()
    ref_norm = torch.linalg.vector_norm(ref).item()
    err = torch.linalg.vector_norm(out - ref).item()
    return err / ref_norm if ref_norm > 0 else err


# ---- one peer at one shape -----------------------------------------------------------------------
def record(family, variant, technique, dims, cost, tol, note, dtype, unit="vector", math_type=None, skipped=None):
    """A record before timing; cost: its FLOPs and bytes (a Cost from the request's Costs);
    skipped: why it cannot run."""
    if cost.variant:
        note = f"FLOPs and bytes as sol's {cost.variant}" + ("; " + note if note else "")
    rec = dict(family=family, variant=variant, technique=technique, dtype=dtype, unit=unit, shape=shape_str(dims),
               median_s=0.0, min_s=0.0, max_s=0.0, spread=0.0, samples=0, timing="", eager_median_s=0.0,
               sm_clock_hz=0.0, flops=cost.flops, bytes=cost.bytes, verified=False, rel_l2=0.0, tolerance=tol,
               note=note)
    if math_type:
        rec["math"] = math_type
    if skipped:
        rec["skipped"] = skipped
        rec["note"] = (note + "; " if note else "") + "not run: " + skipped
    return rec


def run_peer(torch, timer, family, variant, technique, dims, make_input, fn, reference, cost, tol, note="",
             dtype=None, unit="vector", math_type=None):
    """dtype: the data's type as sol names it ("bf16", "fp32", "tf32" for fp32 multiplied in TF32);
    unit, math_type: where the arithmetic runs, for the peer's own floor."""
    rec = record(family, variant, technique, dims, cost, tol, note, dtype, unit, math_type)
    note = rec["note"]
    try:
        first = make_input()
        out = fn(first)
        timer.sync()
        err = rel_l2(torch, out, reference(first))
        outs = out if isinstance(out, tuple) else (out,)
        per_set = first.numel() * first.element_size() + sum(o.numel() * o.element_size() for o in outs)
        inputs = [first] + [make_input() for _ in range(rotating_sets(per_set) - 1)]
        rec["rel_l2"], rec["verified"] = err, bool(err <= tol)
        del out
        timing, how = timer.measure(fn, inputs, capturable=not family.endswith("_bwd"))
        rec.update(timing)
        rec["note"] = (note + "; " if note else "") + "device time: " + how + "; eager_median_s: host clock per call"
    except Exception as e:  # an op torch lacks for this dtype, torch.compile without a compiler, OOM
        rec["skipped"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
        rec["note"] = (note + "; " if note else "") + "not run: " + rec["skipped"]
    finally:
        if not timer.cpu:
            torch.cuda.empty_cache()
    return rec


# ---- families ------------------------------------------------------------------------------------
def copy_peers(torch, timer, device, dims, costs):
    (n,) = dims_of(dims, "copy", "n")
    yield run_peer(torch, timer, "copy", "peer:torch.clone", "torch.Tensor.clone() of an fp32 tensor (eager)", dims,
                   lambda: random_signed(torch, n, device), lambda x: x.clone(), lambda x: x, costs.floor("fp32"), 0.0,
                   dtype="fp32")


def precision_peers(torch, timer, device, dims, costs):
    (n,) = dims_of(dims, "precision", "n")
    kinds = [("fp32", torch.float32), ("bf16", torch.bfloat16)]
    fp8 = getattr(torch, "float8_e4m3fn", None)
    for name, dtype in kinds + ([("fp8_e4m3", fp8)] if fp8 is not None else []):
        yield run_peer(torch, timer, "precision", f"peer:torch.relu_{name}", f"torch.relu on {name} (eager)", dims,
                       lambda dt=dtype: random_signed(torch, n, device).to(dt), torch.relu,
                       lambda x: torch.relu(x.double()), costs.floor(name), 0.0, dtype=name)
    if fp8 is None:
        yield record("precision", "peer:torch.relu_fp8_e4m3", "torch.relu on fp8 e4m3", dims, costs.floor("fp8_e4m3"),
                     0.0, "", "fp8_e4m3", skipped="this torch has no float8_e4m3fn")
    if not OPTIONS["compile"]:
        return
    # torch.compile fails lazily (at the first call) when no compiler backend works: run_peer reports it.
    # Inductor may also generate the fp8 ReLU that eager lacks (it computes in a wider type).
    for name, dtype in [("bf16", torch.bfloat16)] + ([("fp8_e4m3", fp8)] if fp8 is not None else []):
        yield run_peer(torch, timer, "precision", f"peer:torch.compile_relu_{name}", f"torch.compile(torch.relu) on {name}",
                       dims, lambda dt=dtype: random_signed(torch, n, device).to(dt), torch.compile(torch.relu),
                       lambda x: torch.relu(x.double()), costs.floor(name), 0.0,
                       "compile time excluded (first call and warm-up)", dtype=name)


def coalescing_peers(torch, timer, device, dims, costs):
    keys = [k for k, _ in dims]
    if "stride" in keys:
        n, stride = dims_of(dims, "coalescing", "n", "stride")
        yield run_peer(torch, timer, "coalescing", "peer:torch.strided_clone", "x[::stride].clone() (eager)", dims,
                       lambda: random_signed(torch, (n - 1) * stride + 1, device), lambda x: x[::stride].clone(),
                       lambda x: x[::stride], costs.of("v03_strided"), 0.0, dtype="fp32")
        return
    rows, cols = dims_of(dims, "coalescing", "rows", "cols")
    tol = 1e-4
    for dim, what, rung in ((1, "row sums", "v01_row_per_thread"), (0, "column sums", "v02_col_per_thread")):
        yield run_peer(torch, timer, "coalescing", f"peer:torch.sum_dim{dim}", f"x.sum(dim={dim}): {what} (eager)",
                       dims, lambda: random_positive(torch, (rows, cols), device), lambda x, d=dim: x.sum(dim=d),
                       lambda x, d=dim: x.double().sum(dim=d), costs.of(rung), tol, dtype="fp32")


def banks_peers(torch, timer, device, dims, costs):
    rows, cols = dims_of(dims, "banks", "rows", "cols")
    yield run_peer(torch, timer, "banks", "peer:torch.transpose_contiguous", "x.t().contiguous() (eager)", dims,
                   lambda: random_signed(torch, rows * cols, device).view(rows, cols), lambda x: x.t().contiguous(),
                   lambda x: x.t(), costs.floor("fp32"), 0.0, dtype="fp32")


def mx_peers(torch, timer, device, dims, costs):
    import torch_mx_peers  # bench/peers/torch_mx_peers.py, beside this script
    yield from torch_mx_peers.peers(torch, timer, device, dims, costs, run_peer, OPTIONS["compile"])


def attention_peers(backward):
    def peers(torch, timer, device, dims, costs):
        import torch_attention_peers  # bench/peers/torch_attention_peers.py, beside this script
        return torch_attention_peers.peers(torch, timer, device, dims, costs, run_peer, fail, backward)
    return peers


FAMILIES = {"copy": copy_peers, "precision": precision_peers, "coalescing": coalescing_peers, "banks": banks_peers,
            "mx": mx_peers, "attention": attention_peers(False), "attention_bwd": attention_peers(True)}


# ---- fusion families: FLOPs and bytes of the fused rung of the peer's dtype (each input read once, the output
# written once), so that every peer is measured against one floor.
def sincos_naive(torch):
    return lambda x: torch.sin(x) ** 2 + torch.cos(x) ** 2


def elementwise_peers(torch, timer, device, dims, costs):
    (n,) = dims_of(dims, "elementwise", "n")
    ref = lambda x: torch.sin(x.double()) ** 2 + torch.cos(x.double()) ** 2
    for name, dtype, tol in (("fp32", torch.float32, 1e-6), ("bf16", torch.bfloat16, 4e-3)):
        make = lambda dt=dtype: random_signed(torch, n, device).to(dt)
        yield run_peer(torch, timer, "elementwise", f"peer:torch.sin2_cos2_eager_{name}",
                       f"torch.sin(x)**2 + torch.cos(x)**2 on {name} (eager: 5 kernels)", dims, make,
                       sincos_naive(torch), ref, costs.floor(name), tol, "the fused floor", dtype=name)
        if OPTIONS["compile"]:
            yield run_peer(torch, timer, "elementwise", f"peer:torch.compile_sin2_cos2_{name}",
                           f"torch.compile of the same formula on {name}", dims, make,
                           torch.compile(sincos_naive(torch)), ref, costs.floor(name), tol,
                           "the fused floor; compile time excluded", dtype=name)


def naive_layer_norm(torch, x, g, b, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def naive_rms_norm(torch, x, g, eps=1e-5):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * g


def naive_softmax(torch, x):
    e = torch.exp(x - x.max(-1, keepdim=True).values)
    return e / e.sum(-1, keepdim=True)


def with_residual(torch, norm):
    """The decoder's residual add before a norm, on x and h stacked in one tensor: (norm(x + h), x + h),
    both written, as the fused rung writes both."""
    def fn(xh):
        s = xh[0] + xh[1]
        return norm(s), s
    return fn


def norm_fns(torch, family, cols, g, b):
    """A norm's torch forms over rows of cols: F's (fused), the naive formula, the double reference,
    and its name."""
    F = torch.nn.functional
    if family == "layernorm":
        return ((lambda s: F.layer_norm(s, (cols,), g, b, 1e-5)), (lambda s: naive_layer_norm(torch, s, g, b)),
                (lambda s: naive_layer_norm(torch, s, g.double(), b.double())), "layer_norm")
    return ((lambda s: F.rms_norm(s, (cols,), g, 1e-5)), (lambda s: naive_rms_norm(torch, s, g)),
            (lambda s: naive_rms_norm(torch, s, g.double())), "rms_norm")


def residual_peers(family, rows, cols, torch, timer, device, dims, costs):
    dt = torch.bfloat16
    g = random_positive(torch, cols, device).to(dt)
    b = (random_positive(torch, cols, device) - 1.25).to(dt)
    make = lambda: random_signed(torch, 2 * rows * cols, device).view(2, rows, cols).to(dt)
    fused, naive, ref_norm, name = norm_fns(torch, family, cols, g, b)
    # The reference rounds the sum to bf16 as every implementation does, then normalizes in double.
    ref = lambda xh: (lambda s: (ref_norm(s.double()), s))(xh[0] + xh[1])
    cost = costs.floor("bf16")
    yield run_peer(torch, timer, family, f"peer:torch.add_F.{name}_bf16", f"x + h, then F.{name} on bf16 (eager)",
                   dims, make, with_residual(torch, fused), ref, cost, 1e-2, "the fused floor", dtype="bf16")
    if OPTIONS["compile"]:
        yield run_peer(torch, timer, family, f"peer:torch.compile_add_naive_{name}_bf16",
                       f"torch.compile(x + h, then naive_{name}) on bf16, both written", dims, make,
                       torch.compile(with_residual(torch, naive)), ref, cost, 1e-2,
                       "the fused floor; compile time excluded", dtype="bf16")


def fp8_peers(family, torch, timer, device, dims, costs):
    """The norms' e4m3 codes of y for an fp8 GEMM (fp8=1: beside y, 2: in its place), after the
    residual add where residual=1: torch's ops, then y·scale cast to float8_e4m3fn with torch's
    saturation by hand (the cast alone overflows to NaN: clamp to ±448 first), eager and compiled.
    Outputs as sol's: the codes (and y), and the sum."""
    d = dict(dims)
    fp8, residual = d.pop("fp8"), d.pop("residual", 0)
    rows, cols = dims_of(list(d.items()), family, "rows", "cols")
    dt, f8, scale = torch.bfloat16, torch.float8_e4m3fn, 100.0
    g = random_positive(torch, cols, device).to(dt)
    b = (random_positive(torch, cols, device) - 1.25).to(dt)
    ins = 2 if residual else 1
    make = lambda: random_signed(torch, ins * rows * cols, device).view(ins, rows, cols).to(dt)
    fused, naive, ref_norm, name = norm_fns(torch, family, cols, g, b)

    def outputs(y, s):
        codes = (y.float() * scale).clamp(-448, 448).to(f8)
        return ((y,) if fp8 == 1 else ()) + (codes,) + ((s,) if residual else ())

    def with_codes(norm):
        def fn(xh):
            s = xh[0] + xh[1] if residual else xh[0]
            return outputs(norm(s), s)
        return fn

    # The reference: the sum rounded to bf16 as every implementation rounds it, normalized in double,
    # rounded to bf16 (the y the codes are taken from), then cast as above.
    def ref(xh):
        s = xh[0] + xh[1] if residual else xh[0]
        y = ref_norm(s.double())
        return outputs(y.to(dt), s)

    cost = costs.floor("bf16")
    what = ("x + h, then " if residual else "") + f"F.{name}, then y·{scale:g} cast to e4m3 ({'codes beside y' if fp8 == 1 else 'codes only'})"
    add = "add_" if residual else ""
    yield run_peer(torch, timer, family, f"peer:torch.{add}F.{name}_e4m3_bf16", what + " on bf16 (eager)", dims, make,
                   with_codes(fused), ref, cost, 1e-2, "the fused floor", dtype="bf16")
    if OPTIONS["compile"]:
        yield run_peer(torch, timer, family, f"peer:torch.compile_{add}naive_{name}_e4m3_bf16",
                       f"torch.compile of the same with naive_{name}", dims, make, torch.compile(with_codes(naive)), ref,
                       cost, 1e-2, "the fused floor; compile time excluded", dtype="bf16")


def row_peers(family):
    def peers(torch, timer, device, dims, costs):
        if family != "softmax" and dict(dims).get("fp8", 0):
            yield from fp8_peers(family, torch, timer, device, dims, costs)
            return
        if family != "softmax" and dict(dims).get("residual", 0):
            rows, cols = dims_of([d for d in dims if d[0] != "residual"], family, "rows", "cols")
            yield from residual_peers(family, rows, cols, torch, timer, device, dims, costs)
            return
        rows, cols = dims_of(dims, family, "rows", "cols")
        F = torch.nn.functional
        dt = torch.bfloat16
        g = random_positive(torch, cols, device).to(dt)
        b = (random_positive(torch, cols, device) - 1.25).to(dt)
        make = lambda: random_signed(torch, rows * cols, device).view(rows, cols).to(dt)
        if family == "layernorm":
            eager = {"F.layer_norm": lambda x: F.layer_norm(x, (cols,), g, b, 1e-5),
                     "naive_layer_norm": lambda x: naive_layer_norm(torch, x, g, b)}
            ref = lambda x: naive_layer_norm(torch, x.double(), g.double(), b.double())
        elif family == "rmsnorm":
            eager = {"F.rms_norm": lambda x: F.rms_norm(x, (cols,), g, 1e-5),
                     "naive_rms_norm": lambda x: naive_rms_norm(torch, x, g)}
            ref = lambda x: naive_rms_norm(torch, x.double(), g.double())
        else:
            eager = {"torch.softmax": lambda x: torch.softmax(x, -1), "naive_softmax": lambda x: naive_softmax(torch, x)}
            ref = lambda x: torch.softmax(x.double(), -1)
        cost = costs.floor("bf16")
        for name, fn in eager.items():
            yield run_peer(torch, timer, family, f"peer:torch.{name}_bf16", f"{name} on bf16 (eager)", dims, make, fn, ref,
                           cost, 1e-2, "the fused floor", dtype="bf16")
        if not OPTIONS["compile"]:
            return
        naive = [k for k in eager if k.startswith("naive")][0]
        yield run_peer(torch, timer, family, f"peer:torch.compile_{naive}_bf16", f"torch.compile({naive}) on bf16", dims,
                       make, torch.compile(eager[naive]), ref, cost, 1e-2, "the fused floor; compile time excluded",
                       dtype="bf16")
    return peers


FAMILIES.update({"elementwise": elementwise_peers, "layernorm": row_peers("layernorm"),
                 "rmsnorm": row_peers("rmsnorm"), "softmax": row_peers("softmax")})


# ---- crossentropy: F.cross_entropy forward and backward (the loss and dlogits of a training step) ----------
# The timed call is the forward and torch.autograd.grad of the loss: what a training step runs for the loss,
# eager (aten's log_softmax + nll kernels and their backward) or with the forward torch.compile'd (its
# compiled backward graph). Labels: torch's own draw, the Case's ignore pattern (rows r % k == k − 1 get
# −100), smoothing ε = smooth/1000, sum=1 for the sum reduction; FLOPs and bytes of the one-read rung.
def crossentropy_peers(torch, timer, device, dims, costs):
    d = dict(dims)
    known = {"rows", "vocab", "smooth", "ignore", "sum", "i32", "scale"}
    if "rows" not in d or "vocab" not in d or any(k not in known for k in d):
        fail(2, f"shape '{shape_str(dims)}' does not fit crossentropy: give rows=N,vocab=N[,smooth,ignore,sum,i32,scale]")
    rows, vocab = d["rows"], d["vocab"]
    F = torch.nn.functional
    dt = torch.bfloat16
    eps, every = d.get("smooth", 0) / 1000, d.get("ignore", 0)
    reduction = "sum" if d.get("sum", 0) else "mean"
    labels = torch.randint(0, vocab, (rows,), device=device, dtype=torch.int32 if d.get("i32", 0) else torch.int64)
    if every > 0:
        labels[every - 1 :: every] = -100
    labels = labels.long()
    scale = d.get("scale", 1)

    def make():
        return (random_signed(torch, rows * vocab, device).view(rows, vocab) * scale).to(dt).requires_grad_()

    def loss_of(x):
        return F.cross_entropy(x, labels, ignore_index=-100, label_smoothing=eps, reduction=reduction)

    def step(fwd):
        return lambda x: torch.autograd.grad(fwd(x), x)[0]

    def reference(x):
        xd = x.detach().double().requires_grad_()
        return torch.autograd.grad(loss_of(xd), xd)[0]

    cost = costs.floor("bf16")
    note = "timed: the forward and autograd.grad of the loss (dlogits checked); the one-read floor"
    yield run_peer(torch, timer, "crossentropy", "peer:torch.F.cross_entropy_bf16",
                   "F.cross_entropy forward + backward on bf16 logits (eager autograd)", dims, make, step(loss_of),
                   reference, cost, 1e-2, note, dtype="bf16")
    if OPTIONS["compile"]:
        compiled = torch.compile(loss_of)
        yield run_peer(torch, timer, "crossentropy", "peer:torch.compile_cross_entropy_bf16",
                       "torch.compile(F.cross_entropy) forward + its compiled backward on bf16 logits", dims, make,
                       step(compiled), reference, cost, 1e-2, note + "; compile time excluded", dtype="bf16")


FAMILIES.update({"crossentropy": crossentropy_peers})


# ---- linear_ce: F.linear + F.cross_entropy forward and backward (a training step's LM head) -------------------
# The timed call is the forward and torch.autograd.grad of the mean loss with respect to h and W: eager
# (all rows × vocab logits, then their gradient) or with the forward torch.compile'd (its compiled
# backward). h and W live in one flat bf16 tensor (run_peer rotates one input per set), W scaled by
# 0.65/√hidden as the Case scales it; labels: torch's own draw, every ignore-th −100; smoothing ε =
# smooth/1000. Checked against the same in fp32 (loss, dh and dW: the worst); FLOPs and bytes of sol's
# v01_unfused, which holds all the logits as these do.
def linear_ce_peers(torch, timer, device, dims, costs):
    d = dict(dims)
    known = {"rows", "hidden", "vocab", "chunk", "smooth", "ignore"}
    if any(k not in d for k in ("rows", "hidden", "vocab")) or any(k not in known for k in d):
        fail(2, f"shape '{shape_str(dims)}' does not fit linear_ce: give rows=N,hidden=N,vocab=N[,chunk,smooth,ignore]")
    rows, hidden, vocab = d["rows"], d["hidden"], d["vocab"]
    F = torch.nn.functional
    eps, every = d.get("smooth", 0) / 1000, d.get("ignore", 0)
    labels = torch.randint(0, vocab, (rows,), device=device)
    if every > 0:
        labels[every - 1 :: every] = -100

    def make():
        x = random_signed(torch, rows * hidden + vocab * hidden, device)
        x[rows * hidden :].mul_(0.65 / math.sqrt(hidden))
        return x.to(torch.bfloat16)

    def split(x):
        return x[: rows * hidden].view(rows, hidden), x[rows * hidden :].view(vocab, hidden)

    def loss_of(h, w):
        return F.cross_entropy(F.linear(h, w), labels, ignore_index=-100, label_smoothing=eps)

    def step(fwd, dtype=None):
        def fn(x):
            h, w = (t.detach().to(dtype or t.dtype).requires_grad_() for t in split(x))
            loss = fwd(h, w)
            return (loss.detach(), *torch.autograd.grad(loss, (h, w)))
        return fn

    cost = costs.of("v01_unfused")
    note = "timed: the forward and autograd.grad of the mean loss for h and W (loss, dh, dW checked)"
    yield run_peer(torch, timer, "linear_ce", "peer:torch.F.linear_cross_entropy_bf16",
                   "F.linear + F.cross_entropy forward + backward on bf16 h and W (eager autograd)", dims, make,
                   step(loss_of), step(loss_of, torch.float32), cost, 3e-2, note, dtype="bf16", unit="matrix")
    if OPTIONS["compile"]:
        yield run_peer(torch, timer, "linear_ce", "peer:torch.compile_linear_cross_entropy_bf16",
                       "torch.compile(F.linear + F.cross_entropy) forward + its compiled backward on bf16 h and W",
                       dims, make, step(torch.compile(loss_of)), step(loss_of, torch.float32), cost, 3e-2,
                       note + "; compile time excluded", dtype="bf16", unit="matrix")


FAMILIES.update({"linear_ce": linear_ce_peers})


# ---- gemm_fp32: torch.matmul on fp32, TF32 off (the fp32 peer) and on (…_tf32) ------------------------
def gemm_fp32_peers(torch, timer, device, dims, costs):
    m, n, k = dims_of(dims, "gemm_fp32", "m", "n", "k")
    # A and B live in one flat tensor (run_peer rotates one input per set): A = x[:mk], B = x[mk:].
    make = lambda: random_signed(torch, m * k + k * n, device)
    split = lambda x: (x[: m * k].view(m, k), x[m * k :].view(k, n))

    def matmul(tf32):
        def fn(x):
            torch.backends.cuda.matmul.allow_tf32 = tf32  # a global switch: set on every call
            a, b = split(x)
            return torch.matmul(a, b)
        return fn

    def reference(x):
        a, b = split(x)
        return torch.matmul(a.double(), b.double())

    cost = costs.floor("fp32")
    note = "alpha = 1, beta = 0; the minimal traffic"
    yield run_peer(torch, timer, "gemm_fp32", "peer:torch.matmul", "torch.matmul on fp32, allow_tf32 = False", dims,
                   make, matmul(False), reference, cost, 1e-5, note, dtype="fp32")
    yield run_peer(torch, timer, "gemm_fp32", "peer:torch.matmul_tf32", "torch.matmul on fp32, allow_tf32 = True",
                   dims, make, matmul(True), reference, cost, 3e-3, note + "; TF32 tensor cores",
                   dtype="tf32", unit="matrix")
    torch.backends.cuda.matmul.allow_tf32 = False


FAMILIES["gemm_fp32"] = gemm_fp32_peers
# ---- tensor-core GEMM: C[m×n] = alpha·A[m×k]·B[n×k]ᵀ, the TN layout of kernels/gemm/tc (x @ W.T); FLOPs and
# bytes of the family's minimal traffic (A and B read once in their type, C bf16 written once).
FP8_SCALE_A, FP8_SCALE_B = 0.5, 0.25  # as kernels/gemm/tc/inputs.cuh


def gemm_peers(family):
    def peers(torch, timer, device, dims, costs):
        d = dict(dims)
        m, n, k = dims_of([(key, d[key]) for key in ("m", "n", "k") if key in d], family, "m", "n", "k")
        extra = [key for key in d if key not in ("m", "n", "k", "lda", "ldb", "ldc", "tb")]
        tb = d.get("tb", 1) != 0  # tb=0: B stored k×n (x @ W), as the decode rungs' v11 reads it
        b_rows, b_row = (n, k) if tb else (k, n)
        lda, ldb = d.get("lda", k), d.get("ldb", b_row)
        if extra or lda < k or ldb < b_row or d.get("ldc", n) < n or (not tb and family == "gemm_fp8"):
            fail(2, f"shape '{shape_str(dims)}' does not fit {family}: m, n, k and optional lda ≥ k, ldb ≥ k "
                    "(tb=0: ldb ≥ n, not fp8), ldc ≥ n")
        fp8 = getattr(torch, "float8_e4m3fn", None)
        dt, dtype = {"gemm_bf16": (torch.bfloat16, "bf16"), "gemm_fp16": (torch.float16, "fp16"),
                     "gemm_fp8": (fp8, "fp8_e4m3")}[family]
        cost = costs.floor(dtype)
        note = "A and B in one allocation (pitches lda, ldb); C contiguous bf16 (ldc not applied)"

        def make():  # one flat tensor holding A (m × lda) then B (n × ldb; tb=0: k × ldb)
            return random_signed(torch, m * lda + b_rows * ldb, device).to(dt)

        def views(x):  # A (m × k) and B as n × k (for tb=0 a transposed view of the stored k × n)
            b = x[m * lda:].view(b_rows, ldb)[:, :b_row]
            return x[:m * lda].view(m, lda)[:, :k], b if tb else b.t()

        if family == "gemm_fp8":
            if fp8 is None or not hasattr(torch, "_scaled_mm"):
                yield record(family, "peer:torch._scaled_mm", "torch._scaled_mm fp8 e4m3", dims, cost, 5e-3,
                             "", "fp8_e4m3", "matrix", skipped="this torch has no fp8 _scaled_mm")
                return
            sa = torch.tensor(FP8_SCALE_A, device=device)
            sb = torch.tensor(FP8_SCALE_B, device=device)

            def fn(x):
                a, b = views(x)
                return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)

            def ref(x):
                a, b = views(x)
                return (a.float().double() @ b.float().double().t()) * (FP8_SCALE_A * FP8_SCALE_B)

            yield run_peer(torch, timer, family, "peer:torch._scaled_mm",
                           "torch._scaled_mm(A, Bᵀ) fp8 e4m3, per-tensor scales, bf16 out", dims, make, fn, ref, cost,
                           5e-3, note, dtype="fp8_e4m3", unit="matrix")
            return

        def fn(x):
            a, b = views(x)
            return a @ b.t()

        def ref(x):
            a, b = views(x)
            return a.double() @ b.double().t()

        name = dtype
        yield run_peer(torch, timer, family, f"peer:torch.matmul_{name}", f"x @ W.T on {name} (cuBLAS via torch)", dims,
                       make, fn, ref, cost, 5e-3, note + ("" if name == "bf16" else "; output fp16 (torch's)"),
                       dtype=name, unit="matrix")
    return peers


FAMILIES.update({f: gemm_peers(f) for f in ("gemm_bf16", "gemm_fp16", "gemm_fp8")})
# ---- backward families (layernorm_bwd, rmsnorm_bwd, softmax_bwd): the forward runs once when the input set is
# made (outside the timing); the timed call is torch.autograd.grad(y, (x, params), dy, retain_graph=True) — aten's
# native backward kernels for F.layer_norm / F.rms_norm / torch.softmax, the compiled backward graph for
# torch.compile'd naive formulas. FLOPs and bytes of the family's one-read rung.
class BwdInput:
    """One input set: x (leaf), the forward's y and graph, dy. numel/element_size: what one set holds."""

    def __init__(self, x, y, dy):
        self.x, self.y, self.dy = x, y, dy

    def numel(self):
        return 2 * self.x.numel()

    def element_size(self):
        return self.x.element_size()


def row_bwd_peers(family):
    base = family[: -len("_bwd")]

    def peers(torch, timer, device, dims, costs):
        rows, cols = dims_of(dims, family, "rows", "cols")
        F = torch.nn.functional
        dt, n = torch.bfloat16, rows * cols
        g = random_positive(torch, cols, device).to(dt).requires_grad_()
        b = (random_positive(torch, cols, device) - 1.25).to(dt).requires_grad_()
        if base == "layernorm":
            fwds = {"F.layer_norm": lambda x: F.layer_norm(x, (cols,), g, b, 1e-5),
                    "naive_layer_norm": lambda x: naive_layer_norm(torch, x, g, b)}
            ref_fwd = lambda x: naive_layer_norm(torch, x, g.detach().double(), b.detach().double())
            params = (g, b)
        elif base == "rmsnorm":
            fwds = {"F.rms_norm": lambda x: F.rms_norm(x, (cols,), g, 1e-5), "naive_rms_norm": lambda x: naive_rms_norm(torch, x, g)}
            ref_fwd = lambda x: naive_rms_norm(torch, x, g.detach().double())
            params = (g,)
        else:
            fwds = {"torch.softmax": lambda x: torch.softmax(x, -1), "naive_softmax": lambda x: naive_softmax(torch, x)}
            ref_fwd = lambda x: torch.softmax(x, -1)
            params = ()
        cost = costs.floor("bf16")
        note = "timed: autograd.grad of the saved graph (forward outside); the one-read floor; dx checked"

        def make_input(fwd):
            x = random_signed(torch, n, device).view(rows, cols).to(dt).requires_grad_()
            return BwdInput(x, fwd(x), random_signed(torch, n, device).view(rows, cols).to(dt))

        def backward(inp):
            return torch.autograd.grad(inp.y, (inp.x,) + params, inp.dy, retain_graph=True)[0]

        def reference(inp):
            xd = inp.x.detach().double().requires_grad_()
            return torch.autograd.grad(ref_fwd(xd), xd, inp.dy.double())[0]

        for name, fwd in fwds.items():
            yield run_peer(torch, timer, family, f"peer:torch.{name}_bwd_bf16", f"backward of {name} on bf16 (eager autograd)",
                           dims, lambda f=fwd: make_input(f), backward, reference, cost, 1e-2, note,
                           dtype="bf16")
        if not OPTIONS["compile"]:
            return
        naive = [k for k in fwds if k.startswith("naive")][0]
        # The timing replays one saved graph (retain_graph=True); AOTAutograd's donated buffers forbid that
        # once a second shape recompiles ("compiled with non-empty donated buffers"): keep them undonated.
        functorch_config = getattr(getattr(torch, "_functorch", None), "config", None)
        if functorch_config is not None and hasattr(functorch_config, "donated_buffer"):
            functorch_config.donated_buffer = False
        compiled = torch.compile(fwds[naive])
        yield run_peer(torch, timer, family, f"peer:torch.compile_{naive}_bwd_bf16",
                       f"backward of torch.compile({naive}) on bf16 (the compiled backward graph)", dims,
                       lambda: make_input(compiled), backward, reference, cost, 1e-2,
                       note + "; compile time excluded", dtype="bf16")
    return peers


FAMILIES.update({f: row_bwd_peers(f) for f in ("layernorm_bwd", "rmsnorm_bwd", "softmax_bwd")})


def read_request(path, text=None):
    """The request's budget, graph threshold, compile switch, dry-run switch and families:
    [(family, [(dims, Costs)])]. From the file at path, or from text (path names it: "stdin")."""
    try:
        if text is None:
            with open(path) as f:
                text = f.read()
        req = json.loads(text)
    except (OSError, ValueError) as e:
        fail(2, f"cannot read the request {path}: {e}")
    if not isinstance(req, dict) or not isinstance(req.get("families"), list):
        fail(2, f"{path}: the request is an object with a \"families\" list")
    budget = req.get("budget_s", SECONDS["device"])
    if not isinstance(budget, (int, float)) or not (0 < budget <= 60):
        fail(2, f"budget_s {budget}: give seconds in (0, 60]")
    graph_below = req.get("graph_below_s")
    if not isinstance(graph_below, (int, float)) or not (0 <= graph_below <= 1):
        fail(2, f"{path}: graph_below_s {graph_below!r}: give the seconds below which a call is timed from a graph")
    families = []
    for fam in req["families"]:
        name = fam.get("family") if isinstance(fam, dict) else None
        if not isinstance(name, str) or not isinstance(fam.get("shapes"), list):
            fail(2, f"{path}: each family is {{\"family\": NAME, \"shapes\": [...]}}")
        shapes = []
        for item in fam["shapes"]:
            if not isinstance(item, dict) or not isinstance(item.get("shape"), str) or not isinstance(item.get("costs"), list):
                fail(2, f"{path} ({name}): each shape is {{\"shape\": TEXT, \"costs\": [...]}}")
            for c in item["costs"]:
                if not all(k in c for k in ("variant", "dtype", "flops", "bytes")):
                    fail(2, f"{path} ({name}, {item['shape']}): a cost names variant, dtype, flops and bytes")
            shapes.append((item["shape"], item["costs"]))
        families.append((name, shapes))
    return float(budget), float(graph_below), bool(req.get("compile", True)), bool(req.get("dry_run", False)), families


def serve(torch, family, shapes, cpu):
    """One family's answer: {"records": [...]} or {"missing": why}, with the seconds it took."""
    t0 = time.perf_counter()
    try:
        if family not in FAMILIES:
            fail(2, f"no PyTorch peer for family '{family}'")
        parsed = [(parse_shape(text), Costs(family, text, costs)) for text, costs in shapes]
        timer = Timer(torch, cpu)
        torch.manual_seed(0x501)
        records = []
        for dims, costs in parsed:
            records.extend(FAMILIES[family](torch, timer, "cpu" if cpu else "cuda", dims, costs))
        for r in records:
            if not math.isfinite(r["rel_l2"]):
                r["rel_l2"], r["verified"] = -1.0, False  # JSON has no NaN; -1 marks a non-finite error
        answer = {"records": records} if records else {"missing": f"no PyTorch peer runs at the shapes of {family}"}
    except PeerError as e:
        answer = {"missing": f"torch_peers: {e}"}
    except Exception as e:  # noqa: BLE001 — one family's failure must not lose the others' records
        answer = {"missing": f"torch_peers: {family}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
    finally:
        if not cpu:
            torch.cuda.empty_cache()
    answer["seconds"] = time.perf_counter() - t0
    return answer


def dry_run(families):
    """What the request asks, checked without torch: known families, shapes that parse, costs present."""
    out = {}
    for family, shapes in families:
        try:
            if family not in FAMILIES:
                fail(2, f"no PyTorch peer for family '{family}'")
            for text, costs in shapes:
                parse_shape(text)
                if not costs:
                    fail(2, f"{family} at {text}: the request gives no cost")
            out[family] = {"missing": f"dry run: {len(shapes)} shape(s) checked, nothing measured", "seconds": 0.0}
        except PeerError as e:
            out[family] = {"missing": f"torch_peers: {e}", "seconds": 0.0}
    return out


def write_answer(path, answer):
    """The answer so far, replacing the previous one whole (never a half-written file)."""
    with open(path + ".part", "w") as f:
        json.dump(answer, f, indent=1)
    os.replace(path + ".part", path)


def import_torch():
    """torch and the seconds its import took."""
    t0 = time.perf_counter()
    try:
        import torch
    except ImportError as e:
        fail(3, f"PyTorch is not installed ({e})")
    return torch, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--request", required=True,
                    help="the harness's request (JSON), or - to read it from stdin after importing torch")
    ap.add_argument("--out", required=True, help="where the answer goes (JSON)")
    ap.add_argument("--cpu", action="store_true", help="check this script on a machine without a GPU (wall-clock timing)")
    ap.add_argument("--dry-run", action="store_true", help="check the request; import nothing, measure nothing")
    args = ap.parse_args()
    try:
        torch, import_s = None, 0.0
        if args.request == "-":  # started ahead: import first, then wait for the request
            if not args.dry_run:
                torch, import_s = import_torch()
            text = sys.stdin.read()
            if not text.strip():
                return 0
            request = read_request("stdin", text)
        else:
            request = read_request(args.request)
        budget, graph_below, compile_peers, dry, families = request
        SECONDS.update(device=budget, eager=budget)
        OPTIONS.update(compile=compile_peers, graph_below_s=graph_below)
        answer = {"torch": "", "import_s": 0.0}
        if dry or args.dry_run:
            answer["families"] = dry_run(families)
            print(f"torch_peers: dry run: {len(families)} families checked; torch not imported", file=sys.stderr)
        else:
            if torch is None:
                torch, import_s = import_torch()
            if not args.cpu and not torch.cuda.is_available():
                fail(3, "PyTorch sees no CUDA device")
            answer["import_s"] = import_s
            answer["torch"] = f"{torch.__version__} (CUDA {torch.version.cuda})"
            answer["families"] = {}
            for family, shapes in families:
                answer["families"][family] = serve(torch, family, shapes, args.cpu)
                write_answer(args.out, answer)  # what is done survives a crash or a timeout later on
    except PeerError as e:
        print(f"torch_peers: {e}", file=sys.stderr)
        return e.code
    write_answer(args.out, answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())

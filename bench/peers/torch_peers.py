#!/usr/bin/env python3
"""PyTorch peers for sol's memory-lesson families, timed the way the registry's Cases are.

    python3 bench/peers/torch_peers.py --family F --shapes "n=2^28;n=2^20" --out FILE.json

Writes a JSON array of records (family, variant, technique, dtype, unit, math, shape, median_s,
min_s, max_s, spread, samples, timing, eager_median_s, sm_clock_hz, flops, bytes, verified, rel_l2,
tolerance, note) for the shapes given, in the same shape syntax and with the same FLOP and byte
counts as kernels/<family>/case.cu. dtype, unit ("matrix" or "vector") and math (the type the
arithmetic runs in, where it is not dtype) place the peer on its own roofline.

Timing, two ways. Device time (median_s, min_s, max_s, spread, the comparison with sol's kernels):
for calls shorter than GRAPH_BELOW_S, the calls over all rotated input sets captured in one CUDA
graph, replayed back to back, CUDA events around each sample of replays, per-call time = sample /
calls (timing "graph"); for longer calls, autograd backwards and where capture fails, many eager
calls between one event pair (timing "events_batched"), which the host queues ahead of the GPU. Eager time
(eager_median_s, what a user's Python loop sees, host dispatch included): host clock around a
batch of eager calls, synchronised before and after, per call. Warm-up first; inputs are fresh
random values (never zero) rotated over enough sets to exceed 256 MiB, as the Cases do; the SM
clock is read while the replays run. Each result is checked against a float64 reference. Exits 3
with one line on stderr when torch or CUDA is
missing, 2 on bad arguments. Depends on torch only.
"""
import argparse
import json
import math
import statistics
import sys
import time

ROTATE_BYTES = 256 * 2**20  # all sets together exceed this (5× H200's 50 MB L2)
MAX_SETS = 16
SECONDS = {"device": 0.5, "eager": 0.5}  # measuring time per (variant, shape) each way, after warm-up (--budget)
SAMPLE_SECONDS = 1e-3  # one sample spans at least this long (many calls when a call is short)
GRAPH_CALLS_MAX = 256  # calls captured in one graph, at most
# Calls at least this long are device-timed as eager calls between one event pair: the host queues
# them far ahead of the GPU, so a graph would remove no gap (and holds its outputs in its own pool).
GRAPH_BELOW_S = 50e-6
MIN_SAMPLES, MAX_SAMPLES, WARMUP = 10, 200, 3

def fail(code, line):
    print(f"torch_peers: {line}", file=sys.stderr)
    sys.exit(code)


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
        if not capturable or eager["median_s"] >= GRAPH_BELOW_S:
            times, clock, how = self.batched(fn, inputs, eager["median_s"])
            why = "autograd backward" if not capturable else f"calls of ≥ {GRAPH_BELOW_S * 1e6:.0f} µs"
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
    out, ref = out.double(), ref.double()
    ref_norm = torch.linalg.vector_norm(ref).item()
    err = torch.linalg.vector_norm(out - ref).item()
    return err / ref_norm if ref_norm > 0 else err


# ---- one peer at one shape -----------------------------------------------------------------------
def record(family, variant, technique, dims, flops, nbytes, tol, note, dtype, unit="vector", math_type=None, skipped=None):
    """A record before timing; skipped: why it cannot run."""
    rec = dict(family=family, variant=variant, technique=technique, dtype=dtype, unit=unit, shape=shape_str(dims),
               median_s=0.0, min_s=0.0, max_s=0.0, spread=0.0, samples=0, timing="", eager_median_s=0.0,
               sm_clock_hz=0.0, flops=float(flops), bytes=float(nbytes), verified=False, rel_l2=0.0, tolerance=tol,
               note=note)
    if math_type:
        rec["math"] = math_type
    if skipped:
        rec["skipped"] = skipped
        rec["note"] = (note + "; " if note else "") + "not run: " + skipped
    return rec


def run_peer(torch, timer, family, variant, technique, dims, make_input, fn, reference, flops, nbytes, tol, note="",
             dtype=None, unit="vector", math_type=None):
    """dtype: the data's type as sol names it ("bf16", "fp32", "tf32" for fp32 multiplied in TF32);
    unit, math_type: where the arithmetic runs, for the peer's own floor."""
    rec = record(family, variant, technique, dims, flops, nbytes, tol, note, dtype, unit, math_type)
    try:
        first = make_input()
        out = fn(first)
        timer.sync()
        err = rel_l2(torch, out, reference(first))
        per_set = first.numel() * first.element_size() + out.numel() * out.element_size()
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
def copy_peers(torch, timer, device, dims):
    (n,) = dims_of(dims, "copy", "n")
    yield run_peer(torch, timer, "copy", "peer:torch.clone", "torch.Tensor.clone() of an fp32 tensor (eager)", dims,
                   lambda: random_signed(torch, n, device), lambda x: x.clone(), lambda x: x, 0, 8 * n, 0.0,
                   "bytes = n × (4 read + 4 written), as the copy Case", dtype="fp32")


def precision_peers(torch, timer, device, dims):
    (n,) = dims_of(dims, "precision", "n")
    kinds = [("fp32", torch.float32, 4), ("bf16", torch.bfloat16, 2)]
    fp8 = getattr(torch, "float8_e4m3fn", None)
    for name, dtype, size in kinds + ([("fp8_e4m3", fp8, 1)] if fp8 is not None else []):
        yield run_peer(torch, timer, "precision", f"peer:torch.relu_{name}", f"torch.relu on {name} (eager)", dims,
                       lambda dt=dtype: random_signed(torch, n, device).to(dt), torch.relu,
                       lambda x: torch.relu(x.double()), n, 2 * size * n, 0.0,
                       f"bytes = n × ({size} read + {size} written); flops = n", dtype=name)
    if fp8 is None:
        yield record("precision", "peer:torch.relu_fp8_e4m3", "torch.relu on fp8 e4m3", dims, n, 2 * n, 0.0, "",
                     "fp8_e4m3", skipped="this torch has no float8_e4m3fn")
    # torch.compile fails lazily (at the first call) when no compiler backend works: run_peer reports it.
    # Inductor may also generate the fp8 ReLU that eager lacks (it computes in a wider type).
    for name, dtype, size in [("bf16", torch.bfloat16, 2)] + ([("fp8_e4m3", fp8, 1)] if fp8 is not None else []):
        yield run_peer(torch, timer, "precision", f"peer:torch.compile_relu_{name}", f"torch.compile(torch.relu) on {name}",
                       dims, lambda dt=dtype: random_signed(torch, n, device).to(dt), torch.compile(torch.relu),
                       lambda x: torch.relu(x.double()), n, 2 * size * n, 0.0,
                       f"bytes = n × ({size} read + {size} written); compile time excluded (first call and warm-up)",
                       dtype=name)


def coalescing_peers(torch, timer, device, dims):
    keys = [k for k, _ in dims]
    if "stride" in keys:
        n, stride = dims_of(dims, "coalescing", "n", "stride")
        read_sectors = n if stride >= 8 else (n - 1) * stride // 8 + 1
        yield run_peer(torch, timer, "coalescing", "peer:torch.strided_clone", "x[::stride].clone() (eager)", dims,
                       lambda: random_signed(torch, (n - 1) * stride + 1, device), lambda x: x[::stride].clone(),
                       lambda x: x[::stride], 0, 32 * (read_sectors + (n + 7) // 8), 0.0,
                       "bytes = whole 32-byte sectors touched, as the v03_strided Case", dtype="fp32")
        return
    rows, cols = dims_of(dims, "coalescing", "rows", "cols")
    tol = 1e-4
    for dim, what, outs in ((1, "row sums (as v01)", rows), (0, "column sums (as v02)", cols)):
        yield run_peer(torch, timer, "coalescing", f"peer:torch.sum_dim{dim}", f"x.sum(dim={dim}): {what} (eager)",
                       dims, lambda: random_positive(torch, (rows, cols), device), lambda x, d=dim: x.sum(dim=d),
                       lambda x, d=dim: x.double().sum(dim=d), rows * cols, 4 * rows * cols + 4 * outs, tol,
                       "bytes = A read once + one fp32 per sum written", dtype="fp32")


def banks_peers(torch, timer, device, dims):
    rows, cols = dims_of(dims, "banks", "rows", "cols")
    yield run_peer(torch, timer, "banks", "peer:torch.transpose_contiguous", "x.t().contiguous() (eager)", dims,
                   lambda: random_signed(torch, rows * cols, device).view(rows, cols), lambda x: x.t().contiguous(),
                   lambda x: x.t(), 0, 8 * rows * cols, 0.0, "bytes = 2·rows·cols·4", dtype="fp32")


def mx_peers(torch, timer, device, dims):
    import torch_mx_peers  # bench/peers/torch_mx_peers.py, beside this script (branch mx)
    yield from torch_mx_peers.peers(torch, timer, device, dims, run_peer)


def attention_peers(backward):
    import torch_attention_peers  # bench/peers/torch_attention_peers.py, beside this script (branch attn)
    return lambda torch, timer, device, dims: torch_attention_peers.peers(torch, timer, device, dims, run_peer, fail,
                                                                          backward)


FAMILIES = {"copy": copy_peers, "precision": precision_peers, "coalescing": coalescing_peers, "banks": banks_peers,
            "mx": mx_peers, "attention": attention_peers(False), "attention_bwd": attention_peers(True)}


# ---- fusion families (issue 5): bytes and FLOPs as kernels/elementwise and kernels/norms count them for the
# fused rung (each input read once, the output written once), so that every peer is measured against one floor.
def sincos_naive(torch):
    return lambda x: torch.sin(x) ** 2 + torch.cos(x) ** 2


def elementwise_peers(torch, timer, device, dims):
    (n,) = dims_of(dims, "elementwise", "n")
    ref = lambda x: torch.sin(x.double()) ** 2 + torch.cos(x.double()) ** 2
    for name, dtype, size, tol in (("fp32", torch.float32, 4, 1e-6), ("bf16", torch.bfloat16, 2, 4e-3)):
        make = lambda dt=dtype: random_signed(torch, n, device).to(dt)
        note = f"bytes = n × ({size} read + {size} written), the fused floor; flops = 5n (one per op)"
        yield run_peer(torch, timer, "elementwise", f"peer:torch.sin2_cos2_eager_{name}",
                       f"torch.sin(x)**2 + torch.cos(x)**2 on {name} (eager: 5 kernels)", dims, make,
                       sincos_naive(torch), ref, 5 * n, 2 * size * n, tol, note, dtype=name)
        yield run_peer(torch, timer, "elementwise", f"peer:torch.compile_sin2_cos2_{name}",
                       f"torch.compile of the same formula on {name}", dims, make, torch.compile(sincos_naive(torch)),
                       ref, 5 * n, 2 * size * n, tol, note + "; compile time excluded", dtype=name)


def naive_layer_norm(torch, x, g, b, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def naive_rms_norm(torch, x, g, eps=1e-5):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * g


def naive_softmax(torch, x):
    e = torch.exp(x - x.max(-1, keepdim=True).values)
    return e / e.sum(-1, keepdim=True)


def row_peers(family):
    def peers(torch, timer, device, dims):
        rows, cols = dims_of(dims, family, "rows", "cols")
        F = torch.nn.functional
        dt, size = torch.bfloat16, 2
        g = random_positive(torch, cols, device).to(dt)
        b = (random_positive(torch, cols, device) - 1.25).to(dt)
        make = lambda: random_signed(torch, rows * cols, device).view(rows, cols).to(dt)
        if family == "layernorm":
            eager = {"F.layer_norm": lambda x: F.layer_norm(x, (cols,), g, b, 1e-5),
                     "naive_layer_norm": lambda x: naive_layer_norm(torch, x, g, b)}
            ref = lambda x: naive_layer_norm(torch, x.double(), g.double(), b.double())
            nbytes, flops = 2 * size * rows * cols + 2 * size * cols, 10 * rows * cols
        elif family == "rmsnorm":
            eager = {"F.rms_norm": lambda x: F.rms_norm(x, (cols,), g, 1e-5),
                     "naive_rms_norm": lambda x: naive_rms_norm(torch, x, g)}
            ref = lambda x: naive_rms_norm(torch, x.double(), g.double())
            nbytes, flops = 2 * size * rows * cols + size * cols, 4 * rows * cols
        else:
            eager = {"torch.softmax": lambda x: torch.softmax(x, -1), "naive_softmax": lambda x: naive_softmax(torch, x)}
            ref = lambda x: torch.softmax(x.double(), -1)
            nbytes, flops = 2 * size * rows * cols, 5 * rows * cols
        note = "bf16; bytes = x read once + y written once (+ γ, β), the fused floor"
        for name, fn in eager.items():
            yield run_peer(torch, timer, family, f"peer:torch.{name}_bf16", f"{name} on bf16 (eager)", dims, make, fn, ref,
                           flops, nbytes, 1e-2, note, dtype="bf16")
        naive = [k for k in eager if k.startswith("naive")][0]
        yield run_peer(torch, timer, family, f"peer:torch.compile_{naive}_bf16", f"torch.compile({naive}) on bf16", dims,
                       make, torch.compile(eager[naive]), ref, flops, nbytes, 1e-2, note + "; compile time excluded",
                       dtype="bf16")
    return peers


FAMILIES.update({"elementwise": elementwise_peers, "layernorm": row_peers("layernorm"),
                 "rmsnorm": row_peers("rmsnorm"), "softmax": row_peers("softmax")})


# ---- gemm_fp32 (issue 6): torch.matmul on fp32, TF32 off (the fp32 peer) and on (…_tf32) -------------
def gemm_fp32_peers(torch, timer, device, dims):
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

    nbytes = 4 * (m * k + k * n + m * n)
    note = "alpha = 1, beta = 0; bytes = 4(mk + kn + mn), the minimal traffic, as the gemm_fp32 Case"
    yield run_peer(torch, timer, "gemm_fp32", "peer:torch.matmul", "torch.matmul on fp32, allow_tf32 = False", dims,
                   make, matmul(False), reference, 2 * m * n * k, nbytes, 1e-5, note, dtype="fp32")
    yield run_peer(torch, timer, "gemm_fp32", "peer:torch.matmul_tf32", "torch.matmul on fp32, allow_tf32 = True",
                   dims, make, matmul(True), reference, 2 * m * n * k, nbytes, 3e-3, note + "; TF32 tensor cores",
                   dtype="tf32", unit="matrix")
    torch.backends.cuda.matmul.allow_tf32 = False


FAMILIES["gemm_fp32"] = gemm_fp32_peers
# ---- tensor-core GEMM (issue 7): C[m×n] = alpha·A[m×k]·B[n×k]ᵀ, the TN layout of kernels/gemm/tc (x @ W.T);
# bytes as kernels/gemm/tc/case.cu counts them (A and B read once in their type, C bf16 written once).
FP8_SCALE_A, FP8_SCALE_B = 0.5, 0.25  # as kernels/gemm/tc/inputs.cuh


def gemm_peers(family):
    def peers(torch, timer, device, dims):
        d = dict(dims)
        m, n, k = dims_of([(key, d[key]) for key in ("m", "n", "k") if key in d], family, "m", "n", "k")
        extra = [key for key in d if key not in ("m", "n", "k", "lda", "ldb", "ldc")]
        lda, ldb = d.get("lda", k), d.get("ldb", k)
        if extra or lda < k or ldb < k or d.get("ldc", n) < n:
            fail(2, f"shape '{shape_str(dims)}' does not fit {family}: m, n, k and optional lda ≥ k, ldb ≥ k, ldc ≥ n")
        fp8 = getattr(torch, "float8_e4m3fn", None)
        dt, size = {"gemm_bf16": (torch.bfloat16, 2), "gemm_fp16": (torch.float16, 2), "gemm_fp8": (fp8, 1)}[family]
        flops, nbytes = 2 * m * n * k, size * (m * k + n * k) + 2 * m * n
        note = "A and B in one allocation (pitches lda, ldb); C contiguous bf16 (ldc not applied)"

        def make():  # one flat tensor holding A (m × lda) then B (n × ldb)
            return random_signed(torch, m * lda + n * ldb, device).to(dt)

        def views(x):
            return x[:m * lda].view(m, lda)[:, :k], x[m * lda:].view(n, ldb)[:, :k]

        if family == "gemm_fp8":
            if fp8 is None or not hasattr(torch, "_scaled_mm"):
                yield record(family, "peer:torch._scaled_mm", "torch._scaled_mm fp8 e4m3", dims, flops, nbytes, 5e-3,
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
                           "torch._scaled_mm(A, Bᵀ) fp8 e4m3, per-tensor scales, bf16 out", dims, make, fn, ref, flops,
                           nbytes, 5e-3, note, dtype="fp8_e4m3", unit="matrix")
            return

        def fn(x):
            a, b = views(x)
            return a @ b.t()

        def ref(x):
            a, b = views(x)
            return a.double() @ b.double().t()

        name = "bf16" if dt == torch.bfloat16 else "fp16"
        yield run_peer(torch, timer, family, f"peer:torch.matmul_{name}", f"x @ W.T on {name} (cuBLAS via torch)", dims,
                       make, fn, ref, flops, nbytes, 5e-3, note + ("" if name == "bf16" else "; output fp16 (torch's)"),
                       dtype=name, unit="matrix")
    return peers


FAMILIES.update({f: gemm_peers(f) for f in ("gemm_bf16", "gemm_fp16", "gemm_fp8")})
# ---- backward families (layernorm_bwd, rmsnorm_bwd, softmax_bwd): the forward runs once when the input set is
# made (outside the timing); the timed call is torch.autograd.grad(y, (x, params), dy, retain_graph=True) — aten's
# native backward kernels for F.layer_norm / F.rms_norm / torch.softmax, the compiled backward graph for
# torch.compile'd naive formulas. Bytes and FLOPs as kernels/norms/case_bwd.cu counts its one-read rung.
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

    def peers(torch, timer, device, dims):
        rows, cols = dims_of(dims, family, "rows", "cols")
        F = torch.nn.functional
        dt, size, n = torch.bfloat16, 2, rows * cols
        g = random_positive(torch, cols, device).to(dt).requires_grad_()
        b = (random_positive(torch, cols, device) - 1.25).to(dt).requires_grad_()
        if base == "layernorm":
            fwds = {"F.layer_norm": lambda x: F.layer_norm(x, (cols,), g, b, 1e-5),
                    "naive_layer_norm": lambda x: naive_layer_norm(torch, x, g, b)}
            ref_fwd = lambda x: naive_layer_norm(torch, x, g.detach().double(), b.detach().double())
            params, flops, stats = (g, b), 11 * n, 2
        elif base == "rmsnorm":
            fwds = {"F.rms_norm": lambda x: F.rms_norm(x, (cols,), g, 1e-5), "naive_rms_norm": lambda x: naive_rms_norm(torch, x, g)}
            ref_fwd = lambda x: naive_rms_norm(torch, x, g.detach().double())
            params, flops, stats = (g,), 8 * n, 1
        else:
            fwds = {"torch.softmax": lambda x: torch.softmax(x, -1), "naive_softmax": lambda x: naive_softmax(torch, x)}
            ref_fwd = lambda x: torch.softmax(x, -1)
            params, flops, stats = (), 4 * n, 0
        nbytes = 3 * size * n + (size * cols * (1 + len(params)) if params else 0) + 4 * rows * stats
        note = "bf16; timed: autograd.grad of the saved graph (forward outside); bytes = x|y, dy read + dx written (+ γ, dγ, dβ, statistics), the one-read floor; dx checked"

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
                           dims, lambda f=fwd: make_input(f), backward, reference, flops, nbytes, 1e-2, note,
                           dtype="bf16")
        naive = [k for k in fwds if k.startswith("naive")][0]
        # The timing replays one saved graph (retain_graph=True); AOTAutograd's donated buffers forbid that
        # once a second shape recompiles ("compiled with non-empty donated buffers"): keep them undonated.
        functorch_config = getattr(getattr(torch, "_functorch", None), "config", None)
        if functorch_config is not None and hasattr(functorch_config, "donated_buffer"):
            functorch_config.donated_buffer = False
        compiled = torch.compile(fwds[naive])
        yield run_peer(torch, timer, family, f"peer:torch.compile_{naive}_bwd_bf16",
                       f"backward of torch.compile({naive}) on bf16 (the compiled backward graph)", dims,
                       lambda: make_input(compiled), backward, reference, flops, nbytes, 1e-2,
                       note + "; compile time excluded", dtype="bf16")
    return peers


FAMILIES.update({f: row_bwd_peers(f) for f in ("layernorm_bwd", "rmsnorm_bwd", "softmax_bwd")})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", required=True)
    ap.add_argument("--shapes", required=True, help='shapes separated by ";", e.g. "n=2^28;n=2^20"')
    ap.add_argument("--out", required=True)
    ap.add_argument("--cpu", action="store_true", help="check this script on a machine without a GPU (wall-clock timing)")
    ap.add_argument("--budget", type=float, default=SECONDS["device"],
                    help="seconds of sampling per peer and shape, for each of the two timings (default %(default)s)")
    args = ap.parse_args()
    if not (0 < args.budget <= 60):
        fail(2, f"--budget {args.budget}: give seconds in (0, 60]")
    SECONDS.update(device=args.budget, eager=args.budget)
    shapes = [parse_shape(s.strip()) for s in args.shapes.split(";") if s.strip()]
    if not shapes:
        fail(2, "no shapes given")
    try:
        import torch
    except ImportError as e:
        fail(3, f"PyTorch is not installed ({e})")
    if not args.cpu and not torch.cuda.is_available():
        fail(3, "PyTorch sees no CUDA device")
    records = []
    if args.family in FAMILIES:
        device = "cpu" if args.cpu else "cuda"
        timer = Timer(torch, args.cpu)
        torch.manual_seed(0x501)
        for dims in shapes:
            records.extend(FAMILIES[args.family](torch, timer, device, dims))
    else:
        print(f"torch_peers: no PyTorch peer for family '{args.family}' (peers: {', '.join(FAMILIES)})", file=sys.stderr)
    for r in records:
        if not math.isfinite(r["rel_l2"]):
            r["rel_l2"], r["verified"] = -1.0, False  # JSON has no NaN; -1 marks a non-finite error
    with open(args.out, "w") as f:
        json.dump(records, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Op models: FLOPs and bytes of an operation, placed on a chip's roofline (lecture §6).

    >>> op = sol.model.matmul(4096, 4096, 4096, dtype="bf16")
    >>> op.roofline(gpu="h200").bound
    'compute'
    >>> sol.model.layernorm(32768, 4096, impl="fused").roofline(gpu="h200").floor_s

Each constructor returns an :class:`Op`; ``Op.roofline`` returns a :class:`Roofline` whose fields
are those of ``sol roofline --json``. The other models, each returning the dataclass of its CLI
subcommand's ``--json`` document:

    >>> sol.model.shapes(1793, 1793, 1793, gpu="h200").tile_efficiency     # sol shapes gemm
    >>> sol.model.occupancy(threads=256, regs=64, smem=48 * 1024).limiter  # sol occupancy
    >>> sol.model.coalescing(stride=32).sectors_per_request                # sol access coalescing
    >>> sol.model.banks(stride=32, row=32, pad=1).conflict_degree          # sol access banks
    >>> sol.model.divergence(ways=4).efficiency                            # sol access divergence
    >>> sol.model.checkpoint(32, 4, 2048, 4096, 32, budget="40GiB").chosen  # sol checkpoint
    >>> sol.model.systolic(gemm=(512, 512, 512), array=(128, 128)).total    # sol systolic
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Optional

from . import _core
from ._args import INT32_END as _I32, flag as _flag, integer as _int, integers as _ints, number as _number, text as _str


@dataclass(frozen=True)
class Level:
    level: str
    bytes: float
    bytes_per_s: float
    intensity_flops_per_byte: float
    ridge_flops_per_byte: float
    time_s: float
    binding: bool


@dataclass(frozen=True)
class Roofline:
    """The answer to one roofline question; the fields of ``sol roofline --json``."""

    op: str
    kind: str
    gpu: str
    gpu_full_name: str
    dtype: str
    unit: str
    flops: float
    bytes: float
    intensity_flops_per_byte: float
    ridge_flops_per_byte: float
    bound: str
    compute_s: float
    memory_s: float
    floor_s: float
    attainable_flops_per_s: float
    fraction_of_peak: float
    peak_flops_per_s: float
    peak_label: str
    peak_derivation: str
    bandwidth_bytes_per_s: float
    bandwidth_label: str
    measured: bool
    levels: list[Level]
    notes: list[str]
    math_dtype: Optional[str] = None  # when the arithmetic runs in another type than the storage
    saved_bytes: Optional[float] = None  # attention: kept for the backward
    mxu: Optional[dict[str, Any]] = None  # a TPU matmul: the systolic simulator's view

    @classmethod
    def from_json(cls, text: str) -> "Roofline":
        d = json.loads(text)
        d["levels"] = [Level(**lv) for lv in d["levels"]]
        return cls(**d)

    def line(self, name: str = "") -> str:
        """The lecture's two-line summary."""
        label = name or self.op
        bound = f"{self.bound}-bound"
        return (
            f"{label:24s} I={self.intensity_flops_per_byte:9.2f}  ridge={self.ridge_flops_per_byte:6.1f}  {bound}\n"
            f"{'':24s} floor {self.floor_s * 1e3:8.4f} ms   attainable {self.attainable_flops_per_s / 1e12:7.1f} TFLOP/s "
            f"({100 * self.fraction_of_peak:5.2f}% of peak)"
        )


def _ask(op: str, gpu: str, dtype: str, unit: str = "", impl: str = "", sizes: Optional[dict[str, int]] = None,
         flops_per_op: float = 1.0, causal: bool = False, backward: bool = False, l2_reuse: bool = False,
         flops: float = 0.0, bytes: float = 0.0, name: str = "") -> Roofline:
    if sizes is not None and not isinstance(sizes, dict):
        raise _core.Error(f"sizes must be a dict of integers, got {sizes!r}")
    sizes = {_str("a size's name", k): _int(str(k), v) for k, v in (sizes or {}).items()}
    doc = _core.roofline_json(_str("op", op), _str("gpu", gpu), _str("dtype", dtype), _str("unit", unit),
                              _str("impl", impl), sizes, _number("flops_per_op", flops_per_op),
                              _flag("causal", causal), _flag("backward", backward), _flag("l2_reuse", l2_reuse), flops,
                              bytes, _str("name", name))
    return Roofline.from_json(doc)


def roofline(flops: float, bytes: float, gpu: str = "h100", dtype: str = "bf16", unit: str = "",
             name: str = "", quiet: bool = False) -> Roofline:
    """The lecture's §6 calculator on sol's database: prints the two-line summary (unless ``quiet``)
    and returns the :class:`Roofline`. The peak is the matrix unit's for ``dtype`` unless ``unit``
    says ``"vector"``; the bandwidth is the chip's HBM."""
    r = _ask("custom", gpu, dtype, unit=unit, flops=_number("flops", flops), bytes=_number("bytes", bytes), name=name)
    if not quiet:
        print(r.line(name))
    return r


@dataclass(frozen=True)
class Op:
    """An operation and its sizes, as ``sol roofline OP`` takes them."""

    kind: str
    dtype: str = "bf16"
    impl: str = ""
    sizes: dict[str, int] = field(default_factory=dict)
    flops_per_op: float = 1.0
    causal: bool = False
    backward: bool = False
    l2_reuse: bool = False

    def roofline(self, gpu: str = "h100", unit: str = "") -> Roofline:
        return _ask(self.kind, gpu, self.dtype, unit=unit, impl=self.impl, sizes=self.sizes,
                    flops_per_op=self.flops_per_op, causal=self.causal, backward=self.backward,
                    l2_reuse=self.l2_reuse)


def _sizes(**kw: Optional[int]) -> dict[str, int]:
    return {k: _int(k, v) for k, v in kw.items() if v is not None}


def matmul(m: int, n: int, k: int, dtype: str = "bf16", impl: str = "minimal", tile: Optional[int] = None) -> Op:
    """C[m×n] = A[m×k]·B[k×n]; impl minimal (each operand once), naive or tiled (square ``tile``)."""
    return Op("matmul", dtype, impl, _sizes(m=m, n=n, k=k, tile=tile))


def elementwise(n: int, ops: int = 1, dtype: str = "bf16", impl: str = "naive", flops_per_op: float = 1.0,
                extra_reads: Optional[int] = None) -> Op:
    """A chain of ``ops`` elementwise ops over ``n`` elements, fused or naive (one pass per op)."""
    return Op("elementwise", dtype, impl, _sizes(n=n, ops=ops, extra_reads=extra_reads),
              flops_per_op=_number("flops_per_op", flops_per_op))


def layernorm(rows: int, cols: int, dtype: str = "bf16", impl: str = "naive") -> Op:
    return Op("layernorm", dtype, impl, _sizes(rows=rows, cols=cols))


def rmsnorm(rows: int, cols: int, dtype: str = "bf16", impl: str = "naive") -> Op:
    return Op("rmsnorm", dtype, impl, _sizes(rows=rows, cols=cols))


def softmax(rows: int, cols: int, dtype: str = "bf16", impl: str = "naive") -> Op:
    return Op("softmax", dtype, impl, _sizes(rows=rows, cols=cols))


def attention(seq: int, head_dim: int, batch: int = 1, heads: int = 1, dtype: str = "bf16", impl: str = "naive",
              causal: bool = False, backward: bool = False, block_q: Optional[int] = None,
              l2_reuse: bool = False) -> Op:
    """softmax(QKᵀ/√d)·V per (batch, head); impl naive (S and P in HBM) or flash."""
    return Op("attention", dtype, impl, _sizes(batch=batch, heads=heads, seq=seq, head_dim=head_dim, block_q=block_q),
              causal=causal, backward=backward, l2_reuse=l2_reuse)


def roofline_fields() -> list[str]:
    """The field names of :class:`Roofline` (those of ``sol roofline --json``)."""
    return [f.name for f in fields(Roofline)]


# ---- the core's JSON into dataclasses -----------------------------------------------------------
def _load(cls: type, d: dict[str, Any], **nested: Any) -> Any:
    """``cls(**d)`` with the fields named in ``nested`` converted by their function first."""
    for name, convert in nested.items():
        if name in d and d[name] is not None:
            d[name] = convert(d[name])
    return cls(**d)


# ---- shapes: tile and wave quantization, alignment (sol shapes gemm) -------------------------------
@dataclass(frozen=True)
class GemmShape:
    """A tiled GEMM's shape effects; the fields of ``sol shapes gemm --json``. ``alignment`` holds
    one dict per operand (operand, pitch_bytes, class, vector_bytes)."""

    m: int
    n: int
    k: int
    dtype: str
    tile: str
    blocks_per_sm: int
    tiles: int
    tiles_m: int
    tiles_n: int
    k_steps: int
    sms: int
    waves: float
    tile_efficiency: float
    wave_efficiency: float
    alignment: list[dict[str, Any]]
    alignment_efficiency: float
    efficiency: float
    flops: float
    floor_s: float
    bound: str
    predicted_s: float
    predicted_flops_per_s: float
    derivation: list[str]
    gpu: Optional[str] = None  # absent from a sweep's points (the sweep names it once)


@dataclass(frozen=True)
class GemmSweep:
    """``sol shapes gemm --sweep FROM:TO:STEP --json``: the predicted curve over square sizes."""

    gpu: str
    points: list[GemmShape]


def shapes(m: int, n: int, k: int, dtype: str = "bf16", gpu: str = "h100", tile: str = "128x256x64",
           blocks_per_sm: int = 1) -> GemmShape:
    """Tile quantization, wave quantization and alignment of an M×N×K GEMM run in ``tile`` blocks
    (lecture §0, §10): predicted time = roofline floor ÷ the product of the three efficiencies."""
    doc = _core.shapes_json(_int("m", m), _int("n", n), _int("k", k), _str("dtype", dtype), _str("gpu", gpu),
                            _str("tile", tile), _int("blocks_per_sm", blocks_per_sm, 1, _I32), "")
    return _load(GemmShape, json.loads(doc))


def shapes_sweep(sweep: str, m: int = 0, n: int = 0, k: int = 0, dtype: str = "bf16", gpu: str = "h100",
                 tile: str = "128x256x64", blocks_per_sm: int = 1) -> GemmSweep:
    """:func:`shapes` over square sizes ``"FROM:TO:STEP"``; a positive m, n or k stays fixed."""
    doc = _core.shapes_json(_int("m", m), _int("n", n), _int("k", k), _str("dtype", dtype), _str("gpu", gpu),
                            _str("tile", tile), _int("blocks_per_sm", blocks_per_sm, 1, _I32), _str("sweep", sweep))
    return _load(GemmSweep, json.loads(doc), points=lambda ps: [GemmShape(**p) for p in ps])


# ---- occupancy (sol occupancy) -----------------------------------------------------------------------
@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps per SM; the fields of ``sol occupancy --json``. ``blocks_by`` maps
    each limit (warps, blocks, registers, shared_memory) to the blocks it alone allows (None: unused)."""

    gpu: str
    threads_per_block: int
    registers_per_thread: int
    static_shared_bytes: int
    dynamic_shared_bytes: int
    carveout_fraction: Optional[float]
    fits: bool
    active_blocks_per_sm: int
    active_warps_per_sm: int
    max_warps_per_sm: int
    occupancy: float
    limiter: str
    blocks_by: dict[str, Optional[int]]
    registers_per_warp: int
    shared_bytes_per_block: int
    preferred_carveout_bytes: int
    carveout_bytes: int
    carveout_steps: list[int]
    derivation: list[str]


def occupancy(threads: int, regs: int, smem: int = 0, dynamic_smem: int = 0, carveout: int = -1,
              gpu: str = "h100") -> Occupancy:
    """Lecture §12 step 2: blocks of ``threads`` threads using ``regs`` registers per thread and
    ``smem`` + ``dynamic_smem`` bytes of shared memory; ``carveout`` is the preferred shared-memory
    carve-out in percent (−1: the driver's choice)."""
    doc = _core.occupancy_json(_str("gpu", gpu), _int("threads", threads, 1, _I32), _int("regs", regs, 0, _I32),
                               _int("smem", smem, 0), _int("dynamic_smem", dynamic_smem, 0),
                               _int("carveout", carveout, -1, _I32))
    return _load(Occupancy, json.loads(doc))


# ---- access: coalescing, banks, divergence (sol access) -------------------------------------------
@dataclass(frozen=True)
class Coalescing:
    """The sectors one warp request touches; the fields of ``sol access coalescing --json``."""

    lanes: int
    elem_bytes: int
    sectors_per_request: int
    cache_lines: int
    useful_bytes: int
    sector_bytes: int
    ideal_sectors: int
    efficiency: float
    dram_granule_bytes: int
    dram_bytes: int
    derivation: str


@dataclass(frozen=True)
class BankConflict:
    """Shared-memory bank conflicts of one warp access; the fields of ``sol access banks --json``."""

    phases: int
    wavefronts: int
    conflict_degree: int
    efficiency: float
    broadcast: bool
    byte_addresses: list[int]
    derivation: str


@dataclass(frozen=True)
class Divergence:
    """Lanes on different paths or trip counts; the fields of ``sol access divergence --json``."""

    issued: float
    useful: float
    efficiency: float
    slowdown: float
    derivation: str


def coalescing(elem: int = 4, stride: int = 1, lanes: int = 32, offset: int = 0, granule: int = 64,
               addresses: Optional[list[int]] = None) -> Coalescing:
    """Lane i reads ``elem`` bytes at ``offset + i·stride·elem`` (or at ``addresses[i]``)."""
    doc = _core.coalescing_json(_int("elem", elem), _int("stride", stride), _int("lanes", lanes, -_I32, _I32),
                                _int("offset", offset), _int("granule", granule), _ints("addresses", addresses))
    return _load(Coalescing, json.loads(doc))


def banks(elem: int = 4, stride: int = 1, row: int = 0, pad: int = 0, swizzle: bool = False, lanes: int = 32,
          addresses: Optional[list[int]] = None) -> BankConflict:
    """Lane i touches element ``i·stride`` of a shared tile with ``row`` elements per row (+ ``pad``,
    XOR-swizzled if ``swizzle``), or the byte ``addresses[i]``."""
    doc = _core.banks_json(_int("elem", elem), _int("stride", stride), _int("row", row), _int("pad", pad),
                           _flag("swizzle", swizzle), _int("lanes", lanes, -_I32, _I32), _ints("addresses", addresses))
    return _load(BankConflict, json.loads(doc))


def divergence(ways: Optional[int] = None, trips: Optional[list[int]] = None, base: Optional[int] = None,
               spread: Optional[int] = None) -> Divergence:
    """One of: ``ways`` equal paths, per-lane loop ``trips``, or lane i looping ``base + i·spread`` times."""
    doc = _core.divergence_json(_int("ways", ways, 1, _I32) if ways is not None else 0, _ints("trips", trips),
                                -1 if base is None else _int("base", base, 0),
                                -1 if spread is None else _int("spread", spread, 0))
    return _load(Divergence, json.loads(doc))


# ---- the checkpoint planner (sol checkpoint) -----------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """One checkpointing schedule. ``segments``: dicts (first, length, recompute); ``in_block``: what a
    kept layer drops and re-runs (dropped, rerun, kept_bytes_per_layer, rerun_s_per_layer)."""

    strategy: str
    peak_bytes: float
    total_peak_bytes: float
    checkpoints: int
    largest_segment: int
    recomputed_layers: int
    extra_flops: float
    extra_s: float
    step_s: float
    segments: list[dict[str, Any]]
    in_block: dict[str, Any]


@dataclass(frozen=True)
class Checkpointing:
    """The fields of ``sol checkpoint --json``: one layer's saved tensors op by op (``layer``), every
    strategy weighed, and the chosen one (the fastest under the budget)."""

    gpu: str
    layers: int
    attention: str
    budget_bytes: float
    layer: dict[str, Any]
    strategies: list[Plan]
    chosen: Plan
    # A flash stack in bf16 at head dim 64 or 128: one layer's kernels, each predicted (phase, op,
    # family, variant, shape, launches, predicted_s, limit); None for a stack of other kernels.
    kernels: Optional[list[dict[str, Any]]] = None


def checkpoint(layers: int, batch: int, seq: int, d_model: int, heads: int, mlp_ratio: int = 4, gpu: str = "h200",
               budget: Any = None, attention: str = "flash") -> Checkpointing:
    """Activation checkpointing of ``layers`` transformer layers (lecture §8.2). ``budget``: bytes, or a
    string such as ``"40GiB"``; None: the GPU's HBM. Each plan's ``peak_bytes`` counts the saved
    tensors, ``total_peak_bytes`` adds the backward's transients (the budget applies to it). The
    step times of a flash stack (bf16, head dim 64 or 128) are its kernels' predictions on the
    datasheet's ceilings, as ``sol checkpoint`` gives them without ``--results``; other stacks' are
    the model's per-op times."""
    if budget is None:
        budget_text = ""
    elif isinstance(budget, str):
        budget_text = budget
    elif isinstance(budget, (int, float)) and not isinstance(budget, bool):
        budget_text = repr(float(budget))
    else:
        raise _core.Error(f"budget must be bytes or a size such as '40GiB', got {budget!r}")
    doc = _core.checkpoint_json(_int("layers", layers), _int("batch", batch), _int("seq", seq),
                                _int("d_model", d_model), _int("heads", heads), _int("mlp_ratio", mlp_ratio),
                                _str("gpu", gpu), budget_text, _str("attention", attention))
    return _load(Checkpointing, json.loads(doc), strategies=lambda ps: [Plan(**p) for p in ps],
                 chosen=lambda p: Plan(**p))


# ---- the systolic simulator (sol systolic) ---------------------------------------------------------------
@dataclass(frozen=True)
class SystolicLayer:
    """One layer on the array. ``ifmap``, ``filter``, ``ofmap``: that operand's SRAM and DRAM traffic
    (words) and windows (cycles). Utilizations are fractions."""

    name: str
    m: int
    n: int
    k: int
    row_folds: int
    col_folds: int
    total_cycles: int
    stall_cycles: int
    compute_cycles: int
    macs: int
    overall_util: float
    mapping_efficiency: float
    compute_util: float
    dram_replayed: bool
    ifmap: dict[str, float]
    filter: dict[str, float]
    ofmap: dict[str, float]
    notes: list[str]


@dataclass(frozen=True)
class Systolic:
    """The fields of ``sol systolic --json``: the array (rows, cols, dataflow, sram_kb, word_bytes,
    bandwidth_mode, dram_words_per_cycle, overlap), each layer, and the total (cycles, macs, overall_util)."""

    array: dict[str, Any]
    engine: str
    model: str
    layers: list[SystolicLayer]
    total: dict[str, float]


def systolic(gemm: Optional[tuple[int, int, int]] = None, conv: Optional[tuple[int, ...]] = None,
             topology: str = "", config: str = "", array: Optional[tuple[int, int]] = None, dataflow: str = "",
             compat: str = "sol", engine: str = "analytic", sram_kb: Any = None, dram_bw: Optional[float] = None,
             word_bytes: int = 0, overlap: bool = False, no_replay: bool = False) -> Systolic:
    """A TPU-style systolic array (SCALE-Sim compatible with ``compat="scalesim"``). Exactly one of
    ``gemm=(M, N, K)``, ``conv=(H, W, FH, FW, C, N, stride[, column stride])`` or a SCALE-Sim
    ``topology`` CSV; the array from ``array=(rows, cols)``, a SCALE-Sim ``config``, or 128×128."""
    rc = _ints("array", array) if array is not None else [0, 0]
    if len(rc) != 2:
        raise _core.Error(f"array takes (rows, cols), got {array!r}")
    if isinstance(sram_kb, int):
        sram_kb = [sram_kb]
    if dram_bw is not None and (isinstance(dram_bw, bool) or not (isinstance(dram_bw, (int, float)) and dram_bw > 0)):
        raise _core.Error(f"dram_bw must be a positive number of words per cycle, got {dram_bw!r}")
    doc = _core.systolic_json(_str("config", config), _str("topology", topology), _ints("gemm", gemm),
                              _ints("conv", conv), rc[0], rc[1], _str("dataflow", dataflow), _str("compat", compat),
                              _str("engine", engine), _ints("sram_kb", sram_kb), float(dram_bw or 0),
                              _int("word_bytes", word_bytes), _flag("overlap", overlap), _flag("no_replay", no_replay))
    return _load(Systolic, json.loads(doc), layers=lambda ls: [SystolicLayer(**lv) for lv in ls])

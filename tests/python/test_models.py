"""sol.model beyond the roofline: each result against the CLI's --json for the same question (one
schema), and bad arguments as sol.Error with one line."""
import dataclasses
import json
import os
import subprocess

import pytest

import sol

CLI = os.environ.get("SOL_BIN")


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    doc.pop("schema_version")
    return doc


def as_doc(result):
    """The dataclass as the JSON document it came from (optional fields the document lacks dropped)."""
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if x is not None or k not in OPTIONAL}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return strip(dataclasses.asdict(result))


OPTIONAL = {"gpu", "math_dtype", "saved_bytes", "mxu", "kernels"}

# (Python call, the same question to the CLI)
CASES = {
    "shapes": (lambda: sol.model.shapes(1793, 1024, 4096, gpu="h200", tile="128x128x64"),
               ["shapes", "gemm", "--m", "1793", "--n", "1024", "--k", "4096", "--gpu", "h200",
                "--tile", "128x128x64"]),
    "shapes_sweep": (lambda: sol.model.shapes_sweep("1024:1152:64", k=512, gpu="h100"),
                     ["shapes", "gemm", "--sweep", "1024:1152:64", "--k", "512", "--gpu", "h100"]),
    "occupancy": (lambda: sol.model.occupancy(256, 72, smem=40 * 1024, dynamic_smem=8192, carveout=50, gpu="h100"),
                  ["occupancy", "--threads", "256", "--regs", "72", "--smem", "40960", "--dynamic-smem", "8192",
                   "--carveout", "50", "--gpu", "h100"]),
    "coalescing": (lambda: sol.model.coalescing(elem=4, stride=3, lanes=32, offset=16),
                   ["access", "coalescing", "--elem", "4", "--stride", "3", "--offset", "16"]),
    "coalescing_addresses": (lambda: sol.model.coalescing(elem=8, addresses=[0, 64, 8, 4096]),
                             ["access", "coalescing", "--elem", "8", "--addresses", "0,64,8,4096"]),
    "banks": (lambda: sol.model.banks(elem=4, stride=32, row=32, pad=1),
              ["access", "banks", "--elem", "4", "--stride", "32", "--row", "32", "--pad", "1"]),
    "divergence": (lambda: sol.model.divergence(trips=[1, 2, 3, 10]),
                   ["access", "divergence", "--trips", "1,2,3,10"]),
    # Standard attention: the model's own per-op times on both sides; flash: the stack's kernels
    # predicted from the registry's declarations, on both sides too.
    "checkpoint": (lambda: sol.model.checkpoint(24, 4, 2048, 2048, 16, budget="24GiB", gpu="h200",
                                                attention="standard"),
                   ["checkpoint", "--layers", "24", "--batch", "4", "--seq", "2048", "--d-model", "2048",
                    "--heads", "16", "--budget", "24GiB", "--gpu", "h200", "--attention", "standard"]),
    "checkpoint_flash": (lambda: sol.model.checkpoint(8, 2, 2048, 1024, 16, budget="8GiB", gpu="h200"),
                         ["checkpoint", "--layers", "8", "--batch", "2", "--seq", "2048", "--d-model", "1024",
                          "--heads", "16", "--budget", "8GiB", "--gpu", "h200"]),
    "systolic": (lambda: sol.model.systolic(gemm=(300, 200, 100), array=(32, 16), dataflow="os"),
                 ["systolic", "--gemm", "300,200,100", "--array", "32x16", "--dataflow", "os"]),
    "roofline_tpu": (lambda: sol.model.matmul(4096, 4096, 4096).roofline(gpu="tpu-v5e"),
                     ["roofline", "matmul", "--m", "4096", "--n", "4096", "--k", "4096", "--gpu", "tpu-v5e"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fields_and_values_are_the_cli_json(case):
    call, args = CASES[case]
    result = call()
    assert dataclasses.is_dataclass(result)
    if not CLI:
        pytest.skip("SOL_BIN is not set: no CLI to compare with (the result was built)")
    assert as_doc(result) == cli_json(*args)


def test_shapes_quantization():
    # 1793 = 14·128 + 1: one row of tiles nearly empty, so the tile efficiency drops by about 1/15.
    s = sol.model.shapes(1793, 1792, 1792, tile="128x128x64", gpu="h100")
    assert s.tiles_m == 15 and s.tile_efficiency == pytest.approx(1793 / 1920)
    assert s.predicted_s > s.floor_s
    assert [a["operand"][0] for a in s.alignment] == ["A", "B", "C"]


def test_occupancy_registers_limit():
    o = sol.model.occupancy(256, 128, gpu="h100")
    assert o.limiter == "registers" and o.fits and 0 < o.occupancy < 1
    assert o.blocks_by["registers"] == o.active_blocks_per_sm


def test_access_models():
    assert sol.model.coalescing(stride=1).sectors_per_request == 4
    assert sol.model.coalescing(stride=32).efficiency == pytest.approx(1 / 8)
    assert sol.model.banks(stride=32).conflict_degree == 32
    assert sol.model.banks(stride=32, row=32, swizzle=True).conflict_degree == 1
    assert sol.model.divergence(ways=4).efficiency == pytest.approx(0.25)
    assert sol.model.divergence(base=10, spread=1).slowdown > 1


def test_checkpoint_chooses_within_budget():
    c = sol.model.checkpoint(32, 1, 4096, 4096, 32, budget=16 * 2**30)
    assert c.chosen.peak_bytes <= c.budget_bytes == 16 * 2**30
    assert c.strategies[0].strategy == "none" and c.strategies[-1] == c.chosen
    assert sum(s["length"] for s in c.chosen.segments) == 32


def test_systolic_engines_agree():
    a = sol.model.systolic(gemm=(20, 12, 9), array=(8, 8), engine="analytic")
    s = sol.model.systolic(gemm=(20, 12, 9), array=(8, 8), engine="stepped")
    assert a.layers[0].total_cycles == s.layers[0].total_cycles
    assert a.total["macs"] == 20 * 12 * 9


@pytest.mark.parametrize("call", [
    lambda: sol.model.shapes(0, 4, 4),
    lambda: sol.model.shapes(4, 4, 4, tile="128x"),
    lambda: sol.model.shapes(4, 4, 4, gpu="tpu-v9"),
    lambda: sol.model.shapes_sweep("9:1"),
    lambda: sol.model.occupancy(0, 32),
    lambda: sol.model.occupancy(256, 32, carveout=101),
    lambda: sol.model.occupancy(256, 32, gpu="tpu-v4"),
    lambda: sol.model.occupancy(2.5, 32),
    lambda: sol.model.coalescing(elem=3),
    lambda: sol.model.coalescing(addresses="0,4"),
    lambda: sol.model.banks(elem=4, row=24, swizzle=True),
    lambda: sol.model.divergence(),
    lambda: sol.model.divergence(ways=2, trips=[1]),
    lambda: sol.model.checkpoint(0, 1, 1, 64, 1),
    lambda: sol.model.checkpoint(4, 1, 128, 100, 3),
    lambda: sol.model.checkpoint(4, 1, 128, 64, 1, attention="linear"),
    lambda: sol.model.checkpoint(32, 64, 8192, 8192, 64, budget="1MiB"),
    lambda: sol.model.checkpoint(4, 1, 128, 64, 1, budget=[1]),
    lambda: sol.model.systolic(),
    lambda: sol.model.systolic(gemm=(1, 2)),
    lambda: sol.model.systolic(gemm=(4, 4, 4), array=(0, 4)),
    lambda: sol.model.systolic(gemm=(4, 4, 4), array=(4,)),
    lambda: sol.model.systolic(gemm=(4, 4, 4), dataflow="xs"),
    lambda: sol.model.systolic(gemm=(4, 4, 4), engine="magic"),
    lambda: sol.model.systolic(gemm=(4, 4, 4), dram_bw=-1),
    lambda: sol.model.systolic(topology="/nonexistent.csv"),
    lambda: sol.model.systolic(gemm=(4, 4, 2**62)),
    # Sizes are integers: not truncated floats, bools, strings or infinities.
    lambda: sol.model.matmul(4096.7, 4096, 4096),
    lambda: sol.model.matmul(True, 4096, 4096),
    lambda: sol.model.layernorm("8", "1024"),
    lambda: sol.model.softmax(float("inf"), 4),
    lambda: sol.model.attention(4096, 128, batch=2**63),
    lambda: sol.model.elementwise(1 << 20, flops_per_op="2"),
    lambda: sol.roofline(flops="1e12", bytes=1e9, quiet=True),
    lambda: sol.roofline(flops=True, bytes=1e9, quiet=True),
    # Text and flags are checked before they reach the core (no binding's TypeError).
    lambda: sol.hw.get(123),
    lambda: sol.hw.get("h200").peak(dtype=16),
    lambda: sol.model.shapes(4, 4, 4, gpu=1),
    lambda: sol.model.occupancy(256, 32, gpu=None),
    lambda: sol.model.matmul(64, 64, 64, dtype=16).roofline(),
    lambda: sol.model.attention(4096, 128, causal="yes").roofline(),
    lambda: sol.model.banks(swizzle="no"),
    lambda: sol.model.systolic(gemm=(4, 4, 4), engine=None),
    lambda: sol.model.checkpoint(4, 1, 128, 64, 1, attention=2),
    lambda: sol.doctor("gemm_bf16/v07_tma_store", shape=4096),
    lambda: sol.model.Op("matmul", sizes={"m": 1.5, "n": 2, "k": 2}).roofline(),
    lambda: sol.model.coalescing(lanes=2**40),  # the core takes a C++ int
], ids=lambda c: "")
def test_bad_arguments_are_one_line_errors(call):
    with pytest.raises(sol.Error) as e:
        call()
    assert str(e.value) and "\n" not in str(e.value)


def test_a_flash_stack_is_predicted_kernel_by_kernel():
    flash = sol.model.checkpoint(8, 2, 2048, 1024, 16, budget="8GiB", gpu="h200")
    standard = sol.model.checkpoint(8, 2, 2048, 1024, 16, budget="8GiB", gpu="h200", attention="standard")
    assert standard.kernels is None and flash.kernels
    phases = {k["phase"] for k in flash.kernels}
    assert phases >= {"forward", "backward"} and all(k["predicted_s"] > 0 and k["launches"] >= 1 for k in flash.kernels)
    assert any(k["family"] == "attention" for k in flash.kernels)

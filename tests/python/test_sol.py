"""The host-only Python package: database, models, roofline, errors (no GPU needed)."""
import json
import os
import subprocess
import sys
import time

import pytest

import sol


def test_lecture_roofline_line(capsys):
    # Lecture §6: matmul 4096³ in bf16 on an H100 SXM: I = 1365.33 FLOP/B, ridge 295.4, compute-bound.
    N = 4096
    r = sol.roofline(flops=2 * N**3, bytes=2 * 3 * N**2, gpu="h100", name="matmul 4096^3")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("matmul 4096^3")
    assert "I=  1365.33" in out[0] and "ridge= 295.4" in out[0] and "compute-bound" in out[0]
    assert r.bound == "compute"
    assert r.floor_s == pytest.approx(2 * N**3 / r.peak_flops_per_s)
    assert r.fraction_of_peak == pytest.approx(1.0)


def test_gemv_is_memory_bound():
    d = 4096
    r = sol.roofline(flops=2 * d * d, bytes=2 * d * d, gpu="h100", quiet=True)
    assert r.bound == "memory"
    assert r.floor_s == pytest.approx(2 * d * d / r.bandwidth_bytes_per_s)


def test_fields_are_the_cli_json_fields():
    # The dataclass and `sol roofline --json` are one schema: the same field names for every op.
    r = sol.model.matmul(1024, 1024, 1024).roofline(gpu="h200")
    assert r.kind == "matmul"
    assert r.flops == 2 * 1024**3
    assert r.bytes == 2 * 3 * 1024**2
    a = sol.model.attention(seq=4096, head_dim=128, heads=16, impl="flash").roofline(gpu="h200")
    assert a.saved_bytes is not None and a.saved_bytes > 0
    cli = os.environ.get("SOL_BIN")
    if cli:
        doc = json.loads(subprocess.run([cli, "roofline", "matmul", "--m", "1024", "--n", "1024", "--k", "1024",
                                         "--gpu", "h200", "--json"], check=True, capture_output=True,
                                        text=True).stdout)
        doc.pop("schema_version")
        assert set(doc) <= set(sol.model.roofline_fields())
        assert doc["floor_s"] == pytest.approx(r.floor_s)
        assert doc["notes"] == r.notes


def test_every_op_constructor():
    for op in [sol.model.elementwise(1 << 20, ops=4, impl="fused"), sol.model.layernorm(4096, 4096),
               sol.model.rmsnorm(4096, 4096, impl="fused"), sol.model.softmax(32, 151936),
               sol.model.matmul(8, 4096, 4096, impl="tiled", tile=128)]:
        r = op.roofline(gpu="h200")
        assert r.floor_s > 0 and r.bytes > 0
        assert r.levels and r.levels[-1].level == "HBM"


def test_hardware_database():
    names = sol.hw.list()
    assert "h100" in names and "h200" in names
    h = sol.hw.get("H200")
    assert h.name == "h200"
    assert h.hbm_bytes_per_s > 4e12
    p = h.peak("bf16")
    assert p.flops_per_s == pytest.approx(989.4e12, rel=1e-3)
    assert "×" in p.derivation and p.source


def test_errors_are_sol_error_with_one_line():
    with pytest.raises(sol.Error) as e:
        sol.hw.get("h2000")
    assert "\n" not in str(e.value) and "h200" in str(e.value)
    with pytest.raises(sol.Error):
        sol.model.matmul(0, 4, 4).roofline()
    with pytest.raises(sol.Error):
        sol.model.matmul(4, 4, 4, dtype="fp7").roofline()
    with pytest.raises(sol.Error):
        sol.roofline(flops=1, bytes=0, quiet=True)
    with pytest.raises(sol.Error):
        sol.model.layernorm(4, 4, impl="magic").roofline()
    with pytest.raises(sol.Error):
        sol.hw.load("/nonexistent/hw.json")


def test_import_is_fast():
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sol"], check=True)
    assert time.perf_counter() - t0 < 1.0


def test_sol_imports_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import sol; sol.model.matmul(64, 64, 64).roofline()\n"
            "try:\n    import sol.ops\nexcept sol.Error as e:\n    print('ERR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.startswith("ERR") and "PyTorch" in out and out.count("\n") == 1


@pytest.mark.parametrize("module", ["_core", "_kernels"])
def test_extensions_export_their_init_alone(module):
    # A symbol the extension exports can be bound to another library's copy of it (PyTorch, loaded
    # first, carries nlohmann_json and standard-library instantiations): `import torch; import sol`
    # then runs foreign code. Each extension exports its PyInit_ and nothing else.
    import importlib
    import shutil
    try:
        ext = importlib.import_module("sol." + module)
    except ImportError:
        pytest.skip(f"sol.{module} is not built here")
    if not shutil.which("nm"):
        pytest.skip("nm (binutils) is not installed")
    out = subprocess.run(["nm", "-D", "--defined-only", ext.__file__], check=True, capture_output=True, text=True).stdout
    exported = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert exported == ["PyInit_" + module]

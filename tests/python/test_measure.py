"""sol.measure: the arguments are checked before any device work, and a machine without a GPU
gets sol.Error with the reason (CI has no GPU; the GPU run is in test_ops_gpu.py)."""
import pytest

import sol
from sol import harness as m


def noop(*args):
    return None


@pytest.mark.parametrize("kwargs", [
    dict(flops=-1.0), dict(bytes=0), dict(bytes=float("nan")), dict(warmup=-1), dict(samples=0),
    dict(samples=2.5), dict(gpu="h2000"), dict(inputs=3), dict(flops=1e9, bytes=1e6, dtype="fp7"),
    dict(flops=True),
])
def test_bad_arguments(kwargs):
    with pytest.raises(sol.Error) as e:
        sol.measure(noop, **kwargs)
    assert "\n" not in str(e.value)


def test_not_callable_and_conflicts():
    with pytest.raises(sol.Error, match="callable"):
        sol.measure(42)
    with pytest.raises(sol.Error, match="either"):
        sol.measure(noop, 1, inputs=lambda: (1,))
    with pytest.raises(sol.Error, match="graph"):
        sol.measure(noop, inputs=lambda: (1,), graph=True)
    with pytest.raises(sol.Error, match="tuple"):
        sol.measure(noop, inputs=lambda: [1])


def test_without_a_gpu_the_reason_is_given():
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a CUDA GPU is present: test_ops_gpu.py measures on it")
    except ImportError:
        pass
    with pytest.raises(sol.Error) as e:
        sol.measure(noop, flops=1e9, bytes=1e6, gpu="h200")
    text = str(e.value)
    assert ("GPU" in text or "torch" in text) and "\n" not in text


def test_verdict_follows_the_doctor_rule():
    assert m.verdict(0.9, 0.1)[0] == "compute"
    assert m.verdict(0.1, 0.7)[0] == "memory"
    assert "headroom" in m.verdict(0.1, 0.7)[1] and "headroom" not in m.verdict(0.1, 0.9)[1]
    assert m.verdict(0.3, 0.3)[0] == "neither"
    assert m.verdict(None, None)[0] == "unknown"
    assert m.verdict(0.7, 0.8)[0] == "memory"  # the larger fraction names the roof
    assert m.verdict(None, 0.65)[0] == "memory"


def test_device_names_map_to_rows():
    assert m.row_for_device("NVIDIA H200") == "h200"
    assert m.row_for_device("NVIDIA H100 80GB HBM3") == "h100"
    assert m.row_for_device("NVIDIA A100-SXM4-80GB") == "a100-80gb"
    assert m.row_for_device("NVIDIA A100-SXM4-40GB") == "a100"
    with pytest.raises(sol.Error, match="gpu="):
        m.row_for_device("NVIDIA GeForce RTX 4090")


def test_clocks_say_unknown_without_a_driver(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    monkeypatch.setattr(m.shutil, "which", lambda name: None)
    assert m.clocks() == (None, None, "unknown")

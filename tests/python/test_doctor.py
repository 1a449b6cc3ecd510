"""sol.doctor: the CLI's `doctor --results --json` document for the same question, a caller's own
time in place of the record's, the model alone, and bad arguments as sol.Error with one line."""
import dataclasses
import json
import os
import pathlib
import subprocess
import types

import pytest

import sol

CLI = os.environ.get("SOL_BIN")
RESULTS = str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "results" / "h200")
RMS = "rmsnorm/v03_one_read_bf16"


@pytest.mark.skipif(not CLI, reason="SOL_BIN is not set: the CLI to compare with is unknown")
@pytest.mark.parametrize("variant,shape", [(RMS, ""), ("gemm_bf16/v07_tma_store", "m=4096,n=4096,k=4096"),
                                           ("crossentropy/v01_passes_bf16", "rows=4096,vocab=50257")])
def test_the_diagnosis_is_the_clis(variant, shape):
    args = [CLI, "doctor", "--results", RESULTS, variant, "--json"] + (["--shape", shape] if shape else [])
    cli = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    cli.pop("schema_version")
    d = sol.doctor(variant, shape or None, results=RESULTS)
    mine = dataclasses.asdict(d)
    mine.pop("text")
    mine["measured_s"] = mine["measured_s"] or 0.0
    mine["findings"] = list(mine["findings"])
    assert mine == cli
    assert d.measured_s and d.origin == "from committed results" and str(d).startswith("doctor: " + variant)


def test_a_time_of_ones_own_stands_beside_the_same_prediction():
    committed = sol.doctor(RMS, results=RESULTS)
    mine = sol.doctor(RMS, committed.shape, results=RESULTS, measured=2 * committed.predicted_s)
    assert mine.predicted_s == committed.predicted_s and mine.measured_s == 2 * committed.predicted_s
    assert mine.origin == "the caller's measurement" and "2.00× the prediction" in str(mine)
    # A sol.Measurement: its median, and its database row for the datasheet's ceilings.
    m = types.SimpleNamespace(time_s=1e-3, gpu="h100")
    on_h100 = sol.doctor(RMS, "rows=4096,cols=4096", measured=m)
    assert on_h100.measured_s == 1e-3 and "h100" in str(on_h100)


def test_the_model_alone():
    d = sol.doctor(RMS, "rows=16384,cols=5120")
    assert d.measured_s is None and d.origin.startswith("the model alone") and d.predicted_s > 0
    assert d.findings and all(type(f).__name__ == "Finding" for f in d.findings)
    assert sol.doctor(RMS).shape  # the headline shape


@pytest.mark.parametrize("call,text", [
    (lambda: sol.doctor("rmsnorm"), "is not FAMILY/VARIANT"),
    (lambda: sol.doctor(RMS, measured=-1.0), "measured must be seconds > 0"),
    (lambda: sol.doctor(RMS, measured="fast"), "measured must be seconds > 0"),
    (lambda: sol.doctor(RMS, "rows=0,cols=4"), "rows"),
    (lambda: sol.doctor("rmsnorm/v99_none", results=RESULTS), "no record of rmsnorm/v99_none"),
    (lambda: sol.doctor(RMS, results=RESULTS + "/nowhere"), "nowhere"),
    (lambda: sol.doctor(RMS, gpu="h999"), "h999"),
])
def test_bad_arguments_are_one_line(call, text):
    with pytest.raises(sol.Error) as e:
        call()
    assert text in str(e.value) and "\n" not in str(e.value)

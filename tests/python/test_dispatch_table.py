"""scripts/dispatch-table.py's reading of the results: which records let sol::matmul split k."""
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def script():
    spec = importlib.util.spec_from_file_location("dispatch_table", ROOT / "scripts" / "dispatch-table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def results(tmp_path, *records):
    path = tmp_path / "gemm_bf16.json"
    path.write_text(json.dumps({"family": "gemm_bf16", "records": list(records)}))
    return [str(path)]


def v08(note, verified=True):
    technique = "v07 with a 128×256 or 128×128 tile …; k split over a cluster of 2-8 CTAs …"
    return {"family": "gemm_bf16", "variant": "v08_tile_choice", "shape": "m=1023,n=1023,k=1023",
            "verified": verified, "median_s": 2e-5, "technique": technique, "note": note}


def test_only_a_record_that_ran_the_split_counts(tmp_path):
    t = script()
    # The technique names the split on every v08 record; only the note says the shape took it.
    assert not t.split_measured(results(tmp_path, v08("128x256 tiles; 3 input sets rotated")))
    assert not t.split_measured(results(tmp_path, v08("k split over 4 CTAs of a cluster, 128x256 tiles", False)))
    assert t.split_measured(results(tmp_path, v08("k split over 4 CTAs of a cluster, 128x256 tiles; 3 input sets")))
    assert "kTableMeasuredSplitK = true" in t.render_facts(True, ["x.json"])
    assert "kTableMeasuredSplitK = false" in t.render_facts(False, ["x.json"])

#!/usr/bin/env python3
"""Writes kernels/api/matmul_table.inc, the measured table sol::matmul's dispatcher reads, and the
decode rows measured on other GPUs (kernels/api/matmul_table_h100.inc).

One command, from the repository root, after measuring:

    scripts/dispatch-table.py [--gpu h200|h100] [RESULTS.json ...]

Without arguments it writes every table: the H200's from every committed bench/results/h200/gemm_*.json
(the family files and the size sweep) and bench/results/h200/model-shapes/gemm_*.json (the model
shape set); the H100's from bench/results/h100/model-shapes/dispatch-gemm_*.json (the dispatch
runs, whose rung and cuBLASLt records are measurements like any other; the dispatch records are
left out), which the dispatcher reads for decode calls (m ≤ 64) on an H100. A shape
where only one kind (cuBLASLt or sol's rungs) was measured decides nothing and is left out.
Records are results files as include/sol/results.hpp describes them (an array of files is read
too). Per family (gemm_bf16, gemm_fp16, gemm_fp8, gemm_fp32) and measured shape it keeps the
implementations the dispatcher can run: cuBLASLt (peer:cublasLt; for fp32 peer:cublasSgemm, the
same true-fp32 cuBLAS path) and sol's rungs (vNN_…); PyTorch peers, TF32 and the dispatch variant
itself are left out. The table's calls are those of the family files: B stored n×k (tb=1,
trans_b=T), bf16 C (f32 for gemm_fp32), beta 0; a record of another layout or epilogue (tb=0,
c16, c32, beta, det) is left out. A row compares like with like: its times come from one run, the
newest results file that measured both kinds at the shape (a file that measured one kind there,
or an older run, adds nothing to that row). Each row holds the
fastest implementation and the fastest of the other kind (a rung when cuBLASLt is fastest, and
the reverse). Beside the H200's table it writes kernels/api/matmul_table_facts.inc: whether those
results measured v08_tile_choice splitting k over a cluster (a verified v08 record whose note says
"k split over", which the Case writes where the shape took the split), which sol::matmul lets v08
do only then. --check compares the committed files with
what the results give (exit 1 if stale).

    scripts/dispatch-table.py --verify RESULTS.json [--slack 0.03]

reads a run that measured the dispatch variant beside peer:cublasLt (sol bench FAMILY/dispatch,
peer,... --model-shapes) and prints, per shape, dispatch's time over cuBLASLt's and over the
fastest rung; exit 1 if dispatch is slower than cuBLASLt by more than the slack anywhere.
"""
import argparse
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "kernels", "api", "matmul_table.inc")
RESULTS = os.path.join(ROOT, "bench", "results")
# Each GPU's table: its output and the committed results it is written from.
TABLES = {
    "h200": (OUT, [os.path.join(RESULTS, "h200", "gemm_*.json"), os.path.join(RESULTS, "h200", "model-shapes", "gemm_*.json")]),
    "h100": (os.path.join(ROOT, "kernels", "api", "matmul_table_h100.inc"),
             [os.path.join(RESULTS, "h100", "model-shapes", "dispatch-gemm_*.json")]),
}
FACTS = os.path.join(ROOT, "kernels", "api", "matmul_table_facts.inc")
SPLIT_RUNG, SPLIT_NOTE = "v08_tile_choice", "k split over"  # the Case's detail() in a record's note
FAMILIES = {"gemm_bf16": "bf16", "gemm_fp16": "f16", "gemm_fp8": "fp8_e4m3", "gemm_fp32": "f32"}
LT_NAMES = {"peer:cublasLt", "peer:cublasSgemm"}
RUNG = re.compile(r"^v\d\d_")


def files_in(path):
    with open(path) as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


TABLE_KEYS = {"m", "n", "k", "lda", "ldb", "ldc", "tb"}


def shape_of(text):
    """(m, n, k, lda, ldb, ldc) of a shape in the table's configuration, else None."""
    d = dict(kv.split("=") for kv in text.split(","))
    if set(d) - TABLE_KEYS or int(d.get("tb", 1)) != 1:
        return None
    m, n, k = int(d["m"]), int(d["n"]), int(d["k"])
    return (m, n, k, int(d.get("lda", k)), int(d.get("ldb", k)), int(d.get("ldc", n)))


def gather(paths):
    files = []
    for p in paths:
        for f in files_in(p):
            files.append((f.get("created", ""), p, f))
    files.sort(key=lambda t: (t[0], t[1]))  # oldest first: a newer run that measured both kinds replaces it
    times = {}  # (family, shape) -> {impl: seconds}, from one file
    for _, _, f in files:
        run = {}
        for r in f.get("records", []):
            fam, var = r.get("family", f.get("family")), r.get("variant", "")
            if fam not in FAMILIES or r.get("skipped") or not r.get("verified") or not r.get("median_s", 0) > 0:
                continue
            if var in LT_NAMES:
                impl = "cublasLt"
            elif RUNG.match(var):
                impl = var
            else:
                continue
            shape = shape_of(r["shape"])
            if shape is not None:
                run.setdefault((fam, shape), {})[impl] = r["median_s"]
        for key, impls in run.items():
            if "cublasLt" in impls and len(impls) > 1:
                times[key] = impls
    return times


def split_measured(paths):
    """True when a verified v08 record of the results ran with k split: its note says so (the
    technique names the split whether or not the shape took it)."""
    return any(r.get("variant") == SPLIT_RUNG and r.get("verified") and SPLIT_NOTE in r.get("note", "")
               for p in paths for f in files_in(p) for r in f.get("records", []))


def render_facts(measured, sources):
    lines = ["// Generated by scripts/dispatch-table.py; do not edit. From:"]
    lines += ["//   " + s for s in sources]
    lines += [f"// Whether those results measured {SPLIT_RUNG} splitting k over a cluster (a verified record",
              f"// whose note says \"{SPLIT_NOTE}\"): sol::matmul lets v08 split k only then.",
              f"inline constexpr bool kTableMeasuredSplitK = {'true' if measured else 'false'};"]
    return "\n".join(lines) + "\n"


def rows(times):
    out = []
    for (fam, shape), impls in sorted(times.items(), key=lambda t: (list(FAMILIES).index(t[0][0]), t[0][1])):
        ranked = sorted(impls.items(), key=lambda t: t[1])
        best, best_s = ranked[0]
        other = next((n, s) for n, s in ranked if (n == "cublasLt") != (best == "cublasLt"))  # gather keeps both kinds
        out.append((FAMILIES[fam], shape, best, best_s, other[0], other[1]))
    return out


def render(rows_, sources):
    dtype = {"bf16": "bf16", "f16": "f16", "fp8_e4m3": "fp8_e4m3", "f32": "f32"}
    lines = ["// Generated by scripts/dispatch-table.py; do not edit. From:"]
    lines += ["//   " + s for s in sources]
    lines.append("// {dtype, m, n, k, lda, ldb, ldc, fastest, its median s, fastest of the other kind, its median s}")
    for dt, (m, n, k, lda, ldb, ldc), best, bs, other, os_ in rows_:
        lines.append(
            f'{{DType::{dtype[dt]}, {m}, {n}, {k}, {lda}, {ldb}, {ldc}, "{best}", {bs:.4e}, "{other}", {os_:.4e}}},'
        )
    return "\n".join(lines) + "\n"


def verify(paths, slack):
    by = {}  # (family, shape) -> {variant: seconds}
    for p in paths:
        for f in files_in(p):
            for r in f.get("records", []):
                if r.get("skipped") or not r.get("verified") or not r.get("median_s", 0) > 0:
                    continue
                by.setdefault((r.get("family", f.get("family")), r["shape"]), {})[r["variant"]] = r["median_s"]
    worst, bad = 0.0, 0
    print(f"{'family':10} {'shape':28} {'dispatch':>10} {'cublasLt':>10} {'best rung':>10} {'vs Lt':>6}")
    for (fam, shape), t in sorted(by.items()):
        if "dispatch" not in t:
            continue
        lt = t.get("peer:cublasLt") or t.get("peer:cublasSgemm")
        rungs = [v for k, v in t.items() if RUNG.match(k)]
        ratio = t["dispatch"] / lt if lt else 0.0
        worst = max(worst, ratio)
        bad += ratio > 1 + slack
        cell = lambda x: f"{x * 1e6:9.1f}µ" if x else f"{'—':>10}"
        print(f"{fam:10} {shape:28} {cell(t['dispatch'])} {cell(lt)} {cell(min(rungs) if rungs else 0)} "
              f"{ratio:6.3f}{' !' if ratio > 1 + slack else ''}")
    print(f"worst dispatch / cuBLASLt: {worst:.3f}; {bad} shapes slower than cuBLASLt by more than {slack:.0%}")
    return 1 if bad else 0


def put(out, text, check):
    """Writes `text` to `out`; with check, exits 1 where the committed file differs instead."""
    if check:
        if not os.path.exists(out):
            sys.exit("dispatch-table.py: " + out + " is missing; run scripts/dispatch-table.py")
        with open(out) as f:
            if f.read() != text:
                sys.exit("dispatch-table.py: " + out + " is stale; run scripts/dispatch-table.py")
        return
    with open(out, "w") as f:
        f.write(text)


def write(gpu, out, paths, check, facts=None):
    sources = sorted({os.path.relpath(p, ROOT) if os.path.isabs(p) else p for p in paths})
    text = render(rows(gather(paths)), sources)
    put(out, text, check)
    if facts:
        put(facts, render_facts(split_measured(paths), sources), check)
    if not check:
        print(f"dispatch-table.py: {len(text.splitlines()) - len(sources) - 2} {gpu} shapes into {os.path.relpath(out, ROOT)}",
              file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="*", help="results JSON files (default: each table's committed results)")
    ap.add_argument("--gpu", choices=sorted(TABLES), help="write only this GPU's table (with RESULTS: from them)")
    ap.add_argument("--out", help="the table to write (default: the GPU's kernels/api/matmul_table*.inc)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a table differs from what the results give")
    ap.add_argument("--verify", action="store_true", help="compare dispatch with cuBLASLt in the given results")
    ap.add_argument("--slack", type=float, default=0.03, help="--verify: allowed dispatch / cuBLASLt − 1")
    a = ap.parse_args()
    if a.verify:
        if not a.results:
            sys.exit("dispatch-table.py: --verify needs the results file(s) of a dispatch run")
        sys.exit(verify(a.results, a.slack))
    gpus = [a.gpu] if a.gpu else (["h200"] if a.results or a.out else sorted(TABLES))
    for gpu in gpus:
        out, patterns = TABLES[gpu]
        paths = a.results or sorted(p for pattern in patterns for p in glob.glob(pattern))
        if not paths:
            sys.exit(f"dispatch-table.py: no {gpu} results files found")
        # The facts file follows the committed H200 table only (not a table written elsewhere).
        write(gpu, a.out or out, paths, a.check, FACTS if gpu == "h200" and not a.out else None)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Rewrites the "// measured ..." line that opens each kernel file from bench/results/<gpu>/*.json:
the headline shape of each version in the file (a vNN_*.cu file holds one version; a file named
for its family holds all of the family's versions). Run after committing new results."""
import glob, json, os, re, sys

gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE_FAMILIES = {"layernorm.cu": ["layernorm"], "rmsnorm.cu": ["rmsnorm"], "softmax.cu": ["softmax"],
                 "sincos.cu": ["elementwise"], "layernorm_bwd.cu": ["layernorm_bwd"],
                 "rmsnorm_bwd.cu": ["rmsnorm_bwd"], "softmax_bwd.cu": ["softmax_bwd"]}


def t(s):
    return f"{s * 1e6:.0f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


heads = {}  # (family, variant) -> first valid record (the headline shape)
for path in glob.glob(f"{root}/bench/results/{gpu}/*.json"):
    d = json.load(open(path))
    if d.get("family") == "gemm_sweep":
        continue  # the size sweep (many shapes per variant, no headline): not a kernel's measured line
    for r in d["records"]:
        key = (r["family"], r["variant"])
        if key not in heads and not r.get("skipped") and r["median_s"] > 0 and r["verified"]:
            heads[key] = r


def line(r):
    floor = r.get("floor_measured_s") or r.get("floor_s") or 0
    pct = f", {100 * floor / r['median_s']:.0f} % of the model's floor" if floor else ""
    return f"{r['variant']} {r['shape']}: {t(r['median_s'])}, {r['achieved_bytes_per_s'] / 1e12:.2f} TB/s{pct}"


for path in sorted(glob.glob(f"{root}/kernels/*/*.cu")):
    name, fam_dir = os.path.basename(path), os.path.basename(os.path.dirname(path))
    m = re.match(r"(v\d\d_\w+)\.cu$", name)
    if m:
        recs = [heads[k] for k in heads if k[1] == m.group(1) and k[0] == fam_dir]
    elif name in FILE_FAMILIES:
        recs = sorted((heads[k] for k in heads if k[0] in FILE_FAMILIES[name] and not k[1].startswith("peer:")),
                      key=lambda r: r["version"])
    else:
        continue
    if not recs:
        continue
    text = open(path).read()
    new = f"// measured (H200, bench/results/{gpu}/): " + "; ".join(line(r) for r in recs)
    text2 = re.sub(r"^// measured[^\n]*$", new, text, count=1, flags=re.M)
    if text2 != text:
        open(path, "w").write(text2)
        print(os.path.relpath(path, root))

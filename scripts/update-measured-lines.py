#!/usr/bin/env python3
"""Rewrites the "// measured ..." line that opens each kernel file from bench/results/<gpu>/*.json:
the headline shape of each version in the file (a vNN_*.cu file holds one version; a file named
for its family holds all of the family's versions). Run after committing new results."""
import glob, json, os, re, sys

gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE_FAMILIES = {"layernorm.cu": ["layernorm"], "rmsnorm.cu": ["rmsnorm"], "softmax.cu": ["softmax"],
                 "sincos.cu": ["elementwise"], "layernorm_bwd.cu": ["layernorm_bwd"],
                 "rmsnorm_bwd.cu": ["rmsnorm_bwd"], "softmax_bwd.cu": ["softmax_bwd"],
                 "flash.cu": ["attention"], "standard.cu": ["attention"], "flash_wgmma.cu": ["attention"],
                 "backward.cu": ["attention_bwd"], "backward_v02.cu": ["attention_bwd"],
                 "backward_wgmma.cu": ["attention_bwd"]}
# Files of a family that hold only some of its versions: those versions' records, no others.
FILE_VARIANTS = {"flash.cu": ["v02_flash_mma", "v03_flash_mma_128"], "standard.cu": ["v01_standard"],
                 "flash_wgmma.cu": ["v04_flash_wgmma", "v05_flash_wgmma_overlap"],
                 "backward.cu": ["v01_flash_bwd"], "backward_v02.cu": ["v02_flash_bwd_8warp"],
                 "backward_wgmma.cu": ["v03_flash_bwd_wgmma", "v04_flash_bwd_2wg"]}
# A folder whose vNN files serve families named otherwise (the first family's record is shown;
# the tensor-core rungs serve bf16, fp16 and fp8 alike: bf16 and fp8 are shown).
DIR_FAMILIES = {"gemm/fp32": ["gemm_fp32"], "gemm/tc": ["gemm_bf16", "gemm_fp8"]}


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
    # Compute-bound work reads best in FLOP/s, memory-bound in B/s: whichever the floor is.
    if r.get("bound") == "compute" and r.get("achieved_flops_per_s"):
        rate = f"{r['achieved_flops_per_s'] / 1e12:.0f} TFLOP/s ({r['family']})"
    else:
        rate = f"{r['achieved_bytes_per_s'] / 1e12:.2f} TB/s"
    return f"{r['variant']} {r['shape']}: {t(r['median_s'])}, {rate}{pct}"


def checkpoint_line():
    """The checkpointing proof's line (kernels/transformer/stack.cu) from checkpoint/measured.json."""
    path = f"{root}/bench/results/{gpu}/checkpoint/measured.json"
    if not os.path.exists(path):
        return None
    d = json.load(open(path))
    parts = [f"{s['strategy']} peak {s['measured']['saved_peak_bytes'] / 2**20:.0f} MiB "
             f"(predicted {s['predicted']['peak_bytes'] / 2**20:.0f}), step {t(s['measured']['median_s'])}"
             for s in d["schedules"]]
    same = "identical" if d.get("gradients_identical") else "NOT identical"
    return f"// measured (H200, bench/results/{gpu}/checkpoint/measured.json): " + "; ".join(parts) + f"; gradients {same}"


def measured_line(path):
    """The line a kernel file should open its measured note with, or None if no result names it."""
    if os.path.relpath(path, root) == "kernels/transformer/stack.cu":
        return checkpoint_line()
    name = os.path.basename(path)
    rel_dir = os.path.relpath(os.path.dirname(path), f"{root}/kernels")
    families = DIR_FAMILIES.get(rel_dir, [os.path.basename(rel_dir)])
    m = re.match(r"(v\d\d_\w+)\.cu$", name)
    if m:
        recs = [heads[(f, m.group(1))] for f in families if (f, m.group(1)) in heads]
    elif name in FILE_FAMILIES:
        recs = sorted((heads[k] for k in heads if k[0] in FILE_FAMILIES[name] and not k[1].startswith("peer:")
                       and k[1] in FILE_VARIANTS.get(name, [k[1]])),
                      key=lambda r: r["version"])
    else:
        return None
    return f"// measured (H200, bench/results/{gpu}/): " + "; ".join(line(r) for r in recs) if recs else None


for path in sorted(glob.glob(f"{root}/kernels/**/*.cu", recursive=True)):
    new = measured_line(path)
    if new is None:
        continue
    text = open(path).read()
    text2 = re.sub(r"^// measured[^\n]*$", new, text, count=1, flags=re.M)
    if text2 != text:
        open(path, "w").write(text2)
        print(os.path.relpath(path, root))

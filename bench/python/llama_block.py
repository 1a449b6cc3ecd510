"""A Llama-3-8B-shaped decoder block (bf16, batch 4 × 2048 tokens, d 4096, 32 heads, 8 KV heads,
SwiGLU 14336) forward + backward: sol.ops against the same block in PyTorch eager and under
torch.compile, in one run, on the same weights and inputs. Times are sol.measure's (CUDA events,
warm-up, median); the ratios are eager / sol and compile / sol (above 1: sol is faster). Beside
them, where sol's and eager's device time goes: torch.profiler's kernels, grouped by name (GEMM,
attention, norm, copy, other), per step.
Writes bench/results/<gpu>/python/llama_block.json.

    python bench/python/llama_block.py [--samples 20] [--batch 4] [--seq 2048] [--out FILE]
"""
from __future__ import annotations

import argparse
import dataclasses
import re

import torch

import common
import llama
import sol


def step(block, s, x, w, dout):
    def run():
        for t in (x, *w):
            t.grad = None
        block(s, x, w).backward(dout)
    return run


def block_flops(s: llama.Shape) -> float:
    """Forward FLOPs of the block's matmuls and attention (causal: half the scores), × 3 for
    forward + backward (the convention: backward = 2 × forward for matmuls, 2.5 × for attention)."""
    t = s.batch * s.seq
    kv = s.kv_heads * s.head_dim
    mm = 2 * t * s.d_model * (2 * s.d_model + 2 * kv + 3 * s.ffn)
    att = 4 * s.batch * s.heads * s.seq**2 * s.head_dim / 2
    return 3 * mm + 3.5 * att


# What a kernel's name says it computes, first match wins: sol's rungs and cuBLAS(Lt)'s kernels,
# FlashAttention's and PyTorch's SDPA, the norms, the rest (elementwise, reductions, copies).
GROUPS = (("gemm", re.compile(r"gemm|gemv|nvjet|xmma|cutlass|cublas|tma_store_kernel|split_k|matmul", re.I)),
          ("attention", re.compile(r"attention|flash|fmha|sdpa|attn", re.I)),
          ("norm", re.compile(r"norm", re.I)),
          ("copy", re.compile(r"memcpy|memset|copy", re.I)))


def group_of(kernel: str) -> str:
    return next((g for g, pattern in GROUPS if pattern.search(kernel)), "other")


def breakdown(run, steps: int = 3) -> dict:
    """Device time of one call of run per kernel group, and its ten longest kernels, from
    torch.profiler's CUDA activity over `steps` calls after one unprofiled call."""
    from torch.profiler import ProfilerActivity, profile
    run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            run()
        torch.cuda.synchronize()
    kernels: dict[str, float] = {}
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = getattr(e, "self_cuda_time_total", 0.0)
        if us > 0:
            kernels[e.key] = kernels.get(e.key, 0.0) + us * 1e-6 / steps
    groups: dict[str, float] = {}
    for name, sec in kernels.items():
        groups[group_of(name)] = groups.get(group_of(name), 0.0) + sec
    top = sorted(kernels.items(), key=lambda kv: -kv[1])[:10]
    return {"device_s": sum(kernels.values()), "groups_s": dict(sorted(groups.items(), key=lambda kv: -kv[1])),
            "top_kernels": [{"name": n[:160], "group": group_of(n), "s": t} for n, t in top]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--batch", type=int, default=llama.LLAMA3_8B.batch)
    p.add_argument("--seq", type=int, default=llama.LLAMA3_8B.seq)
    p.add_argument("--out")
    a = p.parse_args()
    gpu = common.require_gpu()
    s = dataclasses.replace(llama.LLAMA3_8B, batch=a.batch, seq=a.seq)
    g = torch.Generator(device="cuda").manual_seed(0)
    w = llama.weights(s, generator=g)
    x = torch.randn(s.batch, s.seq, s.d_model, device="cuda", generator=g).to(torch.bfloat16).requires_grad_(True)
    dout = torch.randn(s.batch, s.seq, s.d_model, device="cuda", generator=g).to(torch.bfloat16)

    compiled = torch.compile(llama.torch_block)
    blocks = {"sol": llama.sol_block, "eager": llama.torch_block, "compile": compiled}
    flops = block_flops(s)
    results = {}
    for name, block in blocks.items():
        m = sol.measure(step(block, s, x, w, dout), flops=flops, gpu=gpu, warmup=a.warmup, samples=a.samples,
                        name=f"{name} block fwd+bwd", quiet=True)
        results[name] = {"median_s": m.time_s, "min_s": m.min_s, "max_s": m.max_s, "samples": m.samples,
                         "achieved_flops_per_s": m.achieved_flops_per_s, "compute_fraction": m.compute_fraction}
        print(f"{name:8s} {m.time_s * 1e3:9.3f} ms  {m.achieved_flops_per_s / 1e12:7.1f} TFLOP/s "
              f"({100 * m.compute_fraction:4.1f}% of peak)")
    # Where each path spends its device time (sol against eager): the kernel groups side by side.
    split = {name: breakdown(step(blocks[name], s, x, w, dout)) for name in ("sol", "eager")}
    names = sorted(set(split["sol"]["groups_s"]) | set(split["eager"]["groups_s"]))
    for gname in names:
        a_s, b_s = split["sol"]["groups_s"].get(gname, 0.0), split["eager"]["groups_s"].get(gname, 0.0)
        print(f"  {gname:10s} sol {a_s * 1e3:8.3f} ms   eager {b_s * 1e3:8.3f} ms")
    doc = {"benchmark": "python_llama_block", **common.context(gpu), "shape": dataclasses.asdict(s),
           "flops_fwd_bwd": flops, "results": results, "breakdown": split,
           "eager_over_sol": results["eager"]["median_s"] / results["sol"]["median_s"],
           "compile_over_sol": results["compile"]["median_s"] / results["sol"]["median_s"]}
    path = common.write(gpu, "llama_block", doc, a.out)
    print(f"eager / sol {doc['eager_over_sol']:.3f}×, compile / sol {doc['compile_over_sol']:.3f}×  → {path}")


if __name__ == "__main__":
    main()

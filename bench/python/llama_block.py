"""A Llama-3-8B-shaped decoder block (bf16, batch 4 × 2048 tokens, d 4096, 32 heads, 8 KV heads,
SwiGLU 14336) forward + backward: sol.ops against the same block in PyTorch eager and under
torch.compile, in one run, on the same weights and inputs. Times are sol.measure's (CUDA events,
warm-up, median); the ratios are eager / sol and compile / sol (above 1: sol is faster).
Writes bench/results/<gpu>/python/llama_block.json.

    python bench/python/llama_block.py [--samples 20] [--batch 4] [--seq 2048] [--out FILE]
"""
from __future__ import annotations

import argparse
import dataclasses

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
    doc = {"benchmark": "python_llama_block", **common.context(gpu), "shape": dataclasses.asdict(s),
           "flops_fwd_bwd": flops, "results": results,
           "eager_over_sol": results["eager"]["median_s"] / results["sol"]["median_s"],
           "compile_over_sol": results["compile"]["median_s"] / results["sol"]["median_s"]}
    path = common.write(gpu, "llama_block", doc, a.out)
    print(f"eager / sol {doc['eager_over_sol']:.3f}×, compile / sol {doc['compile_over_sol']:.3f}×  → {path}")


if __name__ == "__main__":
    main()

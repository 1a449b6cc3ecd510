#!/usr/bin/env python3
"""The kernels and tensor passes of the PyTorch peers' eager calls, for src/predict/execution.cpp's kEager.

Runs each peer's timed call (bench/peers/torch_peers.py: the backward of a naive row formula through
torch.autograd.grad, F.cross_entropy's forward and backward) under a TorchDispatchMode on CPU tensors,
which sees every aten op the call runs: the autograd formulas are the same on every device, and on
CUDA each op that is not a view is one kernel. A pass is one operand or result the size of x (a view
or a broadcast row statistic is none; NLL's gathers read one logit a row, none). Prints one line per
call: kernels, reads, writes and the ops.
Usage: scripts/eager-kernels.py (needs torch; any device)."""
import pathlib
import sys

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench" / "peers"))
from torch_peers import naive_layer_norm, naive_rms_norm, naive_softmax  # noqa: E402  (the peers' own formulas)

ROWS, COLS = 64, 256  # any shape whose row statistics (ROWS × 1) and columns (COLS) are smaller than x


def full(t: torch.Tensor) -> bool:
    """x's size in real storage (an expanded row statistic is not)."""
    return t.numel() >= ROWS * COLS and t.untyped_storage().nbytes() >= ROWS * COLS * t.element_size()


# Ops that take x but read one element of each row (the label's logit) or none: no pass of x.
GATHERS = {"nll_loss_forward", "nll_loss_backward"}


class Kernels(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []  # (op, passes read, passes written)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        leaves = torch.utils._pytree.tree_leaves
        ins = [t for t in leaves((args, kwargs or {})) if isinstance(t, torch.Tensor)]
        outs = [t for t in leaves(out) if isinstance(t, torch.Tensor)]
        storages = {t.untyped_storage().data_ptr() for t in ins}
        if outs and all(o.untyped_storage().data_ptr() in storages for o in outs):
            return out  # a view: no kernel
        name = str(func).removeprefix("aten.").removesuffix(".default")
        self.ops.append((name, 0 if name in GATHERS else sum(map(full, ins)), sum(map(full, outs))))
        return out


def report(name: str, k: Kernels) -> None:
    reads, writes = sum(r for _, r, _ in k.ops), sum(w for _, _, w in k.ops)
    print(f"{name}: {len(k.ops)} kernels, {reads} reads + {writes} writes = {reads + writes} passes")
    print("   " + " | ".join(f"{n} {r}r{w}w" for n, r, w in k.ops))


def main():
    bf16 = torch.bfloat16
    g = torch.rand(COLS, dtype=bf16).requires_grad_()
    b = torch.rand(COLS, dtype=bf16).requires_grad_()
    backward = {"torch.naive_layer_norm_bwd": (lambda x: naive_layer_norm(torch, x, g, b), (g, b)),
                "torch.naive_rms_norm_bwd": (lambda x: naive_rms_norm(torch, x, g), (g,)),
                "torch.naive_softmax_bwd": (lambda x: naive_softmax(torch, x), ())}
    for name, (fwd, params) in backward.items():  # timed: autograd.grad of the saved graph
        x = torch.randn(ROWS, COLS, dtype=bf16).requires_grad_()
        y, dy = fwd(x), torch.randn(ROWS, COLS, dtype=bf16)
        with Kernels() as k:
            torch.autograd.grad(y, (x,) + params, dy, retain_graph=True)
        report(name, k)
    labels = torch.randint(0, COLS, (ROWS,))
    x = torch.randn(ROWS, COLS, dtype=bf16).requires_grad_()
    with Kernels() as k:  # timed: the forward and autograd.grad of the loss
        torch.autograd.grad(F.cross_entropy(x, labels), x)
    report("torch.F.cross_entropy", k)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""torch.distributed (NCCL backend) as the peer of `sol bench comm`, timed the way the harness is.

    python3 bench/peers/torch_comm_peers.py --gpus N --ops all-reduce[,all-gather,...] \
        --lo BYTES --hi BYTES [--warmup W] [--iters I] --out FILE [--dry-run]

One process per GPU (torch.multiprocessing.spawn, a TCP rendezvous on 127.0.0.1), so this peer is
also the one-process-per-GPU form of the measurement. Sizes LO, 2·LO, ... HI as nccl-tests counts
them (S: the per-rank buffer for all-reduce and broadcast, the whole output for all-gather, the
whole input for reduce-scatter, each rank's send buffer for all-to-all), float32, out-of-place.
Per size: each rank's element i is (rank + 1) × (i mod 251 + 1), one call is checked for the exact
result, W warm-up calls, then I calls each between CUDA events on the rank's current stream; a
sample is the slowest rank's time (an all-reduce MAX over ranks), the record holds the median.
NCCL_NVLS_ENABLE comes from the caller (sol sets it to 0). Writes {"peer", "torch", "nccl",
"ranks", "records": [{op, bytes, median_s, min_s, samples, alg_bw_bytes_per_s, bus_bw_bytes_per_s,
verified}]}. Exits 3 with one line on stderr when torch or enough GPUs are missing, 2 on bad
arguments. --dry-run checks the arguments and writes the plan without importing torch.
"""
import argparse
import json
import os
import socket
import statistics
import sys

OPS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "broadcast", "send-recv")


def bus_factor(op, n):
    if op == "all-reduce":
        return 2.0 * (n - 1) / n
    if op in ("all-gather", "reduce-scatter", "all-to-all"):
        return (n - 1) / n
    return 1.0


def per_rank_elems(op, nbytes, n):
    elems = nbytes // 4
    return elems // n if op in ("all-gather", "reduce-scatter", "all-to-all") else elems


def sizes(lo, hi):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def pattern(torch, rank, n, device):
    i = torch.arange(n, device=device, dtype=torch.int64)
    return ((rank + 1) * (i % 251 + 1)).to(torch.float32)


def one_case(torch, dist, op, nbytes, rank, world, device, warmup, iters):
    c = per_rank_elems(op, nbytes, world)
    if c == 0:
        return None
    prep = None
    tri = world * (world + 1) // 2
    g = lambda idx: (idx % 251 + 1).to(torch.float32)  # noqa: E731
    if op == "all-reduce":
        send = pattern(torch, rank, c, device)
        recv = torch.empty_like(send)

        prep = lambda: recv.copy_(send)  # noqa: E731
        call = lambda: dist.all_reduce(recv)  # noqa: E731

        expect = lambda: tri * g(torch.arange(c, device=device))  # noqa: E731
        moved = c * 4
    elif op == "all-gather":
        send = pattern(torch, rank, c, device)
        recv = torch.empty(c * world, device=device)
        call = lambda: dist.all_gather_into_tensor(recv, send)  # noqa: E731
        idx = torch.arange(c * world, device=device)
        expect = lambda: ((idx // c) + 1).to(torch.float32) * g(idx % c)  # noqa: E731
        moved = c * world * 4
    elif op == "reduce-scatter":
        send = pattern(torch, rank, c * world, device)
        recv = torch.empty(c, device=device)
        call = lambda: dist.reduce_scatter_tensor(recv, send)  # noqa: E731
        expect = lambda: tri * g(rank * c + torch.arange(c, device=device))  # noqa: E731
        moved = c * world * 4
    elif op == "all-to-all":
        send = pattern(torch, rank, c * world, device)
        recv = torch.empty(c * world, device=device)
        call = lambda: dist.all_to_all_single(recv, send)  # noqa: E731
        idx = torch.arange(c * world, device=device)
        expect = lambda: ((idx // c) + 1).to(torch.float32) * g(rank * c + idx % c)  # noqa: E731
        moved = c * world * 4
    elif op == "broadcast":
        send = pattern(torch, 0, c, device)
        recv = torch.empty(c, device=device)

        prep = lambda: recv.copy_(send) if rank == 0 else None  # noqa: E731
        call = lambda: dist.broadcast(recv, src=0)  # noqa: E731

        expect = lambda: g(torch.arange(c, device=device))  # noqa: E731
        moved = c * 4
    else:  # send-recv around the ring
        send = pattern(torch, rank, c, device)
        recv = torch.empty(c, device=device)

        def call():
            ops = [dist.P2POp(dist.isend, send, (rank + 1) % world), dist.P2POp(dist.irecv, recv, (rank - 1) % world)]
            for w in dist.batch_isend_irecv(ops):
                w.wait()

        src = (rank - 1) % world
        expect = lambda: (src + 1) * g(torch.arange(c, device=device))  # noqa: E731
        moved = c * 4
    recv.fill_(float("nan"))
    if prep:
        prep()
    call()
    torch.cuda.synchronize()
    ok = torch.tensor([1.0 if torch.equal(recv, expect()) else 0.0], device=device)
    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
    for _ in range(warmup):
        call()
    stream = torch.cuda.current_stream()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, stop in events:
        start.record(stream)
        call()
        stop.record(stream)
    torch.cuda.synchronize()
    times = torch.tensor([a.elapsed_time(b) * 1e-3 for a, b in events], device=device, dtype=torch.float64)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    t = times.tolist()
    med = statistics.median(t)
    return {"op": op, "bytes": moved, "median_s": med, "min_s": min(t), "samples": len(t),
            "alg_bw_bytes_per_s": moved / med, "bus_bw_bytes_per_s": moved / med * bus_factor(op, world),
            "verified": bool(ok.item() == 1.0), "in_place": op in ("all-reduce", "broadcast")}


def worker(rank, args, port, result_path):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    device = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=args.gpus,
                            device_id=device)
    records = []
    for op in args.ops:
        for s in sizes(args.lo, args.hi):
            r = one_case(torch, dist, op, s, rank, args.gpus, device, args.warmup, args.iters)
            if r is not None:
                records.append(r)
    if rank == 0:
        nccl = ".".join(str(v) for v in torch.cuda.nccl.version())
        doc = {"peer": "torch.distributed (NCCL backend), one process per GPU", "torch": torch.__version__,
               "nccl": nccl, "ranks": args.gpus, "nvls_enable": os.environ.get("NCCL_NVLS_ENABLE"),
               "records": records}
        with open(result_path, "w") as f:
            json.dump(doc, f, indent=2)
    dist.barrier()
    dist.destroy_process_group()


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpus", type=int, required=True)
    p.add_argument("--ops", default="all-reduce")
    p.add_argument("--lo", type=int, default=8)
    p.add_argument("--hi", type=int, default=8 << 30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--out", required=True)
    p.add_argument("--dry-run", action="store_true")
    a = p.parse_args(argv)
    a.ops = [o.strip() for o in a.ops.split(",") if o.strip()]
    bad = [o for o in a.ops if o not in OPS]
    if bad:
        p.error(f"unknown op {bad[0]!r}; use {', '.join(OPS)}")
    if a.gpus < 2:
        p.error("a collective needs --gpus ≥ 2")
    if not (0 < a.lo <= a.hi) or a.iters < 1 or a.warmup < 0:
        p.error("need 0 < --lo ≤ --hi, --iters ≥ 1, --warmup ≥ 0")
    return a


def main(argv):
    args = parse(argv)
    if args.dry_run:
        plan = [{"op": op, "bytes": s} for op in args.ops for s in sizes(args.lo, args.hi)]
        with open(args.out, "w") as f:
            json.dump({"peer": "torch.distributed", "dry_run": True, "ranks": args.gpus, "plan": plan}, f, indent=2)
        return 0
    try:
        import torch
        import torch.multiprocessing as mp
    except ImportError as e:
        print(f"torch_comm_peers.py: torch is not installed ({e})", file=sys.stderr)
        return 3
    if not torch.cuda.is_available() or torch.cuda.device_count() < args.gpus:
        have = torch.cuda.device_count() if torch.cuda.is_available() else 0
        print(f"torch_comm_peers.py: a collective over {args.gpus} GPUs needs {args.gpus}; torch sees {have}",
              file=sys.stderr)
        return 3
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, port, args.out), nprocs=args.gpus, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

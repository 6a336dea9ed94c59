#!/usr/bin/env python3
"""The torch.distributed (NCCL) side of bench/gpu/run.sh: the peer of

    clab run bench/gpu/collectives.scenario.json --backend nccl

Same operations, sizes, iteration counts and byte/busbw conventions (nccl-tests'), one GPU per
rank:

    python3 bench/gpu/torch_collectives.py [--ranks 2] [--sizes 64MiB,256MiB,1GiB] [--warmup 5] [--iters 20]
                                           [--small-warmup 100] [--small-iters 1000] [--ops all_reduce,...]

For each op and size: one untimed call on fresh inputs whose result is checked element by
element (small integers, exact in float32), W warm-up calls, a barrier, then I timed calls
between a CUDA event pair on the current stream (nccl-tests' method: the pair brackets the whole
loop; time per op = elapsed / I), each rank's time averaged over ranks. Then all_reduce of 8 B
(2 float32) with 100 warm-up and 1000 timed calls. Rank 0 prints one line per measurement:

    RESULT op=all_reduce bytes=67108864 count=16777216 warmup=5 iters=20 time_us=... time_max_us=... algbw=... busbw=... wrong=0 time_ev_us=...

time_us (mean over ranks; time_max_us the max over ranks) is what algbw and busbw come from.
time_ev_us is a second timed loop of I calls timed the way clab times them: a CUDA event pair
around each call, the mean of those; it leaves out gaps between calls (the GPU waiting for the
host), which matters for the 8 B all_reduce only.

bytes (what algbw divides; clab's `bytes`):
    all_reduce, broadcast, reduce, all_to_all_single, send  the tensor (count = bytes / 4)
    all_gather_into_tensor   the gathered output tensor; each rank's input is bytes / W
    reduce_scatter_tensor    the input tensor; each rank's output is bytes / W
    gather, scatter          the root's whole list (W tensors of bytes / W each)
busbw = algbw x 2(W-1)/W for all_reduce; (W-1)/W for all_gather_into_tensor,
reduce_scatter_tensor, all_to_all_single, gather, scatter; 1 for broadcast, reduce, send.
GB = 1e9 B. Roots: 0; send goes 0 -> 1 (rank 0 dist.send, rank 1 dist.recv).

Ranks are spawned with torch.multiprocessing and meet over tcp://127.0.0.1:<free port>.
NCCL_NVLS_ENABLE defaults to 0 here (as in run.sh).
"""
import argparse
import os
import re
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout by the import below
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_common import free_port, require_gpus  # noqa: E402  (bench/torch_common.py)

OPS = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "reduce",
       "all_to_all_single", "gather", "scatter", "send"]


def bus_factor(op, w):
    if op == "all_reduce":
        return 2.0 * (w - 1) / w
    if op in ("all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single", "gather", "scatter"):
        return (w - 1) / w
    return 1.0


def setup(op, nbytes, rank, w, dev):
    """-> (call, check): call() issues the op once; check() counts wrong elements after the first call."""
    n = nbytes // 4          # elements behind `bytes`
    c = n // w               # per-rank share for the ops that split or assemble a tensor
    S = 1000.0 * w * (w - 1) / 2

    def val(r, count, offset=0):
        # Rank r's element i: (i mod 64) + 1000 r, exact in float32; sums over ranks stay exact.
        return (torch.arange(offset, offset + count, device=dev, dtype=torch.int32) % 64).to(torch.float32) + 1000.0 * r

    def bad(got, expect):
        return int((got != expect).sum().item())

    if op == "all_reduce":
        t = val(rank, n)
        return (lambda: dist.all_reduce(t, op=dist.ReduceOp.SUM),
                lambda: bad(t, val(0, n) * w + S))
    if op == "all_gather_into_tensor":
        inp, out = val(rank, c), torch.empty(c * w, device=dev)
        return (lambda: dist.all_gather_into_tensor(out, inp),
                lambda: sum(bad(out[j * c:(j + 1) * c], val(j, c)) for j in range(w)))
    if op == "reduce_scatter_tensor":
        inp, out = val(rank, c * w), torch.empty(c, device=dev)
        return (lambda: dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.SUM),
                lambda: bad(out, val(0, c, rank * c) * w + S))
    if op == "broadcast":
        t = val(rank, n)
        return (lambda: dist.broadcast(t, src=0),
                lambda: bad(t, val(0, n)))
    if op == "reduce":
        t = val(rank, n)
        return (lambda: dist.reduce(t, dst=0, op=dist.ReduceOp.SUM),
                lambda: bad(t, val(0, n) * w + S) if rank == 0 else 0)
    if op == "all_to_all_single":
        inp, out = val(rank, c * w), torch.empty(c * w, device=dev)
        # Chunk j of rank r's output is chunk r of rank j's input.
        return (lambda: dist.all_to_all_single(out, inp),
                lambda: sum(bad(out[j * c:(j + 1) * c], val(j, c, rank * c)) for j in range(w)))
    if op == "gather":
        inp = val(rank, c)
        outs = [torch.empty(c, device=dev) for _ in range(w)] if rank == 0 else None
        return (lambda: dist.gather(inp, gather_list=outs, dst=0),
                lambda: sum(bad(outs[j], val(j, c)) for j in range(w)) if rank == 0 else 0)
    if op == "scatter":
        out = torch.empty(c, device=dev)
        ins = [val(j, c) for j in range(w)] if rank == 0 else None
        return (lambda: dist.scatter(out, scatter_list=ins, src=0),
                lambda: bad(out, val(rank, c)))
    if op == "send":
        t = val(0, n) if rank == 0 else torch.empty(n, device=dev)
        if rank == 0:
            return (lambda: dist.send(t, dst=1)), (lambda: 0)
        if rank == 1:
            return (lambda: dist.recv(t, src=0)), (lambda: bad(t, val(0, n)))
        return (lambda: None), (lambda: 0)
    raise ValueError(op)


def measure(op, nbytes, warmup, iters, rank, w, dev):
    call, check = setup(op, nbytes, rank, w, dev)
    call()  # untimed, on fresh inputs: the one that is checked
    torch.cuda.synchronize()
    wrong = torch.tensor([check()], dtype=torch.int64, device=dev)
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        call()
    end.record()
    end.synchronize()
    torch.cuda.synchronize()
    us = start.elapsed_time(end) * 1e3 / iters

    # The same again, timed the way clab times: an event pair around each call, mean of the
    # pairs' times (leaves out any gap between calls, e.g. while the GPU waits for the host).
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    dist.barrier()
    torch.cuda.synchronize()
    for a, b in pairs:
        a.record()
        call()
        b.record()
    torch.cuda.synchronize()
    ev_us = sum(a.elapsed_time(b) for a, b in pairs) * 1e3 / iters

    tsum = torch.tensor([us, ev_us], dtype=torch.float64, device=dev)
    tmax = tsum.clone()
    dist.all_reduce(tsum, op=dist.ReduceOp.SUM)
    dist.all_reduce(tmax, op=dist.ReduceOp.MAX)
    dist.all_reduce(wrong, op=dist.ReduceOp.SUM)
    if rank == 0:
        avg = tsum[0].item() / w
        algbw = nbytes / (avg * 1e3)
        busbw = algbw * bus_factor(op, w)
        print(f"RESULT op={op} bytes={nbytes} count={nbytes // 4} warmup={warmup} iters={iters} "
              f"time_us={avg:.2f} time_max_us={tmax[0].item():.2f} algbw={algbw:.3f} busbw={busbw:.3f} "
              f"wrong={int(wrong.item())} time_ev_us={tsum[1].item() / w:.2f}", flush=True)
    bad = int(wrong.item())
    del call, check
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return bad


def worker(rank, w, port, a):
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    kw = dict(backend="nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=w)
    try:
        dist.init_process_group(**kw, device_id=dev)  # eager NCCL init (torch >= 2.3)
    except TypeError:
        dist.init_process_group(**kw)
    wrong = 0
    for op in a.ops:
        for nbytes in a.sizes:
            wrong += measure(op, nbytes, a.warmup, a.iters, rank, w, dev)
    if a.small_iters > 0:
        wrong += measure("all_reduce", 8, a.small_warmup, a.small_iters, rank, w, dev)
    dist.barrier()
    dist.destroy_process_group()
    if wrong:
        sys.exit(1)


def parse_size(s):
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]i?B|B)?\s*", s)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {s!r} (e.g. 64MiB, 1GiB, 8B)")
    mult = {None: 1, "B": 1, "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9}[m.group(2)]
    return int(m.group(1)) * mult


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2, help="world size, one GPU each (default 2)")
    ap.add_argument("--sizes", default="64MiB,256MiB,1GiB", help="bytes per measurement, comma-separated (default 64MiB,256MiB,1GiB)")
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of: " + ", ".join(OPS))
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--small-warmup", type=int, default=100, help="warm-up calls for all_reduce 8 B (default 100)")
    ap.add_argument("--small-iters", type=int, default=1000, help="timed calls for all_reduce 8 B (default 1000; 0 skips it)")
    a = ap.parse_args()
    a.sizes = [parse_size(s) for s in a.sizes.split(",") if s.strip()]
    a.ops = [o.strip() for o in a.ops.split(",") if o.strip()]
    for o in a.ops:
        if o not in OPS:
            sys.exit(f"unknown op {o!r}; choose from {', '.join(OPS)}")
    for b in a.sizes:
        if b <= 0 or b % (4 * a.ranks):
            sys.exit(f"size {b} B must be a positive multiple of 4 x ranks")
    if a.ranks < 2:
        sys.exit("--ranks must be at least 2")
    require_gpus(a.ranks)
    mp.spawn(worker, args=(a.ranks, free_port(), a), nprocs=a.ranks, join=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The classic torch.distributed learning script, on NCCL (one GPU per rank): the peer of

    clab run scenarios/all-in-one.scenario.json --ranks 2 --backend nccl

It runs the same operations, in the same order, with the same inputs (see that file), prints
every result as `[Rank r] op: [values]`, and checks each against the value it must have.
Timed from outside, process start to exit (python start-up, `import torch`, spawning the
ranks, CUDA and NCCL initialisation, the operations, shutdown), as `clab run` is.

    python3 bench/gpu/torch_all_in_one.py [--ranks 2] [--quiet]

Ranks are spawned with torch.multiprocessing (as in the PyTorch tutorial), each calls
torch.cuda.set_device(rank) and meets the others over env:// (MASTER_ADDR=127.0.0.1, a free
port) with init_process_group("nccl", device_id=...), which is what torch's documentation
recommends and makes the NCCL communicator up front. Every operation runs natively on NCCL
(ReduceOp.AVG, reduce_scatter, all_to_all, gather, scatter, the object collectives included):
no emulation, unlike bench/cpu/torch_all_in_one.py on gloo. Tensors live on the rank's GPU;
results are copied back to print and check them, as a learner's print() does.

NCCL_NVLS_ENABLE defaults to 0 here (as in run.sh).
"""
import argparse
import math
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

QUIET = False
DEV = None  # this rank's GPU


def say(line):
    # One write per line, so the ranks' lines do not interleave mid-line on a shared stdout.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def fmt(v):
    """[2, 4, 6] for integral floats, [1.5, 2.5] otherwise; lists of tensors as nested lists."""
    if isinstance(v, torch.Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return repr(v) if isinstance(v, str) else str(v)


class Report:
    def __init__(self, rank):
        self.rank = rank
        self.wrong = 0

    def show(self, name, got, expect, note=""):
        g = got.tolist() if isinstance(got, torch.Tensor) else (
            [t.tolist() for t in got] if isinstance(got, list) and got and isinstance(got[0], torch.Tensor) else got)
        ok = g == expect
        if not ok:
            self.wrong += 1
        if not QUIET or not ok:
            tail = "" if ok else f"   WRONG, expected {fmt(expect)}"
            say(f"[Rank {self.rank}] {name}: {fmt(got)}{tail}{note}")


def arange(n, start=0.0, step=1.0, rank=0, rank_stride=0.0):
    return torch.tensor([start + step * i + rank_stride * rank for i in range(n)], dtype=torch.float32, device=DEV)


def full(n, value):
    return torch.full((n,), value, dtype=torch.float32, device=DEV)


def empty(n):
    return torch.empty(n, dtype=torch.float32, device=DEV)


def run(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    try:
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=DEV)
    except TypeError:  # torch < 2.3: no device_id
        dist.init_process_group("nccl", rank=rank, world_size=world)
    R = Report(rank)
    W = world
    ranks = range(W)

    # broadcast: rank r holds [1+r, 2+r, 3+r]; root 0's tensor wins.
    t = arange(3, 1, rank=rank, rank_stride=1)
    dist.broadcast(t, src=0)
    R.show("broadcast", t, [1.0, 2.0, 3.0])

    # all_reduce sum of [1, 2, 3] on every rank.
    t = arange(3, 1)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    R.show("all_reduce sum", t, [1.0 * W, 2.0 * W, 3.0 * W])

    # "out of place": torch's all_reduce is always in place; a learner reduces a copy.
    inp = arange(3, 1)
    out = inp.clone()
    dist.all_reduce(out, op=dist.ReduceOp.SUM)
    R.show("all_reduce (out of place)", out, [1.0 * W, 2.0 * W, 3.0 * W],
           "   (torch has no out-of-place all_reduce: reduced a clone; input kept " + fmt(inp) + ")")

    # prod / min / max / avg of [1+r, 2+r, 3+r].
    per_rank = [[i + 1.0 + r for i in range(3)] for r in ranks]
    col = list(zip(*per_rank))
    for name, op, ref in (("prod", dist.ReduceOp.PRODUCT, [float(math.prod(c)) for c in col]),
                          ("min", dist.ReduceOp.MIN, [min(c) for c in col]),
                          ("max", dist.ReduceOp.MAX, [max(c) for c in col])):
        t = arange(3, 1, rank=rank, rank_stride=1)
        dist.all_reduce(t, op=op)
        R.show(f"all_reduce {name}", t, ref)
    t = arange(3, 1, rank=rank, rank_stride=1)
    avg_ref = [float(torch.tensor(c, dtype=torch.float32).sum() / W) for c in col]
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    R.show("all_reduce avg", t, avg_ref)

    # reduce sum to root 0 of [1, 2, 3].
    t = arange(3, 1)
    dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
    if rank == 0:
        R.show("reduce sum (root 0)", t, [1.0 * W, 2.0 * W, 3.0 * W])

    # all_gather: rank r contributes [r+1, r+1].
    t = full(2, rank + 1.0)
    outs = [empty(2) for _ in ranks]
    dist.all_gather(outs, t)
    R.show("all_gather", outs, [[r + 1.0] * 2 for r in ranks])

    # all_gather_into_tensor: rank r contributes [10r, 10r+1].
    t = arange(2, 0, rank=rank, rank_stride=10)
    out = empty(2 * W)
    dist.all_gather_into_tensor(out, t)
    R.show("all_gather_into_tensor", out, [10.0 * r + i for r in ranks for i in range(2)])

    # gather to root 0: rank r sends [10r, 10r].
    t = full(2, 10.0 * rank)
    outs = [empty(2) for _ in ranks] if rank == 0 else None
    dist.gather(t, gather_list=outs, dst=0)
    if rank == 0:
        R.show("gather (root 0)", outs, [[10.0 * r] * 2 for r in ranks])

    # scatter from root 0: its list is [1, 2], [3, 4], ... (one 2-element tensor per rank).
    out = empty(2)
    src = list(arange(2 * W, 1).chunk(W)) if rank == 0 else None
    dist.scatter(out, scatter_list=src, src=0)
    R.show("scatter (root 0)", out, [2.0 * rank + 1, 2.0 * rank + 2])

    # reduce_scatter: input list of W tensors of 2 = [1, 2, ..., 2W] on every rank; rank r gets W × slice r.
    inp = arange(2 * W, 1)
    out = empty(2)
    dist.reduce_scatter(out, list(inp.chunk(W)), op=dist.ReduceOp.SUM)
    R.show("reduce_scatter", out, [W * (2.0 * rank + 1), W * (2.0 * rank + 2)])

    # reduce_scatter_tensor: rank r input [r, r+1, ..., r+11]; rank r gets the reduced r-th 12/W slice.
    inp = arange(12, 0, rank=rank, rank_stride=1)
    c = 12 // W
    out = empty(c)
    dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.SUM)
    R.show("reduce_scatter_tensor", out, [float(sum(rr + rank * c + i for rr in ranks)) for i in range(c)])

    # all_to_all (lists): rank r's list entry j is [100r + j]; it goes to rank j.
    ins = list(arange(W, 0, rank=rank, rank_stride=100).chunk(W))
    outs = [empty(1) for _ in ranks]
    dist.all_to_all(outs, ins)
    R.show("all_to_all", outs, [[100.0 * j + rank] for j in ranks])

    # all_to_all_single: rank r holds [100r, ..., 100r+11]; chunk j (12/W elements) goes to rank j.
    inp = arange(12, 0, rank=rank, rank_stride=100)
    out = empty(12)
    dist.all_to_all_single(out, inp)
    R.show("all_to_all_single", out, [100.0 * j + rank * c + i for j in ranks for i in range(c)])

    # send/recv 0 → 1: [1, 2, 3].
    if rank == 0:
        dist.send(arange(3, 1), dst=1)
    elif rank == 1:
        t = empty(3)
        dist.recv(t, src=0)
        R.show("send/recv 0→1", t, [1.0, 2.0, 3.0])

    # isend/irecv 1 → 0: [7, 8, 9], then wait.
    if rank == 1:
        req = dist.isend(arange(3, 7), dst=0)
        req.wait()
    elif rank == 0:
        t = empty(3)
        req = dist.irecv(t, src=1)
        req.wait()
        R.show("isend/irecv 1→0", t, [7.0, 8.0, 9.0])

    # exchange 0 ⇄ 1 in a group: 0 sends [5, 5], 1 sends [6, 6], at the same time.
    if rank in (0, 1):
        peer = 1 - rank
        t = empty(2)
        ops = [dist.P2POp(dist.isend, full(2, 5.0 if rank == 0 else 6.0), peer),
               dist.P2POp(dist.irecv, t, peer)]
        for q in dist.batch_isend_irecv(ops):
            q.wait()
        R.show("exchange 0⇄1 in a group (batch_isend_irecv)", t, [6.0, 6.0] if rank == 0 else [5.0, 5.0])

    # all_reduce (async_op=True) of [r+1] × 3, then wait.
    t = full(3, rank + 1.0)
    work = dist.all_reduce(t, op=dist.ReduceOp.SUM, async_op=True)
    work.wait()
    s = float(sum(r + 1 for r in ranks))
    R.show("all_reduce (async_op=True)", t, [s, s, s])

    dist.barrier()
    if not QUIET:
        say(f"[Rank {rank}] barrier: passed")

    # broadcast_object_list from root 0.
    objs = [{"msg": "hello from rank 0", "step": 1}] if rank == 0 else [None]
    dist.broadcast_object_list(objs, src=0)
    R.show("broadcast_object_list", objs, [{"msg": "hello from rank 0", "step": 1}])

    # all_gather_object: rank r has {"rank": r} (objects[r % 4] in the scenario).
    scen = [{"rank": 0}, {"rank": 1}, {"rank": 2}, {"rank": 3}]
    outs = [None] * W
    dist.all_gather_object(outs, scen[rank % 4])
    R.show("all_gather_object", outs, [scen[r % 4] for r in ranks])

    # gather_object to root 0: "rank r".
    names = ["rank 0", "rank 1", "rank 2", "rank 3"]
    outs = [None] * W if rank == 0 else None
    dist.gather_object(names[rank % 4], outs, dst=0)
    if rank == 0:
        R.show("gather_object (root 0)", outs, [names[r % 4] for r in ranks])

    # scatter_object_list from root 0: rank j gets {"for": j}.
    scen = [{"for": 0}, {"for": 1}, {"for": 2}, {"for": 3}]
    out = [None]
    dist.scatter_object_list(out, [scen[j % 4] for j in ranks] if rank == 0 else None, src=0)
    R.show("scatter_object_list (root 0)", out, [scen[rank % 4]])

    bad = torch.tensor([R.wrong], device=DEV)
    dist.all_reduce(bad, op=dist.ReduceOp.SUM)
    if rank == 0:
        print(f"RESULT all_in_one ranks={W} backend=nccl wrong={int(bad.item())}", flush=True)
    dist.destroy_process_group()
    if bad.item():
        sys.exit(1)


def worker(rank, world, port, quiet):
    global QUIET, DEV
    QUIET = quiet
    DEV = torch.device("cuda", rank)
    run(rank, world, port)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2, help="world size (2, 3, 4 or 6; default 2)")
    ap.add_argument("--quiet", action="store_true", help="print only wrong results and the RESULT line")
    a = ap.parse_args()
    if a.ranks < 2 or 12 % a.ranks:
        sys.exit("--ranks must be 2, 3, 4 or 6 (the scenario's counts are multiples of 12)")
    if not torch.cuda.is_available() or not dist.is_nccl_available():
        sys.exit("needs CUDA and NCCL in torch")
    if torch.cuda.device_count() < a.ranks:
        sys.exit(f"--ranks {a.ranks} needs {a.ranks} GPUs; {torch.cuda.device_count()} visible")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    mp.spawn(worker, args=(a.ranks, free_port(), a.quiet), nprocs=a.ranks, join=True)


if __name__ == "__main__":
    main()

"""What the torch.distributed peers in bench/cpu and bench/gpu share: the all-in-one learning
script's operations, inputs and checks (the peer of scenarios/all-in-one.scenario.json), its
`[Rank r] op: [values]` output, and the start-up both sides do alike (a free port, the GPU checks).

The scripts import it from the folder above their own:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torch_common

torch.multiprocessing's spawned ranks get the same sys.path, so they import it too.
"""
import argparse
import math
import os
import socket
import sys

import torch
import torch.distributed as dist


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


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_gpus(ranks):
    """Exits unless torch has CUDA and NCCL and `ranks` GPUs; NCCL_NVLS_ENABLE defaults to 0 (as in bench/gpu/run.sh)."""
    if not torch.cuda.is_available() or not dist.is_nccl_available():
        sys.exit("needs CUDA and NCCL in torch")
    if torch.cuda.device_count() < ranks:
        sys.exit(f"--ranks {ranks} needs {ranks} GPUs; {torch.cuda.device_count()} visible")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")


def all_in_one_args(doc):
    """The all-in-one scripts' command line: --ranks (2, 3, 4 or 6) and --quiet."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2, help="world size (2, 3, 4 or 6; default 2)")
    ap.add_argument("--quiet", action="store_true", help="print only wrong results and the RESULT line")
    a = ap.parse_args()
    if a.ranks < 2 or 12 % a.ranks:
        sys.exit("--ranks must be 2, 3, 4 or 6 (the scenario's counts are multiples of 12)")
    return a


class Report:
    """One rank's results: each printed (unless quiet, or wrong) and checked against its expected value."""

    def __init__(self, rank, quiet):
        self.rank = rank
        self.quiet = quiet
        self.wrong = 0

    def show(self, name, got, expect, note=""):
        g = got.tolist() if isinstance(got, torch.Tensor) else (
            [t.tolist() for t in got] if isinstance(got, list) and got and isinstance(got[0], torch.Tensor) else got)
        ok = g == expect
        if not ok:
            self.wrong += 1
        if not self.quiet or not ok:
            tail = "" if ok else f"   WRONG, expected {fmt(expect)}"
            say(f"[Rank {self.rank}] {name}: {fmt(got)}{tail}{note}")


class AllInOne:
    """The all-in-one script's operations on one rank, its tensors float32 on `device` (None: the CPU).

    `emulates`: the backend's name where it may refuse an operation (gloo); the operation is then
    done the way a learner would, and its line says so. None: every operation runs natively.
    """

    def __init__(self, rank, world, report, device=None, emulates=None):
        self.rank, self.world, self.R, self.dev, self.emulates = rank, world, report, device, emulates

    def arange(self, n, start=0.0, step=1.0, rank=0, rank_stride=0.0):
        return torch.tensor([start + step * i + rank_stride * rank for i in range(n)], dtype=torch.float32, device=self.dev)

    def full(self, n, value):
        return torch.full((n,), value, dtype=torch.float32, device=self.dev)

    def empty(self, n):
        return torch.empty(n, dtype=torch.float32, device=self.dev)

    def native_or_emulated(self, name, ref, native, emulated, how):
        """Shows what `native()` gives; where the backend refuses it, what `emulated()` gives, saying how.

        Both return the output to show (torch's synchronous calls return None: `call() or out`).
        """
        if not self.emulates:
            self.R.show(name, native(), ref)
            return
        try:
            self.R.show(name, native(), ref)
        except RuntimeError as e:
            self.R.show(name, emulated(), ref, f'   ({self.emulates}: "{str(e).splitlines()[0]}"; emulated: {how})')

    def run(self, result_line):
        """Runs every operation, then prints `result_line` and ` wrong=N` on rank 0; exits 1 where any was wrong."""
        self.collectives()
        self.point_to_point()
        self.objects()
        bad = torch.tensor([self.R.wrong], device=self.dev)
        dist.all_reduce(bad, op=dist.ReduceOp.SUM)
        if self.rank == 0:
            print(f"{result_line} wrong={int(bad.item())}", flush=True)
        dist.destroy_process_group()
        if bad.item():
            sys.exit(1)

    def collectives(self):
        rank, W, R = self.rank, self.world, self.R
        ranks = range(W)
        arange, full, empty = self.arange, self.full, self.empty

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

        def avg_by_sum():
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
            t.div_(W)
            return t

        self.native_or_emulated("all_reduce avg", [float(torch.tensor(c, dtype=torch.float32).sum() / W) for c in col],
                                lambda: dist.all_reduce(t, op=dist.ReduceOp.AVG) or t, avg_by_sum, "all_reduce sum, then / world)")

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
        self.native_or_emulated("all_gather_into_tensor", [10.0 * r + i for r in ranks for i in range(2)],
                                lambda: dist.all_gather_into_tensor(out, t) or out,
                                lambda: dist.all_gather(list(out.chunk(W)), t) or out,
                                "all_gather into views of one output tensor)")

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
        self.native_or_emulated("reduce_scatter", [W * (2.0 * rank + 1), W * (2.0 * rank + 2)],
                                lambda: dist.reduce_scatter(out, list(inp.chunk(W)), op=dist.ReduceOp.SUM) or out,
                                lambda: self.own_slice_of_sum(inp, out), "all_reduce of the whole list, keep own slice)")

        # reduce_scatter_tensor: rank r input [r, r+1, ..., r+11]; rank r gets the reduced r-th 12/W slice.
        inp = arange(12, 0, rank=rank, rank_stride=1)
        c = 12 // W
        out = empty(c)
        self.native_or_emulated("reduce_scatter_tensor", [float(sum(rr + rank * c + i for rr in ranks)) for i in range(c)],
                                lambda: dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.SUM) or out,
                                lambda: self.own_slice_of_sum(inp, out), "all_reduce of the tensor, keep own slice)")

        # all_to_all (lists): rank r's list entry j is [100r + j]; it goes to rank j.
        inp = arange(W, 0, rank=rank, rank_stride=100)
        outs = [empty(1) for _ in ranks]

        def all_to_all_single_on_list():
            flat = empty(W)
            dist.all_to_all_single(flat, inp)
            return list(flat.chunk(W))

        self.native_or_emulated("all_to_all", [[100.0 * j + rank] for j in ranks],
                                lambda: dist.all_to_all(outs, list(inp.chunk(W))) or outs, all_to_all_single_on_list,
                                "all_to_all_single on the concatenated list)")

        # all_to_all_single: rank r holds [100r, ..., 100r+11]; chunk j (12/W elements) goes to rank j.
        inp = arange(12, 0, rank=rank, rank_stride=100)
        out = empty(12)

        def per_peer():
            reqs = []
            for j in ranks:
                if j == rank:
                    out.chunk(W)[j].copy_(inp.chunk(W)[j])
                else:
                    reqs.append(dist.isend(inp.chunk(W)[j].contiguous(), j))
                    reqs.append(dist.irecv(out.chunk(W)[j], j))
            for q in reqs:
                q.wait()
            return out

        self.native_or_emulated("all_to_all_single", [100.0 * j + rank * c + i for j in ranks for i in range(c)],
                                lambda: dist.all_to_all_single(out, inp) or out, per_peer, "isend/irecv per peer)")

    def own_slice_of_sum(self, inp, out):
        full = inp.clone()
        dist.all_reduce(full, op=dist.ReduceOp.SUM)
        out.copy_(full.chunk(self.world)[self.rank])
        return out

    def point_to_point(self):
        rank, W, R = self.rank, self.world, self.R
        arange, full, empty = self.arange, self.full, self.empty

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
        s = float(sum(r + 1 for r in range(W)))
        R.show("all_reduce (async_op=True)", t, [s, s, s])

        dist.barrier()
        if not R.quiet:
            say(f"[Rank {rank}] barrier: passed")

    def objects(self):
        rank, W, R = self.rank, self.world, self.R
        ranks = range(W)

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
